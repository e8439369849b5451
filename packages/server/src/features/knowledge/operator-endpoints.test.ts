import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteEmbedder } from './embedder.js';
import { createS3KnowledgeFiles } from './files.js';

/**
 * The operator's own endpoints may be on private addresses: the S3-compatible storage (signed
 * requests through lib/s3-client.ts) and an OpenAI-compatible embeddings API (the guarded request
 * of @persona/net's guardedFetch with private addresses allowed), checked here against small local
 * servers that answer as those services do.
 */
const objects = new Map<string, Buffer>([
  ['/bucket/knowledge/u1/a.txt', Buffer.from('The lighthouse keeper logs the weather.')],
  ['/bucket/knowledge/u1/big.pdf', Buffer.alloc(3 * 1024 * 1024, 7)],
]);
const seen: { method: string; path: string; authorization: string; amzDate: string }[] = [];
let failNext = false;

const server = http.createServer((req, res) => {
  let body = '';
  req.on('data', (c) => (body += c));
  req.on('end', () => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    if (path === '/v1/embeddings') {
      if (req.headers.authorization !== 'Bearer sk-test') return res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"bad key"}}');
      if (failNext) {
        failNext = false;
        return res.writeHead(500).end();
      }
      const { input, model } = JSON.parse(body) as { input: string[]; model: string };
      // Answered out of order, with their index, as the API allows.
      const data = input.map((text, index) => ({ object: 'embedding', index, embedding: [text.length, index, 1] })).reverse();
      return res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', model, data }));
    }
    seen.push({ method: req.method ?? '', path, authorization: String(req.headers.authorization ?? ''), amzDate: String(req.headers['x-amz-date'] ?? '') });
    if (failNext) {
      failNext = false;
      return res.writeHead(503, { 'content-type': 'application/xml' }).end('<Error><Code>SlowDown</Code></Error>');
    }
    const object = objects.get(path);
    if (!object) return res.writeHead(404, { 'content-type': 'application/xml' }).end(req.method === 'HEAD' ? undefined : '<Error><Code>NoSuchKey</Code></Error>');
    if (req.method === 'DELETE') {
      objects.delete(path);
      return res.writeHead(204).end();
    }
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': object.length });
    res.end(req.method === 'HEAD' ? undefined : object);
  });
});
let endpoint: string;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('S3-compatible storage on a private address (the operator configured it)', () => {
  it('heads, reads with a size bound, and deletes signed objects', async () => {
    const files = createS3KnowledgeFiles({ endpoint, bucket: 'bucket', region: 'us-east-1', accessKeyId: 'AKTEST', secretAccessKey: 'secret' });
    expect(await files.exists('knowledge/u1/a.txt')).toBe(true);
    expect(await files.exists('knowledge/u1/missing.txt')).toBe(false);
    expect(await files.exists('knowledge/u1/big.pdf')).toBe(true);
    expect((await files.read('knowledge/u1/big.pdf', 5 * 1024 * 1024)).length).toBe(3 * 1024 * 1024);
    expect((await files.read('knowledge/u1/a.txt', 1000)).toString()).toBe('The lighthouse keeper logs the weather.');
    await expect(files.read('knowledge/u1/a.txt', 10)).rejects.toThrow('the file is larger than its type allows');
    await expect(files.read('knowledge/u1/missing.txt', 1000)).rejects.toThrow('storage answered 404');
    failNext = true;
    await expect(files.remove('knowledge/u1/a.txt')).rejects.toThrow('storage answered 503');
    await files.remove('knowledge/u1/a.txt');
    await files.remove('knowledge/u1/a.txt'); // already gone: fine
    expect(await files.exists('knowledge/u1/a.txt')).toBe(false);
    for (const request of seen) {
      expect(request.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKTEST\/\d{8}\/us-east-1\/s3\/aws4_request, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=[0-9a-f]{64}$/);
      expect(request.amzDate).toMatch(/^\d{8}T\d{6}Z$/);
    }
    expect(seen.map((r) => r.method)).toEqual(['HEAD', 'HEAD', 'HEAD', 'GET', 'GET', 'GET', 'GET', 'DELETE', 'DELETE', 'DELETE', 'HEAD']);
  });
});

describe('an OpenAI-compatible embeddings endpoint on a private address', () => {
  it('sends the texts with the key and puts the vectors back in order', async () => {
    const embedder = createRemoteEmbedder({ url: `${endpoint}/v1/`, model: 'text-embedding-3-small', apiKey: 'sk-test', dimensions: 3 });
    expect(await embedder.embed(['a', 'bb', 'ccc'])).toEqual([
      [1, 0, 1],
      [2, 1, 1],
      [3, 2, 1],
    ]);
    failNext = true;
    await expect(embedder.embed(['a'])).rejects.toThrow('embeddings endpoint answered 500');
    const wrongKey = createRemoteEmbedder({ url: `${endpoint}/v1`, model: 'm', apiKey: 'sk-wrong', dimensions: 3 });
    await expect(wrongKey.embed(['a'])).rejects.toThrow('embeddings endpoint answered 401');
    const wrongSize = createRemoteEmbedder({ url: `${endpoint}/v1`, model: 'm', apiKey: 'sk-test', dimensions: 4 });
    await expect(wrongSize.embed(['a'])).rejects.toThrow('gave 3 dimensions, expected 4');
  });
});
