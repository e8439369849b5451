import Fastify from 'fastify';
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { registerErrorHandler } from './errors.js';
import { serializerCompiler } from './serializer.js';

async function appAnswering(schema: z.ZodType, answer: unknown) {
  const app = Fastify({ logger: false });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  registerErrorHandler(app);
  app.withTypeProvider<ZodTypeProvider>().get('/x', { schema: { response: { 200: schema } } }, async () => answer as never);
  await app.ready();
  return app;
}

describe('the response serializer compiled from the schema', () => {
  it('writes only the declared properties, however deep', async () => {
    const schema = z.object({ status: z.enum(['OK', 'FAIL']), user: z.object({ id: z.number().int(), email: z.string() }), list: z.array(z.object({ a: z.string() })) });
    const app = await appAnswering(schema, { status: 'OK', user: { id: 1, email: 'a@b.c', passwordHash: 'secret' }, list: [{ a: 'x', token: 'secret' }], extra: 'secret' });
    const res = await app.inject('/x');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'OK', user: { id: 1, email: 'a@b.c' }, list: [{ a: 'x' }] });
    expect(res.body).not.toContain('secret');
  });

  it('handles optional, nullable, unions, records and unknown values like zod does', async () => {
    const schema = z.object({
      opt: z.string().optional(),
      nul: z.string().nullable(),
      either: z.union([z.number(), z.string()]),
      rec: z.record(z.string(), z.unknown()),
      any: z.unknown(),
    });
    const answer = { nul: null, either: 'x', rec: { a: [1, { b: 2 }] }, any: { deep: ['é', 'quote"', '\u2028'] } };
    const app = await appAnswering(schema, answer);
    const res = await app.inject('/x');
    expect(res.json()).toEqual(schema.parse(answer));
  });

  it('falls back to zod for what JSON schema cannot say (dates)', async () => {
    const schema = z.object({ at: z.date(), extra: z.string().optional() });
    const app = await appAnswering(schema, { at: new Date(0), hidden: 'secret' });
    const res = await app.inject('/x');
    expect(res.json()).toEqual({ at: '1970-01-01T00:00:00.000Z' });
  });

  it('refuses an answer that lacks a required property (500, no details)', async () => {
    const app = await appAnswering(z.object({ id: z.number(), name: z.string() }), { id: 1 });
    const res = await app.inject('/x');
    expect(res.statusCode).toBe(500);
    expect(res.json().status).toBe('FAIL');
  });
});
