import { describe, expect, it } from 'vitest';
import { createSessionCache, type CachedSession } from './session-cache.js';

const session = (sessionId: number, userId: number, extra: Partial<CachedSession> = {}): CachedSession => ({
  auth: { userId, email: `u${userId}@example.com`, userName: 'U', userType: 'USER', adminProxy: false, sessionId },
  parentSessionId: null,
  parentUserId: null,
  expiresAtMs: 1_000_000,
  ...extra,
});

describe('session cache', () => {
  const make = (ttlMs = 5000, maxEntries = 100) => {
    const clock = { t: 0 };
    return { clock, cache: createSessionCache({ ttlMs, maxEntries, now: () => clock.t }) };
  };

  it('answers by token hash and by id for a few seconds, and never past the session expiry', () => {
    const { clock, cache } = make();
    cache.put(session(1, 10, { expiresAtMs: 7000 }), cache.epoch(), 'h1');
    expect(cache.getByToken('h1')?.auth.userId).toBe(10);
    expect(cache.getById(1)?.auth.userId).toBe(10);
    clock.t = 4999;
    expect(cache.getByToken('h1')).toBeDefined();
    clock.t = 5000;
    expect(cache.getByToken('h1')).toBeUndefined();
    cache.put(session(2, 11, { expiresAtMs: 6000 }), cache.epoch(), 'h2');
    clock.t = 6000;
    expect(cache.getById(2)).toBeUndefined();
  });

  it('drops sessions, their login-as children, and every session of a user (and of an administrator behind a login-as)', () => {
    const { cache } = make();
    cache.put(session(1, 10), cache.epoch(), 'admin');
    cache.put(session(2, 20, { parentSessionId: 1, parentUserId: 10 }), cache.epoch(), 'proxy');
    cache.put(session(3, 20), cache.epoch(), 'own');
    cache.revoke({ kind: 'sessions', sessionIds: [1] });
    expect(cache.getByToken('admin')).toBeUndefined();
    expect(cache.getByToken('proxy')).toBeUndefined();
    expect(cache.getById(2)).toBeUndefined();
    expect(cache.getByToken('own')).toBeDefined();

    cache.put(session(4, 10), cache.epoch(), 'admin2');
    cache.put(session(5, 30, { parentSessionId: 4, parentUserId: 10 }), cache.epoch(), 'proxy2');
    cache.revoke({ kind: 'user', userId: 10 });
    expect(cache.getByToken('admin2')).toBeUndefined();
    expect(cache.getByToken('proxy2')).toBeUndefined();
    expect(cache.getByToken('own')).toBeDefined();
    cache.revoke({ kind: 'all' });
    expect(cache.size()).toBe(0);
  });

  it('does not keep a look-up that started before a revocation (a slow query cannot bring a session back)', () => {
    const { cache } = make();
    const before = cache.epoch();
    cache.revoke({ kind: 'user', userId: 99 });
    cache.put(session(1, 10), before, 'h');
    expect(cache.getByToken('h')).toBeUndefined();
  });

  it('holds at most maxEntries, dropping the oldest', () => {
    const { cache } = make(5000, 3);
    for (let i = 1; i <= 5; i++) cache.put(session(i, i), cache.epoch(), `h${i}`);
    expect(cache.size()).toBe(3);
    expect(cache.getByToken('h1')).toBeUndefined();
    expect(cache.getByToken('h5')).toBeDefined();
  });
});
