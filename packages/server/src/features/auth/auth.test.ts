import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthMessages, FailReason } from '@persona/contract';
import { createTestApp, flush, type TestContext } from '../../test/build-app.js';
import { createUser, keyHeader, login, sessionHeader } from '../../test/factories.js';

let clock = Date.now();
let t: TestContext;

beforeAll(async () => {
  t = await createTestApp({ ALLOW_REGISTRATION: 'true' }, { now: () => new Date(clock) });
});
afterAll(async () => {
  await t.close();
});

const post = (url: string, payload: unknown, headers: Record<string, string> = keyHeader) =>
  t.app.inject({ method: 'POST', url, headers, payload: payload as object });

const linkCode = (text: string, kind: string) => {
  const m = new RegExp(`http://portal\\.test/react/${kind}/([A-Za-z0-9_-]+)`).exec(text);
  if (!m) throw new Error(`no ${kind} link in: ${text}`);
  return m[1]!;
};

describe('POST /api/login', () => {
  it('signs in with e-mail (any case) and password and answers the spec fields', async () => {
    const user = await createUser(t.database, { firstName: 'Grace', lastName: 'Hopper' });
    const res = await post('/api/login', { email: user.email.toUpperCase(), password: user.password });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toMatchObject({ status: 'OK', userName: 'Grace Hopper', userType: 'USER', adminProxy: false });
    expect(body.sessionId).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(new Date(body.expiryDate).getTime()).toBeGreaterThan(Date.now());
    expect(body.expiryDate).toMatch(/Z$/);
  });

  it('answers the same for an unknown e-mail and a wrong password, in about the same time', async () => {
    const user = await createUser(t.database);
    const wrong = await post('/api/login', { email: user.email, password: 'not the password' });
    const unknown = await post('/api/login', { email: 'nobody-here@example.com', password: 'not the password' });
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(unknown.json());
    expect(wrong.json()).toEqual({ status: 'FAIL', errors: [AuthMessages.invalidCredentials], failReason: FailReason.AuthenticationFailed });
    // Interleaved, so that a burst of load from elsewhere on the machine slows both alike.
    const timed = async (email: string, i: number) => {
      const start = performance.now();
      await post('/api/login', { email, password: `not the password ${i}` });
      return performance.now() - start;
    };
    const known: number[] = [];
    const unknownTimes: number[] = [];
    for (let i = 0; i < 7; i++) {
      known.push(await timed(user.email, i));
      unknownTimes.push(await timed('nobody-else@example.com', i));
    }
    const median = (times: number[]) => times.sort((a, b) => a - b)[3]!;
    const knownMs = median(known);
    const unknownMs = median(unknownTimes);
    // Both pay for one argon2id verification.
    expect(unknownMs).toBeGreaterThan(knownMs * 0.5);
    expect(unknownMs).toBeLessThan(knownMs * 2);
  });

  it.each([
    [{ email: '', password: 'x' }, 'Email is required'],
    [{ email: 'not-an-email', password: 'x' }, 'Email is Invalid'],
    [{ email: 'a@b.co', password: '' }, 'Password is required'],
    [{ email: 'a@b.co' }, 'Password is required'],
  ])('refuses bad input %j with "%s"', async (payload, message) => {
    const res = await post('/api/login', payload);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ status: 'FAIL', failReason: FailReason.InvalidOrMissingParams });
    expect(res.json().errors).toContain(message);
  });

  it('tells a disabled or unverified account why it cannot sign in (only with the right password)', async () => {
    const disabled = await createUser(t.database, { status: 'DISABLED' });
    const unverified = await createUser(t.database, { status: 'UNVERIFIED' });
    const a = await post('/api/login', { email: disabled.email, password: disabled.password });
    expect(a.statusCode).toBe(403);
    expect(a.json().errors).toEqual([AuthMessages.accountDisabled]);
    const b = await post('/api/login', { email: unverified.email, password: unverified.password });
    expect(b.statusCode).toBe(403);
    expect(b.json().errors).toEqual([AuthMessages.accountNotVerified]);
    const c = await post('/api/login', { email: disabled.email, password: 'wrong password' });
    expect(c.statusCode).toBe(401);
  });

  it('requires the application key', async () => {
    const user = await createUser(t.database);
    const none = await post('/api/login', { email: user.email, password: user.password }, {});
    expect(none.statusCode).toBe(401);
    const wrong = await post('/api/login', { email: user.email, password: user.password }, { authorization: 'Bearer wrong-key' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().failReason).toBe(FailReason.InvalidAPIKey);
  });

  it('locks one account for 15 minutes after 10 failures in 15 minutes; others are unaffected', async () => {
    const victim = await createUser(t.database);
    const bystander = await createUser(t.database);
    for (let i = 0; i < 10; i++) {
      const r = await post('/api/login', { email: victim.email, password: `wrong-${i}` });
      expect(r.statusCode).toBe(401);
    }
    const locked = await post('/api/login', { email: victim.email, password: victim.password });
    expect(locked.statusCode).toBe(429);
    expect(locked.json().errors).toEqual([AuthMessages.tooManyAttempts]);
    expect((await post('/api/login', { email: bystander.email, password: bystander.password })).statusCode).toBe(200);

    clock += 14 * 60_000;
    expect((await post('/api/login', { email: victim.email, password: victim.password })).statusCode).toBe(429);
    clock += 2 * 60_000;
    expect((await post('/api/login', { email: victim.email, password: victim.password })).statusCode).toBe(200);
  });

  it('expires sessions after their expiry date', async () => {
    const user = await createUser(t.database);
    const token = await login(t.app, user);
    clock += 8 * 24 * 3_600_000;
    const res = await t.app.inject({ method: 'GET', url: '/api/logout', headers: sessionHeader(token) });
    expect(res.statusCode).toBe(401);
  });
});

describe('GET /api/logout', () => {
  it('revokes the session on the server', async () => {
    const user = await createUser(t.database);
    const token = await login(t.app, user);
    const first = await t.app.inject({ method: 'GET', url: '/api/logout', headers: sessionHeader(token) });
    expect(first.statusCode).toBe(200);
    expect(first.json().status).toBe('OK');
    const again = await t.app.inject({ method: 'GET', url: '/api/logout', headers: sessionHeader(token) });
    expect(again.statusCode).toBe(401);
    expect(again.json().failReason).toBe(FailReason.AuthenticationFailed);
  });
});

describe('registration and e-mail verification', () => {
  const payload = (email: string) => ({
    firstName: 'Alan',
    lastName: 'Turing',
    companyName: 'Bletchley',
    mobileNumber: '+44 20 7946 0958',
    email,
    password: 'enigma-machine',
  });

  it('registers, mails a verification link, refuses sign-in until verified, then signs in', async () => {
    const email = `alan-${Date.now()}@example.com`;
    const res = await post('/api/register', payload(email));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'OK' });
    await flush();
    const mail = t.mail.sent.find((m) => m.to === email)!;
    expect(mail.subject).toMatch(/Verify/);
    expect(mail.html).toContain('/react/email-verification/');
    const code = linkCode(mail.text, 'email-verification');

    expect((await post('/api/login', { email, password: 'enigma-machine' })).statusCode).toBe(403);

    const verified = await post('/api/email_verification', { verificationCode: code, mode: 'verify' });
    expect(verified.statusCode).toBe(200);
    expect(verified.json()).toMatchObject({ status: 'OK', email, firstName: 'Alan', displayTitle: 'Email verified' });

    const again = await post('/api/email_verification', { verificationCode: code, mode: 'verify' });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ status: 'FAIL', displayMessage: AuthMessages.invalidVerificationCode });

    expect((await post('/api/login', { email, password: 'enigma-machine' })).statusCode).toBe(200);
  });

  it('answers the same for an existing e-mail and tells its owner by mail', async () => {
    const existing = await createUser(t.database);
    const res = await post('/api/register', payload(existing.email));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'OK' });
    await flush();
    const mail = t.mail.sent.find((m) => m.to === existing.email)!;
    expect(mail.subject).toMatch(/already have/);
    expect((await post('/api/login', existing)).statusCode).toBe(200);
  });

  it('expires verification codes after 24 hours', async () => {
    const email = `late-${Date.now()}@example.com`;
    await post('/api/register', payload(email));
    await flush();
    const code = linkCode(t.mail.sent.find((m) => m.to === email)!.text, 'email-verification');
    clock += 25 * 3_600_000;
    expect((await post('/api/email_verification', { verificationCode: code, mode: 'verify' })).statusCode).toBe(400);
  });

  it.each([
    [{ firstName: '' }, 'First Name is required'],
    [{ lastName: '  ' }, 'Last Name is required'],
    [{ email: '' }, 'Email is required'],
    [{ email: 'nope' }, 'Email is Invalid'],
    [{ password: '' }, 'Password is required'],
    [{ password: 'short' }, AuthMessages.passwordTooShort],
    [{ password: 'x'.repeat(129) }, AuthMessages.passwordTooLong],
  ])('refuses %j with "%s"', async (override, message) => {
    const res = await post('/api/register', { ...payload('v@example.com'), ...override });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toContain(message);
  });

  it('refuses clearly when registration is switched off', async () => {
    const closed = await createTestApp({ ALLOW_REGISTRATION: 'false' });
    try {
      const res = await closed.app.inject({ method: 'POST', url: '/api/register', headers: keyHeader, payload: payload('x@example.com') });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toEqual({ status: 'FAIL', errors: [AuthMessages.registrationDisabled] });
      const cfg = await closed.app.inject({ method: 'GET', url: '/api/config' });
      expect(cfg.json().allowRegistration).toBe(false);
    } finally {
      await closed.close();
    }
  });
});

describe('forgot and reset password', () => {
  it('answers the same for unknown e-mails and sends nothing', async () => {
    const before = t.mail.sent.length;
    const res = await post('/api/forgot_password', { email: 'ghost@example.com' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'OK', errors: [] });
    await flush();
    expect(t.mail.sent.length).toBe(before);
  });

  it('mails a single-use link; the reset changes the password and revokes every session', async () => {
    const user = await createUser(t.database);
    const oldToken = await login(t.app, user);
    expect((await post('/api/forgot_password', { email: user.email })).json()).toEqual({ status: 'OK', errors: [] });
    await flush();
    const mail = t.mail.sent.filter((m) => m.to === user.email).at(-1)!;
    expect(mail.subject).toMatch(/Reset/);
    const code = linkCode(mail.text, 'reset-password');

    const valid = await post('/api/reset_password', { resetToken: code, mode: 'validate' });
    expect(valid.json()).toMatchObject({ status: 'OK', email: user.email });

    const tooShort = await post('/api/reset_password', { resetToken: code, mode: 'reset', newPassword: 'short' });
    expect(tooShort.statusCode).toBe(400);
    expect(tooShort.json().errors).toEqual([AuthMessages.passwordTooShort]);

    const done = await post('/api/reset_password', { resetToken: code, mode: 'reset', newPassword: 'a brand new password' });
    expect(done.statusCode).toBe(200);
    expect(done.json()).toMatchObject({ status: 'OK', email: user.email });

    expect((await post('/api/login', user)).statusCode).toBe(401);
    expect((await post('/api/login', { email: user.email, password: 'a brand new password' })).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/api/logout', headers: sessionHeader(oldToken) })).statusCode).toBe(401);

    const reused = await post('/api/reset_password', { resetToken: code, mode: 'reset', newPassword: 'another new password' });
    expect(reused.statusCode).toBe(400);
    expect(reused.json().errors).toEqual([AuthMessages.invalidResetCode]);
  });

  it('expires reset codes after one hour', async () => {
    const user = await createUser(t.database);
    await post('/api/forgot_password', { email: user.email });
    await flush();
    const code = linkCode(t.mail.sent.filter((m) => m.to === user.email).at(-1)!.text, 'reset-password');
    clock += 61 * 60_000;
    const res = await post('/api/reset_password', { resetToken: code, mode: 'validate' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ status: 'FAIL', errors: [AuthMessages.invalidResetCode], failReason: FailReason.InvalidOrMissingParams });
  });

  it.each([
    [{ resetToken: '', mode: 'validate' }, 'Empty Reset Code'],
    [{ resetToken: 'abc', mode: 'reset', newPassword: '' }, 'Password is required'],
    [{ email: '' }, 'Email is required'],
  ])('refuses %j with "%s"', async (payload, message) => {
    const url = 'email' in payload ? '/api/forgot_password' : '/api/reset_password';
    const res = await post(url, payload);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toContain(message);
  });
});
