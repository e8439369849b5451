import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { AccessLog } from './access-log.js';
import { frameworkErrors } from './errors.js';

function appWithLog(trustProxy = false) {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const app = Fastify({ logger: { level: 'info', stream }, logController: new AccessLog(), trustProxy, frameworkErrors: frameworkErrors({ trustProxy }) });
  app.get('/ok', async () => ({ ok: true }));
  app.get('/quiet', { logLevel: 'warn' }, async () => ({ ok: true }));
  app.get('/boom', async () => {
    throw new Error('boom');
  });
  return { app, lines };
}

describe('the access log', () => {
  it('writes one line per request with method, url, status and time', async () => {
    const { app, lines } = appWithLog();
    await app.inject('/ok?x=1');
    const requestLines = lines.filter((l) => l.reqId !== undefined);
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toMatchObject({ msg: 'request completed', req: { method: 'GET', url: '/ok?x=1' }, res: { statusCode: 200 } });
    expect(typeof requestLines[0]!.responseTime).toBe('number');
    await app.close();
  });

  it("keeps a route's log level and still reports failures", async () => {
    const { app, lines } = appWithLog();
    await app.inject('/quiet');
    expect(lines.filter((l) => l.reqId !== undefined)).toHaveLength(0);
    await app.inject('/boom');
    const boom = lines.filter((l) => (l.req as { url?: string } | undefined)?.url === '/boom' || l.msg === 'boom');
    expect(boom.some((l) => l.msg === 'request completed' && (l.res as { statusCode: number }).statusCode === 500)).toBe(true);
    await app.close();
  });

  it('writes the same line for a request Fastify refuses before routing (a URL it cannot decode)', async () => {
    for (const trustProxy of [false, true]) {
      const { app, lines } = appWithLog(trustProxy);
      const headers = { 'x-forwarded-for': '203.0.113.9, 10.0.0.2', 'x-forwarded-host': 'studio.example.com' };
      const res = await app.inject({ url: '/api/%zz', headers, remoteAddress: '10.0.0.1' });
      expect(res.statusCode).toBe(400);
      await app.inject({ url: '/ok', headers, remoteAddress: '10.0.0.1' });
      const [refused, routed] = lines.filter((l) => l.reqId !== undefined);
      expect(refused).toMatchObject({ msg: 'request completed', req: { method: 'GET', url: '/api/%zz' }, res: { statusCode: 400 } });
      expect(refused!.responseTime).toBeGreaterThan(0);
      // The client's address and host as a routed request's line gives them, proxy or not.
      const who = (l: Record<string, unknown>) => ({ remoteAddress: (l.req as Record<string, unknown>).remoteAddress, host: (l.req as Record<string, unknown>).host });
      expect(who(refused!), `trustProxy ${trustProxy}`).toEqual(who(routed!));
      expect(who(refused!).remoteAddress).toBe(trustProxy ? '203.0.113.9' : '10.0.0.1');
      await app.close();
    }
  });
});
