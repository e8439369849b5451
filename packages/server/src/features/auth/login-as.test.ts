import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthMessages } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createUser, keyHeader, login, loginAs, sessionHeader } from '../../test/factories.js';
import { hashToken, randomToken } from '../../lib/tokens.js';
import { createAuthRepository } from './repository.js';

// Admin login-as (issue 9): a one-time ticket in a POST body, a short session bound to the
// administrator's, never for administrator accounts, never counted against the customer.
let clock = Date.now();
let t: TestContext;

beforeAll(async () => {
  t = await createTestApp({}, { now: () => new Date(clock) });
});
afterAll(async () => {
  await t.close();
});

const post = (url: string, payload: unknown, headers: Record<string, string> = keyHeader) =>
  t.app.inject({ method: 'POST', url, headers, payload: payload as object });

describe('admin login-as', () => {
  const get = (url: string, token: string) => t.app.inject({ method: 'GET', url, headers: sessionHeader(token) });
  const ticketFor = (adminToken: string, userId: number) => post('/api/admin/users/login_as', { userId }, sessionHeader(adminToken));
  const signInAs = async () => {
    const admin = await createUser(t.database, { userType: 'ADMIN' });
    const user = await createUser(t.database);
    const adminToken = await login(t.app, admin);
    const proxy = await loginAs(t.app, sessionHeader(adminToken), user);
    return { admin, user, adminToken, proxy };
  };

  it('signs in with a one-time ticket an administrator asked for, for an hour at most', async () => {
    const admin = await createUser(t.database, { userType: 'ADMIN' });
    const user = await createUser(t.database, { firstName: 'Pat', lastName: 'Doe' });
    const adminToken = await login(t.app, admin);
    const ticket = await ticketFor(adminToken, user.id);
    expect(ticket.statusCode).toBe(200);
    expect(ticket.headers['cache-control']).toBe('no-store');
    const { ticket: oneTime, email, expiresAt } = ticket.json();
    expect(email).toBe(user.email);
    expect(oneTime).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(new Date(expiresAt).getTime() - clock).toBe(60_000);

    const ok = await post('/api/login', { email: user.email.toUpperCase(), adminSessionId: oneTime });
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ status: 'OK', adminProxy: true, userType: 'USER', userName: 'Pat Doe' });
    expect(new Date(ok.json().expiryDate).getTime() - clock).toBe(60 * 60_000);
    expect((await get('/api/account_info', ok.json().sessionId)).statusCode).toBe(200);

    // Single use.
    const again = await post('/api/login', { email: user.email, adminSessionId: oneTime });
    expect(again.statusCode).toBe(401);
    expect(again.json().errors).toEqual([AuthMessages.loginAsTicketInvalid]);

    // The login-as session ends after an hour.
    clock += 61 * 60_000;
    expect((await get('/api/account_info', ok.json().sessionId)).statusCode).toBe(401);
  });

  it("refuses the administrator's session token itself, an expired ticket and another e-mail", async () => {
    const admin = await createUser(t.database, { userType: 'ADMIN' });
    const user = await createUser(t.database);
    const other = await createUser(t.database);
    const adminToken = await login(t.app, admin);
    const asSessionId = await post('/api/login', { email: user.email, adminSessionId: adminToken });
    expect(asSessionId.statusCode).toBe(401);
    expect(asSessionId.json().errors).toEqual([AuthMessages.loginAsTicketInvalid]);

    const late = (await ticketFor(adminToken, user.id)).json().ticket;
    clock += 61_000;
    expect((await post('/api/login', { email: user.email, adminSessionId: late })).statusCode).toBe(401);

    const forUser = (await ticketFor(adminToken, user.id)).json().ticket;
    expect((await post('/api/login', { email: other.email, adminSessionId: forUser })).statusCode).toBe(401);
    // A ticket tried with the wrong e-mail is spent.
    expect((await post('/api/login', { email: user.email, adminSessionId: forUser })).statusCode).toBe(401);
  });

  it('is only for administrators, never for administrator accounts, disabled ones or from a login-as session', async () => {
    const { user, adminToken, proxy } = await signInAs();
    const otherAdmin = await createUser(t.database, { userType: 'ADMIN' });
    const toAdmin = await ticketFor(adminToken, otherAdmin.id);
    expect(toAdmin.statusCode).toBe(403);
    expect(toAdmin.json().errors).toEqual([AuthMessages.loginAsAdminRefused]);
    const disabled = await createUser(t.database, { status: 'DISABLED' });
    expect((await ticketFor(adminToken, disabled.id)).statusCode).toBe(403);
    expect((await ticketFor(adminToken, 999_999_999)).statusCode).toBe(404);
    // An ordinary user, and the administrator's login-as session, get 403.
    const userToken = await login(t.app, user);
    expect((await ticketFor(userToken, user.id)).statusCode).toBe(403);
    expect((await ticketFor(proxy.sessionId, user.id)).statusCode).toBe(403);
  });

  it('a login-as session never passes the admin guard, whoever its user is', async () => {
    // A login-as session of an administrator account (made before tickets existed, say).
    const admin = await createUser(t.database, { userType: 'ADMIN' });
    const token = randomToken();
    await createAuthRepository(t.database.db).insertSession({ userId: admin.id, tokenHash: hashToken(token), adminProxy: true, expiresAt: new Date(clock + 3_600_000) });
    expect((await get('/api/account_info', token)).statusCode).toBe(200);
    expect((await get('/api/list_vps', token)).statusCode).toBe(403);
    expect((await get('/api/admin/users', token)).statusCode).toBe(403);
  });

  it("ends with the administrator's session: logout, and the administrator disabled", async () => {
    const first = await signInAs();
    expect((await get('/api/account_info', first.proxy.sessionId)).statusCode).toBe(200);
    expect((await get('/api/logout', first.adminToken)).statusCode).toBe(200);
    expect((await get('/api/account_info', first.proxy.sessionId)).statusCode).toBe(401);

    const second = await signInAs();
    const root = await createUser(t.database, { userType: 'ADMIN' });
    const rootToken = await login(t.app, root);
    expect((await get('/api/account_info', second.proxy.sessionId)).statusCode).toBe(200);
    const disabled = await post('/api/admin/users/status', { userId: second.admin.id, status: 'DISABLED' }, sessionHeader(rootToken));
    expect(disabled.statusCode).toBe(200);
    expect((await get('/api/account_info', second.proxy.sessionId)).statusCode).toBe(401);
  });

  it("never outlives the administrator's session", async () => {
    const admin = await createUser(t.database, { userType: 'ADMIN' });
    const user = await createUser(t.database);
    const adminToken = await login(t.app, admin);
    clock += 7 * 24 * 3_600_000 - 20 * 60_000; // 20 minutes of the admin session left
    const proxy = await loginAs(t.app, sessionHeader(adminToken), user);
    expect(new Date(proxy.expiryDate).getTime() - clock).toBe(20 * 60_000);
    clock += 21 * 60_000;
    expect((await get('/api/account_info', proxy.sessionId)).statusCode).toBe(401);
  });

  it("does not count failed attempts against the customer's lock-out", async () => {
    const admin = await createUser(t.database, { userType: 'ADMIN' });
    const user = await createUser(t.database);
    const adminToken = await login(t.app, admin);
    for (let i = 0; i < 12; i++) {
      expect((await post('/api/login', { email: user.email, adminSessionId: `made-up-${i}` })).statusCode).toBe(401);
    }
    expect((await post('/api/login', { email: user.email, password: user.password })).statusCode).toBe(200);
    // Nor does the customer's own lock-out stop the administrator.
    for (let i = 0; i < 10; i++) await post('/api/login', { email: user.email, password: `wrong ${i}` });
    expect((await post('/api/login', { email: user.email, password: user.password })).statusCode).toBe(429);
    expect((await loginAs(t.app, sessionHeader(adminToken), user)).adminProxy).toBe(true);
  });
});

