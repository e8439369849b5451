import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../lib/app-error.js';
import { parseS3Url } from '../lib/s3.js';
import { sampleFiles } from '../test/factories.js';
import { startFakeS3, type FakeS3 } from '../test/fake-s3.js';
import { createS3Storage } from './storage-s3.js';
import { createLocalStorage, StorageUnavailable, UploadTooLarge, type Storage, type UploadRule } from './storage.js';

/**
 * The Storage contract, run against both implementations: local files under DATA_DIR/files and
 * the S3-compatible bucket (test/fake-s3.ts, which checks every request's SigV4 signature and
 * signed payload hash with its own code). The app-level behaviour with two portal instances on one
 * bucket is in storage-s3.test.ts.
 */
const ACCESS = 'AKIASTORAGE';
const SECRET = 'storage/secret+key';
const REGION = 'eu-central-1';
const signer = { key: Buffer.alloc(32, 9) };
const IMAGE: UploadRule = { accept: { 'image/png': { maxBytes: 64 * 1024, maxMb: 0.0625, label: 'image' }, 'image/jpeg': { maxBytes: 64 * 1024, maxMb: 0.0625, label: 'image' } }, wrongType: 'The image must be a .jpg or .png image.' };

/** A stream that hands the content over in small pieces, as a multipart part does. */
const trickle = (data: Buffer, piece = 1000) => Readable.from((function* () {
  for (let i = 0; i < data.length; i += piece) yield data.subarray(i, i + piece);
})());
const filesUnder = (dir: string) => (fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name)) : []);
const readAll = async (stream: Readable) => {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
};

let s3: FakeS3;
const dirs: string[] = [];
const tempDir = () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'persona-storage-'));
  dirs.push(dir);
  return dir;
};
beforeAll(async () => {
  s3 = await startFakeS3({ accessKey: ACCESS, secretKey: SECRET, region: REGION, bucket: 'media' });
});
afterAll(async () => {
  await s3?.close();
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

interface Subject {
  storage: Storage;
  /** Every file or object the storage holds (kept files, not temporary ones). */
  kept(): string[];
  /** Files left in the places uploads wait while checked. */
  leftovers(): string[];
}

const implementations: [string, () => Subject][] = [
  [
    'local files',
    () => {
      const root = tempDir();
      return {
        storage: createLocalStorage(root, signer),
        kept: () => filesUnder(root).filter((f) => !f.includes(`${path.sep}.tmp${path.sep}`)),
        leftovers: () => filesUnder(path.join(root, '.tmp')),
      };
    },
  ],
  [
    'an S3-compatible bucket',
    () => {
      const tmp = tempDir();
      return {
        storage: createS3Storage(parseS3Url(s3.storageUrl)!, { signer, tmpDir: tmp }),
        kept: () => [...s3.objects.keys()],
        leftovers: () => filesUnder(tmp),
      };
    },
  ],
];

describe.each(implementations)('storage on %s', (_name, make) => {
  let subject: Subject;
  beforeEach(() => {
    s3.objects.clear();
    s3.requests.length = 0;
    s3.refused.length = 0;
    subject = make();
  });

  it('streams an upload in, sniffs its type, and reads back the same bytes', async () => {
    const png = sampleFiles.png(50_000);
    const stored = await subject.storage.putUpload(trickle(png), 'avatars/7', IMAGE);
    expect(stored).toMatchObject({ size: 50_000, type: 'image/png' });
    expect(stored.key).toMatch(/^avatars\/7\/[0-9a-f]{32}\.png$/);
    expect(await subject.storage.stat(stored.key)).toEqual({ size: 50_000 });
    const file = await subject.storage.read(stored.key);
    expect(file?.size).toBe(50_000);
    expect((await readAll(file!.body)).equals(png)).toBe(true);
    expect(subject.kept()).toHaveLength(1);
    expect(subject.leftovers()).toEqual([]);
    expect(s3.refused).toEqual([]);
  });

  it('refuses a disguised file at its first bytes and keeps nothing', async () => {
    const zip = sampleFiles.zip(40_000);
    const source = trickle(zip);
    const err = await subject.storage.putUpload(source, 'avatars/7', IMAGE).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).statusCode).toBe(400);
    expect((err as AppError).errors).toEqual([IMAGE.wrongType]);
    expect(subject.kept()).toEqual([]);
    expect(subject.leftovers()).toEqual([]);
    // Nothing was sent to the bucket at all.
    expect(s3.requests).toEqual([]);
  });

  it('refuses an over-size file while it streams and keeps nothing', async () => {
    const err = await subject.storage.putUpload(trickle(sampleFiles.png(64 * 1024 + 1)), 'avatars/7', IMAGE).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UploadTooLarge);
    expect((err as AppError).errors).toEqual(['File size exceeds 0.0625MB for image.']);
    expect(subject.kept()).toEqual([]);
    expect(subject.leftovers()).toEqual([]);
    expect(s3.requests).toEqual([]);
  });

  it('writes buffers and streams to chosen keys, deletes them, and says null for a missing file', async () => {
    await subject.storage.putBuffer('avatars/7/1-photo-x.jpg', sampleFiles.jpeg());
    expect(await subject.storage.putStream('knowledge/u7/0123456789abcdef0123456789abcdef.txt', trickle(Buffer.from('Harbour notes.'), 4))).toBe(14);
    expect((await readAll((await subject.storage.read('knowledge/u7/0123456789abcdef0123456789abcdef.txt'))!.body)).toString()).toBe('Harbour notes.');
    expect(subject.kept()).toHaveLength(2);
    await subject.storage.delete('avatars/7/1-photo-x.jpg');
    await subject.storage.delete('avatars/7/1-photo-x.jpg'); // already gone: fine
    expect(await subject.storage.read('avatars/7/1-photo-x.jpg')).toBeNull();
    expect(await subject.storage.stat('avatars/7/1-photo-x.jpg')).toBeNull();
    expect(subject.kept()).toHaveLength(1);
    expect(subject.leftovers()).toEqual([]);
    await expect(subject.storage.putBuffer('../escape.png', Buffer.from('x'))).rejects.toThrow('bad storage key');
  });

  it('hands out relative /files URLs, signed for private keys', () => {
    expect(subject.storage.url('avatars/7/a.png')).toBe('/files/avatars/7/a.png');
    const signed = new URL(subject.storage.privateUrl('image-requests/7/a.jpg'), 'http://portal.test');
    expect(subject.storage.verifyPrivate('image-requests/7/a.jpg', signed.searchParams.get('expires') ?? undefined, signed.searchParams.get('signature') ?? undefined)).toBe('ok');
    expect(subject.storage.verifyPrivate('image-requests/7/b.jpg', signed.searchParams.get('expires') ?? undefined, signed.searchParams.get('signature') ?? undefined)).toBe('invalid');
  });
});

describe('the bucket when it cannot answer', () => {
  it('turns a failing, unreachable or misconfigured bucket into StorageUnavailable (503), logs why, and leaves no temporary file', async () => {
    const logged: object[] = [];
    const log = { warn: (obj: object) => logged.push(obj) };
    const tmp = tempDir();
    const storage = createS3Storage(parseS3Url(s3.storageUrl)!, { signer, tmpDir: tmp, log });
    s3.objects.clear();

    s3.failNext(503, 4);
    for (const call of [() => storage.read('avatars/7/a.png'), () => storage.stat('avatars/7/a.png'), () => storage.delete('avatars/7/a.png'), () => storage.putUpload(trickle(sampleFiles.png()), 'avatars/7', IMAGE)]) {
      const err = await call().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StorageUnavailable);
      expect((err as AppError).statusCode).toBe(503);
    }
    expect(logged[0]).toMatchObject({ method: 'GET', reason: 'HTTP 503 SlowDown' });
    expect(filesUnder(tmp)).toEqual([]);
    expect(s3.objects.size).toBe(0);

    // Nothing listens there (a closed port).
    const closed = await startFakeS3({ accessKey: ACCESS, secretKey: SECRET, region: REGION, bucket: 'media' });
    await closed.close();
    const unreachable = createS3Storage(parseS3Url(closed.storageUrl)!, { signer, tmpDir: tmp, log });
    await expect(unreachable.read('avatars/7/a.png')).rejects.toBeInstanceOf(StorageUnavailable);
    await expect(unreachable.putUpload(trickle(sampleFiles.png()), 'avatars/7', IMAGE)).rejects.toBeInstanceOf(StorageUnavailable);
    expect(logged.at(-1)).toMatchObject({ method: 'PUT', reason: expect.stringContaining('ECONNREFUSED') });
    expect(filesUnder(tmp)).toEqual([]);

    // A wrong secret: the bucket refuses the signature; the client still only sees a 503.
    const wrongSecret = createS3Storage({ ...parseS3Url(s3.storageUrl)!, secretAccessKey: 'not-the-secret' }, { signer, tmpDir: tmp, log });
    await expect(wrongSecret.putBuffer('avatars/7/b.png', sampleFiles.png())).rejects.toBeInstanceOf(StorageUnavailable);
    expect(s3.refused.at(-1)).toMatch(/^PUT avatars\/7\/b\.png: SignatureDoesNotMatch/);
    expect(logged.at(-1)).toMatchObject({ reason: 'HTTP 403 SignatureDoesNotMatch' });
    expect(s3.objects.size).toBe(0);
  });
});
