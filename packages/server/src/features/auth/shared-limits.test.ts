import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthLimits, AuthMessages } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createUser, keyHeader } from '../../test/factories.js';

const redisUrl = process.env.TEST_REDIS_URL;

// Two server instances sharing one database (and one Redis when TEST_REDIS_URL is set): an
// attacker who spreads password guesses or requests over both gets no more than from one.
describe('sign-in lock-out and per-IP ceilings across instances', () => {
  let a: TestContext;
  let b: TestContext;
  beforeAll(async () => {
    const env: Record<string, string> = redisUrl ? { REDIS_URL: redisUrl } : {};
    a = await createTestApp(env);
    b = await createTestApp(env, { database: a.database });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  // An address of the benchmarking range no other test run uses: the per-IP counters in Redis are shared.
  const addressOfThisRun = () => `198.18.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;
  const login = (ctx: TestContext, payload: object, remoteAddress: string) =>
    ctx.app.inject({ method: 'POST', url: '/api/login', headers: keyHeader, payload, remoteAddress });

  it('failed sign-ins on A and on B add up to one lock-out, refused by both', async () => {
    const victim = await createUser(a.database);
    const bystander = await createUser(a.database);
    for (let i = 0; i < AuthLimits.maxFailedLogins; i++) {
      const r = await login(i % 2 ? a : b, { email: victim.email, password: `wrong-${i}` }, addressOfThisRun());
      expect(r.statusCode).toBe(401);
    }
    for (const ctx of [a, b]) {
      const locked = await login(ctx, { email: victim.email, password: victim.password }, addressOfThisRun());
      expect(locked.statusCode).toBe(429);
      expect(locked.json().errors).toEqual([AuthMessages.tooManyAttempts]);
    }
    expect((await login(b, { email: bystander.email, password: bystander.password }, addressOfThisRun())).statusCode).toBe(200);
  });

  it.skipIf(!redisUrl)('the per-IP ceiling of the sign-in call counts requests on both instances (Redis)', async () => {
    const ip = addressOfThisRun();
    // 60 a minute from one address (auth routes' ipLimit), half on each instance; bodies that fail validation are cheap.
    for (let i = 0; i < 60; i++) expect((await login(i % 2 ? a : b, {}, ip)).statusCode).toBe(400);
    expect((await login(a, {}, ip)).statusCode).toBe(429);
    expect((await login(b, {}, ip)).statusCode).toBe(429);
    // The next address is not affected.
    const neighbour = ip.replace(/\d+$/, (last) => String((Number(last) % 254) + 1));
    expect((await login(b, {}, neighbour)).statusCode).toBe(400);
  });
});
