import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';
import { KnowledgeFileTypes, type TKnowledgeFileType } from '@persona/contract';
import { bodyStream, createS3Client, discardBody, S3RequestError } from '../../lib/s3-client.js';
import { POLICY_TTL_MS, PolicyError, presignGetUrl, presignPost, verifyPostPolicy, type S3Location } from '../../lib/s3.js';
import { canonicalKey, storageKey } from '../../lib/storage-key.js';
import { StorageUnavailable, type Storage } from '../../plugins/storage.js';

export { PolicyError };

/**
 * Knowledge files and S3's presigned-POST protocol. The browser asks for a form
 * (POST /knowledge/generate-s3-url), then posts the file with that form to `url`:
 * - local storage: `url` is this server's POST /knowledge/upload, which checks the signed policy
 *   exactly as S3 would (signature, expiry, key, content type, size range) and the content itself;
 * - S3-compatible storage (STORAGE_URL s3://… or http(s)://key:secret@host/bucket): `url` is the
 *   bucket, with a real AWS Signature V4 policy; the content is checked when it is processed.
 * The signing (SigV4 policies, presigned GETs, signed requests) is lib/s3.ts's, shared with the
 * bucket storage of every other file (plugins/storage-s3.ts).
 */
export interface PresignedPost {
  form: Record<string, string>;
  url: string;
  final_url: string;
  max_bytes: number;
}

export interface PolicyCheck {
  key: string;
  fileType: TKnowledgeFileType;
  minBytes: number;
  maxBytes: number;
}

export interface KnowledgeFiles {
  readonly kind: 'local' | 's3';
  /** A form for one upload of at most maxBytes (the type's limit, or less when the quota leaves less). */
  presign(userId: number, fileType: TKnowledgeFileType, maxBytes: number): PresignedPost & { key: string; expiresAt: Date };
  /** The storage key behind a final_url, when it is one of this user's knowledge uploads. */
  keyFromUrl(userId: number, url: string): string | null;
  exists(key: string): Promise<boolean>;
  /** The stored size, or null when the file is not there. */
  size(key: string): Promise<number | null>;
  /** The whole file, refused beyond maxBytes. */
  read(key: string, maxBytes: number): Promise<Buffer>;
  remove(key: string): Promise<void>;
  /** A short-lived signed URL to read the file (given only to its owner). */
  downloadUrl(key: string): string;
  /** Local storage: checks the fields of a posted upload form; throws PolicyError when they do not hold. */
  verifyPost(fields: Record<string, string>): PolicyCheck;
  putStream(key: string, stream: Readable): Promise<number>;
}

const newKey = (userId: number, fileType: TKnowledgeFileType) => storageKey(`knowledge/u${userId}/${randomBytes(16).toString('hex')}.${KnowledgeFileTypes[fileType].ext}`);
const KEY_OF_USER = (userId: number) => new RegExp(`^knowledge/u${userId}/[0-9a-f]{32}\\.(pdf|txt|docx)$`);
const typeOfKey = (key: string): TKnowledgeFileType | null => {
  const ext = key.split('.').pop();
  return (Object.entries(KnowledgeFileTypes).find(([, v]) => v.ext === ext)?.[0] as TKnowledgeFileType | undefined) ?? null;
};

async function readAll(stream: Readable, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) {
      stream.destroy();
      throw new Error('the file is larger than its type allows');
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/**
 * Local storage (DATA_DIR/files): this server receives the form post itself, at a relative URL
 * (the browser posts to the address it opened the portal at). File items made before URLs were
 * relative name `${PUBLIC_URL}/files/…`: both forms are recognised.
 */
export function createLocalKnowledgeFiles(opts: { storage: Storage; publicUrl: string; uploadSecret: Buffer; now?: () => Date }): KnowledgeFiles {
  const secret = opts.uploadSecret.toString('hex');
  const common = { bucket: 'local', accessKeyId: 'local', region: 'local', secretAccessKey: secret };
  const now = () => opts.now?.() ?? new Date();
  const filesPrefixes = ['/files/', `${opts.publicUrl}/files/`];
  return {
    kind: 'local',
    presign(userId, fileType, maxBytes) {
      const key = newKey(userId, fileType);
      const at = now();
      return {
        form: presignPost({ ...common, key, contentType: fileType, maxBytes, now: at }),
        url: '/knowledge/upload',
        final_url: opts.storage.url(key),
        max_bytes: maxBytes,
        key,
        expiresAt: new Date(at.getTime() + POLICY_TTL_MS),
      };
    },
    keyFromUrl(userId, url) {
      const prefix = filesPrefixes.find((p) => url.startsWith(p));
      if (!prefix) return null;
      const key = canonicalKey(url.slice(prefix.length));
      return key !== null && KEY_OF_USER(userId).test(key) ? key : null;
    },
    async exists(key) {
      return (await opts.storage.stat(key)) !== null;
    },
    async size(key) {
      return (await opts.storage.stat(key))?.size ?? null;
    },
    async read(key, maxBytes) {
      const file = await opts.storage.read(key);
      if (!file) throw new Error('the file is missing from storage');
      if (file.size > maxBytes) {
        file.body.destroy();
        throw new Error('the file is larger than its type allows');
      }
      return readAll(file.body, maxBytes);
    },
    remove: (key) => opts.storage.delete(key),
    downloadUrl: (key) => opts.storage.privateUrl(key),
    verifyPost(fields) {
      const checked = verifyPostPolicy(fields, { ...common, now: now() });
      const fileType = typeOfKey(checked.key);
      if (!fileType || canonicalKey(checked.key) === null || !/^knowledge\/u\d+\/[0-9a-f]{32}\.(pdf|txt|docx)$/.test(checked.key) || checked.contentType !== fileType) throw new PolicyError('bad key');
      return { key: checked.key, fileType, minBytes: checked.minBytes, maxBytes: checked.maxBytes };
    },
    putStream: (key, stream) => opts.storage.putStream(key, stream),
  };
}

/** How long a signed download link of a knowledge file works. */
export const DOWNLOAD_TTL_SECONDS = 15 * 60;

/**
 * S3-compatible storage: the browser posts straight to the bucket; this server heads, reads and
 * deletes the objects with signed requests (lib/s3-client.ts: the operator's own endpoint, so
 * private addresses are fine).
 */
export function createS3KnowledgeFiles(loc: S3Location, opts: { now?: () => Date } = {}): KnowledgeFiles {
  const now = () => opts.now?.() ?? new Date();
  const base = `${loc.endpoint}/${loc.bucket}`;
  const client = createS3Client(loc, { now, timeoutMs: 60_000 });
  const isOk = (status: number) => status >= 200 && status < 300;
  const head = async (key: string) => {
    const res = await client.send('HEAD', key);
    await discardBody(res);
    return res;
  };
  return {
    kind: 's3',
    presign(userId, fileType, maxBytes) {
      const key = newKey(userId, fileType);
      const at = now();
      return {
        form: presignPost({ ...loc, key, contentType: fileType, maxBytes, now: at }),
        url: base,
        final_url: `${base}/${key}`,
        max_bytes: maxBytes,
        key,
        expiresAt: new Date(at.getTime() + POLICY_TTL_MS),
      };
    },
    keyFromUrl(userId, url) {
      if (!url.startsWith(`${base}/`)) return null;
      const key = canonicalKey(url.slice(base.length + 1));
      return key !== null && KEY_OF_USER(userId).test(key) ? key : null;
    },
    async exists(key) {
      return isOk((await head(key)).status);
    },
    async size(key) {
      // Asked while the client waits (an item is made): a bucket that cannot answer is a 503.
      const res = await head(key).catch((err: unknown) => {
        throw err instanceof S3RequestError ? new StorageUnavailable() : err;
      });
      if (res.status === 404) return null;
      if (!isOk(res.status)) throw new StorageUnavailable();
      const length = Number(res.headers.get('content-length'));
      return Number.isSafeInteger(length) && length >= 0 ? length : null;
    },
    async read(key, maxBytes) {
      const res = await client.send('GET', key);
      if (!isOk(res.status)) {
        await discardBody(res);
        throw new Error(`storage answered ${res.status}`);
      }
      if (Number(res.headers.get('content-length')) > maxBytes) {
        await discardBody(res);
        throw new Error('the file is larger than its type allows');
      }
      return readAll(bodyStream(res), maxBytes);
    },
    async remove(key) {
      const res = await client.send('DELETE', key);
      await discardBody(res);
      if (!isOk(res.status) && res.status !== 404) throw new Error(`storage answered ${res.status}`);
    },
    downloadUrl: (key) => presignGetUrl(client.objectUrl(key), loc, now(), DOWNLOAD_TTL_SECONDS),
    verifyPost() {
      throw new PolicyError('uploads go to the bucket');
    },
    putStream() {
      throw new Error('uploads go to the bucket');
    },
  };
}
