import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerWebApp } from './web-app.js';

const dist = fs.mkdtempSync(path.join(os.tmpdir(), 'web-dist-'));
const app = Fastify();

beforeAll(async () => {
  fs.mkdirSync(path.join(dist, 'assets'));
  fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><div id="root"></div>');
  fs.writeFileSync(path.join(dist, 'assets', 'index-abc123.js'), 'console.log(1)');
  fs.writeFileSync(path.join(dist, 'favicon.svg'), '<svg/>');
  await registerWebApp(app, dist);
  await app.ready();
});
afterAll(async () => {
  await app.close();
  fs.rmSync(dist, { recursive: true, force: true });
});

describe('the web app under /react', () => {
  it('redirects / to /react', async () => {
    const res = await app.inject('/');
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/react');
  });

  it.each(['/react', '/react/', '/react/login', '/react/reset-password/abc', '/react/deep/link?x=1'])('answers %s with index.html, never cached', async (url) => {
    const res = await app.inject(url);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('id="root"');
    expect(res.headers['cache-control']).toBe('no-store, max-age=0');
  });

  it('caches hashed assets for a year', async () => {
    const res = await app.inject('/react/assets/index-abc123.js');
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('does not turn a missing asset or API path into the app', async () => {
    expect((await app.inject('/react/assets/missing.js')).statusCode).toBe(404);
    const api = await app.inject('/api/nothing-here');
    expect(api.statusCode).toBe(404);
    expect(api.json()).toMatchObject({ status: 'FAIL' });
  });
});

describe('security headers', () => {
  it('are set on every answer, computed once', async () => {
    const { registerSecurityHeaders } = await import('./security-headers.js');
    const secured = Fastify();
    registerSecurityHeaders(secured, { contentSecurityPolicy: { directives: { defaultSrc: ["'self'"] } } });
    secured.get('/x', async () => ({ ok: true }));
    const res = await secured.inject('/x');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['strict-transport-security']).toBeTruthy();
    expect(res.headers['x-powered-by']).toBeUndefined();
    await secured.close();
  });

  it("give API answers the API set, and an /api/ page the page's set", async () => {
    const { registerSecurityHeaders, API_SECURITY_HEADERS } = await import('./security-headers.js');
    const secured = Fastify();
    const page = registerSecurityHeaders(secured, { contentSecurityPolicy: { directives: { defaultSrc: ["'self'"] } } });
    secured.get('/api/x', async () => ({ ok: true }));
    secured.get('/api/page', async (_req, reply) => reply.type('text/html; charset=utf-8').send('<p>done</p>'));
    secured.get('/page', async (_req, reply) => reply.type('text/html').send('<p>page</p>'));
    const api = await secured.inject('/api/x');
    for (const [name, value] of Object.entries(API_SECURITY_HEADERS)) expect(api.headers[name]).toBe(value);
    expect(api.headers['cross-origin-opener-policy']).toBeUndefined();
    expect((await secured.inject('/api/missing')).headers['content-security-policy']).toBe(API_SECURITY_HEADERS['content-security-policy']);
    for (const url of ['/api/page', '/page']) {
      const res = await secured.inject(url);
      for (const [name, value] of Object.entries(page)) expect(res.headers[name], `${url} ${name}`).toBe(value);
    }
    expect(page['cross-origin-opener-policy']).toBe('same-origin');
    await secured.close();
  });
});
