import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminMessages } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createSignedInUser, keyHeader, loginAs } from '../../test/factories.js';
import { createUsersService } from '../users/service.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

// Every admin call, refused to an ordinary user.
const adminCalls: [string, string, object | undefined][] = [
  ['POST', '/api/list_online_users', { mode: 'get' }],
  ['POST', '/api/get_online_user', { sessionId: 'x', mode: 'get' }],
  ['GET', '/api/list_vps', undefined],
  ['POST', '/api/get_vps', { vpsId: 1, mode: 'get' }],
  ['POST', '/api/del_vps', { vpsId: 1, mode: 'delete' }],
  ['GET', '/api/admin/users', undefined],
  ['POST', '/api/admin/users/status', { userId: 1, status: 'DISABLED' }],
  ['GET', '/api/admin/plan_requests', undefined],
  ['POST', '/api/admin/plan_requests/decide', { requestId: 1, decision: 'confirm' }],
];

describe('admin calls', () => {
  it.each(adminCalls)('%s %s is 403 for an ordinary user and 401 without a session', async (method, url, payload) => {
    const user = await createSignedInUser(t.app, t.database);
    const res = await t.app.inject({ method: method as 'GET', url, headers: user.headers, payload });
    expect(res.statusCode).toBe(403);
    expect(res.json().status).toBe('FAIL');
    expect((await t.app.inject({ method: method as 'GET', url, headers: keyHeader, payload })).statusCode).toBe(401);
  });

  it('an admin-proxy session of a user is still that user (403)', async () => {
    const admin = await createSignedInUser(t.app, t.database, { userType: 'ADMIN' });
    const user = await createSignedInUser(t.app, t.database);
    const proxy = await loginAs(t.app, admin.headers, user);
    expect((await t.app.inject({ url: '/api/list_vps', headers: proxy.headers })).statusCode).toBe(403);
  });

  it('searches users by name or e-mail and disables/enables them (sessions end on disable)', async () => {
    const admin = await createSignedInUser(t.app, t.database, { userType: 'ADMIN' });
    const user = await createSignedInUser(t.app, t.database, { firstName: 'Zebulon', lastName: 'Quux' });
    const found = await t.app.inject({ url: '/api/admin/users?search=zebulon', headers: admin.headers });
    expect(found.json().users).toEqual([expect.objectContaining({ id: user.id, name: 'Zebulon Quux', email: user.email, userType: 'USER', status: 'ACTIVE', subscriptionType: 1 })]);
    expect((await t.app.inject({ url: `/api/admin/users?search=${encodeURIComponent(user.email.slice(0, 8))}`, headers: admin.headers })).json().total).toBeGreaterThanOrEqual(1);
    expect((await t.app.inject({ url: '/api/admin/users?search=%25', headers: admin.headers })).json().total).toBe(0);

    const disabled = await t.app.inject({ method: 'POST', url: '/api/admin/users/status', headers: admin.headers, payload: { userId: user.id, status: 'DISABLED' } });
    expect(disabled.json().user.status).toBe('DISABLED');
    expect((await t.app.inject({ url: '/api/account_info', headers: user.headers })).statusCode).toBe(401);
    const login = await t.app.inject({ method: 'POST', url: '/api/login', headers: keyHeader, payload: { email: user.email, password: user.password } });
    expect(login.statusCode).toBe(403);

    await t.app.inject({ method: 'POST', url: '/api/admin/users/status', headers: admin.headers, payload: { userId: user.id, status: 'ACTIVE' } });
    expect((await t.app.inject({ method: 'POST', url: '/api/login', headers: keyHeader, payload: { email: user.email, password: user.password } })).statusCode).toBe(200);

    const me = (await t.app.inject({ url: `/api/admin/users?search=${encodeURIComponent(admin.email)}`, headers: admin.headers })).json().users;
    expect(me).toEqual([expect.objectContaining({ id: admin.id, isSelf: true })]);
    expect(found.json().users[0].isSelf).toBe(false);
    const self = await t.app.inject({ method: 'POST', url: '/api/admin/users/status', headers: admin.headers, payload: { userId: admin.id, status: 'DISABLED' } });
    expect(self.statusCode).toBe(400);
    expect(self.json().errors).toEqual([AdminMessages.cannotDisableSelf]);
  });
});

describe('the system keeps an active administrator', () => {
  it('refuses to disable the last active admin, by the console or the CLI, even when two admins disable each other at once', async () => {
    const own = await createTestApp();
    try {
      const a = await createSignedInUser(own.app, own.database, { userType: 'ADMIN' });
      const b = await createSignedInUser(own.app, own.database, { userType: 'ADMIN' });
      const status = (by: typeof a, userId: number, s: 'ACTIVE' | 'DISABLED') =>
        own.app.inject({ method: 'POST', url: '/api/admin/users/status', headers: by.headers, payload: { userId, status: s } });

      // Both at once: exactly one of them is disabled.
      const [ab, ba] = await Promise.all([status(a, b.id, 'DISABLED'), status(b, a.id, 'DISABLED')]);
      expect([ab.statusCode, ba.statusCode].filter((c) => c === 200)).toHaveLength(1);
      const loser = ab.statusCode === 200 ? ba : ab;
      expect([401, 409]).toContain(loser.statusCode);
      const survivor = ab.statusCode === 200 ? a : b;
      const listed = (await own.app.inject({ url: '/api/admin/users', headers: survivor.headers })).json().users as { userType: string; status: string }[];
      expect(listed.filter((u) => u.userType === 'ADMIN' && u.status === 'ACTIVE')).toHaveLength(1);

      // The operator CLI's path is refused too, with a message saying what to do.
      const users = createUsersService(own.database.db);
      await expect(users.setStatus(survivor.email, 'DISABLED')).rejects.toMatchObject({ statusCode: 409, message: AdminMessages.lastActiveAdmin });
      // Once another admin is active again, it may be disabled.
      const other = ab.statusCode === 200 ? b : a;
      expect((await status(survivor, other.id, 'ACTIVE')).statusCode).toBe(200);
      await expect(users.setStatus(survivor.email, 'DISABLED')).resolves.toMatchObject({ status: 'DISABLED' });
    } finally {
      await own.close();
    }
  });
});
