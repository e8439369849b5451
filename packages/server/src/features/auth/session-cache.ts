import type { AuthContext } from '../../plugins/auth.js';
import type { Revocation } from '../../plugins/revocations.js';

/** A live session as the guards see it, with what revocations match it by. */
export interface CachedSession {
  auth: AuthContext;
  /** The admin session a login-as session was opened from. */
  parentSessionId: number | null;
  /** The administrator behind a login-as session. */
  parentUserId: number | null;
  /** When the session itself expires (ms since 1970). */
  expiresAtMs: number;
}

interface Slot {
  session: CachedSession;
  cachedUntilMs: number;
}

export interface SessionCacheOptions {
  /** How long a looked-up session is trusted without asking the database again. */
  ttlMs: number;
  maxEntries: number;
  now: () => number;
}

/**
 * A few seconds of memory in front of the session look-up every authenticated call makes.
 * Revocations (logout, disable, password reset, an admin session ending) drop entries at once;
 * a look-up that started before a revocation is not cached (the epoch moved), so a revoked
 * session can never be put back by a slow query.
 */
export function createSessionCache(opts: SessionCacheOptions) {
  const byToken = new Map<string, Slot>();
  const byId = new Map<number, Slot>();
  let epoch = 0;

  const fresh = (slot: Slot | undefined, key: string | number, map: Map<string | number, Slot>): CachedSession | undefined => {
    if (!slot) return undefined;
    const t = opts.now();
    if (slot.cachedUntilMs <= t || slot.session.expiresAtMs <= t) {
      map.delete(key);
      return undefined;
    }
    return slot.session;
  };

  const evictOldest = (map: Map<string | number, Slot>) => {
    while (map.size > opts.maxEntries) {
      const oldest = map.keys().next();
      if (oldest.done) break;
      map.delete(oldest.value);
    }
  };

  const dropWhere = (matches: (s: CachedSession) => boolean) => {
    epoch += 1;
    for (const map of [byToken, byId] as Map<string | number, Slot>[]) {
      for (const [key, slot] of map) if (matches(slot.session)) map.delete(key);
    }
  };

  return {
    /** Taken before a database look-up and handed back to `put`. */
    epoch: () => epoch,

    getByToken: (tokenHash: string) => fresh(byToken.get(tokenHash), tokenHash, byToken as Map<string | number, Slot>),
    getById: (sessionId: number) => fresh(byId.get(sessionId), sessionId, byId as Map<string | number, Slot>),

    /** Caches a session read from the database, unless something was revoked since `epochAtStart`. */
    put(session: CachedSession, epochAtStart: number, tokenHash?: string): void {
      if (epochAtStart !== epoch || opts.ttlMs <= 0) return;
      const slot: Slot = { session, cachedUntilMs: opts.now() + opts.ttlMs };
      if (tokenHash) {
        byToken.set(tokenHash, slot);
        evictOldest(byToken as Map<string | number, Slot>);
      }
      byId.set(session.auth.sessionId, slot);
      evictOldest(byId as Map<string | number, Slot>);
    },

    revoke(revocation: Revocation): void {
      if (revocation.kind === 'all') {
        epoch += 1;
        byToken.clear();
        byId.clear();
      } else if (revocation.kind === 'sessions') {
        const ids = new Set(revocation.sessionIds);
        dropWhere((s) => ids.has(s.auth.sessionId) || (s.parentSessionId !== null && ids.has(s.parentSessionId)));
      } else {
        dropWhere((s) => s.auth.userId === revocation.userId || s.parentUserId === revocation.userId);
      }
    },

    size: () => byId.size,
  };
}

export type SessionCache = ReturnType<typeof createSessionCache>;
