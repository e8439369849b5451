import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { LiveCode, LivePaths, type TLiveStartAnswer } from '@persona/contract';
import { openDatabase, type Database } from '../db/client.js';
import { callRecords, liveSessions } from '../db/schema/index.js';
import { startFakeS3, type FakeS3 } from '../test/fake-s3.js';
import { withDatabase } from '../test/global-setup.js';
import { PageClient, until } from '../test/live.js';
import { assertBuilt, freePort, startPortal, startWorkerProcess, type Proc } from '../test/processes.js';

/**
 * Issue 16: the production topology on this machine — two portal instances on one PostgreSQL, one
 * Redis and one S3-compatible bucket, behind nothing but their own ports, and two external workers (`npm run worker`)
 * registered with them — started as separate processes with the configuration the README's
 * "Running in production" gives, then broken on purpose (SIGKILL, SIGTERM).
 * Runs where the suite has a PostgreSQL server and Redis (CI: TEST_DATABASE_URL, TEST_REDIS_URL).
 */
const enabled = process.env.TEST_DB_DRIVER === 'postgres' && Boolean(process.env.TEST_DATABASE_URL) && Boolean(process.env.TEST_REDIS_URL);
const APP_KEY = 'persona-studio-web';
const ADMIN = { email: 'operator@example.com', password: 'Operator-Password-1' };
const METRICS_TOKEN = 'topology-metrics-token-0123456789';

describe.runIf(enabled)('production topology: two portals, two workers, PostgreSQL, Redis and a bucket', () => {
  const procs: Proc[] = [];
  const dataDirs: string[] = [];
  const pages: PageClient[] = [];
  const dbName = `persona_topo_${randomBytes(4).toString('hex')}`;
  const adminUrl = process.env.TEST_DATABASE_URL!;
  let portalEnv: (name: string, port: number) => Record<string, string>;
  let oracle: Database;
  let bucket: FakeS3;
  let A: { proc: Proc; base: string; port: number };
  let B: { proc: Proc; base: string; port: number };
  const workers = new Map<string, { proc: Proc; port: number }>();
  let adminToken = '';

  const api = async (base: string, url: string, init: { method?: string; token?: string; body?: unknown } = {}) => {
    const res = await fetch(`${base}${url}`, {
      method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
      headers: { authorization: `Bearer ${APP_KEY}${init.token ? `:${init.token}` : ''}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text) as Record<string, unknown>;
    } catch {
      // a page, not JSON
    }
    return { status: res.status, json, text };
  };
  const vps = async (base: string) => ((await api(base, '/api/list_vps', { token: adminToken })).json.vpsList ?? []) as { name: string; status: string }[];
  const statusOf = async (base: string, name: string) => (await vps(base)).find((v) => v.name === name)?.status;

  async function bootPortal(name: string, port: number) {
    const proc = startPortal(name, portalEnv(name, port));
    procs.push(proc);
    return proc;
  }
  async function bootWorker(name: string, servers: string[], extra: string[] = []) {
    const proc = startWorkerProcess(name, servers, { WORKER_SECRET: 'topology-worker-secret-0123456789', METRICS_TOKEN }, extra);
    procs.push(proc);
    const port = Number((await proc.waitFor(/page sockets on port (\d+)/))[1]);
    await proc.waitFor(/registered/);
    workers.set(name, { proc, port });
    return { proc, port };
  }
  const workerOf = (answer: TLiveStartAnswer) => [...workers.entries()].find(([, w]) => answer.wsUrl?.includes(`:${w.port}/`))?.[0];
  function page(answer: TLiveStartAnswer) {
    const p = new PageClient(answer);
    pages.push(p);
    return p;
  }
  const admit = async (base: string, avatarId: number, visitorId: string) => {
    const res = await api(base, LivePaths.start, { body: { avatarId, visitorId } });
    expect(res.status, res.text).toBe(200);
    return res.json as unknown as TLiveStartAnswer;
  };
  async function addEchoAvatar(base: string, name: string) {
    const res = await api(base, '/api/add_avatar', {
      token: adminToken,
      body: { name, nlpEngine: 0, dhType: 2, setupMode: 0, wakeUpMessage: 'Hello from the cluster.', dailyLimitPerSession: -1, dailyLimitPerIP: -1, dailyLimits: { Demo: -1 }, idleTimeout: 300, avatarJson: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json' }) },
    });
    expect(res.status, res.text).toBe(200);
    return (res.json.agent as { id: number }).id;
  }

  beforeAll(async () => {
    assertBuilt();
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`create database ${dbName}`);
    await admin.end();
    const databaseUrl = withDatabase(adminUrl, dbName);
    // Its own Redis database: keys of other tests' instances are not ours to see.
    const redis = new URL(process.env.TEST_REDIS_URL!);
    redis.pathname = '/9';
    const secretKey = randomBytes(32).toString('hex');
    // The S3-compatible bucket (a fake that checks SigV4 with its own code).
    bucket = await startFakeS3({ accessKey: 'TOPOLOGYKEY', secretKey: 'topology/secret', region: 'eu-west-1', bucket: 'persona-files' });
    const [pa, pb] = [await freePort(), await freePort()];
    const dirOf = new Map<string, string>();
    portalEnv = (name, port) => {
      // An instance keeps its data dir across restarts (as its machine would).
      let dataDir = dirOf.get(name);
      if (!dataDir) {
        dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `persona-topo-${name}-`));
        dirOf.set(name, dataDir);
        dataDirs.push(dataDir);
      }
      return {
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        PUBLIC_URL: `http://127.0.0.1:${pa}`,
        DATABASE_URL: databaseUrl,
        REDIS_URL: redis.toString(),
        STORAGE_URL: bucket.storageUrl,
        SECRET_KEY: secretKey,
        WORKER_SECRET: 'topology-worker-secret-0123456789',
        EMBEDDED_WORKER: 'false',
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
        PLAN_MAX_AVATARS: 'FREE=unlimited,STARTER=unlimited,PRO=unlimited,ENTERPRISE=unlimited',
        LOG_LEVEL: 'warn',
        METRICS_TOKEN,
      };
    };
    // Both at once, as a deploy starts them: one applies the migrations, the other waits for it.
    const [procA, procB] = await Promise.all([bootPortal('portal-a', pa), bootPortal('portal-b', pb)]);
    await Promise.all([procA.waitFor(/is ready/, 60_000), procB.waitFor(/is ready/, 60_000)]);
    A = { proc: procA, base: `http://127.0.0.1:${pa}`, port: pa };
    B = { proc: procB, base: `http://127.0.0.1:${pb}`, port: pb };
    oracle = await openDatabase({ databaseUrl, migrate: false, poolSize: 2 });
    await Promise.all([bootWorker('w1', [A.base, B.base]), bootWorker('w2', [B.base, A.base])]);
    const login = await api(A.base, '/api/login', { body: ADMIN });
    expect(login.status, login.text).toBe(200);
    adminToken = login.json.sessionId as string;
  }, 120_000);

  afterAll(async () => {
    for (const p of pages) p.close();
    for (const p of procs) if (p.alive()) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await oracle?.close();
    await bucket?.close();
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: adminUrl });
    await admin.connect();
    await admin.query(`drop database if exists ${dbName} with (force)`).finally(() => admin.end());
    for (const dir of dataDirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('every instance serves every page, shares sign-ins and their revocation, and shows both workers', async () => {
    for (const base of [A.base, B.base]) {
      const shell = await api(base, '/react/');
      expect(shell.status).toBe(200);
      expect(shell.text).toContain('<div id="root">');
      expect((await api(base, '/api/account_info', { token: adminToken })).status).toBe(200);
    }
    // A second sign-in, signed out through B, is refused by A at once.
    const other = (await api(B.base, '/api/login', { body: ADMIN })).json.sessionId as string;
    expect((await api(A.base, '/api/account_info', { token: other })).status).toBe(200);
    expect((await api(B.base, '/api/logout', { token: other })).status).toBe(200);
    expect((await api(A.base, '/api/account_info', { token: other })).status).toBe(401);
    for (const base of [A.base, B.base]) {
      await until(async () => (await statusOf(base, 'w1')) === 'AVAILABLE' && (await statusOf(base, 'w2')) === 'AVAILABLE', 10_000, 'both workers AVAILABLE');
    }
  });

  it('a file uploaded through one instance goes to the bucket and is served by the other', async () => {
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(4096)]);
    const form = new FormData();
    form.set('json', JSON.stringify({ name: 'Bucket Ava', nlpEngine: 0, dhType: 2, setupMode: 0, wakeUpMessage: 'Hi.', dailyLimitPerSession: -1, dailyLimitPerIP: -1, dailyLimits: { Demo: -1 }, idleTimeout: 300, avatarJson: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json' }) }));
    form.set('backgroundImage', new Blob([png], { type: 'image/png' }), 'office.png');
    const res = await fetch(`${A.base}/api/add_avatar_v2`, { method: 'POST', headers: { authorization: `Bearer ${APP_KEY}:${adminToken}` }, body: form });
    const saved = (await res.json()) as { agent: { mediaDetails: { backgroundImage: { url: string }[] } } };
    expect(res.status, JSON.stringify(saved)).toBe(200);
    const url = new URL(saved.agent.mediaDetails.backgroundImage[0]!.url, A.base).pathname;
    const key = decodeURIComponent(url.replace(/^\/files\//, ''));
    expect(bucket.objects.get(key)?.body.equals(png)).toBe(true);
    const served = await fetch(`${B.base}${url}`);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer()).equals(png)).toBe(true);
  });

  it('a visitor admitted by one instance talks, shows in Online Users on the other and is billed once', async () => {
    const avatarId = await addEchoAvatar(A.base, 'Cluster Ava');
    const answer = await admit(B.base, avatarId, 'visitor-cluster-1');
    const p = page(answer);
    await p.waitFor('ready');
    await p.waitFor('assistant', (f) => f.final && f.text === 'Hello from the cluster.');
    p.text('Are you there?', 'm1');
    await p.waitFor('assistant', (f) => f.final && f.text === 'Are you there?');
    await until(async () => {
      const online = (await api(A.base, '/api/list_online_users', { token: adminToken, body: { mode: 'get' } })).json.onlineUsers as { sessionId: string }[];
      return online.some((u) => u.sessionId === answer.sessionId);
    }, 10_000, 'the session in Online Users on instance A');
    await new Promise((r) => setTimeout(r, 1100));
    p.send({ type: 'bye' });
    await until(async () => (await oracle.db.select().from(callRecords).where(eq(callRecords.sessionId, answer.sessionId!))).length === 1, 10_000, 'a call record');
    const stats = await api(A.base, '/api/account_stats', { token: adminToken, body: {} });
    expect(stats.status, stats.text).toBeLessThan(500);
  });

  it('a worker killed mid-conversation: the page is back on the other worker within 3 s with its history, and the session is billed once', async () => {
    const avatarId = await addEchoAvatar(B.base, 'Failover Ava');
    const answer = await admit(A.base, avatarId, 'visitor-cluster-2');
    const p = page(answer);
    await p.waitFor('assistant', (f) => f.final && f.text === 'Hello from the cluster.');
    p.text('Remember this question.', 'm1');
    await p.waitFor('assistant', (f) => f.final && f.text === 'Remember this question.');
    const victim = workerOf(answer)!;
    const survivor = victim === 'w1' ? 'w2' : 'w1';
    expect(victim).toBeDefined();

    const killedAt = Date.now();
    workers.get(victim)!.proc.child.kill('SIGKILL');
    await p.waitClosed(3000);
    // What the page does (live-session.ts resume): ask any instance for a new worker, then say hello again.
    const resumed = await api(B.base, LivePaths.resume, { body: { sessionId: answer.sessionId, resumeToken: answer.resumeToken } });
    expect(resumed.status, resumed.text).toBe(200);
    const next = resumed.json as unknown as TLiveStartAnswer;
    expect(workerOf(next)).toBe(survivor);
    const p2 = page(next);
    const ready = await p2.waitFor('ready', () => true, 3000);
    const back = Date.now() - killedAt;
    expect(back).toBeLessThan(3000);
    expect(ready.resumed).toBe(true);
    expect(ready.history.map((h) => h.text)).toEqual(['Hello from the cluster.', 'Remember this question.', 'Remember this question.']);
    p2.text('And now?', 'm2');
    await p2.waitFor('assistant', (f) => f.final && f.text === 'And now?');
    for (const base of [A.base, B.base]) await until(async () => (await statusOf(base, victim)) === 'DISCONNECTED', 5000, `${victim} DISCONNECTED`);

    p2.send({ type: 'bye' });
    await until(async () => (await oracle.db.select().from(callRecords).where(eq(callRecords.sessionId, answer.sessionId!))).length === 1, 10_000, 'a call record');
    await new Promise((r) => setTimeout(r, 500));
    expect(await oracle.db.select().from(callRecords).where(eq(callRecords.sessionId, answer.sessionId!))).toHaveLength(1);
    const [row] = await oracle.db.select().from(liveSessions).where(eq(liveSessions.id, answer.sessionId!));
    expect(row).toMatchObject({ endCode: LiveCode.hangUp });
    console.log(`[topology] worker SIGKILL → page in a conversation on the other worker: ${back} ms`);
    // Counted where an operator's Prometheus looks: the resume on the instance that granted it, the moved session on the survivor.
    const scrape = async (url: string) => {
      const res = await fetch(url, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(res.status).toBe(200);
      return res.text();
    };
    expect(await scrape(`${B.base}/metrics`)).toMatch(/persona_portal_live_sessions_admitted_total\{kind="resume"\} [1-9]/);
    expect(await scrape(`http://127.0.0.1:${workers.get(survivor)!.port}/metrics`)).toMatch(/persona_worker_sessions_started_total\{resumed="true"\} 1/);
    expect((await fetch(`${A.base}/metrics`)).status).toBe(401);
    // A replacement, for the tests that follow.
    workers.delete(victim);
    await bootWorker(victim, victim === 'w1' ? [A.base, B.base] : [B.base, A.base]);
  }, 60_000);

  it('a worker stopped with SIGTERM takes no new session, finishes the one it holds, then exits', async () => {
    const avatarId = await addEchoAvatar(A.base, 'Drain Ava');
    const held = await admit(A.base, avatarId, 'visitor-cluster-3');
    const p = page(held);
    await p.waitFor('assistant', (f) => f.final && f.text === 'Hello from the cluster.');
    const draining = workerOf(held)!;
    const other = draining === 'w1' ? 'w2' : 'w1';
    const proc = workers.get(draining)!.proc;
    proc.child.kill('SIGTERM');
    await proc.waitFor(/draining/, 5000);
    await until(async () => (await statusOf(B.base, draining)) === 'BUSY', 5000, `${draining} BUSY`);
    // New visitors go to the other worker…
    for (let i = 0; i < 3; i++) expect(workerOf(await admit(B.base, avatarId, `visitor-new-${i}`))).toBe(other);
    // …while the held conversation goes on.
    p.text('Still with me?', 'm1');
    await p.waitFor('assistant', (f) => f.final && f.text === 'Still with me?');
    expect(proc.alive()).toBe(true);
    p.send({ type: 'bye' });
    expect(await proc.exited).toEqual({ code: 0, signal: null });
    workers.delete(draining);
    await bootWorker(draining, draining === 'w1' ? [A.base, B.base] : [B.base, A.base]);
  }, 60_000);

  it('a portal instance killed mid-request: the other keeps serving, no acknowledged write is lost, workers move over, and a restart needs nothing by hand', async () => {
    // Writes in flight on A when it dies: every one A acknowledged is there, read through B.
    const acknowledged: number[] = [];
    const writes = Array.from({ length: 24 }, (_, i) =>
      api(A.base, '/api/add_avatar', {
        token: adminToken,
        body: { name: `Write ${i}`, nlpEngine: 0, dhType: 2, setupMode: 0, wakeUpMessage: 'Hi.', dailyLimitPerSession: -1, dailyLimitPerIP: -1, dailyLimits: { Demo: -1 }, idleTimeout: 300, avatarJson: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json' }) },
      })
        .then((r) => {
          if (r.status === 200 && r.json.status === 'OK') acknowledged.push((r.json.agent as { id: number }).id);
        })
        .catch(() => undefined),
    );
    await until(() => acknowledged.length >= 3, 10_000, 'first writes acknowledged');
    A.proc.child.kill('SIGKILL');
    await Promise.all(writes);
    await A.proc.exited;
    expect(acknowledged.length).toBeGreaterThanOrEqual(3);
    const listed = ((await api(B.base, '/api/list_avatar', { token: adminToken })).json.agents as { id: number }[]).map((a) => a.id);
    for (const id of acknowledged) expect(listed).toContain(id);

    // B goes on: sign-ins, pages, and every worker (those of A too) registered with it.
    expect((await api(B.base, '/api/account_info', { token: adminToken })).status).toBe(200);
    // Each worker's connection is with B now (its row may still say AVAILABLE from A's time).
    const lastServer = (proc: Proc) => [...proc.output().matchAll(/registered .*?server: '([^']+)'/g)].at(-1)?.[1] ?? '';
    for (const [name, w] of workers) await until(() => lastServer(w.proc).includes(`:${B.port}/`), 8000, `${name} registered with B`);
    for (const name of workers.keys()) expect(await statusOf(B.base, name)).toBe('AVAILABLE');
    const avatarId = acknowledged[0]!;
    const p = page(await admit(B.base, avatarId, 'visitor-cluster-4'));
    await p.waitFor('assistant', (f) => f.final && f.text === 'Hi.');
    p.text('After the crash?', 'm1');
    await p.waitFor('assistant', (f) => f.final && f.text === 'After the crash?');

    // The same command brings A back; nothing else is done.
    const again = startPortal('portal-a', { ...portalEnv('portal-a', A.port) });
    procs.push(again);
    await again.waitFor(/is ready/, 60_000);
    expect((await api(A.base, '/api/account_info', { token: adminToken })).status).toBe(200);
    const fromA = ((await api(A.base, '/api/list_avatar', { token: adminToken })).json.agents as { id: number }[]).map((a) => a.id);
    for (const id of acknowledged) expect(fromA).toContain(id);
    // Its start did not mark B's workers disconnected.
    for (const name of workers.keys()) expect(await statusOf(A.base, name)).toBe('AVAILABLE');
    p.text('Still here?', 'm2');
    await p.waitFor('assistant', (f) => f.final && f.text === 'Still here?');
    p.send({ type: 'bye' });
  }, 90_000);
});
