import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../test/build-app.js';
import { createSignedInUser, keyHeader } from '../test/factories.js';
import { assertGuardsRunFirst, createAuthGuards } from './auth.js';

let t: TestContext;
let user: Awaited<ReturnType<typeof createSignedInUser>>;
beforeAll(async () => {
  t = await createTestApp();
  user = await createSignedInUser(t.app, t.database);
});
afterAll(async () => {
  await t.close();
});

/** Calls anybody may make without a session. */
const PUBLIC = new Set([
  'GET /api/health',
  'GET /api/config',
  'POST /api/login',
  'POST /api/register',
  'POST /api/email_verification',
  'POST /api/forgot_password',
  'POST /api/reset_password',
  'GET /api/oauth/start/{appId}',
  'GET /api/oauth/callback/{appId}',
  // The visitor's sign-in page swaps its one-time code for the grant: bound to the browser's
  // sign-in cookie, not to a portal session.
  'POST /api/oauth/grant',
  // The live avatar's visitors: no portal session; the avatar's own rules admit them (token,
  // OAuth grant, origins, billing-auth, limits), and the workers' calls carry a ticket.
  'GET /api/live/avatars/{id}',
  'POST /api/live/sessions',
  'POST /api/live/sessions/resume',
  'POST /api/live/sessions/end',
  // The page's own figures (ADR 099): the session's resume token is the credential, like end's.
  'POST /api/live/sessions/figures',
  'GET /',
  'GET /react',
  'GET /react/',
]);

interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  isAdmin: boolean;
}

/** Every route of the app's route table (its OpenAPI document). */
function routeTable(): Operation[] {
  const doc = t.app.swagger() as { paths: Record<string, Record<string, { tags?: string[] }>> };
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ method: method.toUpperCase() as Operation['method'], path, isAdmin: (op.tags ?? []).includes('admin') })),
  );
}

/** A request every schema refuses: a non-object body, query values of the wrong type, ids that are no ids. */
const hostile = (op: Operation, headers: Record<string, string>) =>
  t.app.inject({
    method: op.method,
    url: `${op.path.replace(/\{[^}]+\}/g, 'not-an-id')}?limit=-1&offset=x&agentId=x&startDate=x&status=BOGUS&collection_id=x&search=${'x'.repeat(300)}`,
    headers: { ...headers, ...(op.method === 'POST' || op.method === 'PUT' ? { 'content-type': 'application/json' } : {}) },
    ...(op.method === 'POST' || op.method === 'PUT' ? { payload: '[1]' } : {}),
  });

describe('who may call comes before what is sent (every route of the route table)', () => {
  it('has the routes this test is about', () => {
    const ops = routeTable();
    expect(ops.filter((op) => op.isAdmin).length).toBeGreaterThanOrEqual(12);
    expect(ops.filter((op) => !PUBLIC.has(`${op.method} ${op.path}`)).length).toBeGreaterThanOrEqual(40);
  });

  it('answers 401 to a caller without credentials, whatever the body', async () => {
    const wrong: string[] = [];
    for (const op of routeTable().filter((o) => !PUBLIC.has(`${o.method} ${o.path}`))) {
      for (const headers of [{}, keyHeader]) {
        const res = await hostile(op, headers);
        if (res.statusCode !== 401) wrong.push(`${op.method} ${op.path} → ${res.statusCode}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('answers 403 to an ordinary user on every admin call, whatever the body', async () => {
    const wrong: string[] = [];
    for (const op of routeTable().filter((o) => o.isAdmin)) {
      const res = await hostile(op, user.headers);
      if (res.statusCode !== 403) wrong.push(`${op.method} ${op.path} → ${res.statusCode}`);
    }
    expect(wrong).toEqual([]);
  });
});

describe('guard placement', () => {
  it('refuses to start when a route checks its guard after validating the body', async () => {
    const app = Fastify();
    assertGuardsRunFirst(app);
    const guards = createAuthGuards({ appKey: 'k', resolveSession: async () => null, resolveSessionById: async () => null });
    const start = async () => {
      await app.register(async (scope) => {
        scope.post('/late', { preHandler: guards.admin }, async () => ({}));
      });
      await app.ready();
    };
    await expect(start()).rejects.toThrow(/POST \/late: auth guards must run in onRequest/);
  });
});
