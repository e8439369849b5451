import type { Redis } from 'ioredis';
import type { TOnlineUser, TOnlineUserDetail } from '@persona/contract';

/** A live avatar conversation as the runtime reports it. */
export interface PresenceEntry extends Omit<TOnlineUserDetail, 'deviceCount'> {
  /** The account that owns the avatar. */
  ownerUserId: number;
  avatarId: number;
}

export interface PresenceRegistry {
  readonly kind: 'memory' | 'redis';
  /** Joins or refreshes a session; it disappears when not refreshed within ttlMs. */
  upsert(entry: PresenceEntry, ttlMs?: number): Promise<void>;
  remove(sessionId: string): Promise<void>;
  list(): Promise<PresenceEntry[]>;
  get(sessionId: string): Promise<PresenceEntry | undefined>;
  listByAvatar(avatarId: number): Promise<PresenceEntry[]>;
  /** Live sessions per avatar, for many avatars at once. */
  countByAvatar(avatarIds: number[]): Promise<Map<number, number>>;
  close(): Promise<void>;
}

export const PRESENCE_TTL_MS = 60_000;

export function toOnlineUser(e: PresenceEntry): TOnlineUser {
  return {
    sessionId: e.sessionId,
    userName: e.userName,
    deviceOS: e.deviceOS,
    onlineStatus: e.onlineStatus,
    locale: e.locale,
    lastConnectTimeStamp: e.lastConnectTimeStamp,
    ipAddress: e.ipAddress,
    spokenLanguage: e.spokenLanguage,
  };
}

/** Presence in this process (one server instance). */
export function createMemoryPresence(now: () => number = Date.now): PresenceRegistry {
  const entries = new Map<string, { entry: PresenceEntry; expiresAt: number }>();
  const live = () => {
    const t = now();
    const out: PresenceEntry[] = [];
    for (const [id, v] of entries) {
      if (v.expiresAt <= t) entries.delete(id);
      else out.push(v.entry);
    }
    return out.sort((a, b) => b.lastConnectTimeStamp - a.lastConnectTimeStamp);
  };
  return {
    kind: 'memory',
    async upsert(entry, ttlMs = PRESENCE_TTL_MS) {
      entries.set(entry.sessionId, { entry, expiresAt: now() + ttlMs });
    },
    async remove(sessionId) {
      entries.delete(sessionId);
    },
    async list() {
      return live();
    },
    async get(sessionId) {
      return live().find((e) => e.sessionId === sessionId);
    },
    async listByAvatar(avatarId) {
      return live().filter((e) => e.avatarId === avatarId);
    },
    async countByAvatar(avatarIds) {
      const counts = new Map(avatarIds.map((id) => [id, 0]));
      for (const e of live()) if (counts.has(e.avatarId)) counts.set(e.avatarId, counts.get(e.avatarId)! + 1);
      return counts;
    },
    async close() {
      entries.clear();
    },
  };
}

/**
 * Presence shared by every server instance through Redis: one key per session with a TTL,
 * and sorted sets (score = expiry) to list all sessions and each avatar's sessions.
 */
export function createRedisPresence(redis: Redis, prefix = 'persona:presence', now: () => number = Date.now): PresenceRegistry {
  const key = (id: string) => `${prefix}:s:${id}`;
  const all = `${prefix}:all`;
  const byAvatar = (id: number) => `${prefix}:avatar:${id}`;

  async function load(index: string): Promise<PresenceEntry[]> {
    const t = now();
    await redis.zremrangebyscore(index, '-inf', t);
    const ids = await redis.zrangebyscore(index, t, '+inf');
    if (ids.length === 0) return [];
    const values = await redis.mget(ids.map(key));
    return values
      .filter((v): v is string => v !== null)
      .map((v) => JSON.parse(v) as PresenceEntry)
      .sort((a, b) => b.lastConnectTimeStamp - a.lastConnectTimeStamp);
  }

  return {
    kind: 'redis',
    async upsert(entry, ttlMs = PRESENCE_TTL_MS) {
      const expiresAt = now() + ttlMs;
      await redis
        .multi()
        .set(key(entry.sessionId), JSON.stringify(entry), 'PX', ttlMs)
        .zadd(all, expiresAt, entry.sessionId)
        .zadd(byAvatar(entry.avatarId), expiresAt, entry.sessionId)
        .pexpire(byAvatar(entry.avatarId), ttlMs * 2)
        .exec();
    },
    async remove(sessionId) {
      const raw = await redis.get(key(sessionId));
      const multi = redis.multi().del(key(sessionId)).zrem(all, sessionId);
      if (raw) multi.zrem(byAvatar((JSON.parse(raw) as PresenceEntry).avatarId), sessionId);
      await multi.exec();
    },
    list: () => load(all),
    async get(sessionId) {
      const raw = await redis.get(key(sessionId));
      return raw ? (JSON.parse(raw) as PresenceEntry) : undefined;
    },
    listByAvatar: (avatarId) => load(byAvatar(avatarId)),
    async countByAvatar(avatarIds) {
      const t = String(now());
      const pipeline = redis.pipeline();
      for (const id of avatarIds) pipeline.zcount(byAvatar(id), t, '+inf');
      const results = (await pipeline.exec()) ?? [];
      return new Map(avatarIds.map((id, i) => [id, Number(results[i]?.[1] ?? 0)]));
    },
    async close() {},
  };
}

/**
 * Presence as the rest of the portal uses it (ADR 078). It is what administrators and owners see
 * of the conversations, never what decides one: a write that fails (Redis unreachable) is logged
 * and dropped — the heartbeats write it again within seconds — so that admissions, heartbeats
 * and ends do not fail with it; online counts shown beside an avatar fall back to 0 (an avatar
 * list or a saved avatar is not refused for a count). The lists (who is online) fail with Redis:
 * an empty list would say that nobody is.
 */
export function withPresenceFallbacks(registry: PresenceRegistry, log: { warn(obj: object, msg: string): void }): PresenceRegistry {
  let lastWarnAt = 0;
  const warn = (op: string, err: unknown) => {
    // Once in a while, not per call: an outage would write a line per heartbeat.
    if (Date.now() - lastWarnAt < 10_000) return;
    lastWarnAt = Date.now();
    log.warn({ op, reason: err instanceof Error ? err.message : String(err) }, 'presence unavailable (Redis); carrying on without it');
  };
  return {
    kind: registry.kind,
    upsert: (entry, ttlMs) => registry.upsert(entry, ttlMs).catch((err: unknown) => warn('upsert', err)),
    remove: (sessionId) => registry.remove(sessionId).catch((err: unknown) => warn('remove', err)),
    list: () => registry.list(),
    get: (sessionId) => registry.get(sessionId),
    listByAvatar: (avatarId) => registry.listByAvatar(avatarId),
    async countByAvatar(avatarIds) {
      try {
        return await registry.countByAvatar(avatarIds);
      } catch (err) {
        warn('count', err);
        return new Map(avatarIds.map((id) => [id, 0]));
      }
    },
    close: () => registry.close(),
  };
}
