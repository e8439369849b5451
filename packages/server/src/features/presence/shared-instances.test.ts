import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createSignedInUser } from '../../test/factories.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

// Two server instances with one REDIS_URL: what one instance's runtime reports, the other's
// admin pages show (the production path with more than one instance).
describe('presence shared through Redis', () => {
  let a: TestContext;
  let b: TestContext;
  beforeAll(async () => {
    a = await createTestApp({ REDIS_URL: redisUrl });
    b = await createTestApp({ REDIS_URL: redisUrl });
  });
  afterAll(async () => {
    await a.app.presence.remove(sessionId);
    await a.close();
    await b.close();
  });
  const sessionId = `shared-${process.pid}-${Date.now()}`;

  it('lists on instance B the session instance A registered', async () => {
    expect(a.app.presence.kind).toBe('redis');
    await a.app.presence.upsert({
      sessionId,
      userName: 'visitor',
      deviceOS: 'Linux',
      onlineStatus: 'ONLINE',
      locale: 'en-US',
      lastConnectTimeStamp: Date.now(),
      ipAddress: '192.0.2.1',
      spokenLanguage: 'en-US',
      userId: 'v1',
      deviceId: 'd1',
      avatarIdAndType: '1:3d',
      ownerUserId: 1,
      avatarId: 987654,
    });
    const admin = await createSignedInUser(b.app, b.database, { userType: 'ADMIN' });
    const res = await b.app.inject({ method: 'POST', url: '/api/list_online_users', headers: admin.headers, payload: { mode: 'get' } });
    expect(res.json().onlineUsers.map((u: { sessionId: string }) => u.sessionId)).toContain(sessionId);
  });
});
