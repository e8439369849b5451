import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';

const NO_STORE = 'no-store, max-age=0';
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * Serves the built web app under /react: hashed assets cached for a year, index.html never;
 * any other /react/* path falls back to the app. `/` redirects to /react. Unknown /api paths
 * answer a JSON 404.
 */
export async function registerWebApp(app: FastifyInstance, distDir: string): Promise<void> {
  const indexFile = path.join(distDir, 'index.html');
  const hasBuild = fs.existsSync(indexFile);
  if (!hasBuild) app.log.warn({ distDir }, 'web app not built: run `npm run build` to serve the portal');

  if (hasBuild) {
    await app.register(fastifyStatic, {
      root: distDir,
      prefix: '/react/',
      index: false,
      wildcard: true,
      cacheControl: false,
      setHeaders(res, filePath) {
        const rel = path.relative(distDir, filePath);
        res.header('cache-control', rel.startsWith(`assets${path.sep}`) ? IMMUTABLE : NO_STORE);
      },
    });
  }

  const sendIndex = (reply: FastifyReply) => {
    if (!hasBuild) {
      return reply
        .status(503)
        .type('text/plain')
        .send('The web app is not built. Run `npm run build` (npm start does it for you).');
    }
    return reply.header('cache-control', NO_STORE).type('text/html').send(fs.createReadStream(indexFile));
  };

  app.get('/', (_req, reply) => reply.redirect('/react'));
  app.get('/react', (_req, reply) => sendIndex(reply));
  app.get('/react/', (_req, reply) => sendIndex(reply));

  app.setNotFoundHandler((request, reply) => {
    const pathname = request.url.split('?')[0] ?? '';
    if ((request.method === 'GET' || request.method === 'HEAD') && pathname.startsWith('/react/') && !pathname.startsWith('/react/assets/')) {
      return sendIndex(reply);
    }
    return reply.status(404).send({ status: 'FAIL', errors: [`Route ${request.method} ${pathname} not found`] });
  });
}
