import { Writable } from 'node:stream';
import Fastify from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { AccessLog } from './access-log.js';
import { lazyRequestLogger } from './request-logger.js';

function appWithLog(level = 'info') {
  const lines: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const app = Fastify({ logger: { level, stream }, logController: new AccessLog(), childLoggerFactory: lazyRequestLogger, genReqId: () => 'req-1' });
  return { app, lines };
}

describe('request loggers', () => {
  it('make no pino child for a request that writes no line', async () => {
    const { app } = appWithLog();
    app.get('/quiet', { logLevel: 'warn' }, async (req) => {
      req.log.info('not written: below the route’s level');
      return { ok: true };
    });
    await app.ready();
    const child = vi.spyOn(app.log, 'child');
    expect((await app.inject('/quiet')).statusCode).toBe(200);
    expect(child).not.toHaveBeenCalled();
    await app.close();
  });

  it('write what a pino child writes: the request id, the route’s level, any argument form', async () => {
    const { app, lines } = appWithLog();
    app.get('/quiet', { logLevel: 'warn' }, async (req) => {
      expect(req.log.level).toBe('warn');
      req.log.info('dropped');
      req.log.warn({ user: 7 }, 'slow %s', 'database');
      req.log.error(new Error('it broke'));
      return { ok: true };
    });
    app.get('/loud', async (req) => {
      req.log.debug('dropped: below the server’s level');
      const child = req.log.child({ part: 'x' });
      child.info('from a child');
      return { ok: true };
    });
    await app.inject('/quiet');
    await app.inject('/loud');
    const written = lines.filter((l) => l.reqId === 'req-1');
    expect(written.map((l) => l.msg)).toEqual(['slow database', 'it broke', 'from a child', 'request completed']);
    expect(written[0]).toMatchObject({ level: 40, user: 7 });
    expect(written[1]).toMatchObject({ level: 50, err: { message: 'it broke', type: 'Error' } });
    expect(written[2]).toMatchObject({ level: 30, part: 'x' });
    expect(written[3]).toMatchObject({ req: { url: '/loud' }, res: { statusCode: 200 } });
    await app.close();
  });

  it('follow a level set on them', async () => {
    const { app, lines } = appWithLog();
    app.get('/verbose', async (req) => {
      expect(req.log.level).toBe('info');
      req.log.level = 'debug';
      req.log.debug('now written');
      return { ok: true };
    });
    await app.inject('/verbose');
    expect(lines.find((l) => l.msg === 'now written')).toMatchObject({ level: 20, reqId: 'req-1' });
    await app.close();
  });
});
