// PostgreSQL restarted or frozen while the portal runs (issue 16, ADR 078): every call that needs
// it answers a clean 503 within a bounded time, and the same calls succeed once it is back, with
// no restart; a conversation in progress keeps talking and is not closed as "worker lost".
// The database is reached through a TCP proxy that the test cuts; the real server is not touched.
import { randomBytes } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { ErrorMessages, FailReason, LivePaths, type TLiveStartAnswer } from '@persona/contract';
import type { LiveWorkerHandle } from '@persona/worker';
import { openDatabase, type Database } from '../db/client.js';
import { avatars, liveSessions, workers } from '../db/schema/index.js';
import { createTestApp, type TestContext } from '../test/build-app.js';
import { testDriver } from '../test/db.js';
import { createSignedInUser, keyHeader, validAvatar } from '../test/factories.js';
import { withDatabase } from '../test/global-setup.js';
import { PageClient, quietLog, startEmbeddedWorker, until } from '../test/live.js';
import { startTcpProxy, targetOf, type CutMode, type TcpProxy } from '../test/tcp-proxy.js';

const databaseUrl = process.env.TEST_DATABASE_URL;
if (!databaseUrl) console.warn('SKIPPED: PostgreSQL outage tests need TEST_DATABASE_URL (postgres://postgres@127.0.0.1:5432/test).');

/** Time allowed between a call and its 503 while the database is unreachable. */
const MAX_MS_TO_503 = 5_000;

// On PostgreSQL only (the server-postgres project): PGlite runs in the process and has no outage.
describe.runIf(databaseUrl && testDriver === 'postgres')('PostgreSQL unreachable, then back', () => {
  let proxy: TcpProxy;
  let database: Database;
  let dbName: string;
  let t: TestContext;
  let user: Awaited<ReturnType<typeof createSignedInUser>>;
  let worker: LiveWorkerHandle;
  /** The worker's registrations with the portal: one more means its socket was closed on it. */
  let registrations = 0;
  let base: string;
  const pages: PageClient[] = [];
  /** Measured time to the 503 per mode and call, printed at the end for the record. */
  const measured: Record<string, Record<string, number>> = {};

  beforeAll(async () => {
    const { default: pg } = await import('pg');
    dbName = `persona_o_${randomBytes(4).toString('hex')}_${inject('postgresTemplate').replace('persona_tpl_', '')}`;
    const admin = new pg.Client({ connectionString: databaseUrl });
    await admin.connect();
    await admin.query(`create database ${dbName} template ${inject('postgresTemplate')}`).finally(() => admin.end());
    proxy = await startTcpProxy(targetOf(databaseUrl!));
    const viaProxy = proxy.urlFor(withDatabase(databaseUrl!, dbName));
    database = await openDatabase({ databaseUrl: viaProxy, migrate: false, poolSize: 5 });
    t = await createTestApp({ DATABASE_URL: viaProxy, PLAN_MAX_AVATARS: 'FREE=unlimited,STARTER=unlimited,PRO=unlimited,ENTERPRISE=unlimited' }, {
      database,
      liveTimings: { staleSessionSeconds: 2, sweepIntervalMs: 200 },
      workerTimings: { pingTimeoutMs: 2500, sweepIntervalMs: 200 },
    });
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    // Pings and heartbeats every second: after an outage the sweeps (every 200 ms) come first.
    worker = await startEmbeddedWorker(t, base, { pingIntervalMs: 1000, heartbeatMs: 1000, log: { ...quietLog, info: (msg) => void (msg === 'registered' && registrations++) } });
    user = await createSignedInUser(t.app, t.database);
  });
  // A failed test leaves the database reachable for the next one.
  afterEach(async () => {
    await proxy?.restore();
  });
  afterAll(async () => {
    console.log(`time to 503 with PostgreSQL cut (ms): ${JSON.stringify(measured)}`);
    for (const p of pages) p.close();
    await proxy?.restore().catch(() => undefined);
    await worker?.stop();
    await t?.close();
    await database?.close();
    await proxy?.close();
    if (dbName) {
      const { default: pg } = await import('pg');
      const admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      await admin.query(`drop database if exists ${dbName} with (force)`).finally(() => admin.end());
    }
  });

  /** The calls of the issue: signed-in reads and a save, sign-in, health. */
  const calls = () => ({
    accountInfo: () => t.app.inject({ url: '/api/account_info', headers: user.headers }),
    listAvatars: () => t.app.inject({ url: '/api/list_avatar', headers: user.headers }),
    saveAvatar: () => t.app.inject({ method: 'POST', url: '/api/add_avatar', headers: user.headers, payload: validAvatar() }),
    signIn: () => t.app.inject({ method: 'POST', url: '/api/login', headers: keyHeader, payload: { email: user.email, password: user.password } }),
    health: () => t.app.inject({ url: '/api/health' }),
  });

  for (const mode of ['refuse', 'hang'] as CutMode[]) {
    it(`${mode}: every call answers 503 with Retry-After within ${MAX_MS_TO_503} ms; once restored the same calls succeed`, { timeout: 90_000 }, async () => {
      for (const [name, call] of Object.entries(calls())) expect((await call()).statusCode, `${name} before the cut`).toBe(200);

      await proxy.cut(mode);
      measured[mode] = {};
      for (const [name, call] of Object.entries(calls())) {
        // Health reuses its check for a second (load balancers poll it often).
        if (name === 'health') await new Promise((r) => setTimeout(r, 1100));
        const started = performance.now();
        const res = await call();
        const ms = Math.round(performance.now() - started);
        measured[mode][name] = ms;
        expect(res.statusCode, `${name}: ${res.body}`).toBe(503);
        expect(ms, `${name} answered in ${ms} ms`).toBeLessThanOrEqual(MAX_MS_TO_503);
        expect(res.headers['retry-after'], name).toBe('5');
        const body = res.json() as Record<string, unknown>;
        expect(body.status, name).toBe('FAIL');
        expect(body.errors, name).toEqual([ErrorMessages.serviceUnavailable]);
        if (name === 'health') expect(body).toMatchObject({ database: 'down' });
        else expect(body.failReason, name).toBe(FailReason.RequestFail);
        // Nothing of the driver's error reaches the client.
        expect(res.body, name).not.toMatch(/ECONN|timeout|terminated|127\.0\.0\.1|\bat \w/i);
      }

      await proxy.restore();
      // The pool connects again on the next query: no restart, no wait (health caches its check for a second).
      for (const [name, call] of Object.entries(calls())) {
        if (name === 'health') continue;
        const res = await call();
        expect(res.statusCode, `${name} after the restore: ${res.body}`).toBe(200);
      }
      await until(async () => (await calls().health()).statusCode === 200, 3000, 'health back to 200');
      expect((await calls().health()).json()).toMatchObject({ status: 'OK', database: 'up' });
    });
  }

  for (const mode of ['refuse', 'hang'] as CutMode[]) {
    it(`${mode}: a conversation in progress keeps talking through the outage; neither it nor its worker is taken for lost after it`, { timeout: 60_000 }, async () => {
      const [avatar] = await t.database.db
        .insert(avatars)
        .values({ userId: user.id, name: 'Ava', nlpEngine: 0, config: { wakeUpMessage: '', idleTimeout: 300, dailyLimitPerSession: -1, dailyLimitPerIP: -1, dailyLimits: { Demo: -1 } } })
        .returning();
      const started = await t.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId: avatar!.id }, remoteAddress: `198.51.100.${mode === 'refuse' ? 77 : 78}` });
      expect(started.statusCode, started.body).toBe(200);
      const answer = started.json() as TLiveStartAnswer;
      const page = new PageClient(answer);
      pages.push(page);
      await page.waitFor('ready');
      page.text('before the outage');
      await until(() => page.answers().length === 1, 8000, 'an answer before the outage');

      // Out for longer than the stale time (2 s) and the ping timeout (2.5 s): heartbeats and pings are not written.
      const registered = registrations;
      await proxy.cut(mode);
      page.text('during the outage');
      await until(() => page.answers().length === 2, 8000, 'an answer during the outage');
      await new Promise((r) => setTimeout(r, 3500));
      await proxy.restore();

      // Both sweeps run every 200 ms: a second after the restore they would have closed what they take for lost.
      await new Promise((r) => setTimeout(r, 1500));
      page.text('after the outage');
      await until(() => page.answers().length === 3, 8000, 'an answer after the outage');
      expect(page.closeCode).toBeNull();
      const [row] = await t.database.db.select().from(liveSessions).where(eq(liveSessions.id, answer.sessionId!));
      expect(row!.endedAt).toBeNull();
      // The worker kept its connection to the portal (the worker sweep did not cut it) and is available.
      expect(registrations).toBe(registered);
      const [workerRow] = await t.database.db.select().from(workers).where(eq(workers.id, worker.id()!));
      expect(workerRow!.status).toBe('AVAILABLE');
      // Its heartbeats are written again.
      await until(
        async () => {
          const [again] = await t.database.db.select().from(liveSessions).where(eq(liveSessions.id, answer.sessionId!));
          return Date.now() - again!.lastHeartbeatAt.getTime() < 1500;
        },
        5000,
        'a heartbeat written after the restore',
      );
      page.close();
    });
  }
});
