import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { AccessLog } from './access-log.js';
import { frameworkErrors } from './errors.js';

function appWithLog() {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const app = Fastify({ logger: { level: 'info', stream }, logController: new AccessLog(), frameworkErrors });
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

  it('writes its line for a request Fastify refuses before routing (a URL it cannot decode)', async () => {
    const { app, lines } = appWithLog();
    const res = await app.inject('/api/%zz');
    expect(res.statusCode).toBe(400);
    const requestLines = lines.filter((l) => l.reqId !== undefined);
    expect(requestLines).toHaveLength(1);
    expect(requestLines[0]).toMatchObject({ msg: 'request completed', req: { method: 'GET', url: '/api/%zz' }, res: { statusCode: 400 } });
    await app.close();
  });
});
