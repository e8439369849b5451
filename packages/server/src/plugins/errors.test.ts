import Fastify from 'fastify';
import { serializerCompiler, validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { ErrorMessages, FailReason } from '@persona/contract';
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
    expect((await (await app()).inject('/db/08006')).statusCode).toBe(500);
  });

  it('answers a broken multipart body with a 400', async () => {
    const res = await (await app()).inject('/multipart');
    expect(res.statusCode).toBe(400);
    expect(res.json().failReason).toBe(FailReason.InvalidOrMissingParams);
  });
});
