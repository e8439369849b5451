import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import { keepSubscribed } from './redis.js';

/**
 * What ended: some sessions (logout, an admin session and the login-as sessions opened from it),
 * every session of a user (disable, password reset), or anything (this instance may have missed
 * messages: forget every cached session).
 */
export type Revocation = { kind: 'sessions'; sessionIds: number[] } | { kind: 'user'; userId: number } | { kind: 'all' };

/**
 * Tells every server instance that credentials ended, so that what they keep in memory (the
 * session cache) forgets them at once. Without REDIS_URL there is one instance and the bus is
 * this process; with it, Redis pub/sub carries the messages.
 */
export interface RevocationBus {
  readonly kind: 'memory' | 'redis';
  /** Applies the revocation in this instance, then tells the others (resolves once Redis delivered it). */
  publish(revocation: Revocation): Promise<void>;
  subscribe(listener: (revocation: Revocation) => void): void;
  /** False while messages from other instances could be missed: nothing may be trusted from memory then. */
  isReliable(): boolean;
  close(): Promise<void>;
}

export const REVOCATION_CHANNEL = 'persona:revocations';

function parseRevocation(value: unknown): Revocation | null {
  if (typeof value !== 'object' || value === null) return null;
  const r = value as Record<string, unknown>;
  const isId = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) > 0;
  if (r.kind === 'user' && isId(r.userId)) return { kind: 'user', userId: r.userId };
  if (r.kind === 'sessions' && Array.isArray(r.sessionIds) && r.sessionIds.length <= 10_000 && r.sessionIds.every(isId)) {
    return { kind: 'sessions', sessionIds: r.sessionIds };
  }
  if (r.kind === 'all') return { kind: 'all' };
  return null;
}

/** Sends one revocation to every instance listening on Redis (also for processes that are not instances: the CLI). */
export async function sendRevocation(redis: Pick<Redis, 'publish'>, revocation: Revocation, from = 'cli', id = '0'): Promise<void> {
  await redis.publish(REVOCATION_CHANNEL, JSON.stringify({ from, id, revocation }));
}

export function createMemoryRevocationBus(): RevocationBus {
  const listeners = new Set<(r: Revocation) => void>();
  return {
    kind: 'memory',
    async publish(revocation) {
      for (const listener of listeners) listener(revocation);
    },
    subscribe: (listener) => void listeners.add(listener),
    isReliable: () => true,
    async close() {},
  };
}

/**
 * Redis pub/sub. `publish` waits (up to `echoTimeoutMs`) until its own message comes back on the
 * subscription: Redis hands a message to every subscriber in the same step, so by then every other
 * instance has it on its socket. While the subscription is down the bus says it is not reliable
 * and, when it is back, tells its listeners to forget everything.
 */
export async function createRedisRevocationBus(redis: Redis, log: FastifyBaseLogger, opts: { echoTimeoutMs?: number } = {}): Promise<RevocationBus> {
  const channel = REVOCATION_CHANNEL;
  const echoTimeoutMs = opts.echoTimeoutMs ?? 1000;
  const instance = randomUUID();
  const listeners = new Set<(r: Revocation) => void>();
  const awaitingEcho = new Map<string, () => void>();
  let seq = 0;
  let isReliable = false;
  let isClosing = false;
  const emit = (revocation: Revocation) => {
    for (const listener of listeners) listener(revocation);
  };

  const sub = redis.duplicate({ lazyConnect: true });
  sub.on('message', (from: string, raw: string) => {
    if (from !== channel) return;
    let message: { from?: unknown; id?: unknown; revocation?: unknown };
    try {
      message = JSON.parse(raw) as typeof message;
    } catch {
      return;
    }
    if (message.from === instance) {
      // Applied locally when it was published; this is the delivery receipt.
      if (typeof message.id === 'string') awaitingEcho.get(message.id)?.();
      return;
    }
    const revocation = parseRevocation(message.revocation);
    if (revocation) emit(revocation);
  });
  sub.on('close', () => {
    if (!isReliable || isClosing) return;
    isReliable = false;
    emit({ kind: 'all' });
    log.warn('session revocations: Redis subscription lost; sessions are read from the database until it is back');
  });
  // Reliable only once subscribed: at start when Redis answers, else when it does.
  const subscription = await keepSubscribed(sub, channel, {
    log,
    name: 'session revocations',
    meanwhile: 'sessions are read from the database until they are',
    connect: true,
    wait: redis.status === 'ready',
    onSubscribed() {
      if (isReliable || isClosing) return;
      isReliable = true;
      // What this instance holds was read while it could not hear revocations.
      emit({ kind: 'all' });
      log.info('session revocations: Redis subscription ready');
    },
  });

  return {
    kind: 'redis',
    async publish(revocation) {
      emit(revocation);
      seq += 1;
      const id = `${seq}`;
      let timer: NodeJS.Timeout | undefined;
      const echoed = new Promise<void>((resolve) => {
        awaitingEcho.set(id, resolve);
        timer = setTimeout(resolve, echoTimeoutMs);
      });
      try {
        await sendRevocation(redis, revocation, instance, id);
        await echoed;
      } catch (err) {
        // The change is in the database; instances that cannot hear Redis do not trust memory.
        log.error({ err }, 'session revocation not published');
      } finally {
        clearTimeout(timer);
        awaitingEcho.delete(id);
      }
    },
    subscribe: (listener) => void listeners.add(listener),
    isReliable: () => isReliable,
    async close() {
      isClosing = true;
      isReliable = false;
      subscription.stop();
      await sub.quit().catch(() => sub.disconnect());
    },
  };
}
