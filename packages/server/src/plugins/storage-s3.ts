import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { bodyStream, createS3Client, discardBody, s3ErrorCode, S3RequestError, type S3Client } from '../lib/s3-client.js';
import { sha256Hex, type S3Location } from '../lib/s3.js';
import { storageKey } from '../lib/storage-key.js';
import {
  createUrlSigning,
  receiveStream,
  receiveUpload,
  StorageUnavailable,
  uploadKey,
  type FileUrlSigner,
  type Storage,
} from './storage.js';

export interface S3StorageOptions {
  signer: FileUrlSigner;
  /** Where uploads wait while they are checked (DATA_DIR/tmp/uploads): never kept there. */
  tmpDir: string;
  now?: () => Date;
  /** Where the precise reason of a failed bucket request goes (the client only sees a 503). */
  log?: { warn(obj: object, msg: string): void };
  /** Until the bucket's answer headers arrive (uploads get one more second per MB). */
  timeoutMs?: number;
}

const isOk = (status: number) => status >= 200 && status < 300;

/**
 * Every stored file in the S3-compatible bucket of STORAGE_URL, so that any portal instance serves
 * any file. Keys and URLs are the local storage's: files are still served at
 * /files/<key> by the portal, which streams them from the bucket — public media with its
 * immutable cache headers, private files only with this server's signed URL (the HMAC key comes
 * from SECRET_KEY, which the instances share). The bucket itself stays private.
 *
 * Uploads: S3 needs the length of an object before its first byte (a PUT takes Content-Length; a
 * chunked upload is refused), and the type and size checks must refuse a file before anything is
 * kept. So an upload streams through the checks into a temporary file (as with local storage),
 * and only a file that passed is sent, in one PUT of known length whose SHA-256 (taken while
 * receiving) the bucket verifies. A refused upload never reaches the bucket; the temporary file is
 * removed whatever happens. Multipart upload would avoid the temporary file but buffers 5 MB
 * parts in memory, leaves invisible parts in the bucket when an abort fails, and our limits
 * (≤ 25 MB a file) are far within one PUT's 5 GB (ADR 077).
 */
export function createS3Storage(loc: S3Location, opts: S3StorageOptions): Storage {
  const client: S3Client = createS3Client(loc, { now: opts.now, timeoutMs: opts.timeoutMs });
  const signing = createUrlSigning({ ...opts.signer, now: opts.signer.now ?? opts.now });
  const baseTimeout = opts.timeoutMs ?? 30_000;

  /** A bucket that cannot answer: logged with the reason, a 503 for the client. */
  const unavailable = (method: string, key: string, reason: string) => {
    opts.log?.warn({ storage: 's3', method, key, reason }, 'file storage request failed');
    return new StorageUnavailable();
  };
  const send = async (method: 'GET' | 'HEAD' | 'PUT' | 'DELETE', key: string, sendOpts: Parameters<S3Client['send']>[2] = {}) => {
    try {
      return await client.send(method, storageKey(key), sendOpts);
    } catch (err) {
      if (err instanceof S3RequestError) throw unavailable(method, key, err.message);
      throw err;
    }
  };
  const failed = async (method: string, key: string, res: Response) => unavailable(method, key, await s3ErrorCode(res));

  /** One PUT of a file received into `tmp` (removed afterwards, sent or not). */
  const putFile = async (key: string, tmp: string, size: number, sha256: string, contentType: string) => {
    try {
      const res = await send('PUT', key, {
        body: fs.createReadStream(tmp),
        length: size,
        payloadHash: sha256,
        headers: { 'content-type': contentType },
        timeoutMs: baseTimeout + Math.ceil(size / (1024 * 1024)) * 1000,
      });
      if (!isOk(res.status)) throw await failed('PUT', key, res);
      await discardBody(res);
    } finally {
      await fsp.rm(tmp, { force: true });
    }
  };
  const tmpFile = async () => {
    await fsp.mkdir(opts.tmpDir, { recursive: true });
    return path.join(opts.tmpDir, randomBytes(12).toString('hex'));
  };

  return {
    kind: 's3',
    async putUpload(stream, prefix, rule) {
      const tmp = await tmpFile();
      const { size, type, sha256 } = await receiveUpload(stream, rule, tmp);
      const key = uploadKey(prefix, type);
      await putFile(key, tmp, size, sha256, type);
      return { key, size, type };
    },
    async putBuffer(key, data) {
      const res = await send('PUT', key, { body: data, payloadHash: sha256Hex(data), headers: { 'content-type': 'application/octet-stream' } });
      if (!isOk(res.status)) throw await failed('PUT', key, res);
      await discardBody(res);
    },
    async putStream(key, stream: Readable) {
      storageKey(key);
      const tmp = await tmpFile();
      const { size, sha256 } = await receiveStream(stream, tmp);
      await putFile(key, tmp, size, sha256, 'application/octet-stream');
      return size;
    },
    async read(key) {
      const res = await send('GET', key);
      if (res.status === 404) {
        await discardBody(res);
        return null;
      }
      if (!isOk(res.status)) throw await failed('GET', key, res);
      const size = Number(res.headers.get('content-length'));
      if (!Number.isSafeInteger(size) || size < 0) {
        await discardBody(res);
        throw unavailable('GET', key, 'the answer has no content-length');
      }
      return { body: bodyStream(res), size };
    },
    async stat(key) {
      const res = await send('HEAD', key);
      await discardBody(res);
      if (res.status === 404) return null;
      if (!isOk(res.status)) throw unavailable('HEAD', key, `HTTP ${res.status}`);
      const size = Number(res.headers.get('content-length'));
      return Number.isSafeInteger(size) && size >= 0 ? { size } : null;
    },
    async delete(key) {
      const res = await send('DELETE', key);
      if (!isOk(res.status) && res.status !== 404) throw await failed('DELETE', key, res);
      await discardBody(res);
    },
    url: (key) => `/files/${storageKey(key)}`,
    privateUrl: (key) => `/files/${storageKey(key)}?${signing.query(key)}`,
    verifyPrivate: (key, expires, signature) => signing.verify(key, expires, signature),
  };
}
