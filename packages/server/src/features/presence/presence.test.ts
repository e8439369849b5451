import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createAvatar, createSignedInUser } from '../../test/factories.js';
import { createMemoryPresence, createRedisPresence, type PresenceEntry, type PresenceRegistry } from './registry.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function entry(sessionId: string, avatarId: number, over: Partial<PresenceEntry> = {}): PresenceEntry {
  return {
    sessionId,
    userName: `visitor-${sessionId}`,
    deviceOS: 'macOS',
    onlineStatus: 'ONLINE',
    locale: 'en-US',
    lastConnectTimeStamp: Date.now(),
    ipAddress: '198.51.100.7',
    spokenLanguage: 'en-US',
    userId: `visitor-${sessionId}`,
    deviceId: `device-${sessionId}`,
    avatarIdAndType: `${avatarId}:3d`,
    ownerUserId: 1,
    avatarId,
    ...over,
  };
}

// The registry contract, for the in-process registry and the Redis one production uses.
const registries: [string, () => Promise<{ registry: PresenceRegistry; clock: { t: number }; done: () => Promise<void> }>][] = [
  [
    'memory',
    async () => {
      const clock = { t: 1_000_000 };
      return { registry: createMemoryPresence(() => clock.t), clock, done: async () => {} };
    },
  ],
  [
    'redis',
    async () => {
      const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1 });
      const clock = { t: Date.now() };
      const prefix = `test:presence:${Math.random().toString(36).slice(2)}`;
      return {
        registry: createRedisPresence(redis, prefix, () => clock.t),
        clock,
        done: async () => {
          const keys = await redis.keys(`${prefix}:*`);
          if (keys.length) await redis.del(...keys);
          await redis.quit();
        },
      };
    },
  ],
];

describe.each(registries)('%s presence registry', (_name, make) => {
  it('lists, finds, filters by avatar, refreshes and expires sessions', async () => {
    const { registry, clock, done } = await make();
    try {
      await registry.upsert(entry('a', 1, { lastConnectTimeStamp: 1 }), 60_000);
      await registry.upsert(entry('b', 1, { lastConnectTimeStamp: 2 }), 60_000);
      await registry.upsert(entry('c', 2, { lastConnectTimeStamp: 3 }), 60_000);
      expect((await registry.list()).map((e) => e.sessionId)).toEqual(['c', 'b', 'a']);
      expect((await registry.listByAvatar(1)).map((e) => e.sessionId).sort()).toEqual(['a', 'b']);
      expect((await registry.get('c'))?.avatarId).toBe(2);
      expect(await registry.countByAvatar([1, 2, 3])).toEqual(new Map([[1, 2], [2, 1], [3, 0]]));

      await registry.remove('b');
      expect((await registry.listByAvatar(1)).map((e) => e.sessionId)).toEqual(['a']);

      clock.t += 30_000;
      await registry.upsert(entry('a', 1, { lastConnectTimeStamp: 1 }), 60_000); // heartbeat
      clock.t += 45_000; // c was not refreshed: 75 s old
      expect((await registry.list()).map((e) => e.sessionId)).toEqual(['a']);
    } finally {
      await done();
    }
  });
});

describe('online users calls', () => {
  let t: TestContext;
  const presence = createMemoryPresence();
  beforeAll(async () => {
    t = await createTestApp({}, { presence });
  });
  afterAll(async () => {
    await t.close();
  });

  it('lists online users and one user detail for admins', async () => {
    const admin = await createSignedInUser(t.app, t.database, { userType: 'ADMIN' });
    await presence.upsert(entry('sess-1', 5, { deviceId: 'dev-x' }));
    await presence.upsert(entry('sess-2', 6, { deviceId: 'dev-x' }));
    const list = await t.app.inject({ method: 'POST', url: '/api/list_online_users', headers: admin.headers, payload: { mode: 'get' } });
    expect(list.statusCode).toBe(200);
    expect(list.json().onlineUsers).toHaveLength(2);
    expect(Object.keys(list.json().onlineUsers[0]).sort()).toEqual(
      ['ipAddress', 'lastConnectTimeStamp', 'locale', 'onlineStatus', 'sessionId', 'spokenLanguage', 'userName', 'deviceOS'].sort(),
    );
    const detail = await t.app.inject({ method: 'POST', url: '/api/get_online_user', headers: admin.headers, payload: { sessionId: 'sess-1', mode: 'get' } });
    expect(detail.json()).toMatchObject({ status: 'OK', userDetail: { sessionId: 'sess-1', deviceCount: 2, avatarIdAndType: '5:3d', userId: 'visitor-sess-1', deviceId: 'dev-x' } });
    const gone = await t.app.inject({ method: 'POST', url: '/api/get_online_user', headers: admin.headers, payload: { sessionId: 'nope', mode: 'get' } });
    expect(gone.statusCode).toBe(404);
  });

  it("shows an avatar's users to its owner only", async () => {
    const owner = await createSignedInUser(t.app, t.database);
    const stranger = await createSignedInUser(t.app, t.database);
    const avatar = await createAvatar(t.database, owner.id);
    await presence.upsert(entry('visitor-9', avatar.id, { ownerUserId: owner.id }));
    const mine = await t.app.inject({ method: 'POST', url: '/api/list_avatar_users', headers: owner.headers, payload: { agentId: avatar.id, mode: 'get' } });
    expect(mine.json()).toMatchObject({ status: 'OK', agentId: avatar.id });
    expect(mine.json().onlineUsers.map((u: { sessionId: string }) => u.sessionId)).toEqual(['visitor-9']);
    const theirs = await t.app.inject({ method: 'POST', url: '/api/list_avatar_users', headers: stranger.headers, payload: { agentId: avatar.id, mode: 'get' } });
    expect(theirs.statusCode).toBe(404);
  });
});
