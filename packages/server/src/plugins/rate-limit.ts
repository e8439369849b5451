import type { FastifyBaseLogger } from 'fastify';
import type { FastifyRateLimitStore, FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
import type { Redis } from 'ioredis';

type IncrCallback = Parameters<FastifyRateLimitStore['incr']>[1];

/** INCR with the window set on the first hit; answers the count and what is left of the window. */
const INCR_LUA = `
local current = redis.call('INCR', KEYS[1])
if current == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {current, ttl}
`;

interface CountingRedis {
  personaRateLimit(key: string, timeWindowMs: number): Promise<unknown>;
}

/** Counters of this instance, used while Redis cannot be reached. */
function createMemoryCounters(maxKeys = 10_000) {
  const windows = new Map<string, { count: number; resetAt: number }>();
  return {
    incr(key: string, timeWindow: number): { current: number; ttl: number } {
      const t = Date.now();
      let w = windows.get(key);
      if (!w || w.resetAt <= t) {
        windows.delete(key);
        w = { count: 0, resetAt: t + timeWindow };
        windows.set(key, w);
        // Oldest first (insertion order): an address flood cannot grow the map without bound.
        while (windows.size > maxKeys) windows.delete(windows.keys().next().value!);
      }
      w.count += 1;
      return { current: w.count, ttl: w.resetAt - t };
    },
  };
}

/**
 * The rate limits' store with REDIS_URL (ADR 078): counters shared by every instance in Redis and,
 * while Redis cannot be reached, counted in this instance's memory. A limit then holds per instance
 * instead of for all of them together — weaker, but sign-in and admission keep working and are
 * still limited; failing open (skipOnError) would drop the limits, failing closed would make every
 * limited route (sign-in, a visitor's conversation) depend on Redis.
 */
export function redisRateLimitStore(redis: Redis, opts: { prefix: string; log: FastifyBaseLogger }): FastifyRateLimitStoreCtor {
  // EVALSHA, with the script sent again when Redis lost it (a restart).
  if (!(redis as unknown as Partial<CountingRedis>).personaRateLimit) redis.defineCommand('personaRateLimit', { numberOfKeys: 1, lua: INCR_LUA });
  const memory = createMemoryCounters();
  let isFallingBack = false;
  const fallBack = (reason: string) => {
    if (!isFallingBack) opts.log.warn({ reason }, 'rate limits: Redis unreachable; counting in this instance until it is back');
    isFallingBack = true;
  };

  class Store implements FastifyRateLimitStore {
    constructor(private readonly prefix: string) {}

    incr(key: string, callback: IncrCallback, timeWindow: number): void {
      const local = () => callback(null, memory.incr(this.prefix + key, timeWindow));
      // Not connected (refused, reconnecting, a ready check that hangs): no wait for a timeout.
      if (redis.status !== 'ready') {
        fallBack(redis.status);
        return local();
      }
      (redis as unknown as CountingRedis).personaRateLimit(this.prefix + key, timeWindow).then(
        (result) => {
          if (isFallingBack) opts.log.info('rate limits: counting in Redis again');
          isFallingBack = false;
          const [current, ttl] = result as [number, number];
          callback(null, { current, ttl });
        },
        (err: Error) => {
          fallBack(err.message);
          local();
        },
      );
    }

    child(routeOptions: Parameters<FastifyRateLimitStore['child']>[0]): FastifyRateLimitStore {
      // The plugin hands its merged route options; the route is under routeInfo.
      const route = (routeOptions as unknown as { routeInfo?: { method: string; url: string } }).routeInfo ?? { method: String(routeOptions.method), url: routeOptions.url };
      return new Store(`${this.prefix}${route.method}${route.url}-`);
    }
  }
  return class extends Store {
    constructor() {
      super(opts.prefix);
    }
  };
}
