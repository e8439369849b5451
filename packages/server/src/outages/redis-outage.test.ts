// Redis restarted or frozen while two portal instances run (issue 16, ADR 078). What needs it for
// correctness stays correct without it (ended sessions are refused: the database is asked), what
// only shows it degrades (online counts) or answers 503 (who is online), rate limits count in each
// instance, admission and conversations go on — nothing hangs. Once it is back the clients
// reconnect by themselves and the revocation bus hears again. Redis is reached through a TCP
// proxy that the test cuts; the real server is not touched.
import { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ErrorMessages, FailReason, LivePaths, type TLiveStartAnswer } from '@persona/contract';
import type { LiveWorkerHandle } from '@persona/worker';
import { sql } from 'drizzle-orm';
import { avatars } from '../db/schema/index.js';
import { sendRevocation } from '../plugins/revocations.js';
import { createTestApp, type TestContext } from '../test/build-app.js';
import { testDriver } from '../test/db.js';
import { createSignedInUser, keyHeader } from '../test/factories.js';
import { PageClient, startEmbeddedWorker, until } from '../test/live.js';
import { startTcpProxy, targetOf, type CutMode, type TcpProxy } from '../test/tcp-proxy.js';

const redisUrl = process.env.TEST_REDIS_URL;
if (!redisUrl) console.warn('SKIPPED: Redis outage tests need TEST_REDIS_URL (redis://127.0.0.1:6379).');

/** Time allowed for any call while Redis is unreachable. */
const MAX_MS = 5_000;

// Once per run (the server-pglite project): the database is not what this file takes away.
describe.runIf(redisUrl && testDriver === 'pglite')('Redis unreachable, then back', () => {
  let proxy: TcpProxy;
  let a: TestContext;
  let b: TestContext;
  let base: string;
  let worker: LiveWorkerHandle;
  let direct: Redis;
  let owner: Awaited<ReturnType<typeof createSignedInUser>>;
  let admin: Awaited<ReturnType<typeof createSignedInUser>>;
  let avatarId: number;
  const pages: PageClient[] = [];
  const measured: Record<string, Record<string, number>> = {};
  let nextIp = 10;

  beforeAll(async () => {
    proxy = await startTcpProxy(targetOf(redisUrl!));
    const viaProxy = proxy.urlFor(redisUrl!);
    a = await createTestApp({ REDIS_URL: viaProxy });
    b = await createTestApp({ REDIS_URL: viaProxy }, { database: a.database });
    base = await a.app.listen({ port: 0, host: '127.0.0.1' });
    worker = await startEmbeddedWorker(a, base);
    direct = new Redis(redisUrl!);
    owner = await createSignedInUser(a.app, a.database);
    admin = await createSignedInUser(a.app, a.database, { userType: 'ADMIN' });
    const [row] = await a.database.db
      .insert(avatars)
      .values({ userId: owner.id, name: 'Ava', nlpEngine: 0, config: { wakeUpMessage: '', idleTimeout: 300, dailyLimitPerSession: -1, dailyLimitPerIP: -1, dailyLimits: { Demo: -1 } } })
      .returning();
    avatarId = row!.id;
  });
  afterEach(async () => {
    await proxy?.restore();
  });
  afterAll(async () => {
    console.log(`calls with Redis cut (ms): ${JSON.stringify(measured)}`);
    for (const p of pages) p.close();
    await worker?.stop();
    await b?.close();
    await a?.close();
    await proxy?.close();
    direct?.disconnect();
  });

  const accountInfo = (ctx: TestContext, headers: Record<string, string>) => ctx.app.inject({ url: '/api/account_info', headers });
  /** Signed in on A and held in B's memory (B answered it twice). */
  const signedInEverywhere = async () => {
    const user = await createSignedInUser(a.app, a.database);
    expect((await accountInfo(b, user.headers)).statusCode).toBe(200);
    expect((await accountInfo(b, user.headers)).statusCode).toBe(200);
    return user;
  };
  const timed = async <T>(mode: string, name: string, call: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    const result = await call();
    const ms = Math.round(performance.now() - started);
    (measured[mode] ??= {})[name] = ms;
    expect(ms, `${name} took ${ms} ms`).toBeLessThanOrEqual(MAX_MS);
    return result;
  };
  const startSession = (ip: string) => a.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId }, remoteAddress: ip });

  for (const mode of ['refuse', 'hang'] as CutMode[]) {
    it(`${mode}: nothing hangs; sessions, sign-in, limits and conversations go on; who is online is a 503`, { timeout: 90_000 }, async () => {
      const user = await signedInEverywhere();
      const visitorIp = `198.51.100.${nextIp++}`;
      const before = await startSession(visitorIp);
      expect(before.statusCode, before.body).toBe(200);
      const page = new PageClient(before.json() as TLiveStartAnswer);
      pages.push(page);
      await page.waitFor('ready');

      await proxy.cut(mode);

      // An ended session is refused at once on the other instance: the database is asked.
      const logout = await timed(mode, 'logout', () => a.app.inject({ url: '/api/logout', headers: user.headers }));
      expect(logout.statusCode).toBe(200);
      const refused = await timed(mode, 'revokedSessionOnB', () => accountInfo(b, user.headers));
      expect(refused.statusCode).toBe(401);

      // Sign-in (rate-limited) works; its limit is counted in this instance meanwhile.
      const signIn = await timed(mode, 'signIn', () => a.app.inject({ method: 'POST', url: '/api/login', headers: keyHeader, payload: { email: owner.email, password: owner.password } }));
      expect(signIn.statusCode, signIn.body).toBe(200);
      const limitedIp = `203.0.113.${nextIp++}`;
      const statuses: number[] = [];
      for (let i = 0; i < 31; i++) statuses.push((await a.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId: 999_999 }, remoteAddress: limitedIp })).statusCode);
      expect(statuses.slice(0, 30).every((s) => s === 404)).toBe(true);
      expect(statuses[30]).toBe(429);

      // Online counts beside the avatars fall back to 0; the list of who is online is a 503.
      const list = await timed(mode, 'listAvatars', () => a.app.inject({ url: '/api/list_avatar', headers: owner.headers }));
      expect(list.statusCode, list.body).toBe(200);
      const online = await timed(mode, 'listOnlineUsers', () => a.app.inject({ method: 'POST', url: '/api/list_online_users', headers: admin.headers, payload: { mode: 'get' } }));
      expect(online.statusCode, online.body).toBe(503);
      expect(online.headers['retry-after']).toBe('5');
      expect(online.json()).toEqual({ status: 'FAIL', errors: [ErrorMessages.serviceUnavailable], failReason: FailReason.RequestFail });

      // Health: serving (database up), Redis reported down.
      await new Promise((r) => setTimeout(r, 1100));
      const health = await timed(mode, 'health', () => a.app.inject({ url: '/api/health' }));
      expect(health.statusCode).toBe(200);
      expect(health.json()).toMatchObject({ status: 'OK', database: 'up', redis: 'down' });

      // Admission and the conversation in progress go on without presence.
      const admitted = await timed(mode, 'liveStart', () => startSession(`198.51.100.${nextIp++}`));
      expect(admitted.statusCode, admitted.body).toBe(200);
      const during = new PageClient(admitted.json() as TLiveStartAnswer);
      pages.push(during);
      await during.waitFor('ready');
      during.text('hello during the outage');
      page.text('still there?');
      await until(() => during.answers().length === 1 && page.answers().length === 1, 8000, 'answers during the outage');
      // Heartbeats (every 200 ms) keep both sessions open.
      await new Promise((r) => setTimeout(r, 600));
      expect(page.closeCode).toBeNull();
      expect(during.closeCode).toBeNull();

      await proxy.restore();
      // The clients reconnect by themselves (a retry every 2 s at most).
      await until(async () => (await a.app.inject({ url: '/api/health' })).json().redis === 'up', 8000, 'Redis up on A');
      await until(async () => (await b.app.inject({ url: '/api/health' })).json().redis === 'up', 8000, 'Redis up on B');
      await until(async () => (await a.app.inject({ method: 'POST', url: '/api/list_online_users', headers: admin.headers, payload: { mode: 'get' } })).statusCode === 200, 5000, 'who is online answered again');
      // Presence is written again by the heartbeats.
      await until(async () => {
        const res = await a.app.inject({ method: 'POST', url: '/api/list_online_users', headers: admin.headers, payload: { mode: 'get' } });
        const ids = (res.json().onlineUsers as { sessionId: string }[]).map((u) => u.sessionId);
        return ids.includes(before.json().sessionId) && ids.includes(admitted.json().sessionId);
      }, 5000, 'both sessions listed online');
      // Rate limits count in Redis again.
      const signInIp = `192.0.2.${nextIp++}`;
      const signInAfter = await a.app.inject({ method: 'POST', url: '/api/login', headers: keyHeader, payload: { email: owner.email, password: owner.password }, remoteAddress: signInIp });
      expect(signInAfter.statusCode).toBe(200);
      expect(await direct.exists(`persona:rl:POST/api/login-${signInIp}`)).toBe(1);
    });
  }

  it('after the restore the revocation bus hears again: B trusts its memory, and a revocation sent then reaches it', { timeout: 60_000 }, async () => {
    await proxy.cut('refuse');
    await new Promise((r) => setTimeout(r, 500));
    await proxy.restore();
    await until(async () => (await b.app.inject({ url: '/api/health' })).json().redis === 'up', 8000, 'Redis up on B');

    // B keeps sessions in memory again (it does only while it can hear revocations) …
    let user = await signedInEverywhere();
    await until(
      async () => {
        await a.database.db.execute(sql`update sessions set revoked_at = now() where user_id = ${user.id}`);
        const held = (await accountInfo(b, user.headers)).statusCode === 200;
        if (!held) user = await signedInEverywhere();
        return held;
      },
      8000,
      'B answering from memory again (its subscription is back)',
    );
    // … and a revocation published now (as the admin CLI does) reaches it at once.
    await sendRevocation(direct, { kind: 'user', userId: user.id });
    await until(async () => (await accountInfo(b, user.headers)).statusCode === 401, 1000, 'the revocation heard on B');
  });
});

describe.runIf(redisUrl && testDriver === 'pglite')('Redis unreachable at start, then answering', () => {
  it('two instances start and serve; once Redis answers they use it again: health, shared rate limits, revocations heard', { timeout: 60_000 }, async () => {
    const proxy = await startTcpProxy(targetOf(redisUrl!));
    await proxy.cut('refuse');
    const direct = new Redis(redisUrl!);
    let a: TestContext | undefined;
    let b: TestContext | undefined;
    try {
      a = await createTestApp({ REDIS_URL: proxy.urlFor(redisUrl!) });
      b = await createTestApp({ REDIS_URL: proxy.urlFor(redisUrl!) }, { database: a.database });
      const health = (ctx: TestContext) => ctx.app.inject({ url: '/api/health' });
      expect((await health(a)).json()).toMatchObject({ status: 'OK', database: 'up', redis: 'down' });
      // Serving: sign-in works, and an ended session is refused on the other instance (the database is asked).
      const user = await createSignedInUser(a.app, a.database);
      const accountInfo = (ctx: TestContext, headers: Record<string, string>) => ctx.app.inject({ url: '/api/account_info', headers });
      expect((await accountInfo(b, user.headers)).statusCode).toBe(200);
      expect((await a.app.inject({ url: '/api/logout', headers: user.headers })).statusCode).toBe(200);
      expect((await accountInfo(b, user.headers)).statusCode).toBe(401);

      await proxy.restore();
      await until(async () => (await health(a!)).json().redis === 'up', 8000, 'Redis up on A');
      await until(async () => (await health(b!)).json().redis === 'up', 8000, 'Redis up on B');
      // Rate limits count in Redis.
      // An address of its own (no key left by an earlier run within the limit's minute).
      const ip = `198.18.${Math.floor(Math.random() * 256)}.${Math.floor(Math.random() * 256)}`;
      const other = await createSignedInUser(a.app, a.database);
      const signIn = await a.app.inject({ method: 'POST', url: '/api/login', headers: keyHeader, payload: { email: other.email, password: other.password }, remoteAddress: ip });
      expect(signIn.statusCode).toBe(200);
      expect(await direct.exists(`persona:rl:POST/api/login-${ip}`)).toBe(1);
      // B subscribed to revocations once Redis answered: it keeps sessions in memory (only
      // while it hears revocations), and a revocation published now reaches it at once.
      let held = await createSignedInUser(a.app, a.database);
      await until(
        async () => {
          expect((await accountInfo(b!, held.headers)).statusCode).toBe(200);
          await a!.database.db.execute(sql`update sessions set revoked_at = now() where user_id = ${held.id}`);
          const fromMemory = (await accountInfo(b!, held.headers)).statusCode === 200;
          if (!fromMemory) held = await createSignedInUser(a!.app, a!.database);
          return fromMemory;
        },
        8000,
        'B answering from memory (subscribed)',
      );
      await sendRevocation(direct, { kind: 'user', userId: held.id });
      await until(async () => (await accountInfo(b!, held.headers)).statusCode === 401, 2500, 'the revocation heard on B'); // within the 5 s a session is kept in memory
    } finally {
      await b?.close();
      await a?.close();
      await proxy.close();
      direct.disconnect();
    }
  });
});
