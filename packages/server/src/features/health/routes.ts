import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ZHealth } from '@persona/contract';

/** How long a database check is reused: load balancers may poll health many times a second. */
const CHECK_TTL_MS = 1000;

export function healthRoutes(deps: { ping: () => Promise<void> }) {
  const started = Date.now();
  let last: { at: number; ok: Promise<boolean> } | undefined;
  // At most one database round trip per second, shared by concurrent requests.
  const check = () => {
    const now = Date.now();
    if (!last || now - last.at >= CHECK_TTL_MS) {
      last = {
        at: now,
        ok: deps.ping().then(
          () => true,
          () => false,
        ),
      };
    }
    return last.ok;
  };
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.get(
      '/api/health',
      { logLevel: 'warn', schema: { tags: ['system'], response: { 200: ZHealth, 503: ZHealth } } },
      async (_req, reply) => {
        const uptimeSeconds = Math.round((Date.now() - started) / 1000);
        if (await check()) return { status: 'OK' as const, database: 'up' as const, uptimeSeconds };
        _req.log.error('health check: database unreachable');
        return reply.status(503).send({ status: 'FAIL' as const, database: 'down' as const, uptimeSeconds });
      },
    );
  };
}
