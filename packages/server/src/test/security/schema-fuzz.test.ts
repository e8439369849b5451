// Property-based fuzzing of every route's input (issue 16): for each route of the route table that
// takes a JSON body or a query string, fast-check generates inputs from the route's own zod schema
// (values of its shape and hostile ones in their place: wrong types, huge and odd strings, deep
// nesting, numbers out of range, __proto__ keys) and from the well-formed call of route-table.ts
// with one field replaced. Sent as the account that owns the ids (administrators' calls as the
// administrator), every answer must be below 500, and a refused call (4xx) must leave the
// database exactly as it was. FUZZ_SEED and FUZZ_RUNS replay or widen a run.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { RouteOptions } from 'fastify';
import fc from 'fast-check';
import { eq, inArray } from 'drizzle-orm';
import { createTestApp } from '../build-app.js';
import { multipart, sampleFiles } from '../factories.js';
import { users, workers } from '../../db/schema/index.js';
import { uniqueRoutes } from './route-capture.js';
import { ROUTE_TABLE } from './route-table.js';
import { changedTables as changed, nextIp, setUpSecurity, type Headers } from './fixtures.js';
import { fromSchema, hostile, toJsonSchema, type Json } from './schema-arbitrary.js';

const { routes } = vi.hoisted(() => ({ routes: [] as RouteOptions[] }));
vi.mock('fastify', async (importOriginal) => (await import('./route-capture.js')).captureRoutes(await importOriginal<object>(), routes));

const SEED = Number(process.env.FUZZ_SEED ?? 160_2026);
const RUNS = Number(process.env.FUZZ_RUNS ?? 25);

const webDist = fs.mkdtempSync(path.join(os.tmpdir(), 'persona-fuzz-web-'));
fs.writeFileSync(path.join(webDist, 'index.html'), '<!doctype html><title>Persona Studio</title>');
fs.writeFileSync(path.join(webDist, 'avatar.html'), '<!doctype html><title>Avatar</title>');
const closedPort = 'http://127.0.0.1:9';
const providerHosts = Object.fromEntries(['OPENAI', 'GROQ', 'GEMINI', 'ELEVENLABS', 'CARTESIA', 'NEUPHONIC', 'DEEPGRAM', 'POLLY', 'AZURE_TTS', 'AZURE_STT'].map((p) => [`PROVIDER_${p}_URL`, closedPort]));
// Routes are known once the app is built: built at collection time, one app for the file.
const t = await createTestApp(
  { ALLOW_REGISTRATION: 'true', WEB_DIST_DIR: webDist, PLAN_MAX_AVATARS: 'FREE=unlimited,STARTER=unlimited,PRO=unlimited,ENTERPRISE=unlimited', ...providerHosts },
  { liveTimings: { sweepIntervalMs: 3_600_000 } },
);
const s = await setUpSecurity(t.app, t.database);
afterAll(async () => {
  await t.close();
  fs.rmSync(webDist, { recursive: true, force: true });
});

// The owner's real ids, so that generated calls reach stored objects (not only "not found").
const A = s.fixtures('A');
const [avatar, fn, collection, item, key, oauthApp, live, spare, planRequest, vps] = await Promise.all([
  A.avatar(),
  A.fn(),
  A.collection(),
  A.item(),
  A.key(),
  A.oauthApp(),
  A.liveSession(),
  A.spareUser(),
  A.planRequest(),
  A.vps(),
]);
const fieldValues: Record<string, Json[]> = {
  agentId: [avatar, String(avatar)],
  avatarId: [avatar],
  id: [avatar, fn.id, key, item],
  version: [fn.version],
  appId: [oauthApp, String(oauthApp)],
  collection_id: [collection],
  collection_ids: [[collection]],
  userId: [spare.id],
  requestId: [planRequest],
  vpsId: [vps],
  sessionId: [live.sessionId],
  resumeToken: [live.resumeToken],
  // A spare account's: failed sign-ins lock an account out, and the roles must stay signed in.
  email: [spare.email],
};

const snapshot = () => s.snapshot();

/** The roles stay signed in and the worker stays available, whatever an administrator's call did to them. */
async function restore() {
  await t.database.db.update(users).set({ status: 'ACTIVE' }).where(inArray(users.id, [s.accounts.A.id, s.accounts.B.id]));
  await t.database.db.update(users).set({ status: 'ACTIVE' }).where(eq(users.userType, 'ADMIN'));
  // Pinged now: admission takes a worker that pinged within WorkerProtocol.pingTimeoutMs (30 s),
  // and the fixture's row never pings — on a loaded machine the session routes came more than
  // 30 s after the set-up and were refused 'no-worker'.
  await t.database.db.update(workers).set({ status: 'AVAILABLE', deletedAt: null, lastPingTime: new Date() }).where(eq(workers.id, s.workerId));
  const alive = await Promise.all(
    (['A', 'admin'] as const).map(async (role) => (await t.app.inject({ method: 'GET', url: '/api/account_info', headers: s.credentials(role, 'session') })).statusCode === 200),
  );
  if (alive.includes(false)) await s.refresh();
}

const encodeQuery = (q: Json): string => {
  if (!q || typeof q !== 'object' || Array.isArray(q)) return `q=${encodeURIComponent(JSON.stringify(q))}`;
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) {
    for (const one of Array.isArray(v) ? v : [v]) params.append(k, typeof one === 'string' ? one : JSON.stringify(one));
  }
  return params.toString();
};

/** A path segment, percent-encoded; a lone surrogate (which encodeURIComponent refuses) as the bytes of its WTF-8 form. */
function encodePathPart(v: string): string {
  try {
    return encodeURIComponent(v);
  } catch {
    return Array.from(v, (ch) => {
      const c = ch.charCodeAt(0);
      if (ch.length === 1 && c >= 0xd800 && c <= 0xdfff) return [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
      return encodeURIComponent(ch);
    }).join('');
  }
}

/** The table's well-formed call with one top-level field replaced (or dropped, or one added). */
function mutated(base: Json): fc.Arbitrary<Json> {
  if (!base || typeof base !== 'object' || Array.isArray(base)) return hostile;
  const keys = Object.keys(base);
  return fc.tuple(fc.constantFrom(...keys, '__extra__'), fc.oneof(hostile, fromSchema({}, { fieldValues })), fc.boolean()).map(([k, v, drop]) => {
    const out: Record<string, Json> = { ...(base as Record<string, Json>) };
    if (drop && k !== '__extra__') delete out[k];
    else Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    return out;
  });
}

const captured = uniqueRoutes(routes);
const fuzzable = captured.filter((r) => {
  const schema = (r.schema ?? {}) as { body?: unknown; querystring?: unknown; params?: unknown; consumes?: string[] };
  return !schema.consumes?.includes('multipart/form-data') && (schema.body || schema.querystring || schema.params) && ROUTE_TABLE[r.key];
});
// Calls that use their object up (deletes) last: the others keep reaching the owner's objects.
fuzzable.sort((x, y) => Number(ROUTE_TABLE[x.key]!.consumes === true) - Number(ROUTE_TABLE[y.key]!.consumes === true));

describe(`schema fuzzing of every JSON route (seed ${SEED}, ${RUNS} runs a route)`, () => {
  it('covers the routes that take input', () => {
    expect(fuzzable.length).toBeGreaterThan(40);
  });

  for (const route of fuzzable) {
    const rule = ROUTE_TABLE[route.key]!;
    const schema = (route.schema ?? {}) as { body?: unknown; querystring?: unknown; params?: unknown };
    const bodySchema = toJsonSchema(schema.body);
    const querySchema = toJsonSchema(schema.querystring);
    const paramsSchema = toJsonSchema(schema.params);
    it(`${route.key} (FUZZ_SEED=${SEED})`, { timeout: 120_000 }, async () => {
      await restore();
      const headers: Headers = rule.access === 'admin' ? s.credentials('admin', 'session') : rule.access === 'jwt' ? s.credentials('A', 'jwt') : s.credentials(rule.access === 'session' ? 'A' : 'anonymous', 'session');
      const call = rule.call ? await rule.call(A) : { url: route.url };
      const [pathname, wellFormedQuery] = call.url.split('?') as [string, string | undefined];
      const base = (call.payload ?? null) as Json;
      const bodyArb = bodySchema ? fc.oneof(fromSchema(bodySchema, { fieldValues }), mutated(base)) : fc.constant(undefined);
      const baseQuery = wellFormedQuery ? (Object.fromEntries(new URLSearchParams(wellFormedQuery)) as Json) : null;
      const queryArb = querySchema ? fc.oneof(fromSchema(querySchema, { fieldValues }), mutated(baseQuery)) : fc.constant(undefined);
      // Path parameters: the owner's own value (from the table's call), the schema's, or any string.
      const segments = route.url.split('/');
      const ownSegments = pathname.split('/');
      const paramArb = fc.tuple(
        ...segments.map((seg, i) => {
          if (!seg.startsWith(':')) return fc.constant(seg);
          const own = ownSegments[i] ?? '1';
          const fromParam = fromSchema(paramsSchema?.properties?.[seg.slice(1)], { fieldValues }).map((v) => (typeof v === 'string' ? v : JSON.stringify(v)));
          return fc.oneof({ arbitrary: fc.constant(own), weight: 3 }, fromParam, fc.string({ unit: 'binary', maxLength: 30 })).map(encodePathPart);
        }),
      ).map((parts) => parts.join('/'));
      // Ingestion the fixtures started (a knowledge item) ends first: its writes are not this route's.
      await t.app.knowledge.ingestion.idle();
      let before = await snapshot();
      const problems: string[] = [];
      await fc.assert(
        fc.asyncProperty(bodyArb, queryArb, paramArb, async (body, query, fuzzedPath) => {
          const started = Date.now();
          const url = query === undefined ? `${fuzzedPath}${wellFormedQuery ? `?${wellFormedQuery}` : ''}` : `${fuzzedPath}?${encodeQuery(query)}`;
          const res = await t.app.inject({
            method: route.method as 'POST',
            url,
            headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' },
            ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
            remoteAddress: nextIp(),
          });
          if (process.env.FUZZ_TRACE) console.log(route.key, res.statusCode, Date.now() - started, (body === undefined ? '' : JSON.stringify(body)).slice(0, 100));
          const what = `${route.key} ${url.slice(0, 120)} ${body === undefined ? '' : JSON.stringify(body).slice(0, 300)}`;
          if (res.statusCode >= 500) problems.push(`${what} → ${res.statusCode} ${res.body.slice(0, 300)}`);
          if (({} as Record<string, unknown>).polluted !== undefined || ({} as Record<string, unknown>).isAdmin !== undefined) problems.push(`${what} polluted Object.prototype`);
          if (res.statusCode < 400) {
            await t.app.knowledge.ingestion.idle();
            before = await snapshot();
          } else {
            const after = await snapshot();
            const diff = changed(before, after);
            if (diff.length) problems.push(`${what} → ${res.statusCode} (refused) but changed ${diff.join(', ')}: ${res.body.slice(0, 200)}`);
            before = after;
          }
          return problems.length === 0;
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      ).catch((err: unknown) => {
        throw new Error(`${problems.join('\n')}\n${err instanceof Error ? err.message.split('\n').slice(0, 3).join('\n') : String(err)}`);
      });
      expect(problems).toEqual([]);
    });
  }
});

/** Every file under DATA_DIR/files (uploads are streamed to storage before the form is judged). */
function storedFiles(): string[] {
  const root = path.join(t.config.dataDir, 'files');
  return fs.existsSync(root) ? fs.readdirSync(root, { recursive: true }).map(String).sort() : [];
}

const multipartRoutes = captured.filter((r) => ((r.schema ?? {}) as { consumes?: string[] }).consumes?.includes('multipart/form-data') && ROUTE_TABLE[r.key]?.call);

describe(`multipart fuzzing (seed ${SEED}, ${RUNS} runs a route)`, () => {
  it('covers the upload routes', () => {
    expect(multipartRoutes.length).toBeGreaterThanOrEqual(3);
  });

  for (const route of multipartRoutes) {
    const rule = ROUTE_TABLE[route.key]!;
    it(`${route.key}: a refused upload stores nothing (FUZZ_SEED=${SEED})`, { timeout: 120_000 }, async () => {
      await restore();
      const headers: Headers = s.credentials(rule.access === 'admin' ? 'admin' : 'A', 'session');
      const call = await rule.call!(A);
      const fields = call.multipart ?? {};
      // Each text field: as given, hostile, or (the avatar's JSON) the avatar with one field replaced.
      const fieldArbs = Object.fromEntries(
        Object.entries(fields).map(([k, v]) => {
          let parsed: Json | undefined;
          try {
            parsed = JSON.parse(v) as Json;
          } catch {
            parsed = undefined;
          }
          const inner = parsed && typeof parsed === 'object' ? mutated(parsed).map((j) => JSON.stringify(j)) : hostile.map((h) => (typeof h === 'string' ? h : JSON.stringify(h)));
          return [k, fc.oneof({ arbitrary: fc.constant(v), weight: 2 }, inner, fc.string({ unit: 'binary', maxLength: 50 }))];
        }),
      );
      const fileArb = fc.oneof(
        fc.constant(null),
        fc.record({
          field: fc.constantFrom('photo', 'avatarPhoto', 'backgroundImage', 'avatarModel', 'scene', 'other'),
          filename: fc.oneof(fc.constantFrom('a.png', 'a.jpg', '../../etc/passwd', 'a\u0000.png', 'x'.repeat(300)), fc.string({ maxLength: 20 })),
          data: fc.constantFrom(sampleFiles.png(), sampleFiles.jpeg(), sampleFiles.glb(), Buffer.from('not an image at all'), Buffer.alloc(0)),
          type: fc.constantFrom('image/png', 'image/jpeg', 'application/octet-stream', 'text/html'),
        }),
      );
      let before = await snapshot();
      let files = storedFiles();
      const problems: string[] = [];
      await fc.assert(
        fc.asyncProperty(fc.record(fieldArbs), fileArb, async (form, file) => {
          const m = multipart(form as Record<string, string>, file ? [file] : []);
          const res = await t.app.inject({ method: 'POST', url: call.url, headers: { ...headers, ...m.headers }, payload: m.payload, remoteAddress: nextIp() });
          const what = `${route.key} ${JSON.stringify(form).slice(0, 200)} ${file ? `${file.field}:${file.filename.slice(0, 30)}:${file.type}` : 'no file'}`;
          if (process.env.FUZZ_TRACE) console.log(route.key, res.statusCode, res.body.slice(0, 120));
          if (res.statusCode >= 500) problems.push(`${what} → ${res.statusCode} ${res.body.slice(0, 300)}`);
          const after = await snapshot();
          const filesAfter = storedFiles();
          if (res.statusCode >= 400) {
            const diff = changed(before, after);
            if (diff.length) problems.push(`${what} → ${res.statusCode} (refused) but changed ${diff.join(', ')}`);
            const added = filesAfter.filter((f) => !files.includes(f) && !fs.statSync(path.join(t.config.dataDir, 'files', f)).isDirectory());
            if (added.length) problems.push(`${what} → ${res.statusCode} (refused) but left files ${added.join(', ')}`);
          }
          before = after;
          files = filesAfter;
          return problems.length === 0;
        }),
        { seed: SEED, numRuns: RUNS, endOnFailure: true },
      ).catch((err: unknown) => {
        throw new Error(`${problems.join('\n')}\n${err instanceof Error ? err.message.split('\n').slice(0, 3).join('\n') : String(err)}`);
      });
      expect(problems).toEqual([]);
    });
  }
});

