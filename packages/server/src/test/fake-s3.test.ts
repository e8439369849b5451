import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { createS3Client } from '../lib/s3-client.js';
import { parseS3Url, presignGetUrl, sha256Hex, signS3Request } from '../lib/s3.js';
import { startFakeS3 } from './fake-s3.js';

/**
 * The fake S3 refuses what S3 refuses (so the storage tests can fail), and runs as its own
 * process for multi-process tests.
 */
const here = path.dirname(fileURLToPath(import.meta.url));
const opts = { accessKey: 'AKIAFAKE', secretKey: 'fake/secret', region: 'us-west-2', bucket: 'b' };
const s3 = await startFakeS3(opts);
afterAll(() => s3.close());
const loc = parseS3Url(s3.storageUrl)!;

describe('the fake S3', () => {
  it('checks header signatures, payload hashes and lengths, and presigned GETs with their expiry', async () => {
    const client = createS3Client(loc);
    const body = Buffer.from('0123456789');
    expect((await client.send('PUT', 'k/a.txt', { body, payloadHash: sha256Hex(body), headers: { 'content-type': 'text/plain' } })).status).toBe(200);
    expect(s3.objects.get('k/a.txt')?.type).toBe('text/plain');
    // A payload hash that is not the body's: refused, nothing stored.
    expect((await client.send('PUT', 'k/b.txt', { body, payloadHash: sha256Hex('other') })).status).toBe(400);
    expect(s3.objects.has('k/b.txt')).toBe(false);
    // Another secret: refused.
    const wrong = createS3Client({ ...loc, secretAccessKey: 'guess' });
    expect((await wrong.send('GET', 'k/a.txt')).status).toBe(403);
    // A clock 20 minutes off: accepted by default (tests move clocks), refused with maxSkewSeconds.
    const strict = await startFakeS3({ ...opts, maxSkewSeconds: 900 });
    try {
      const skewed = createS3Client(parseS3Url(strict.storageUrl)!, { now: () => new Date(Date.now() - 20 * 60 * 1000) });
      expect((await skewed.send('HEAD', 'k/a.txt')).status).toBe(403);
      expect(strict.refused).toEqual([expect.stringContaining('RequestTimeTooSkewed')]);
    } finally {
      await strict.close();
    }

    const ranged = await fetch(presignGetUrl(client.objectUrl('k/a.txt'), loc, new Date(), 60), { headers: { range: 'bytes=2-4' } });
    expect(ranged.status).toBe(206);
    expect(await ranged.text()).toBe('234');
    const expired = await fetch(presignGetUrl(client.objectUrl('k/a.txt'), loc, new Date(Date.now() - 120_000), 60));
    expect(expired.status).toBe(403);
    const tampered = presignGetUrl(client.objectUrl('k/a.txt'), loc, new Date(), 60).replace('X-Amz-Expires=60', 'X-Amz-Expires=600');
    expect((await fetch(tampered)).status).toBe(403);

    // S3 needs the length of an object up front: a (correctly signed) chunked PUT is refused.
    const chunked = await new Promise<number>((resolve, reject) => {
      const url = client.objectUrl('k/c.txt');
      const headers = { ...signS3Request('PUT', url, loc, new Date()), 'transfer-encoding': 'chunked' };
      const req = http.request(url, { method: 'PUT', headers }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end('abc');
    });
    expect(chunked).toBe(411);
    expect(s3.refused.at(-1)).toMatch(/^PUT k\/c\.txt: MissingContentLength/);
    expect(s3.objects.has('k/c.txt')).toBe(false);
  });

  it('starts as its own process, prints its URL, and stops on SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'fake-s3-main.ts'), '--bucket', 'media', '--region', 'eu-north-1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve(out.split('\n')[0]!);
        });
        child.on('exit', (code) => reject(new Error(`fake-s3-main exited ${code}`)));
      });
      const { url, storageUrl } = JSON.parse(line) as { url: string; storageUrl: string };
      expect(storageUrl).toMatch(/^http:\/\/AKIAFAKES3:fake-s3-secret@127\.0\.0\.1:\d+\/media\?region=eu-north-1$/);
      const client = createS3Client(parseS3Url(storageUrl)!);
      expect(client.objectUrl('x/y.txt').origin).toBe(url);
      expect((await client.send('PUT', 'x/y.txt', { body: Buffer.from('hello') })).status).toBe(200);
      expect(await (await client.send('GET', 'x/y.txt')).text()).toBe('hello');
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
