import fs from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import type { WebSocket } from 'ws';
import { z } from 'zod';
import { LiveCode, LiveFailReason, LiveMessages, LivePaths, LiveProtocol, LiveRates, ZLiveEndRequest, ZLivePageConfig, ZLiveResumeRequest, ZLiveStartAnswer, ZLiveStartRequest } from '@persona/contract';
import { AppError } from '../../lib/app-error.js';
import { cspHeaderValue, portalCspDirectives, type ConnectSources } from '../../plugins/security-headers.js';
import { frameAncestorsFor, isFramedByRefusedSite } from './embedding.js';
import type { LiveSessionsService } from './service.js';

/** Where the embedded worker takes the page sockets that reach the portal's own port. */
export interface LiveSocketHost {
  accept: ((socket: WebSocket, ip: string) => void) | null;
}

const ZAvatarParam = z.object({ id: z.coerce.number().int().positive().max(2_147_483_647) });
const NO_STORE = 'no-store, max-age=0';

export function liveSessionRoutes(deps: { live: LiveSessionsService; publicUrl: string; csp: ConnectSources; webDistDir: string }) {
  const { live } = deps;
  const portalOrigin = new URL(deps.publicUrl).origin;
  const avatarHtml = path.join(deps.webDistDir, 'avatar.html');
  const refusedHtml = path.join(deps.webDistDir, 'avatar-refused.html');
  // The refusal page (a site not on the avatar's list framed it): frameable anywhere, nothing to click, no calls.
  const refusedCsp = cspHeaderValue(portalCspDirectives(deps.csp, { frameAncestors: ['*'], connectSrc: ["'none'"], formAction: ["'none'"], frameSrc: ["'none'"] }));
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const header = (v: string | string[] | undefined) => (typeof v === 'string' ? v : undefined);

    app.get(
      LivePaths.pageConfig(':id'),
      { config: { rateLimit: { max: 120, timeWindow: '1 minute' } }, schema: { tags: ['live'], params: ZAvatarParam, response: { 200: ZLivePageConfig } } },
      async (req, reply) => {
        reply.header('cache-control', 'no-cache');
        return live.pageConfig(req.params.id);
      },
    );

    // What a visitor's sessions cost (a wake-up, the brain's login, a realtime connection) is bounded per address and per session (LiveRates).
    app.post(
      LivePaths.start,
      { config: { rateLimit: { max: LiveRates.startsPerIpPerMinute, timeWindow: '1 minute' } }, schema: { tags: ['live'], body: ZLiveStartRequest, response: { 200: ZLiveStartAnswer } } },
      async (req) => live.start(req.body, { ip: req.ip, origin: header(req.headers.origin), referer: header(req.headers.referer), portalOrigin }),
    );

    const resumesOfSession = fastify.createRateLimit({
      max: LiveRates.resumesPerSessionPerMinute,
      timeWindow: '1 minute',
      keyGenerator: (req) => `live-resume:${(req.body as { sessionId: string }).sessionId}`,
    });
    app.post(
      LivePaths.resume,
      {
        config: { rateLimit: { max: LiveRates.resumesPerIpPerMinute, timeWindow: '1 minute' } },
        schema: { tags: ['live'], body: ZLiveResumeRequest, response: { 200: ZLiveStartAnswer } },
        // Each resume opens the conversation again on a worker: one session, from any number of addresses, only so often.
        preHandler: async (req) => {
          const verdict = await resumesOfSession(req);
          if (!verdict.isAllowed && verdict.isExceeded) throw new AppError(429, LiveMessages['rate-limited'], LiveFailReason['rate-limited'], { code: LiveCode.rateLimited });
        },
      },
      async (req) => live.resume(req.body),
    );

    app.post(
      LivePaths.end,
      { config: { rateLimit: { max: 60, timeWindow: '1 minute' } }, schema: { tags: ['live'], body: ZLiveEndRequest } },
      async (req) => {
        await live.end(req.body);
        return { status: 'OK' as const };
      },
    );

    // The avatar page: embeddable where the avatar allows it (frame-ancestors: its allowed origins
    // and the portal; '*' when no list). A frame of a site not on the list gets the refusal page
    // (embedding.ts, ADR 085).
    app.get(LivePaths.page(':id'), { schema: { hide: true } }, async (req, reply) => {
      const id = /^[1-9]\d{0,9}$/.test((req.params as { id: string }).id) ? Number((req.params as { id: string }).id) : null;
      // Not an avatar id at all: no page (an unknown but valid id gets the page, which says so).
      if (id === null || id > 2_147_483_647) return reply.status(404).type('text/plain').send('Not found');
      const allowed = (await live.frameAncestors(id)) ?? [];
      const refused = isFramedByRefusedSite(allowed, { secFetchDest: header(req.headers['sec-fetch-dest']), referer: header(req.headers.referer) }, [portalOrigin, `${req.protocol}://${req.host}`]);
      reply.removeHeader('x-frame-options');
      reply.header('content-security-policy', refused ? refusedCsp : cspHeaderValue(portalCspDirectives(deps.csp, { frameAncestors: frameAncestorsFor(allowed, portalOrigin) })));
      reply.header('cache-control', NO_STORE);
      reply.header('vary', 'Sec-Fetch-Dest, Referer');
      const file = refused ? refusedHtml : avatarHtml;
      if (!fs.existsSync(file)) {
        return reply.status(503).type('text/plain').send('The avatar page is not built. Run `npm run build` (npm start does it for you).');
      }
      return reply.type('text/html').send(fs.createReadStream(file));
    });

  };
}

/** The embedded worker's page socket, on the portal's own port (in the websocket plugin's scope: see app.ts). */
export function liveSocketRoutes(deps: { sockets: LiveSocketHost }) {
  return async function plugin(app: FastifyInstance) {
    app.get(LivePaths.workerSocket, { websocket: true, schema: { hide: true } }, (socket, req) => {
      if (!deps.sockets.accept) {
        socket.close(LiveProtocol.close.goingAway, 'no embedded worker');
        return;
      }
      deps.sockets.accept(socket, req.ip);
    });
  };
}
