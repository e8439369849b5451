import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ErrorMessages, ZHealth } from '@persona/contract';

/** How long a check is reused: load balancers may poll health many times a second. */
const CHECK_TTL_MS = 1000;
/** What a client (a load balancer) is told to wait before asking again while the database is down. */
const RETRY_AFTER_SECONDS = 5;

/**
 * A check run at most once per CHECK_TTL_MS, shared by concurrent requests. `fresh()` is the
 * answer of a check younger than CHECK_TTL_MS that has finished (true when the dependency
 * answered), or undefined; `run()` that answer once known, starting a check when the last is stale.
 */
function cachedCheck(ping: () => Promise<void>) {
  let last: { at: number; ok: Promise<boolean>; value?: boolean } | undefined;
  const run = (): Promise<boolean> => {
    const now = Date.now();
    if (!last || now - last.at >= CHECK_TTL_MS) {
      const check: NonNullable<typeof last> = { at: now, ok: ping().then(() => true, () => false) };
      void check.ok.then((up) => (check.value = up));
      last = check;
    }
    return last.ok;
  };
  const fresh = (): boolean | undefined => (last && Date.now() - last.at < CHECK_TTL_MS ? last.value : undefined);
  return { run, fresh };
}

/**
 * GET /api/health (public): whether this instance can serve, and which of its dependencies is
 * down — up/down only; the reasons go to the log. The database down makes it a 503 (take the
 * instance out of rotation); Redis down does not (every instance shares it, and the portal works
 * on without it: ADR 078). Answered at once from checks younger than CHECK_TTL_MS (a load
 * balancer's polls cost no promise), else when the checks come back.
 */
export function healthRoutes(deps: { ping: () => Promise<void>; pingRedis?: () => Promise<void> }) {
  const started = Date.now();
  const database = cachedCheck(deps.ping);
  const redis = deps.pingRedis ? cachedCheck(deps.pingRedis) : null;

  const answer = (req: FastifyRequest, reply: FastifyReply, isDatabaseUp: boolean, isRedisUp: boolean | undefined) => {
    const uptimeSeconds = Math.round((Date.now() - started) / 1000);
    const redisState = isRedisUp === undefined ? {} : { redis: isRedisUp ? ('up' as const) : ('down' as const) };
    if (isRedisUp === false) req.log.warn('health check: Redis unreachable');
    if (isDatabaseUp) return { status: 'OK' as const, database: 'up' as const, ...redisState, uptimeSeconds };
    req.log.error('health check: database unreachable');
    reply.status(503).header('retry-after', String(RETRY_AFTER_SECONDS));
    return { status: 'FAIL' as const, database: 'down' as const, ...redisState, uptimeSeconds, errors: [ErrorMessages.serviceUnavailable] };
  };

  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.get('/api/health', { logLevel: 'warn', schema: { tags: ['system'], response: { 200: ZHealth, 503: ZHealth } } }, (req, reply) => {
      const isDatabaseUp = database.fresh();
      const isRedisUp = redis?.fresh();
      if (isDatabaseUp !== undefined && (redis === null || isRedisUp !== undefined)) return answer(req, reply, isDatabaseUp, isRedisUp);
      // Both checks start before either is awaited.
      const checks = [database.run(), redis?.run()] as const;
      return (async () => answer(req, reply, await checks[0], await checks[1]))();
    });
  };
}
