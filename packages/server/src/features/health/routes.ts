import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ErrorMessages, ZHealth } from '@persona/contract';

/** How long a check is reused: load balancers may poll health many times a second. */
const CHECK_TTL_MS = 1000;
/** What a client (a load balancer) is told to wait before asking again while the database is down. */
const RETRY_AFTER_SECONDS = 5;

/** A check run at most once per CHECK_TTL_MS, shared by concurrent requests; true when the dependency answered. */
function cachedCheck(ping: () => Promise<void>) {
  let last: { at: number; ok: Promise<boolean> } | undefined;
  return () => {
    const now = Date.now();
    if (!last || now - last.at >= CHECK_TTL_MS) {
      last = {
        at: now,
        ok: ping().then(
          () => true,
          () => false,
        ),
      };
    }
    return last.ok;
  };
}

/**
 * GET /api/health (public): whether this instance can serve, and which of its dependencies is
 * down — up/down only; the reasons go to the log. The database down makes it a 503 (take the
 * instance out of rotation); Redis down does not (every instance shares it, and the portal works
 * on without it: ADR 078).
 */
export function healthRoutes(deps: { ping: () => Promise<void>; pingRedis?: () => Promise<void> }) {
  const started = Date.now();
  const checkDatabase = cachedCheck(deps.ping);
  const checkRedis = deps.pingRedis ? cachedCheck(deps.pingRedis) : null;
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.get(
      '/api/health',
      { logLevel: 'warn', schema: { tags: ['system'], response: { 200: ZHealth, 503: ZHealth } } },
      async (req, reply) => {
        const [isDatabaseUp, isRedisUp] = await Promise.all([checkDatabase(), checkRedis?.()]);
        const uptimeSeconds = Math.round((Date.now() - started) / 1000);
        const redis = isRedisUp === undefined ? {} : { redis: isRedisUp ? ('up' as const) : ('down' as const) };
        if (isRedisUp === false) req.log.warn('health check: Redis unreachable');
        if (isDatabaseUp) return { status: 'OK' as const, database: 'up' as const, ...redis, uptimeSeconds };
        req.log.error('health check: database unreachable');
        return reply
          .status(503)
          .header('retry-after', String(RETRY_AFTER_SECONDS))
          .send({ status: 'FAIL' as const, database: 'down' as const, ...redis, uptimeSeconds, errors: [ErrorMessages.serviceUnavailable] });
      },
    );
  };
}
