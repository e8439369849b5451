import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ErrorMessages, FailReason } from '@persona/contract';
import { DrizzleQueryError } from 'drizzle-orm';
import { AppError } from '../lib/app-error.js';
import { BAD_VALUE_MESSAGE, registerErrorHandler } from './errors.js';

async function appWithRoutes() {
  const app = Fastify({ logger: false });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  const typed = app.withTypeProvider<ZodTypeProvider>();
  typed.post('/typed', { schema: { body: z.object({ name: z.string().min(1, 'Name is required'), age: z.number() }) } }, async () => ({ ok: true }));
  app.get('/boom', async () => {
    throw new Error('secret database detail at /srv/app.js:12');
  });
  app.get('/app-error', async () => {
    throw new AppError(409, 'Stale', FailReason.StaleRequest, { extra: 1 });
  });
  await app.ready();
  return app;
}

describe('the error handler', () => {
  it('turns validation errors into 400 with messages naming the field', async () => {
    const app = await appWithRoutes();
    const res = await app.inject({ method: 'POST', url: '/typed', payload: { name: '', age: 'x' } });
    expect(res.statusCode).toBe(400);
    const body = res.json();
    expect(body.status).toBe('FAIL');
    expect(body.failReason).toBe(FailReason.InvalidOrMissingParams);
    expect(body.errors).toContain('Name is required');
    expect(body.errors.some((e: string) => e.startsWith('age: '))).toBe(true);
  });

  it('renders AppError with its status, errors, failReason and extra fields', async () => {
    const app = await appWithRoutes();
    const res = await app.inject('/app-error');
    expect(res.statusCode).toBe(409);
    expect(res.json()).toEqual({ status: 'FAIL', errors: ['Stale'], failReason: 15, extra: 1 });
  });

  it('never leaks details of an unexpected error', async () => {
    const app = await appWithRoutes();
    const res = await app.inject('/boom');
    expect(res.statusCode).toBe(500);
    expect(res.json()).toEqual({ status: 'FAIL', errors: [ErrorMessages.serverError], failReason: FailReason.ServerError });
    expect(res.body).not.toContain('secret');
  });

  it('answers malformed JSON with a 400', async () => {
    const app = await appWithRoutes();
    const res = await app.inject({ method: 'POST', url: '/typed', headers: { 'content-type': 'application/json' }, payload: '{"name":' });
    expect(res.statusCode).toBe(400);
    expect(res.json().status).toBe('FAIL');
  });
});

describe('the error handler and bad values', () => {
  async function app() {
    const a = Fastify({ logger: false });
    registerErrorHandler(a);
    a.get('/db/:code', async (req) => {
      // What drizzle throws: its own error with the driver's DatabaseError as the cause.
      const cause = Object.assign(new Error('value "3000000000" is out of range for type integer'), { code: (req.params as { code: string }).code, severity: 'ERROR', table: 'avatars' });
      throw new Error('Failed query: select …', { cause });
    });
    a.get('/multipart', async () => {
      const err = new Error('Unexpected end of form');
      err.stack = `Error: Unexpected end of form\n    at Multipart._final (/app/node_modules/@fastify/busboy/lib/types/multipart.js:588:17)`;
      throw err;
    });
    await a.ready();
    return a;
  }

  it.each(['22003', '22P02', '22021', '22008', '54000'])('answers a database data exception (%s) with a 400 that shows no value', async (code) => {
    const res = await (await app()).inject(`/db/${code}`);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual({ status: 'FAIL', errors: [BAD_VALUE_MESSAGE], failReason: FailReason.InvalidOrMissingParams });
    expect(res.body).not.toContain('3000000000');
  });

  it('keeps other database errors as 500', async () => {
    expect((await (await app()).inject('/db/42703')).statusCode).toBe(500);
  });

  it('answers a broken multipart body with a 400', async () => {
    const res = await (await app()).inject('/multipart');
    expect(res.statusCode).toBe(400);
    expect(res.json().failReason).toBe(FailReason.InvalidOrMissingParams);
  });
});

describe('the error handler and a dependency that is down (ADR 078)', () => {
  const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED', errno: -111, syscall: 'connect', address: '127.0.0.1', port: 5432 });
  const sqlState = (code: string) => Object.assign(new Error('terminating connection due to administrator command'), { code, severity: 'FATAL' });
  const wrapped = (cause: Error) => new DrizzleQueryError('select "secret_column" from users where email = $1', ['someone@example.com'], cause);
  const named = (name: string, message: string) => Object.assign(new Error(message), { name });
  const thrown: Record<string, () => Error> = {
    'pg: connection refused': refused,
    'pg: refused, through the query builder': () => wrapped(refused()),
    'pg: connection lost mid-query': () => wrapped(new Error('Connection terminated unexpectedly')),
    'pg: no connection within connectionTimeoutMillis': () => new Error('timeout exceeded when trying to connect'),
    'pg: connect timeout': () => new Error('Connection terminated due to connection timeout', { cause: new Error('timeout expired') }),
    'pg: query_timeout': () => wrapped(new Error('Query read timeout')),
    'pg: server shutting down (57P01)': () => wrapped(sqlState('57P01')),
    'pg: server starting up (57P03)': () => sqlState('57P03'),
    'pg: connection failure (08006)': () => wrapped(sqlState('08006')),
    'redis: max retries per request': () => named('MaxRetriesPerRequestError', 'Reached the max retries per request limit (which is 1). Refer to "maxRetriesPerRequest" option for details.'),
    'redis: command timeout': () => new Error('Command timed out'),
    'redis: not connected, no offline queue': () => new Error("Stream isn't writeable and enableOfflineQueue options is false"),
    'redis: connection closed': () => new Error('Connection is closed.'),
  };
  async function app() {
    const a = Fastify({ logger: false });
    registerErrorHandler(a);
    a.get('/throw/:name', async (req) => {
      throw thrown[(req.params as { name: string }).name]!();
    });
    a.get('/provider-down', async () => {
      // Someone else's outage (a provider the server calls): not ours to call "briefly unavailable".
      throw new TypeError('fetch failed', { cause: refused() });
    });
    a.get('/client-aborted', async () => {
      // The request body's stream ended early: the client's connection, not a dependency.
      throw Object.assign(new Error('aborted'), { code: 'ECONNRESET' });
    });
    await a.ready();
    return a;
  }

  it.each(Object.keys(thrown))('%s: 503 with Retry-After and the same message, nothing of the error', async (name) => {
    const res = await (await app()).inject(`/throw/${encodeURIComponent(name)}`);
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.json()).toEqual({ status: 'FAIL', errors: [ErrorMessages.serviceUnavailable], failReason: FailReason.RequestFail });
    expect(res.body).not.toMatch(/secret|someone|127\.0\.0\.1|ECONN|timed out|terminat/i);
  });

  it('leaves other failures alone: a provider that refused is a 500, a client that hung up a 400', async () => {
    const a = await app();
    expect((await a.inject('/provider-down')).statusCode).toBe(500);
    expect((await a.inject('/client-aborted')).statusCode).toBe(400);
  });
});
