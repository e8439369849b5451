import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, flush, type TestContext } from '../../test/build-app.js';
import { createSignedInUser, keyHeader, loginAs } from '../../test/factories.js';

const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

// Two server instances sharing one database and one REDIS_URL. Each keeps looked-up sessions in
// memory for a few seconds; an end of session on one instance must hold on the other at once.
describe('session ends reach every instance at once', () => {
  let clock = Date.now();
  const now = () => new Date(clock);
  let a: TestContext;
  let b: TestContext;
  beforeAll(async () => {
    a = await createTestApp({ REDIS_URL: redisUrl }, { now });
    b = await createTestApp({ REDIS_URL: redisUrl }, { now, database: a.database });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const accountInfo = (ctx: TestContext, headers: Record<string, string>) => ctx.app.inject({ url: '/api/account_info', headers });
  /** Signed in on A, and known to B (B has it in memory after this). */
  const signedInEverywhere = async (values: Parameters<typeof createSignedInUser>[2] = {}) => {
    const user = await createSignedInUser(a.app, a.database, values);
    expect((await accountInfo(b, user.headers)).statusCode).toBe(200);
    expect((await accountInfo(b, user.headers)).statusCode).toBe(200);
    return user;
  };

  it('keeps a looked-up session in memory for a few seconds', async () => {
    const user = await signedInEverywhere();
    // Behind the servers' back (no revocation sent): B still answers from memory …
    await a.database.db.execute(sql`update sessions set revoked_at = now() where user_id = ${user.id}`);
    expect((await accountInfo(b, user.headers)).statusCode).toBe(200);
    // … until its few seconds are over.
    clock += 6_000;
    expect((await accountInfo(b, user.headers)).statusCode).toBe(401);
  });

  it('logout on A: B refuses the session and its knowledge token', async () => {
    const user = await signedInEverywhere();
    const jwt = (await b.app.inject({ url: '/api/token/jwt', headers: user.headers })).json().jwtToken as string;
    expect((await b.app.inject({ url: '/knowledge_collection', headers: { authorization: `Bearer ${jwt}` } })).statusCode).toBe(200);
    expect((await a.app.inject({ url: '/api/logout', headers: user.headers })).statusCode).toBe(200);
    expect((await accountInfo(b, user.headers)).statusCode).toBe(401);
    expect((await b.app.inject({ url: '/knowledge_collection', headers: { authorization: `Bearer ${jwt}` } })).statusCode).toBe(401);
  });

  it('an administrator disables the user on A: B refuses at once', async () => {
    const admin = await createSignedInUser(a.app, a.database, { userType: 'ADMIN' });
    const user = await signedInEverywhere();
    const res = await a.app.inject({ method: 'POST', url: '/api/admin/users/status', headers: admin.headers, payload: { userId: user.id, status: 'DISABLED' } });
    expect(res.statusCode).toBe(200);
    expect((await accountInfo(b, user.headers)).statusCode).toBe(401);
  });

  it('a password reset on A: B refuses the old sessions at once', async () => {
    const user = await signedInEverywhere();
    await a.app.inject({ method: 'POST', url: '/api/forgot_password', headers: keyHeader, payload: { email: user.email } });
    await flush();
    const code = /reset-password\/([\w-]+)/.exec(a.mail.sent.filter((m) => m.to === user.email).at(-1)!.text)![1]!;
    const reset = await a.app.inject({ method: 'POST', url: '/api/reset_password', headers: keyHeader, payload: { resetToken: code, newPassword: 'another good password', mode: 'reset' } });
    expect(reset.statusCode).toBe(200);
    expect((await accountInfo(b, user.headers)).statusCode).toBe(401);
  });

  it("the administrator's session ends on A: B refuses the login-as session at once", async () => {
    const admin = await createSignedInUser(a.app, a.database, { userType: 'ADMIN' });
    const user = await createSignedInUser(a.app, a.database);
    const proxy = await loginAs(a.app, admin.headers, user);
    expect((await accountInfo(b, proxy.headers)).statusCode).toBe(200);
    expect((await accountInfo(b, proxy.headers)).statusCode).toBe(200);
    expect((await a.app.inject({ url: '/api/logout', headers: admin.headers })).statusCode).toBe(200);
    expect((await accountInfo(b, proxy.headers)).statusCode).toBe(401);
    expect((await accountInfo(b, user.headers)).statusCode).toBe(200);
  });
});
