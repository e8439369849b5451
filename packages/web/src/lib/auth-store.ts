import { useSyncExternalStore } from 'react';
import * as z from 'zod/mini';
import type { TUserType } from '@persona/contract';

/** The signed-in session kept in the browser (spec section 3, "Auth session (local)"). */
export const ZAuthSession = z.object({
  token: z.string().check(z.minLength(1)),
  /** ISO 8601, UTC. */
  expiryDate: z.string().check(z.minLength(1)),
  userName: z.string(),
  userType: z.enum(['ADMIN', 'USER']),
  adminProxy: z.boolean(),
});
export type TAuthSession = z.infer<typeof ZAuthSession> & { userType: TUserType };

export const AUTH_STORAGE_KEY = 'persona.auth';

export interface SetSessionOptions {
  /** true: localStorage (Remember me); false: sessionStorage (this tab only). */
  isPersistent: boolean;
}

type Listener = () => void;

export interface AuthStoreDeps {
  local: () => Storage | null;
  session: () => Storage | null;
  now: () => number;
}

/** Longest delay setTimeout accepts (about 24.8 days). */
const MAX_TIMER_MS = 2_147_483_647;

function safeStorage(get: () => Storage): () => Storage | null {
  return () => {
    try {
      return get();
    } catch {
      return null; // storage disabled (privacy mode, sandboxed iframe)
    }
  };
}

export function isExpired(session: TAuthSession, now: number): boolean {
  const expiry = Date.parse(session.expiryDate);
  return Number.isNaN(expiry) || expiry <= now;
}

export function isAdmin(session: TAuthSession | null): boolean {
  return session?.userType === 'ADMIN';
}

/**
 * Holds the session in memory and in web storage. The session-only copy (sessionStorage) wins over
 * the remembered one: an administrator's "login as" tab keeps the user's session there while the
 * administrator's own remembered session stays untouched in localStorage.
 */
export function createAuthStore(deps: AuthStoreDeps) {
  let session: TAuthSession | null = null;
  let source: 'local' | 'session' | null = null;
  let expiryTimer: ReturnType<typeof setTimeout> | undefined;
  const listeners = new Set<Listener>();

  const emit = () => {
    for (const listener of [...listeners]) listener();
  };

  const read = (storage: Storage | null): TAuthSession | null => {
    if (!storage) return null;
    let raw: string | null = null;
    try {
      raw = storage.getItem(AUTH_STORAGE_KEY);
    } catch {
      return null;
    }
    if (!raw) return null;
    try {
      const parsed = z.safeParse(ZAuthSession, JSON.parse(raw));
      if (parsed.success) return parsed.data;
    } catch {
      // fall through: unreadable value
    }
    storage.removeItem(AUTH_STORAGE_KEY);
    return null;
  };

  const remove = (storage: Storage | null) => {
    try {
      storage?.removeItem(AUTH_STORAGE_KEY);
    } catch {
      // ignore: storage unavailable
    }
  };

  const write = (storage: Storage | null, value: TAuthSession) => {
    try {
      storage?.setItem(AUTH_STORAGE_KEY, JSON.stringify(value));
    } catch {
      // storage full or disabled: the session still lives in memory for this page
    }
  };

  const scheduleExpiry = () => {
    clearTimeout(expiryTimer);
    expiryTimer = undefined;
    if (!session) return;
    const delay = Date.parse(session.expiryDate) - deps.now();
    expiryTimer = setTimeout(() => {
      if (session && isExpired(session, deps.now())) clear();
      else scheduleExpiry();
    }, Math.max(0, Math.min(delay, MAX_TIMER_MS)));
  };

  const set = (next: TAuthSession | null, nextSource: 'local' | 'session' | null) => {
    session = next;
    source = nextSource;
    scheduleExpiry();
    emit();
  };

  /** Reads the stored session (at start-up, and when another tab changed it). Expired ones are cleared. */
  function load(): TAuthSession | null {
    const local = deps.local();
    const tab = deps.session();
    let found: TAuthSession | null = null;
    let foundSource: 'local' | 'session' | null = null;
    for (const [storage, name] of [
      [tab, 'session'],
      [local, 'local'],
    ] as const) {
      const candidate = read(storage);
      if (!candidate) continue;
      if (isExpired(candidate, deps.now())) {
        remove(storage);
        continue;
      }
      if (!found) {
        found = candidate;
        foundSource = name;
      }
    }
    const changed = JSON.stringify(found) !== JSON.stringify(session);
    if (changed) set(found, foundSource);
    else source = foundSource;
    return session;
  }

  /** Signs in: stores the session (localStorage when remembered, sessionStorage otherwise). */
  function setSession(next: TAuthSession, { isPersistent }: SetSessionOptions): void {
    if (isPersistent) {
      write(deps.local(), next);
      remove(deps.session());
    } else {
      // Never touches localStorage: it may hold an administrator's own remembered session.
      write(deps.session(), next);
    }
    set(next, isPersistent ? 'local' : 'session');
  }

  /**
   * Signs out locally. Removes every stored copy of the session; an admin "login as" session only
   * removes its own tab copy so the administrator's session in other tabs survives.
   */
  function clear(): void {
    const wasProxy = session?.adminProxy === true && source === 'session';
    remove(deps.session());
    if (!wasProxy) remove(deps.local());
    if (session !== null) set(null, null);
    else scheduleExpiry();
  }

  function getSession(): TAuthSession | null {
    return session;
  }

  function subscribe(listener: Listener): () => void {
    listeners.add(listener);
    return () => listeners.delete(listener);
  }

  return { load, setSession, clear, getSession, subscribe };
}

export type AuthStore = ReturnType<typeof createAuthStore>;

export const authStore = createAuthStore({
  local: safeStorage(() => window.localStorage),
  session: safeStorage(() => window.sessionStorage),
  now: () => Date.now(),
});

/** Follows sign-in/sign-out made in other tabs of the same browser (remembered sessions). */
export function syncAuthAcrossTabs(store: AuthStore = authStore): () => void {
  const onStorage = (event: StorageEvent) => {
    if (event.key === AUTH_STORAGE_KEY || event.key === null) store.load();
  };
  window.addEventListener('storage', onStorage);
  return () => window.removeEventListener('storage', onStorage);
}

export function useSession(store: AuthStore = authStore): TAuthSession | null {
  return useSyncExternalStore(store.subscribe, store.getSession, store.getSession);
}
