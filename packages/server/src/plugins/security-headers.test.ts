import { describe, expect, it } from 'vitest';
import { FailReason } from '@persona/contract';
import { createTestApp } from '../test/build-app.js';
import { connectSources, cspHeaderValue, portalCspDirectives } from './security-headers.js';

const directive = (csp: string, name: string) =>
  csp
    .split(';')
    .map((d) => d.trim())
    .find((d) => d.startsWith(`${name} `))
    ?.split(/\s+/)
    .slice(1);

describe('the Content-Security-Policy', () => {
  it('lets pages connect only to the portal, the configured workers and the storage bucket', async () => {
    const t = await createTestApp({
      PUBLIC_URL: 'https://studio.example.com',
      WORKER_WS_ORIGINS: 'wss://avatars-1.example.com:8443/avatar-ws,wss://avatars-2.example.com',
      STORAGE_URL: 's3://KEY:SECRET@files.example.com/knowledge?region=eu-west-1',
    });
    try {
      const res = await t.app.inject('/react/login');
      const csp = String(res.headers['content-security-policy']);
      expect(directive(csp, 'connect-src')).toEqual([
        "'self'",
        'wss://studio.example.com',
        'wss://avatars-1.example.com:8443',
        'wss://avatars-2.example.com',
        'https://files.example.com',
      ]);
      // No bare scheme: `ws:` / `wss:` / `https:` would allow any host.
      expect(directive(csp, 'connect-src')).not.toEqual(expect.arrayContaining(['ws:']));
      for (const source of directive(csp, 'connect-src')!) expect(source).not.toMatch(/^[a-z]+:$/);
      // The rest of the policy is unchanged.
      expect(directive(csp, 'default-src')).toEqual(["'self'"]);
      expect(directive(csp, 'frame-ancestors')).toEqual(["'self'"]);
      expect(directive(csp, 'object-src')).toEqual(["'none'"]);
    } finally {
      await t.close();
    }
  });

  it('defaults to the portal alone (the embedded worker shares its port)', async () => {
    const t = await createTestApp();
    try {
      const csp = String((await t.app.inject('/react/login')).headers['content-security-policy']);
      expect(directive(csp, 'connect-src')).toEqual(["'self'", 'ws://portal.test']);
      // An API answer is no page: it may load and connect to nothing, nor be framed.
      const api = String((await t.app.inject('/api/health')).headers['content-security-policy']);
      expect(directive(api, 'default-src')).toEqual(["'none'"]);
      expect(directive(api, 'frame-ancestors')).toEqual(["'none'"]);
    } finally {
      await t.close();
    }
  });

  it('builds another page’s policy from the same sources (e.g. an embeddable page)', () => {
    const sources = { publicUrl: 'https://studio.example.com', workerWsOrigins: ['wss://avatars-1.example.com'] };
    expect(connectSources(sources)).toEqual(["'self'", 'wss://studio.example.com', 'wss://avatars-1.example.com']);
    const csp = cspHeaderValue(portalCspDirectives(sources, { frameAncestors: ['https://customer.example'], mediaSrc: ["'self'", 'blob:'] }));
    expect(directive(csp, 'frame-ancestors')).toEqual(['https://customer.example']);
    expect(directive(csp, 'media-src')).toEqual(["'self'", 'blob:']);
    expect(directive(csp, 'connect-src')).toEqual(["'self'", 'wss://studio.example.com', 'wss://avatars-1.example.com']);
    expect(directive(csp, 'base-uri')).toEqual(["'self'"]);
  });
});

describe('answers Fastify gives before routing', () => {
  it('carry the request id, the API security headers and the API error shape (bad URL, over-long parameter)', async () => {
    const t = await createTestApp();
    try {
      // find-my-way's default limit on one parameter is 100 characters.
      for (const [url, status] of [['/api/%zz', 400], ['/react/%zz', 400], ['/avatar/%E0%A4%A', 400], [`/api/oauth/start/${'1'.repeat(101)}`, 414]] as const) {
        const res = await t.app.inject({ url, headers: { 'x-request-id': 'support-ticket-7' } });
        expect(res.statusCode, url).toBe(status);
        expect(res.headers['x-request-id'], url).toBe('support-ticket-7');
        expect(res.headers['content-type'], url).toMatch(/^application\/json/);
        expect(res.headers['x-content-type-options'], url).toBe('nosniff');
        expect(directive(String(res.headers['content-security-policy']), 'default-src'), url).toEqual(["'none'"]);
        expect(res.headers['strict-transport-security'], url).toBeDefined();
        expect(res.json(), url).toEqual({ status: 'FAIL', errors: ['The URL is malformed.'], failReason: FailReason.InvalidOrMissingParams });
      }
    } finally {
      await t.close();
    }
  });
});

describe('an API route reached by another spelling of its path (issue 26: decide on the canonical path)', () => {
  it('gets the API headers: the router decodes /%61pi/health into /api/health', async () => {
    const t = await createTestApp();
    try {
      for (const url of ['/api/health', '/%61pi/health', '/%61%70%69/health']) {
        const res = await t.app.inject({ url });
        expect(res.statusCode, url).toBe(200);
        expect(directive(String(res.headers['content-security-policy']), 'default-src'), url).toEqual(["'none'"]);
        expect(res.headers['x-frame-options'], url).toBeUndefined();
      }
    } finally {
      await t.close();
    }
  });
});
