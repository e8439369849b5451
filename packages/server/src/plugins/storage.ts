import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { FailReason } from '@persona/contract';
import { AppError } from '../lib/app-error.js';
import { writeFileStream } from '../lib/write-file-stream.js';
import { SNIFF_BYTES, sniff, type SniffedType } from '../lib/file-type.js';
import { canonicalKey, storageKey, topFolder } from '../lib/storage-key.js';

export interface StoredFile {
  key: string;
  size: number;
  type: SniffedType;
}

export interface UploadRule {
  /** Accepted types, each with its own size limit in bytes and the label used in messages. */
  accept: Partial<Record<SniffedType, { maxBytes: number; label: string; maxMb: number }>>;
  /** Message when the content is none of the accepted types. */
  wrongType: string;
}

/** A stored file opened for reading: its bytes as a stream, and how many there are. */
export interface StoredStream {
  body: Readable;
  size: number;
}

export interface Storage {
  /** Local files under DATA_DIR/files, or the S3-compatible bucket of STORAGE_URL (plugins/storage-s3.ts). */
  readonly kind: 'local' | 's3';
  /**
   * Streams an upload into storage: the type is read from the first bytes, the size counted as
   * it flows; a wrong type or an over-size file is refused and nothing is kept.
   */
  putUpload(stream: Readable, prefix: string, rule: UploadRule): Promise<StoredFile>;
  putBuffer(key: string, data: Buffer): Promise<void>;
  /** Streams already-checked content to a key chosen by the caller (the knowledge base's presigned uploads). */
  putStream(key: string, stream: Readable): Promise<number>;
  /** The file's bytes, or null when there is no such file; StorageUnavailable when storage cannot answer. */
  read(key: string): Promise<StoredStream | null>;
  stat(key: string): Promise<{ size: number } | null>;
  /** Removes the file (nothing to do when it is not there). */
  delete(key: string): Promise<void>;
  /** The public URL of a stored file meant to be public (avatar media, backgrounds, scenes). */
  url(key: string): string;
  /**
   * A short-lived signed URL of a private file (knowledge uploads, face photos): only the calls
   * that check the caller owns the file (or is an administrator) hand it out.
   */
  privateUrl(key: string): string;
  /** Checks the signature and expiry of a private file's URL. */
  verifyPrivate(key: string, expires: string | undefined, signature: string | undefined): 'ok' | 'expired' | 'invalid';
}

/**
 * File storage could not answer (the bucket is unreachable, timed out or answered an error): the
 * client gets a 503 to retry later; the precise reason went to the log.
 */
export class StorageUnavailable extends AppError {
  constructor() {
    super(503, 'File storage is unavailable at the moment. Please try again in a minute.', FailReason.RequestFail);
  }
}

/**
 * Public media: keys in these top folders (avatar media, backgrounds, scenes, models, custom
 * avatars' thumbnails) are served to anyone, cacheable for a year. Every other key — knowledge
 * uploads, image-avatar requests' face photos, and any folder added later — is private: served
 * only with a valid, unexpired signature, never cached by shared caches. Decided on the canonical
 * key only (lib/storage-key.ts).
 */
export const PUBLIC_FOLDERS: ReadonlySet<string> = new Set(['avatars', 'custom-avatars']);
export const isPublicKey = (key: string) => canonicalKey(key) !== null && PUBLIC_FOLDERS.has(topFolder(key));
export const isPrivateKey = (key: string) => !isPublicKey(key);
/** How long a signed URL of a private file works. */
export const PRIVATE_URL_TTL_SECONDS = 15 * 60;

export interface FileUrlSigner {
  /** HMAC key for signed URLs (derived from the server's master key). */
  key: Buffer;
  now?: () => Date;
  ttlSeconds?: number;
}

/** `?expires=…&signature=…` for a key: HMAC-SHA256 over the key and the expiry. */
export function createUrlSigning(signer: FileUrlSigner) {
  const now = () => Math.floor((signer.now?.() ?? new Date()).getTime() / 1000);
  const mac = (key: string, expires: string) => createHmac('sha256', signer.key).update(`files:${key}\n${expires}`).digest();
  return {
    query(key: string): string {
      storageKey(key);
      const expires = String(now() + (signer.ttlSeconds ?? PRIVATE_URL_TTL_SECONDS));
      return `expires=${expires}&signature=${mac(key, expires).toString('base64url')}`;
    },
    verify(key: string, expires: string | undefined, signature: string | undefined): 'ok' | 'expired' | 'invalid' {
      if (canonicalKey(key) === null || !expires || !signature || !/^\d{1,12}$/.test(expires) || !/^[\w-]{43}$/.test(signature)) return 'invalid';
      const given = Buffer.from(signature, 'base64url');
      const expected = mac(key, expires);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
      return Number(expires) < now() ? 'expired' : 'ok';
    },
  };
}

/** A new, unguessable key for an upload of this type under the prefix. */
export const uploadKey = (prefix: string, type: SniffedType) => storageKey(`${prefix}/${randomBytes(16).toString('hex')}.${extensionOf(type)}`);

/**
 * Receives an upload into the file `file`: the type read from the first bytes, the size counted
 * (and the SHA-256 taken) as it flows. A wrong type or an over-size file is refused as soon as it
 * shows, the file removed (only once its write stream has closed: lib/write-file-stream.ts) and
 * the rest of the upload drained.
 */
export async function receiveUpload(stream: Readable, rule: UploadRule, file: string): Promise<{ size: number; type: SniffedType; sha256: string }> {
  let head = Buffer.alloc(0);
  let type: SniffedType | null = null;
  let limit = Infinity;
  let label = '';
  let size = 0;
  const hash = createHash('sha256');
  const check = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (!type) {
        head = Buffer.concat([head, chunk]);
        if (head.length >= SNIFF_BYTES) {
          type = sniff(head);
          const accepted = type ? rule.accept[type] : undefined;
          if (!type || !accepted) return done(AppError.badRequest(rule.wrongType));
          limit = accepted.maxBytes;
          label = `${accepted.maxMb}MB for ${accepted.label}`;
        }
      }
      if (size > limit) return done(new UploadTooLarge(`File size exceeds ${label}.`));
      hash.update(chunk);
      done(null, chunk);
    },
    flush(done) {
      if (!type) {
        type = sniff(head);
        const accepted = type ? rule.accept[type] : undefined;
        if (!type || !accepted) return done(AppError.badRequest(rule.wrongType));
        if (size > accepted.maxBytes) return done(new UploadTooLarge(`File size exceeds ${accepted.maxMb}MB for ${accepted.label}.`));
      }
      done();
    },
  });
  try {
    await writeFileStream(stream, check, file);
    // A multipart part cut at the plugin's own limit ends without an error: treat as too large.
    if ((stream as Readable & { truncated?: boolean }).truncated) throw new UploadTooLarge(`File size exceeds ${label}.`);
  } catch (err) {
    await fsp.rm(file, { force: true });
    stream.resume();
    throw err;
  }
  return { size, type: type!, sha256: hash.digest('hex') };
}

/** Streams already-checked content into the file `file`, counting (and hashing) it; removes the file on failure. */
export async function receiveStream(stream: Readable, file: string): Promise<{ size: number; sha256: string }> {
  let size = 0;
  const hash = createHash('sha256');
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      hash.update(chunk);
      done(null, chunk);
    },
  });
  try {
    await writeFileStream(stream, count, file);
  } catch (err) {
    await fsp.rm(file, { force: true });
    throw err;
  }
  return { size, sha256: hash.digest('hex') };
}

export class UploadTooLarge extends AppError {
  constructor(message: string) {
    super(413, message);
  }
}

/**
 * Local files under DATA_DIR/files, served at /files/<key>. Their URLs are relative: the portal
 * and the avatar page load them from whatever address they were opened at (PUBLIC_URL may differ).
 */
export function createLocalStorage(root: string, signer: FileUrlSigner): Storage {
  const signing = createUrlSigning(signer);
  const resolve = (key: string) => path.join(root, storageKey(key));
  return {
    kind: 'local',
    async putUpload(stream, prefix, rule) {
      const tmpDir = path.join(root, '.tmp');
      await fsp.mkdir(tmpDir, { recursive: true });
      const tmp = path.join(tmpDir, randomBytes(12).toString('hex'));
      const { size, type } = await receiveUpload(stream, rule, tmp);
      const key = uploadKey(prefix, type);
      await fsp.mkdir(path.dirname(resolve(key)), { recursive: true });
      await fsp.rename(tmp, resolve(key));
      return { key, size, type };
    },
    async putBuffer(key, data) {
      await fsp.mkdir(path.dirname(resolve(key)), { recursive: true });
      await fsp.writeFile(resolve(key), data);
    },
    async putStream(key, stream) {
      const file = resolve(key);
      await fsp.mkdir(path.dirname(file), { recursive: true });
      const tmp = `${file}.${randomBytes(6).toString('hex')}.part`;
      const { size } = await receiveStream(stream, tmp);
      try {
        await fsp.rename(tmp, file);
      } catch (err) {
        await fsp.rm(tmp, { force: true });
        throw err;
      }
      return size;
    },
    async read(key) {
      let handle: fsp.FileHandle;
      try {
        handle = await fsp.open(resolve(key), 'r');
      } catch {
        return null;
      }
      try {
        const { size } = await handle.stat();
        return { body: handle.createReadStream(), size };
      } catch (err) {
        await handle.close();
        throw err;
      }
    },
    async stat(key) {
      try {
        const s = await fsp.stat(resolve(key));
        return { size: s.size };
      } catch {
        return null;
      }
    },
    async delete(key) {
      await fsp.rm(resolve(key), { force: true });
    },
    url: (key) => `/files/${storageKey(key)}`,
    privateUrl: (key) => `/files/${storageKey(key)}?${signing.query(key)}`,
    verifyPrivate: (key, expires, signature) => signing.verify(key, expires, signature),
  };
}

function extensionOf(type: SniffedType): string {
  return { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/gif': 'gif', 'image/webp': 'webp', 'video/mp4': 'mp4', 'video/quicktime': 'mov', 'model/gltf-binary': 'glb', 'application/pdf': 'pdf', 'application/zip': 'zip' }[type];
}

const MIME_BY_EXT: Record<string, string> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  gif: 'image/gif',
  webp: 'image/webp',
  mp4: 'video/mp4',
  mov: 'video/quicktime',
  glb: 'model/gltf-binary',
  pdf: 'application/pdf',
  zip: 'application/zip',
  json: 'application/json',
  txt: 'text/plain; charset=utf-8',
};

/** `/files/<key>`: the key as the request spelled it (still percent-encoded), before any decoding. */
const FILES_URL = /^\/files\/([^?#]*)/;

/**
 * GET /files/<key>: public media immutable and cacheable by anyone (a new upload gets a new key);
 * private files only with a valid signed URL, `private, no-store`.
 *
 * The key is read from the URL exactly as sent — not from the router's decoded parameter — and
 * must be canonical (lib/storage-key.ts) before anything is decided: `/files//knowledge/…`,
 * `/files/%2Fknowledge/…`, `/fil%65s/…`, `/files/./…` are a 404, never another spelling of a
 * private key that the public check would not recognise. Then privacy is
 * deny-by-default: only the public folders are served without a signature.
 */
export function registerFileRoutes(app: FastifyInstance, storage: Storage): void {
  app.get('/files/*', { schema: { hide: true } }, async (req, reply) => {
    const key = canonicalKey(FILES_URL.exec(req.url)?.[1]);
    if (key === null || key !== (req.params as { '*': string })['*']) {
      reply.header('cache-control', 'no-store');
      throw AppError.notFound();
    }
    const isPrivate = !isPublicKey(key);
    if (isPrivate) {
      const query = req.query as { expires?: unknown; signature?: unknown };
      const verdict = storage.verifyPrivate(key, typeof query.expires === 'string' ? query.expires : undefined, typeof query.signature === 'string' ? query.signature : undefined);
      reply.header('cache-control', 'private, no-store');
      if (verdict === 'expired') throw new AppError(403, 'This link has expired. Reload the page to get a new one.');
      if (verdict !== 'ok') throw new AppError(403, 'This file is private.');
    }
    let file: StoredStream | null;
    try {
      file = await storage.read(key);
    } catch (err) {
      // Not cached by anyone, and worth another try shortly (the error handler answers 503).
      if (err instanceof StorageUnavailable) reply.header('cache-control', 'no-store').header('retry-after', '5');
      throw err;
    }
    if (!file) throw AppError.notFound();
    const ext = key.split('.').pop() ?? '';
    return reply
      .header('content-type', MIME_BY_EXT[ext] ?? 'application/octet-stream')
      .header('content-length', file.size)
      .header('cache-control', isPrivate ? 'private, no-store' : 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .header('cross-origin-resource-policy', isPrivate ? 'same-origin' : 'cross-origin')
      .send(file.body);
  });
}
