// The route × API key matrix (issue 30, ADR 094): every route of the app's route table (so a route
// added later is covered by itself), called with account A's keys — one without scopes, one per
// scope, one with every scope, an expired and a revoked one — and with B's key on A's ids. A key
// reaches only the routes whose `apiKeyScope` it holds, only its own account's objects and data;
// everything else is 401 (expired, revoked) or 403 (the route takes no key, or another scope), and
// a refusal changes nothing stored. The route's own `config.apiKeyScope` must be the table's.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RouteOptions } from 'fastify';
import { ApiKeyScopes, type TApiKeyScope } from '@persona/contract';
import { createTestApp, type TestContext } from '../build-app.js';
import { apiKeys } from '../../db/schema/index.js';
import { hashToken } from '../../lib/tokens.js';
import { newApiKey } from '../../features/api-keys/service.js';
import { uniqueRoutes } from './route-capture.js';
import { ROUTE_TABLE, type RouteRule } from './route-table.js';
import { changedTables, setUpSecurity, type AccountName, type Security } from './fixtures.js';

const { routes } = vi.hoisted(() => ({ routes: [] as RouteOptions[] }));
vi.mock('fastify', async (importOriginal) => (await import('./route-capture.js')).captureRoutes(await importOriginal<object>(), routes));

const webDist = fs.mkdtempSync(path.join(os.tmpdir(), 'persona-keys-web-'));
fs.writeFileSync(path.join(webDist, 'index.html'), '<!doctype html><title>Persona Studio</title>');
fs.writeFileSync(path.join(webDist, 'avatar.html'), '<!doctype html><title>Avatar</title>');
const closedPort = 'http://127.0.0.1:9';
const providerHosts = Object.fromEntries(['OPENAI', 'GROQ', 'GEMINI', 'ELEVENLABS', 'CARTESIA', 'NEUPHONIC', 'DEEPGRAM', 'POLLY', 'AZURE_TTS', 'AZURE_STT'].map((p) => [`PROVIDER_${p}_URL`, closedPort]));

/** A key of the matrix: whose, which scopes, and whether it still works. */
interface Key {
  name: string;
  account: AccountName;
  scopes: TApiKeyScope[];
  state: 'valid' | 'expired' | 'revoked';
  token: string;
}

let t: TestContext;
let s: Security;
const keys: Key[] = [];

async function makeKey(name: string, account: AccountName, scopes: TApiKeyScope[], state: Key['state']): Promise<Key> {
  const { token, prefix } = newApiKey();
  const past = new Date(Date.now() - 60_000);
  await t.database.db.insert(apiKeys).values({
    ownerUserId: s.accounts[account].id,
    name,
    prefix,
    hash: hashToken(token),
    scopes,
    expiresAt: state === 'expired' ? past : new Date(Date.now() + 86_400_000),
    revokedAt: state === 'revoked' ? past : null,
  });
  return { name, account, scopes, state, token };
}

beforeAll(async () => {
  t = await createTestApp({ ALLOW_REGISTRATION: 'true', METRICS_TOKEN: 'matrix-metrics-token-0123456789', WEB_DIST_DIR: webDist, PLAN_MAX_AVATARS: 'FREE=unlimited,STARTER=unlimited,PRO=unlimited,ENTERPRISE=unlimited', ...providerHosts });
  s = await setUpSecurity(t.app, t.database);
  keys.push(await makeKey('no scope', 'A', [], 'valid'));
  for (const scope of ApiKeyScopes) keys.push(await makeKey(scope, 'A', [scope], 'valid'));
  keys.push(await makeKey('every scope', 'A', [...ApiKeyScopes], 'valid'));
  keys.push(await makeKey("B's, every scope", 'B', [...ApiKeyScopes], 'valid'));
  keys.push(await makeKey('expired', 'A', [...ApiKeyScopes], 'expired'));
  keys.push(await makeKey('revoked', 'A', [...ApiKeyScopes], 'revoked'));
});
afterAll(async () => {
  await t?.close();
  fs.rmSync(webDist, { recursive: true, force: true });
});

type Want = { kind: 'ok' | 'refused' | 'foreign' | 'any'; statuses: number[] | 'any' };
const statusesOf = (v: RouteRule['ok']): number[] | 'any' => (v === 'any' ? 'any' : v === undefined ? [200] : [v].flat());

/** What a key calling a route with A's ids must get. */
function expectation(rule: RouteRule, key: Key): Want {
  switch (rule.access) {
    case 'public':
      return { kind: 'ok', statuses: statusesOf(rule.ok) };
    case 'ticket':
      return { kind: 'any', statuses: 'any' };
    case 'appKey':
    case 'jwt':
    case 'worker':
    case 'metricsToken':
    case 'agent':
      return { kind: 'refused', statuses: [401, 403] };
    case 'admin':
      return { kind: 'refused', statuses: key.state === 'valid' ? [403] : [401] };
    case 'session':
      if (key.state !== 'valid') return { kind: 'refused', statuses: [401] };
      if (!rule.apiKeyScope || !key.scopes.includes(rule.apiKeyScope)) return { kind: 'refused', statuses: [403] };
      if (rule.owned && key.account !== 'A') return { kind: 'foreign', statuses: [rule.foreign ?? 404].flat() };
      return { kind: 'ok', statuses: statusesOf(rule.ok) };
  }
}

const routeKeys = () => uniqueRoutes(routes).map((r) => r.key);
/** Besides the tables a refused call may write anyway (fixtures.ts VOLATILE): a key's last use is written once it is known valid. */
const MAY_CHANGE = new Set(['api_keys']);

describe('API keys × routes', () => {
  it('every route that takes API keys is in the route table with the same scope, and only the five scopes exist', () => {
    const declared = uniqueRoutes(routes)
      .filter((r) => r.config && (r.config as { apiKeyScope?: string }).apiKeyScope)
      .map((r) => `${r.key} ${(r.config as { apiKeyScope: string }).apiKeyScope}`);
    const tabled = Object.entries(ROUTE_TABLE)
      .filter(([, rule]) => rule.apiKeyScope)
      .map(([k, rule]) => `${k} ${rule.apiKeyScope}`);
    expect(declared.sort()).toEqual(tabled.sort());
    expect(new Set(Object.values(ROUTE_TABLE).map((r) => r.apiKeyScope).filter(Boolean))).toEqual(new Set(ApiKeyScopes));
  });

  for (const [routeKey, rule] of Object.entries(ROUTE_TABLE)) {
    const [method, url] = [routeKey.slice(0, routeKey.indexOf(' ')), routeKey.slice(routeKey.indexOf(' ') + 1)];
    it(`${routeKey}: ${rule.apiKeyScope ?? 'no API key'}`, async () => {
      if (!routeKeys().includes(routeKey)) return; // route-matrix.test.ts reports it
      const failures: string[] = [];
      const plan = keys.map((key) => ({ key, want: expectation(rule, key) }));
      const refusals = plan.filter((p) => p.want.kind === 'refused' || p.want.kind === 'foreign');
      const allowed = plan.filter((p) => !refusals.includes(p));
      const callFor = async (fresh: boolean) => (rule.call ? await rule.call(s.fixtures('A', fresh)) : { url, payload: method === 'POST' || method === 'PUT' ? {} : undefined });
      const run = async ({ key, want }: (typeof plan)[number], call: Awaited<ReturnType<typeof callFor>>) => {
        const res = await s.send(method, call, { authorization: `Bearer ${key.token}` });
        const who = `key "${key.name}" of ${key.account} (${key.state})`;
        if (res.statusCode >= 500) failures.push(`${who} → ${res.statusCode} ${res.body.slice(0, 200)}`);
        else if (want.statuses !== 'any' && !want.statuses.includes(res.statusCode)) failures.push(`${who} → ${res.statusCode}, expected ${want.statuses.join('/')} (${want.kind}): ${res.body.slice(0, 200)}`);
        else if (want.kind === 'ok' && want.statuses === 'any' && (res.statusCode === 401 || res.statusCode === 403)) failures.push(`${who} → ${res.statusCode}, expected to be let in`);
        if (routeKey === 'POST /api/add_api_key' && res.statusCode === 200) failures.push(`${who} made an API key`);
        if (rule.publicData) return;
        // Never the other account's data.
        const other: AccountName = key.account === 'A' ? 'B' : 'A';
        if (res.body.includes(s.accounts[other].marker)) failures.push(`${who} → ${res.statusCode} shows ${other}'s data: ${res.body.slice(0, 200)}`);
      };
      // Refusals first, between two snapshots: they change nothing stored. Then the allowed calls.
      if (refusals.length) {
        // The objects the calls name are made before the first snapshot (A's, shared by the refusals).
        const call = await callFor(false);
        await t.app.knowledge.ingestion.idle();
        const before = await s.snapshot();
        for (const p of refusals) await run(p, call);
        const touched = changedTables(before, await s.snapshot()).filter((n) => !MAY_CHANGE.has(n));
        if (touched.length) failures.push(`refused calls changed ${touched.join(', ')}`);
      }
      for (const p of allowed) await run(p, await callFor(rule.consumes === true && p.want.kind === 'ok'));
      expect(failures, failures.join('\n')).toEqual([]);
    });
  }
});
