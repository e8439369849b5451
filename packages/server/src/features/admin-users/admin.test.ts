import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminMessages } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createSignedInUser, keyHeader } from '../../test/factories.js';

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
    const proxy = await t.app.inject({ method: 'POST', url: '/api/login', headers: keyHeader, payload: { email: user.email, adminSessionId: admin.token } });
    const headers = { authorization: `Bearer test-app-key:${proxy.json().sessionId}` };
    expect((await t.app.inject({ url: '/api/list_vps', headers })).statusCode).toBe(403);
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

    const self = await t.app.inject({ method: 'POST', url: '/api/admin/users/status', headers: admin.headers, payload: { userId: admin.id, status: 'DISABLED' } });
    expect(self.statusCode).toBe(400);
    expect(self.json().errors).toEqual([AdminMessages.cannotDisableSelf]);
  });
});
