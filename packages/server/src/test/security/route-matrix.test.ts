// The route × role matrix (issue 16): every route of the app's route table, called by an anonymous
// visitor, user A, user B, an administrator and an administrator signed in as A (admin-proxy),
// with A's and B's ids, must answer as route-table.ts says: 401 without credentials, 403 for a
// user on an administrator's call, 404 for another account's object, never a 5xx, never
// another account's data, and a refusal changes nothing stored. A route without an entry in route-table.ts fails here.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RouteOptions } from 'fastify';
import WebSocket from 'ws';
import { eq } from 'drizzle-orm';
import { LiveCode, LiveRpc, type TLiveRpcMethod } from '@persona/contract';
import { createTestApp, type TestContext } from '../build-app.js';
import { avatars, liveSessions, workers } from '../../db/schema/index.js';
import { TEST_WORKER_SECRET } from '../live.js';
import { uniqueRoutes } from './route-capture.js';
import { ROUTE_TABLE, type RouteRule } from './route-table.js';
import { changedTables, nextIp, setUpSecurity, type AccountName, type Role, type Security } from './fixtures.js';

const { routes } = vi.hoisted(() => ({ routes: [] as RouteOptions[] }));
vi.mock('fastify', async (importOriginal) => (await import('./route-capture.js')).captureRoutes(await importOriginal<object>(), routes));

const webDist = fs.mkdtempSync(path.join(os.tmpdir(), 'persona-matrix-web-'));
fs.writeFileSync(path.join(webDist, 'index.html'), '<!doctype html><title>Persona Studio</title>');
fs.writeFileSync(path.join(webDist, 'avatar.html'), '<!doctype html><title>Avatar</title>');
const closedPort = 'http://127.0.0.1:9';
const providerHosts = Object.fromEntries(['OPENAI', 'GROQ', 'GEMINI', 'ELEVENLABS', 'CARTESIA', 'NEUPHONIC', 'DEEPGRAM', 'POLLY', 'AZURE_TTS', 'AZURE_STT'].map((p) => [`PROVIDER_${p}_URL`, closedPort]));

let t: TestContext;
let s: Security;
beforeAll(async () => {
  t = await createTestApp({ ALLOW_REGISTRATION: 'true', METRICS_TOKEN: 'matrix-metrics-token-0123456789', WEB_DIST_DIR: webDist, PLAN_MAX_AVATARS: 'FREE=unlimited,STARTER=unlimited,PRO=unlimited,ENTERPRISE=unlimited', ...providerHosts });
  s = await setUpSecurity(t.app, t.database);
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(webDist, { recursive: true, force: true });
});

const ROLES: Role[] = ['anonymous', 'A', 'B', 'admin', 'proxy'];
type Expect = { kind: 'ok' | 'foreign' | 'unauthorized' | 'forbidden' | 'any'; statuses: number[] | 'any' };

const statusesOf = (v: number | number[] | 'any' | undefined, fallback: number[]): number[] | 'any' => (v === 'any' ? 'any' : v === undefined ? fallback : [v].flat());

/** What a role calling with `target`'s ids must get. */
function expectation(rule: RouteRule, role: Role, target: AccountName, withKey = true): Expect {
  const ok: Expect = { kind: 'ok', statuses: statusesOf(rule.ok, [200]) };
  switch (rule.access) {
    case 'public':
      return ok;
    case 'appKey':
      return role === 'anonymous' && !withKey ? { kind: 'unauthorized', statuses: [401] } : ok;
    case 'worker':
    case 'metricsToken':
      return { kind: 'unauthorized', statuses: [401] };
    case 'agent':
      return { kind: 'unauthorized', statuses: [401, 403] };
    case 'ticket':
      return { kind: 'any', statuses: 'any' };
    case 'admin':
      if (role === 'anonymous') return { kind: 'unauthorized', statuses: [401] };
      return role === 'admin' ? ok : { kind: 'forbidden', statuses: [403] };
    case 'session':
    case 'jwt':
      if (role === 'anonymous') return { kind: 'unauthorized', statuses: [401] };
      if (rule.owned && s.ownerOf(role) !== target) return { kind: 'foreign', statuses: statusesOf(rule.foreign, [404]) as number[] };
      if (role === 'proxy' && rule.notAsProxy) return { kind: 'forbidden', statuses: [403] };
      return ok;
  }
}

/** Role × ids pairs: refusals first (they must leave the objects as they were), allowed calls last. */
function plan(rule: RouteRule): { role: Role; target: AccountName; expect: Expect }[] {
  const pairs: { role: Role; target: AccountName }[] = [];
  for (const role of ROLES) {
    const own = s.ownerOf(role);
    if (rule.owned) {
      // Each role with A's ids and with B's ids.
      pairs.push({ role, target: 'A' }, { role, target: 'B' });
    } else {
      pairs.push({ role, target: own ?? 'A' });
    }
  }
  const all = pairs.map((p) => ({ ...p, expect: expectation(rule, p.role, p.target) }));
  return [...all.filter((p) => p.expect.kind !== 'ok'), ...all.filter((p) => p.expect.kind === 'ok')];
}

/** A refusal's answer: `{status: 'FAIL', errors: [strings]}` (DESIGN.md "Calls"), no stack trace. */
function isRefusalBody(body: string): boolean {
  try {
    const json = JSON.parse(body) as { status?: unknown; errors?: unknown };
    return json.status === 'FAIL' && Array.isArray(json.errors) && json.errors.every((e) => typeof e === 'string') && !/\bat .+\(.+:\d+:\d+\)/.test(body);
  } catch {
    return false;
  }
}

const routeKeys = () => uniqueRoutes(routes).map((r) => r.key);

describe('the route table', () => {
  it('has an entry in security/route-table.ts for every route the server registers, and none for a route that is gone', () => {
    const keys = routeKeys();
    expect(keys.length).toBeGreaterThan(70);
    const missing = keys.filter((k) => !(k in ROUTE_TABLE));
    const stale = Object.keys(ROUTE_TABLE).filter((k) => !keys.includes(k));
    expect(
      missing,
      missing.length
        ? `Routes without an entry: add to ROUTE_TABLE in packages/server/src/test/security/route-table.ts, e.g.\n${missing.map((k) => `  '${k}': { access: 'session' /* public | session | admin | jwt | worker | ticket */, owned: true /* when it names an account's objects */, call: async (f) => ({ url: '...', payload: { ... } }) },`).join('\n')}`
        : '',
    ).toEqual([]);
    expect(stale, `Entries for routes the server no longer has: remove them from ROUTE_TABLE`).toEqual([]);
  });
});

describe('route × role matrix', () => {
  // One test per entry; the routes themselves are known only once the app is built.
  for (const [key, rule] of Object.entries(ROUTE_TABLE)) {
    const [method, url] = [key.slice(0, key.indexOf(' ')), key.slice(key.indexOf(' ') + 1)];
    it(`${key}: ${rule.access}${rule.owned ? ', owned' : ''}`, async () => {
      if (!routeKeys().includes(key)) return; // reported by the route-table test
      const failures: string[] = [];
      const kind = rule.access === 'jwt' ? 'jwt' : 'session';
      for (const { role, target, expect: planned } of plan(rule)) {
        const fresh = rule.consumes === true && planned.kind === 'ok';
        const call = rule.call ? await rule.call(s.fixtures(target, fresh)) : { url, payload: method === 'POST' || method === 'PUT' ? {} : undefined };
        const variants = role === 'anonymous' ? [{}, s.credentials('anonymous', kind)] : [s.credentials(role, kind)];
        for (const headers of variants) {
          const noHeader = !('authorization' in headers);
          const want = noHeader ? expectation(rule, role, target, false) : planned;
          const refusal = want.kind === 'unauthorized' || want.kind === 'forbidden' || want.kind === 'foreign';
          // Background work an earlier, allowed call started (a knowledge item's re-ingestion) ends
          // first: its writes landing between the two snapshots are not this call's.
          if (refusal) await t.app.knowledge.ingestion.idle();
          const before = refusal ? await s.snapshot() : null;
          const res = await s.send(method, call, headers);
          const touched = before ? changedTables(before, await s.snapshot()) : [];
          const who = `${role}${noHeader ? ' (no header)' : ''} with ${target}'s ids`;
          if (res.statusCode >= 500) failures.push(`${who} → ${res.statusCode} ${res.body.slice(0, 200)}`);
          else if (want.statuses !== 'any' && !want.statuses.includes(res.statusCode)) {
            failures.push(`${who} → ${res.statusCode}, expected ${want.statuses.join('/')} (${want.kind}): ${res.body.slice(0, 200)}`);
          } else if (want.statuses === 'any' && want.kind === 'ok' && (res.statusCode === 401 || res.statusCode === 403)) {
            failures.push(`${who} → ${res.statusCode}, expected to be let in: ${res.body.slice(0, 200)}`);
          } else if (want.kind !== 'ok' && want.kind !== 'any' && !isRefusalBody(res.body)) {
            failures.push(`${who} → ${res.statusCode}: a refusal is JSON {status: 'FAIL', errors: [...]}, got ${res.body.slice(0, 200)}`);
          }
          if (touched.length) failures.push(`${who} → ${res.statusCode} (refused) but changed ${touched.join(', ')}`);
          // Never another account's data: no marker of an account the caller does not act as.
          if (!rule.publicData && rule.access !== 'admin') {
            const own = s.ownerOf(role);
            for (const name of ['A', 'B'] as AccountName[]) {
              if (name !== own && res.body.includes(s.accounts[name].marker)) failures.push(`${who} → ${res.statusCode} shows ${name}'s data: ${res.body.slice(0, 200)}`);
            }
          }
        }
        if (rule.endsSession && role !== 'anonymous') await s.refresh();
      }
      expect(failures, failures.join('\n')).toEqual([]);
    });
  }
});

describe("another account's ids inside a payload", () => {
  it("an avatar cannot link B's function, key, collection or OAuth config (refused, nothing stored)", async () => {
    const mine = await s.fixtures('A').avatar();
    const b = s.fixtures('B');
    const fn = await s.fixtures('B', true).fn();
    // Approved, so that only its owner stands in the way.
    const review = await s.send('POST', { url: '/api/admin/functions/review', payload: { ...fn, decision: 'approve' } }, s.credentials('admin', 'session'));
    expect(review.statusCode, review.body).toBe(200);
    const base = { id: mine, name: 'Receptionist', nlpEngine: 0, dhType: 2, setupMode: 0, wakeUpMessage: 'Hi', idleTimeout: 300 };
    const links: Record<string, unknown>[] = [
      { functions: [fn.id] },
      { encKeyId: await b.key() },
      { customData: { collection_ids: [await b.collection()] } },
      { oauthEnabled: 1, partnerOauthAppId: await b.oauthApp() },
    ];
    const before = (await t.database.db.select().from(avatars).where(eq(avatars.id, mine)))[0]!;
    for (const link of links) {
      for (const role of ['A', 'proxy'] as Role[]) {
        const res = await s.send('POST', { url: '/api/add_avatar', payload: { ...base, ...link } }, s.credentials(role, 'session'));
        expect([400, 404], `${role} ${JSON.stringify(link)} → ${res.statusCode} ${res.body.slice(0, 200)}`).toContain(res.statusCode);
        expect(res.body).not.toContain(s.accounts.B.marker);
      }
    }
    const after = (await t.database.db.select().from(avatars).where(eq(avatars.id, mine)))[0]!;
    expect(after.config).toEqual(before.config);
    expect(after.version).toBe(before.version);
  });

  it("knowledge search and items: B's collection ids mixed with A's are refused, not filtered into an answer", async () => {
    const a = s.fixtures('A');
    const b = s.fixtures('B');
    await a.item();
    await b.item();
    const res = await s.send('POST', { url: '/knowledge/similarity-search', payload: { collection_ids: [await a.collection(), await b.collection()], query: 'Private note' } }, s.credentials('A', 'jwt'));
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toContain(s.accounts.B.marker);
    // Two items ingested first (the local embeddings model loads on the first): 30 s was not
    // always enough on a loaded machine (issue 26, item 16); every step is awaited, none timed.
  }, 120_000);
});

describe('the live runtime: sessions, tickets and the workers', () => {
  // The fixtures' worker row stands for a connected worker: it pings (admission skips one silent
  // for WorkerProtocol.pingTimeoutMs, 30 s — which a loaded machine's slow steps can exceed
  // between two admissions: issue 26, item 16).
  const pinged = () => t.database.db.update(workers).set({ lastPingTime: new Date() }).where(eq(workers.status, 'AVAILABLE'));
  const startFor = async (account: AccountName) => {
    const avatarId = await s.fixtures(account).avatar();
    await pinged();
    const res = await t.app.inject({ method: 'POST', url: '/api/live/sessions', payload: { avatarId, textOnly: true }, remoteAddress: nextIp() });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { sessionId: string; resumeToken: string; ticket: string };
    const claims = JSON.parse(Buffer.from(body.ticket.split('.')[0]!, 'base64url').toString()) as { jti: string; wid: number; sid: string };
    return { ...body, claims };
  };
  const row = async (id: string) => (await t.database.db.select().from(liveSessions).where(eq(liveSessions.id, id)))[0]!;

  it("resume and end need the session's own resume token: another session's is 404 and changes nothing", async () => {
    const mine = await startFor('A');
    const theirs = await startFor('B');
    for (const url of ['/api/live/sessions/resume', '/api/live/sessions/end']) {
      for (const payload of [
        { sessionId: mine.sessionId, resumeToken: theirs.resumeToken },
        { sessionId: theirs.sessionId, resumeToken: mine.resumeToken },
        { sessionId: mine.sessionId, resumeToken: mine.ticket },
        { sessionId: 'no-such-session', resumeToken: mine.resumeToken },
      ]) {
        const res = await t.app.inject({ method: 'POST', url, payload, remoteAddress: nextIp() });
        expect(res.statusCode, `${url} ${res.body}`).toBe(404);
        expect(res.body).not.toContain('ticket');
      }
    }
    expect((await row(theirs.sessionId)).endedAt).toBeNull();
    expect((await row(theirs.sessionId)).ticketJti).toBe(theirs.claims.jti);
  });

  // A new RPC method of the workers must say here what another worker's call on a session gets.
  const foreignCall: Record<TLiveRpcMethod, (sessionId: string) => unknown> = {
    'session.claim': (sessionId) => ({ sessionId, jti: 'x' }),
    'session.heartbeat': (sessionId) => ({ sessionId, lastUserActivityAt: null }),
    'session.history': (sessionId) => ({ sessionId, history: [] }),
    'session.end': (sessionId) => ({ sessionId, code: LiveCode.hangUp, summary: 'stolen summary' }),
    'session.function_failed': (sessionId) => ({ sessionId, name: 'forged', error: null }),
    'agent.offer': (sessionId) => ({ sessionId }),
    'knowledge.search': (sessionId) => ({ sessionId, query: 'Private note', k: 5 }),
    'knowledge.vocabulary': (sessionId) => ({ sessionId }),
  } as Record<TLiveRpcMethod, (sessionId: string) => unknown>;

  it('a worker acts only on the sessions the portal gave it; a ticket is claimed once, by its worker', async () => {
    const methods = Object.keys(LiveRpc) as TLiveRpcMethod[];
    expect(methods.filter((m) => !foreignCall[m]), 'RPC methods without a case in route-matrix.test.ts (foreignCall)').toEqual([]);
    const session = await startFor('A');
    const mine = session.claims.wid;
    expect(mine).toBe(s.workerId);
    const other = mine + 100_000;
    const call = (wid: number, method: TLiveRpcMethod, params: unknown) => t.app.live.handleRpc(wid, method, params);

    // Another worker (even with the right jti): refused, or an empty answer; the session is untouched.
    const claimByOther = await call(other, 'session.claim', { sessionId: session.sessionId, jti: session.claims.jti });
    expect(claimByOther).toEqual({ ok: false, error: LiveCode.sessionNotFound });
    for (const method of methods) {
      const res = await call(other, method, { ...(foreignCall[method](session.sessionId) as object), ...(method === 'session.claim' ? { jti: session.claims.jti } : {}) });
      const text = JSON.stringify(res);
      expect(text).not.toContain(s.accounts.A.marker);
      if (res.ok) expect([{}, { offered: false }, { passages: [] }, { items: [] }], `${method} by another worker answered ${text}`).toContainEqual(res.result);
    }
    expect((await row(session.sessionId)).endedAt).toBeNull();
    expect((await row(session.sessionId)).claimedJti).toBeNull();

    // Its own worker with a wrong jti: refused; with the ticket's: the config; the same ticket again: refused.
    expect(await call(mine, 'session.claim', { sessionId: session.sessionId, jti: 'forged-jti' })).toEqual({ ok: false, error: LiveCode.sessionNotFound });
    const claimed = await call(mine, 'session.claim', { sessionId: session.sessionId, jti: session.claims.jti });
    expect(claimed.ok, JSON.stringify(claimed)).toBe(true);
    expect(await call(mine, 'session.claim', { sessionId: session.sessionId, jti: session.claims.jti })).toEqual({ ok: false, error: LiveCode.sessionNotFound });
    // Resumed elsewhere: the old worker's calls no longer reach it.
    await pinged();
    const resumed = await t.app.inject({ method: 'POST', url: '/api/live/sessions/resume', payload: { sessionId: session.sessionId, resumeToken: session.resumeToken }, remoteAddress: nextIp() });
    expect(resumed.statusCode).toBe(200);
    const oldJti = session.claims.jti;
    expect(await call(mine, 'session.claim', { sessionId: session.sessionId, jti: oldJti })).toEqual({ ok: false, error: LiveCode.sessionNotFound });
  });

  it("a worker gets only the avatar owner's functions and knowledge, whatever the stored config says", async () => {
    const b = s.fixtures('B');
    await b.item();
    await t.app.knowledge.ingestion.idle(); // B's note has chunks: refusing it is not an accident of timing
    const foreign = await b.collection();
    const fn = await s.fixtures('B', true).fn();
    const review = await s.send('POST', { url: '/api/admin/functions/review', payload: { id: fn.id, version: fn.version, decision: 'approve' } }, s.credentials('admin', 'session'));
    expect(review.statusCode, review.body).toBe(200);
    // An avatar of A whose stored config names B's collection and function (the save refuses both; a stored row is not trusted either).
    const [av] = await t.database.db.insert(avatars).values({ userId: s.accounts.A.id, name: 'Leaky', config: { functions: [fn.id], customData: { collection_ids: [foreign] } } }).returning();
    await pinged();
    const res = await t.app.inject({ method: 'POST', url: '/api/live/sessions', payload: { avatarId: av!.id, textOnly: true }, remoteAddress: nextIp() });
    expect(res.statusCode, res.body).toBe(200);
    const { sessionId, ticket } = res.json() as { sessionId: string; ticket: string };
    const { jti, wid } = JSON.parse(Buffer.from(ticket.split('.')[0]!, 'base64url').toString()) as { jti: string; wid: number };
    const claimed = await t.app.live.handleRpc(wid, 'session.claim', { sessionId, jti });
    expect(claimed.ok).toBe(true);
    expect((claimed as { result: { functions: unknown[] } }).result.functions).toEqual([]);
    expect(JSON.stringify(claimed)).not.toContain(s.accounts.B.marker);
    const found = await t.app.live.handleRpc(wid, 'knowledge.search', { sessionId, query: 'Private note', k: 5 });
    expect(found).toEqual({ ok: true, result: { passages: [] } });
    // Nor the titles and text of B's knowledge for the avatar's speech model (ADR 105).
    const vocabulary = await t.app.live.handleRpc(wid, 'knowledge.vocabulary', { sessionId });
    expect(vocabulary).toEqual({ ok: true, result: { items: [] } });
  });

  it('the workers’ socket takes WORKER_SECRET only', async () => {
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const url = `${base.replace(/^http/, 'ws')}/api/worker/ws`;
    const attempt = (headers: Record<string, string>) =>
      new Promise<number>((resolve) => {
        const ws = new WebSocket(url, { headers });
        ws.once('open', () => {
          ws.close();
          resolve(101);
        });
        ws.once('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
        ws.once('error', () => resolve(-1));
      });
    const session = s.credentials('admin', 'session');
    for (const headers of [{}, { authorization: 'Bearer wrong-secret' }, session, { authorization: `Bearer ${TEST_WORKER_SECRET}x` }, { authorization: `Basic ${TEST_WORKER_SECRET}` }]) {
      expect(await attempt(headers), JSON.stringify(headers)).toBe(401);
    }
    expect(await attempt({ authorization: `Bearer ${TEST_WORKER_SECRET}` })).toBe(101);
  });
});
