import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../lib/app-error.js';
import { writeFileStream } from '../lib/write-file-stream.js';
import { SNIFF_BYTES, sniff, type SniffedType } from '../lib/file-type.js';

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

export interface Storage {
  readonly kind: 'local';
  /**
   * Streams an upload into storage: the type is read from the first bytes, the size counted as
   * it flows; a wrong type or an over-size file is refused and nothing is kept.
   */
  putUpload(stream: Readable, prefix: string, rule: UploadRule): Promise<StoredFile>;
  putBuffer(key: string, data: Buffer): Promise<void>;
  /** Streams already-checked content to a key chosen by the caller (the knowledge base's presigned uploads). */
  putStream(key: string, stream: Readable): Promise<number>;
  read(key: string): Readable | null;
  stat(key: string): Promise<{ size: number } | null>;
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
 * Keys under these prefixes are private: served only with a valid, unexpired signature, never
 * cached by shared caches (issue 9, item 4). Everything else under /files is public media.
 */
export const PRIVATE_PREFIXES = ['knowledge/', 'image-requests/'] as const;
export const isPrivateKey = (key: string) => PRIVATE_PREFIXES.some((p) => key.startsWith(p));
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
      const expires = String(now() + (signer.ttlSeconds ?? PRIVATE_URL_TTL_SECONDS));
      return `expires=${expires}&signature=${mac(key, expires).toString('base64url')}`;
    },
    verify(key: string, expires: string | undefined, signature: string | undefined): 'ok' | 'expired' | 'invalid' {
      if (!expires || !signature || !/^\d{1,12}$/.test(expires) || !/^[\w-]{43}$/.test(signature)) return 'invalid';
      const given = Buffer.from(signature, 'base64url');
      const expected = mac(key, expires);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
      return Number(expires) < now() ? 'expired' : 'ok';
    },
  };
}

const KEY = /^[a-z0-9/_-]+\.[a-z0-9]+$/;

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
  const resolve = (key: string) => {
    if (!KEY.test(key) || key.includes('..')) throw new Error(`bad storage key ${key}`);
    return path.join(root, key);
  };
  return {
    kind: 'local',
    async putUpload(stream, prefix, rule) {
      const tmpDir = path.join(root, '.tmp');
      await fsp.mkdir(tmpDir, { recursive: true });
      const tmp = path.join(tmpDir, randomBytes(12).toString('hex'));
      let head = Buffer.alloc(0);
      let type: SniffedType | null = null;
      let limit = Infinity;
      let label = '';
      let size = 0;
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
        await writeFileStream(stream, check, tmp);
        // A multipart part cut at the plugin's own limit ends without an error: treat as too large.
        if ((stream as Readable & { truncated?: boolean }).truncated) throw new UploadTooLarge(`File size exceeds ${label}.`);
      } catch (err) {
        await fsp.rm(tmp, { force: true });
        stream.resume();
        throw err;
      }
      const key = `${prefix}/${randomBytes(16).toString('hex')}.${extensionOf(type!)}`;
      await fsp.mkdir(path.dirname(resolve(key)), { recursive: true });
      await fsp.rename(tmp, resolve(key));
      return { key, size, type: type! };
    },
    async putBuffer(key, data) {
      await fsp.mkdir(path.dirname(resolve(key)), { recursive: true });
      await fsp.writeFile(resolve(key), data);
    },
    async putStream(key, stream) {
      const file = resolve(key);
      await fsp.mkdir(path.dirname(file), { recursive: true });
      const tmp = `${file}.${randomBytes(6).toString('hex')}.part`;
      let size = 0;
      try {
        await writeFileStream(stream, new Transform({ transform(chunk: Buffer, _enc, done) { size += chunk.length; done(null, chunk); } }), tmp);
        await fsp.rename(tmp, file);
      } catch (err) {
        await fsp.rm(tmp, { force: true });
        throw err;
      }
      return size;
    },
    read(key) {
      try {
        const file = resolve(key);
        return fs.existsSync(file) ? fs.createReadStream(file) : null;
      } catch {
        return null;
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
    url: (key) => `/files/${key}`,
    privateUrl: (key) => `/files/${key}?${signing.query(key)}`,
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

/**
 * GET /files/<key>: public media immutable and cacheable by anyone (a new upload gets a new key);
 * private files only with a valid signed URL, `private, no-store`.
 */
export function registerFileRoutes(app: FastifyInstance, storage: Storage): void {
  app.get('/files/*', { schema: { hide: true } }, async (req, reply) => {
    const key = (req.params as { '*': string })['*'];
    const isPrivate = isPrivateKey(key);
    if (isPrivate) {
      const query = req.query as { expires?: unknown; signature?: unknown };
      const verdict = storage.verifyPrivate(key, typeof query.expires === 'string' ? query.expires : undefined, typeof query.signature === 'string' ? query.signature : undefined);
      reply.header('cache-control', 'private, no-store');
      if (verdict === 'expired') throw new AppError(403, 'This link has expired. Reload the page to get a new one.');
      if (verdict !== 'ok') throw new AppError(403, 'This file is private.');
    }
    const stat = KEY.test(key) ? await storage.stat(key) : null;
    const stream = stat ? storage.read(key) : null;
    if (!stat || !stream) throw AppError.notFound();
    const ext = key.split('.').pop() ?? '';
    return reply
      .header('content-type', MIME_BY_EXT[ext] ?? 'application/octet-stream')
      .header('content-length', stat.size)
      .header('cache-control', isPrivate ? 'private, no-store' : 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .header('cross-origin-resource-policy', isPrivate ? 'same-origin' : 'cross-origin')
      .send(stream);
  });
}
