import { describe, expect, it, vi } from 'vitest';
import { AUTH_STORAGE_KEY, createAuthStore, type TAuthSession } from './auth-store';

const inHours = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

const session = (over: Partial<TAuthSession> = {}): TAuthSession => ({
  token: 'tok-1',
  expiryDate: inHours(24),
  userName: 'Ursula',
  userType: 'USER',
  adminProxy: false,
  ...over,
});

const newStore = () =>
  createAuthStore({ local: () => window.localStorage, session: () => window.sessionStorage, now: () => Date.now() });

describe('auth store', () => {
  it('keeps a remembered session in localStorage', () => {
    const store = newStore();
    store.setSession(session(), { isPersistent: true });
    expect(JSON.parse(window.localStorage.getItem(AUTH_STORAGE_KEY)!)).toMatchObject({ token: 'tok-1' });
    expect(window.sessionStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
    expect(newStore().load()?.token).toBe('tok-1');
  });

  it('keeps a session without Remember me in sessionStorage only', () => {
    const store = newStore();
    store.setSession(session({ token: 'tab-only' }), { isPersistent: false });
    expect(window.sessionStorage.getItem(AUTH_STORAGE_KEY)).toContain('tab-only');
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
    // A reload (same tab) finds it ...
    expect(newStore().load()?.token).toBe('tab-only');
    // ... a new browser context (no sessionStorage) does not.
    window.sessionStorage.clear();
    expect(newStore().load()).toBeNull();
  });

  it('clears an expired session when it loads', () => {
    window.localStorage.setItem(AUTH_STORAGE_KEY, JSON.stringify(session({ expiryDate: inHours(-1) })));
    const store = newStore();
    expect(store.load()).toBeNull();
    expect(store.getSession()).toBeNull();
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });

  it('drops an unreadable stored value', () => {
    window.localStorage.setItem(AUTH_STORAGE_KEY, '{"token":');
    expect(newStore().load()).toBeNull();
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
  });

  it('signs out when the session expires while the page is open', () => {
    vi.useFakeTimers();
    try {
      const store = newStore();
      store.setSession(session({ expiryDate: new Date(Date.now() + 60_000).toISOString() }), { isPersistent: true });
      const listener = vi.fn();
      store.subscribe(listener);
      vi.advanceTimersByTime(61_000);
      expect(store.getSession()).toBeNull();
      expect(listener).toHaveBeenCalled();
      expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
    } finally {
      vi.useRealTimers();
    }
  });

  it('clear() removes every stored copy and notifies', () => {
    const store = newStore();
    store.setSession(session(), { isPersistent: true });
    window.sessionStorage.setItem(AUTH_STORAGE_KEY, JSON.stringify(session({ token: 'stale' })));
    const listener = vi.fn();
    store.subscribe(listener);
    store.clear();
    expect(store.getSession()).toBeNull();
    expect(window.localStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
    expect(window.sessionStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
    expect(listener).toHaveBeenCalledTimes(1);
  });

  it("admin login-as lives in the tab and leaves the administrator's remembered session alone", () => {
    const adminStore = newStore();
    adminStore.setSession(session({ token: 'admin', userType: 'ADMIN' }), { isPersistent: true });

    const tab = newStore();
    expect(tab.load()?.token).toBe('admin');
    tab.setSession(session({ token: 'proxy', adminProxy: true }), { isPersistent: false });
    expect(tab.getSession()?.token).toBe('proxy');
    expect(newStore().load()?.token).toBe('proxy'); // the tab copy wins on reload

    tab.clear();
    expect(window.sessionStorage.getItem(AUTH_STORAGE_KEY)).toBeNull();
    expect(JSON.parse(window.localStorage.getItem(AUTH_STORAGE_KEY)!).token).toBe('admin');
  });

  it('follows another tab signing out of a remembered session', () => {
    const store = newStore();
    store.setSession(session(), { isPersistent: true });
    window.localStorage.removeItem(AUTH_STORAGE_KEY); // what the other tab did
    expect(store.load()).toBeNull();
  });
});
