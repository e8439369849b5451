import type { FastifyInstance } from 'fastify';
import type { Redis, RedisOptions } from 'ioredis';

/**
 * Redis outages (ADR 078): while Redis is unreachable a command fails at once (no offline queue)
 * or after commandTimeout (a connection that hangs: the ready check times out too, and the client
 * starts again), instead of waiting for a reconnection that may take minutes. The client
 * reconnects by itself for as long as it takes; ioredis subscribes its subscriptions again.
 */
export const REDIS_OPTIONS = {
  lazyConnect: true,
  enableOfflineQueue: false,
  maxRetriesPerRequest: 1,
  commandTimeout: 2_000,
  connectTimeout: 3_000,
  keepAlive: 10_000,
  retryStrategy: (attempt: number) => Math.min(attempt * 200, 2_000),
} satisfies RedisOptions;

/** How often a SUBSCRIBE refused or timed out on a live connection is tried again. */
export const SUBSCRIBE_RETRY_MS = 2_000;

/**
 * The app's Redis client (REDIS_URL), connected when Redis answers; closed with the app. Redis
 * unreachable at start does not stop the portal: it starts as it runs through an outage (ADR 078:
 * rate limits and presence in this instance's memory, sessions read from the database) and the
 * client keeps trying, as after any lost connection.
 */
export async function connectRedis(url: string, app: FastifyInstance): Promise<Redis> {
  const { Redis: RedisClient } = await import('ioredis');
  const redis = new RedisClient(url, REDIS_OPTIONS);
  // Said once per outage: ioredis reports every failed attempt. At start, the first failure is
  // said by the start's own line.
  let isDown = false;
  let isStarting = true;
  let firstReason: string | undefined;
  const lost = (reason: string) => {
    if (isStarting) firstReason ??= reason;
    else if (!isDown) app.log.warn({ reason }, 'Redis connection lost; reconnecting');
    isDown = true;
  };
  redis.on('error', (err: NodeJS.ErrnoException) => lost(err.code ?? err.message));
  redis.on('reconnecting', () => lost('closed'));
  redis.on('ready', () => {
    if (isDown) app.log.info('Redis connection back');
    isDown = false;
  });
  await redis.connect().catch((err: NodeJS.ErrnoException) => {
    app.log.warn({ reason: firstReason ?? err.code ?? err.message }, 'Redis unreachable at start; running on this instance alone until it answers');
    isDown = true;
  });
  isStarting = false;
  app.addHook('onClose', async () => {
    // While Redis is down QUIT cannot be sent: the connection is dropped instead.
    await redis.quit().catch(() => redis.disconnect());
  });
  return redis;
}
