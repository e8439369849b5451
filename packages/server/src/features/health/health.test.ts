import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestContext } from '../../test/build-app.js';

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

  it('keeps a request id given by a proxy', async () => {
    const res = await t.app.inject({ url: '/api/health', headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers['x-request-id']).toBe('abc-123');
  });

  it('answers 503 when the database is down', async () => {
    const other = await createTestApp();
    await other.database.close();
    const res = await other.app.inject('/api/health');
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ status: 'FAIL', database: 'down' });
    await other.app.close();
  });
});
