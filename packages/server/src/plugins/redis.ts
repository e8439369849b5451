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

export interface SubscriptionOptions {
  log: { warn(obj: object, msg: string): void };
  /** Who subscribes, at the head of its log lines ('session revocations'). */
  name: string;
  /** What holds while it is not subscribed, said once per failure. */
  meanwhile: string;
  /** Connect `sub` here (a lazy subscriber of its own). */
  connect: boolean;
  /** Wait for the first subscription (Redis answered the app's client); else it comes when Redis answers. */
  wait: boolean;
  /** Each time the channel is subscribed. */
  onSubscribed?: () => void;
}

/**
 * Keeps `sub` subscribed to `channel` (ADR 078): on every connection (ioredis subscribes again by
 * itself too, without telling when it is done; and Redis may have been unreachable at start), and
 * again every SUBSCRIBE_RETRY_MS while a SUBSCRIBE fails on a live connection (timed out, refused
 * by an ACL). Connection errors and failed subscriptions are each said once until it works again.
 * `stop()` before closing the subscriber.
 */
export async function keepSubscribed(sub: Redis, channel: string, opts: SubscriptionOptions): Promise<{ stop(): void }> {
  const { log, name } = opts;
  let subscribing: Promise<void> | undefined;
  let retry: NodeJS.Timeout | undefined;
  let isStopped = false;
  let isErrorSaid = false;
  let isFailureSaid = false;
  const attempt = async (): Promise<void> => {
    try {
      await sub.subscribe(channel);
      isFailureSaid = false;
      if (!isStopped) opts.onSubscribed?.();
    } catch (err) {
      if (!isFailureSaid) log.warn({ err }, `${name}: not subscribed; ${opts.meanwhile}`);
      isFailureSaid = true;
      if (isStopped) return;
      clearTimeout(retry);
      retry = setTimeout(() => {
        if (sub.status === 'ready') void subscribe();
      }, SUBSCRIBE_RETRY_MS);
      retry.unref();
    }
  };
  const subscribe = (): Promise<void> => (isStopped ? Promise.resolve() : (subscribing ??= attempt().finally(() => (subscribing = undefined))));
  sub.on('error', (err: unknown) => {
    if (!isErrorSaid) log.warn({ err }, `${name}: Redis subscription error`);
    isErrorSaid = true;
  });
  sub.on('ready', () => {
    isErrorSaid = false;
    void subscribe();
  });
  const handle = {
    stop() {
      isStopped = true;
      clearTimeout(retry);
    },
  };
  if (!opts.wait) {
    if (opts.connect) sub.connect().catch(() => undefined);
    return handle;
  }
  if (opts.connect) await sub.connect().catch(() => undefined);
  await subscribe();
  return handle;
}

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
