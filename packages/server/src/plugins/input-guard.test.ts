import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { InputMessages } from '@persona/contract';
import { createTestApp, type TestContext } from '../test/build-app.js';
import { refuseNul, takesInput } from './input-guard.js';

const { routes } = vi.hoisted(() => ({ routes: [] as RouteOptions[] }));
vi.mock('fastify', async (importOriginal) => (await import('../test/security/route-capture.js')).captureRoutes(await importOriginal(), routes));

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
  await t.app.ready();
});
afterAll(async () => {
  await t.close();
});

describe('the NUL guard', () => {
  it('is the first preValidation hook of every route that takes input, HEAD routes included', () => {
    const guarded = (r: RouteOptions) => [r.preValidation].flat()[0] === refuseNul;
    const inputRoutes = routes.filter(takesInput);
    expect(inputRoutes.length).toBeGreaterThan(50);
    const unguarded = inputRoutes.filter((r) => !guarded(r)).map((r) => `${String(r.method)} ${r.url}`);
    expect(unguarded).toEqual([]);
    // Routes that take none: a typed answer, no parameters, no query or body declared.
    expect(routes.filter((r) => !takesInput(r)).map((r) => r.url)).toContain('/api/health');
  });

  it('counts parameters in the URL, an untyped route and the `query` alias as input', () => {
    const typed = { response: { 200: {} } };
    expect(takesInput({ url: '/files/*', schema: { hide: true } })).toBe(true);
    expect(takesInput({ url: '/avatar/:id', schema: { ...typed } })).toBe(true);
    expect(takesInput({ url: '/api/x', schema: { hide: true } })).toBe(true);
    expect(takesInput({ url: '/api/x', schema: { ...typed, query: {} } as RouteOptions['schema'] })).toBe(true);
    expect(takesInput({ url: '/api/x', schema: { ...typed, body: {} } })).toBe(true);
    expect(takesInput({ url: '/api/x', schema: { ...typed } })).toBe(false);
  });

  it('refuses NUL in a wildcard path, a query value and a body', async () => {
    for (const url of ['/files/a%00b', '/avatar/1%00', '/api/get_avatar?agentId=1%00']) {
      const res = await t.app.inject(url);
      expect(res.statusCode, url).toBe(url.startsWith('/api/get_avatar') ? 401 : 400);
    }
    const res = await t.app.inject({ method: 'POST', url: '/api/register', headers: { authorization: 'Bearer test-app-key' }, payload: { email: 'a\u0000@x.test', password: 'x' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0]).toContain(InputMessages.controlChars);
  });
});
