import { createHash, createHmac } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import multipart from '@fastify/multipart';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KnowledgeMessages } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createSignedInUser } from '../../test/factories.js';
import { makePdf } from './sample-documents.js';

/**
 * STORAGE_URL pointing at an S3-compatible server: a tiny one started here, which checks the
 * presigned POST's policy signature and conditions and the SigV4 header signature of GET, HEAD and
 * DELETE with its own code (not the server's), the way S3 would.
 */
const ACCESS = 'AKIATESTKEY';
const SECRET = 'test/secret+key';
const REGION = 'eu-west-1';
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();
const signingKey = (date: string) => hmac(hmac(hmac(hmac(`AWS4${SECRET}`, date), REGION), 's3'), 'aws4_request');

let s3: FastifyInstance;
let s3Url: string;
const objects = new Map<string, { body: Buffer; type: string }>();
const refused: string[] = [];
let t: TestContext;

async function startFakeS3() {
  const app = Fastify();
  await app.register(multipart, { limits: { fileSize: 30 * 1024 * 1024 } });
  app.post('/bucket', async (req, reply) => {
    const fields: Record<string, string> = {};
    let file: Buffer | null = null;
    for await (const part of req.parts()) {
      if (part.type === 'field') fields[part.fieldname] = String(part.value);
      else file = await part.toBuffer();
    }
    const policy = fields.policy ?? '';
    const [access, date, region] = (fields['x-amz-credential'] ?? '').split('/');
    const expected = hmac(signingKey(date ?? ''), policy).toString('hex');
    const doc = JSON.parse(Buffer.from(policy, 'base64').toString('utf8')) as { expiration: string; conditions: unknown[] };
    const problems: string[] = [];
    if (access !== ACCESS || region !== REGION || fields['x-amz-signature'] !== expected) problems.push('SignatureDoesNotMatch');
    if (Date.parse(doc.expiration) < Date.now()) problems.push('expired');
    for (const c of doc.conditions) {
      if (Array.isArray(c) && c[0] === 'eq' && fields[String(c[1]).slice(1)] !== c[2]) problems.push(`condition ${String(c[1])}`);
      if (Array.isArray(c) && c[0] === 'content-length-range' && (!file || file.length < Number(c[1]) || file.length > Number(c[2]))) problems.push('EntityTooLarge');
      if (!Array.isArray(c) && typeof c === 'object' && c && 'bucket' in c && (c as { bucket: string }).bucket !== 'bucket') problems.push('bucket');
    }
    if (problems.length > 0 || !file) {
      refused.push(problems.join(','));
      return reply.status(403).type('application/xml').send(`<Error><Code>${problems[0] ?? 'NoFile'}</Code></Error>`);
    }
    objects.set(fields.key!, { body: file, type: fields['Content-Type']! });
    return reply.status(204).send();
  });
  const checkHeaderAuth = (req: { method: string; url: string; headers: Record<string, string | string[] | undefined> }) => {
    const auth = String(req.headers.authorization ?? '');
    const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/.exec(auth);
    if (!m || m[1] !== ACCESS || m[3] !== REGION) return false;
    const signed = m[4]!.split(';');
    const canonical = [req.method, req.url.split('?')[0], '', signed.map((h) => `${h}:${String(req.headers[h]).trim()}\n`).join(''), m[4], String(req.headers['x-amz-content-sha256'])].join('\n');
    const toSign = ['AWS4-HMAC-SHA256', String(req.headers['x-amz-date']), `${m[2]}/${REGION}/s3/aws4_request`, createHash('sha256').update(canonical).digest('hex')].join('\n');
    return hmac(signingKey(m[2]!), toSign).toString('hex') === m[5];
  };
  app.route({
    method: ['GET', 'HEAD', 'DELETE'],
    url: '/bucket/*',
    handler: async (req, reply) => {
      if (!checkHeaderAuth(req as never)) {
        refused.push(`${req.method} signature`);
        return reply.status(403).send();
      }
      const key = (req.params as { '*': string })['*'];
      const object = objects.get(key);
      if (req.method === 'DELETE') {
        objects.delete(key);
        return reply.status(204).send();
      }
      if (!object) return reply.status(404).send();
      return reply.header('content-type', object.type).header('content-length', object.body.length).send(req.method === 'HEAD' ? undefined : object.body);
    },
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  return app;
}

beforeAll(async () => {
  s3 = await startFakeS3();
  s3Url = `http://127.0.0.1:${(s3.server.address() as AddressInfo).port}`;
  t = await createTestApp({ STORAGE_URL: `http://${ACCESS}:${encodeURIComponent(SECRET)}@127.0.0.1:${(s3.server.address() as AddressInfo).port}/bucket?region=${REGION}` });
});
afterAll(async () => {
  await t?.close();
  await s3?.close();
});

async function postForm(form: Record<string, string>, url: string, data: Buffer, type: string) {
  const body = new FormData();
  for (const [k, v] of Object.entries(form)) body.append(k, v);
  body.append('file', new Blob([new Uint8Array(data)], { type }), 'upload');
  return fetch(url, { method: 'POST', body });
}

describe('knowledge files on S3-compatible storage (real presigned POSTs)', () => {
  it('uploads straight to the bucket with a signed policy, then reads, checks, processes and deletes the object', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const jwt = (await t.app.inject({ url: '/api/token/jwt', headers: me.headers })).json().jwtToken;
    const headers = { authorization: `Bearer ${jwt}` };
    const collection = (await t.app.inject({ method: 'POST', url: '/knowledge_collection', headers, payload: { name: 'S3' } })).json().data;

    const presign = async (file_type: string) => (await t.app.inject({ method: 'POST', url: '/knowledge/generate-s3-url', headers, payload: { file_type } })).json();
    const p = await presign('application/pdf');
    expect(p.url).toBe(`${s3Url}/bucket`);
    expect(p.final_url).toBe(`${s3Url}/bucket/${p.form.key}`);
    expect(p.form['x-amz-credential']).toMatch(new RegExp(`^${ACCESS}/\\d{8}/${REGION}/s3/aws4_request$`));

    // The bucket refuses a changed key and an oversize file, as S3 does.
    expect((await postForm({ ...p.form, key: p.form.key.replace('.pdf', '0.pdf') }, p.url, makePdf(['x']), 'application/pdf')).status).toBe(403);
    const small = await presign('text/plain');
    expect((await postForm(small.form, small.url, Buffer.alloc(5 * 1024 * 1024 + 1, 'a'), 'text/plain')).status).toBe(403);
    expect(refused).toEqual(['condition $key', 'EntityTooLarge']);

    const pdf = makePdf(['# Lighthouse keepers\nAgnes Morrow was the last keeper of the light.']);
    expect((await postForm(p.form, p.url, pdf, 'application/pdf')).status).toBe(204);
    const created = await t.app.inject({ method: 'POST', url: '/knowledge', headers, payload: { collection_id: collection.id, name: 'Keepers', knowledge_type: 'file', file_name: 'k.pdf', file_type: 'application/pdf', url: p.final_url } });
    expect(created.statusCode).toBe(200);
    // A final_url that was never uploaded is refused (HEAD answers 404).
    const never = await presign('application/pdf');
    const missing = await t.app.inject({ method: 'POST', url: '/knowledge', headers, payload: { collection_id: collection.id, name: 'x', knowledge_type: 'file', file_name: 'x.pdf', file_type: 'application/pdf', url: never.final_url } });
    expect(missing.json().errors).toEqual([KnowledgeMessages.fileNotUploaded]);

    // A disguised file gets past the bucket but not processing: it fails and the object is deleted.
    const fake = await presign('application/pdf');
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(100)]);
    expect((await postForm(fake.form, fake.url, png, 'application/pdf')).status).toBe(204);
    await t.app.inject({ method: 'POST', url: '/knowledge', headers, payload: { collection_id: collection.id, name: 'Disguised', knowledge_type: 'file', file_name: 'f.pdf', file_type: 'application/pdf', url: fake.final_url } });

    await t.app.knowledge.ingestion.idle();
    const items = (await t.app.inject({ url: `/knowledge?collection_id=${collection.id}`, headers })).json().data as { id: number; name: string; status: string; status_reason: string | null }[];
    expect(items.map((i) => [i.name, i.status, i.status_reason])).toEqual([
      ['Keepers', 'ready', null],
      ['Disguised', 'failed', KnowledgeMessages.invalidFile],
    ]);
    expect(objects.has(fake.form.key)).toBe(false);
    const hit = (await t.app.inject({ method: 'POST', url: '/knowledge/similarity-search', headers, payload: { collection_ids: [collection.id], query: 'last keeper', mode: 'fulltext' } })).json().data[0];
    expect(hit.text).toContain('Agnes Morrow');

    expect(objects.has(p.form.key)).toBe(true);
    await t.app.inject({ method: 'DELETE', url: `/knowledge/${items[0]!.id}`, headers });
    expect(objects.has(p.form.key)).toBe(false);
    expect(refused.filter((r) => r.includes('signature'))).toEqual([]);
    // The local upload route is not there when the bucket is.
    expect((await t.app.inject({ method: 'POST', url: '/knowledge/upload' })).statusCode).toBe(404);
  });
});

describe('the quota and the clean-up with a bucket', () => {
  it('caps forms at what is left, counts a file when its item is made, and removes orphaned objects', async () => {
    let clock = Date.now();
    const storageUrl = `http://${ACCESS}:${encodeURIComponent(SECRET)}@127.0.0.1:${(s3.server.address() as AddressInfo).port}/bucket?region=${REGION}`;
    const q = await createTestApp({ STORAGE_URL: storageUrl, KNOWLEDGE_QUOTA_MB: '1', EMBEDDINGS: 'off' }, { now: () => new Date(clock) });
    try {
      const me = await createSignedInUser(q.app, q.database);
      const token = async () => ({ authorization: `Bearer ${(await q.app.inject({ url: '/api/token/jwt', headers: me.headers })).json().jwtToken as string}` });
      let headers = await token();
      const collection = (await q.app.inject({ method: 'POST', url: '/knowledge_collection', headers, payload: { name: 'Quota' } })).json().data;
      const presign = async () => q.app.inject({ method: 'POST', url: '/knowledge/generate-s3-url', headers, payload: { file_type: 'text/plain' } });

      const first = (await presign()).json();
      expect(first.max_bytes).toBe(1024 * 1024);
      // The bucket itself enforces the form's cap.
      expect((await postForm(first.form, first.url, Buffer.alloc(1024 * 1024 + 1, 'a'), 'text/plain')).status).toBe(403);
      expect((await postForm(first.form, first.url, Buffer.alloc(600 * 1024, 'a'), 'text/plain')).status).toBe(204);
      const item = await q.app.inject({ method: 'POST', url: '/knowledge', headers, payload: { collection_id: collection.id, name: 'A', knowledge_type: 'file', file_name: 'a.txt', file_type: 'text/plain', url: first.final_url } });
      expect(item.statusCode).toBe(200);
      // The owner's signed link reads the private object.
      const link = item.json().data.file_url as string;
      expect(link).toMatch(/X-Amz-Signature=[0-9a-f]{64}$/);
      expect(new URL(link).pathname).toBe(`/bucket/${first.form.key}`);

      const second = (await presign()).json();
      expect(second.max_bytes).toBe(424 * 1024);
      expect((await postForm(second.form, second.url, Buffer.alloc(1000, 'b'), 'text/plain')).status).toBe(204);
      await q.app.knowledge.ingestion.idle();

      clock += 7 * 60 * 60 * 1000;
      headers = await token();
      expect(await q.app.knowledge.service.removeOrphanedUploads()).toBe(1);
      expect(objects.has(second.form.key)).toBe(false);
      expect(objects.has(first.form.key)).toBe(true);
      const full = await presign();
      expect(full.json().max_bytes).toBe(424 * 1024);
    } finally {
      await q.close();
    }
  }, 120_000);
});

describe('signed download links of knowledge files in a bucket', () => {
  it('are AWS SigV4 presigned GET URLs (the example of the S3 documentation)', async () => {
    const { presignGetUrl } = await import('./files.js');
    const url = presignGetUrl(
      new URL('https://examplebucket.s3.amazonaws.com/test.txt'),
      { endpoint: 'https://examplebucket.s3.amazonaws.com', bucket: 'examplebucket', region: 'us-east-1', accessKeyId: 'AKIAIOSFODNN7EXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
      new Date('2013-05-24T00:00:00Z'),
      86400,
    );
    expect(url).toBe(
      'https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
    );
  });
});
