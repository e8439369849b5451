import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { validatorCompiler } from 'fastify-type-provider-zod';
import { serializerCompiler } from '../../plugins/serializer.js';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { healthRoutes } from './routes.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

describe('system calls', () => {
  it('GET /api/health checks the database', async () => {
    const res = await t.app.inject('/api/health');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: 'OK', database: 'up' });
    expect(res.headers['x-request-id']).toBeTruthy();
  });

  it('GET /api/config gives what the browser needs before sign-in', async () => {
    const res = await t.app.inject('/api/config');
    expect(res.json()).toEqual({
      allowRegistration: false,
      appKey: 'test-app-key',
      companyName: 'Persona Studio',
      docsUrl: '/react/docs',
      productName: 'Persona Studio',
      publicUrl: 'http://portal.test',
    });
  });

  it('GET /api/docs serves the OpenAPI document of the calls', async () => {
    const res = await t.app.inject('/api/docs');
    expect(res.statusCode).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toMatch(/^3/);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/login', '/api/reset_password', '/api/health']));
  });

  it('answers from a check made within the last second, and checks again after it', async () => {
    let pings = 0;
    const app = Fastify();
    app.setValidatorCompiler(validatorCompiler);
    app.setSerializerCompiler(serializerCompiler);
    await app.register(healthRoutes({ ping: async () => void pings++ }));
    const now = vi.spyOn(Date, 'now');
    try {
      const calls = await Promise.all(Array.from({ length: 20 }, () => app.inject('/api/health')));
      expect(calls.every((r) => r.statusCode === 200)).toBe(true);
      expect(pings).toBe(1);
      expect((await app.inject('/api/health')).json()).toMatchObject({ status: 'OK', database: 'up' });
      expect(pings).toBe(1);
      now.mockReturnValue(Date.now() + 1_001);
      await app.inject('/api/health');
      expect(pings).toBe(2);
    } finally {
      now.mockRestore();
      await app.close();
    }
  });

  it('keeps a request id given by a proxy', async () => {
    const res = await t.app.inject({ url: '/api/health', headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers['x-request-id']).toBe('abc-123');
  });

  it('answers 503 when the database is down', async () => {
    const other = await createTestApp();
    await other.database.close();
    // The first call waits for the check; the next ones (within a second) answer from it at once.
    for (const call of ['checked', 'cached', 'cached']) {
      const res = await other.app.inject('/api/health');
      expect(res.statusCode, call).toBe(503);
      expect(res.headers['retry-after'], call).toBe('5');
      expect(res.json(), call).toMatchObject({ status: 'FAIL', database: 'down', errors: [expect.any(String)] });
    }
    await other.app.close();
  });
});
