import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Readable } from 'node:stream';
import { KnowledgeFileTypes, type TKnowledgeFileType } from '@persona/contract';
import { guardedFetch, SafeFetchError } from '../../lib/guarded-fetch.js';
import type { Storage } from '../../plugins/storage.js';

/**
 * Knowledge files and S3's presigned-POST protocol. The browser asks for a form
 * (POST /knowledge/generate-s3-url), then posts the file with that form to `url`:
 * - local storage: `url` is this server's POST /knowledge/upload, which checks the signed policy
 *   exactly as S3 would (signature, expiry, key, content type, size range) and the content itself;
 * - S3-compatible storage (STORAGE_URL s3://… or http(s)://key:secret@host/bucket): `url` is the
 *   bucket, with a real AWS Signature V4 policy; the content is checked when it is processed.
 */
export interface S3Location {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

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

export class PolicyError extends Error {
  override readonly name = 'PolicyError';
}

const POLICY_TTL_MS = 15 * 60 * 1000;
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();
const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

export function signingKey(secret: string, date: string, region: string, service = 's3'): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
}

const amzDates = (now: Date) => {
  const amzDate = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  return { amzDate, date: amzDate.slice(0, 8) };
};

/** A SigV4 presigned POST form (the fields S3 expects, in the order it wants them). */
export function presignPost(opts: {
  bucket: string;
  key: string;
  contentType: string;
  maxBytes: number;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  now: Date;
}): Record<string, string> {
  const { amzDate, date } = amzDates(opts.now);
  const credential = `${opts.accessKeyId}/${date}/${opts.region}/s3/aws4_request`;
  const policy = Buffer.from(
    JSON.stringify({
      expiration: new Date(opts.now.getTime() + POLICY_TTL_MS).toISOString(),
      conditions: [
        { bucket: opts.bucket },
        ['eq', '$key', opts.key],
        ['eq', '$Content-Type', opts.contentType],
        ['content-length-range', 1, opts.maxBytes],
        { 'x-amz-algorithm': 'AWS4-HMAC-SHA256' },
        { 'x-amz-credential': credential },
        { 'x-amz-date': amzDate },
      ],
    }),
  ).toString('base64');
  const signature = hmac(signingKey(opts.secretAccessKey, date, opts.region), policy).toString('hex');
  return {
    key: opts.key,
    'Content-Type': opts.contentType,
    'x-amz-algorithm': 'AWS4-HMAC-SHA256',
    'x-amz-credential': credential,
    'x-amz-date': amzDate,
    policy,
    'x-amz-signature': signature,
  };
}

/**
 * Checks a posted form against its policy the way S3 does: the signature over the policy with the
 * credential's signing key, the expiry, and every condition against the fields.
 */
export function verifyPostPolicy(fields: Record<string, string>, opts: { bucket: string; accessKeyId: string; secretAccessKey: string; region: string; now: Date }): { key: string; contentType: string; minBytes: number; maxBytes: number } {
  const f = (name: string) => Object.entries(fields).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  const policy = f('policy');
  const signature = f('x-amz-signature');
  const credential = f('x-amz-credential');
  if (!policy || !signature || !credential || f('x-amz-algorithm') !== 'AWS4-HMAC-SHA256') throw new PolicyError('missing policy fields');
  const [accessKeyId, date, region, service, terminator] = credential.split('/');
  if (accessKeyId !== opts.accessKeyId || region !== opts.region || service !== 's3' || terminator !== 'aws4_request' || !date) throw new PolicyError('unknown credential');
  const expected = hmac(signingKey(opts.secretAccessKey, date, region), policy);
  const given = Buffer.from(signature, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw new PolicyError('bad signature');
  let doc: { expiration?: string; conditions?: unknown[] };
  try {
    doc = JSON.parse(Buffer.from(policy, 'base64').toString('utf8'));
  } catch {
    throw new PolicyError('unreadable policy');
  }
  if (!doc.expiration || !(Date.parse(doc.expiration) > opts.now.getTime())) throw new PolicyError('expired policy');
  let minBytes = 0;
  let maxBytes = Number.POSITIVE_INFINITY;
  for (const condition of doc.conditions ?? []) {
    if (Array.isArray(condition)) {
      const [op, field, value] = condition as [string, string | number, string | number];
      if (op === 'content-length-range') {
        minBytes = Number(field);
        maxBytes = Number(value);
        continue;
      }
      const name = String(field).replace(/^\$/, '');
      const actual = name === 'bucket' ? opts.bucket : f(name);
      if (op === 'eq' && actual !== value) throw new PolicyError(`${name} does not match the policy`);
      if (op === 'starts-with' && !(actual ?? '').startsWith(String(value))) throw new PolicyError(`${name} does not match the policy`);
    } else if (condition && typeof condition === 'object') {
      for (const [name, value] of Object.entries(condition)) {
        const actual = name === 'bucket' ? opts.bucket : f(name);
        if (actual !== value) throw new PolicyError(`${name} does not match the policy`);
      }
    }
  }
  const key = f('key');
  const contentType = f('Content-Type');
  if (!key || !contentType || !Number.isFinite(maxBytes)) throw new PolicyError('incomplete policy');
  return { key, contentType, minBytes, maxBytes };
}

/** Parses STORAGE_URL when it names an S3-compatible bucket. */
export function parseS3Url(storageUrl: string | undefined): S3Location | null {
  if (!storageUrl || storageUrl.startsWith('file:')) return null;
  const u = new URL(storageUrl);
  const insecure = u.searchParams.get('insecure') === '1' || u.searchParams.get('tls') === 'false';
  const protocol = u.protocol === 's3:' ? (insecure ? 'http:' : 'https:') : u.protocol;
  const bucket = u.pathname.replace(/^\/+|\/+$/g, '');
  if (!bucket || !u.username || !u.password) throw new Error('STORAGE_URL must look like s3://ACCESS_KEY:SECRET@host[:port]/bucket[?region=…]');
  return {
    endpoint: `${protocol}//${u.host}`,
    bucket,
    region: u.searchParams.get('region') ?? 'us-east-1',
    accessKeyId: decodeURIComponent(u.username),
    secretAccessKey: decodeURIComponent(u.password),
  };
}

const newKey = (userId: number, fileType: TKnowledgeFileType) => `knowledge/u${userId}/${randomBytes(16).toString('hex')}.${KnowledgeFileTypes[fileType].ext}`;
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
  const filesPrefixes = [opts.storage.url(''), `${opts.publicUrl}/files/`];
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
      const key = url.slice(prefix.length);
      return KEY_OF_USER(userId).test(key) ? key : null;
    },
    async exists(key) {
      return (await opts.storage.stat(key)) !== null;
    },
    async size(key) {
      return (await opts.storage.stat(key))?.size ?? null;
    },
    async read(key, maxBytes) {
      const stat = await opts.storage.stat(key);
      const stream = opts.storage.read(key);
      if (!stat || !stream) throw new Error('the file is missing from storage');
      if (stat.size > maxBytes) {
        stream.destroy();
        throw new Error('the file is larger than its type allows');
      }
      return readAll(stream, maxBytes);
    },
    remove: (key) => opts.storage.delete(key),
    downloadUrl: (key) => opts.storage.privateUrl(key),
    verifyPost(fields) {
      const checked = verifyPostPolicy(fields, { ...common, now: now() });
      const fileType = typeOfKey(checked.key);
      if (!fileType || !/^knowledge\/u\d+\/[0-9a-f]{32}\.(pdf|txt|docx)$/.test(checked.key) || checked.contentType !== fileType) throw new PolicyError('bad key');
      return { key: checked.key, fileType, minBytes: checked.minBytes, maxBytes: checked.maxBytes };
    },
    putStream: (key, stream) => opts.storage.putStream(key, stream),
  };
}

/** Signs an S3 REST request (SigV4, header auth, unsigned payload). */
export function signS3Request(method: string, url: URL, loc: S3Location, now: Date): Record<string, string> {
  const { amzDate, date } = amzDates(now);
  const headers: Record<string, string> = { host: url.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'x-amz-date': amzDate };
  const signedHeaders = Object.keys(headers).sort().join(';');
  const canonical = [
    method,
    url.pathname.split('/').map((s) => encodeURIComponent(decodeURIComponent(s))).join('/'),
    [...url.searchParams].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&'),
    Object.keys(headers).sort().map((h) => `${h}:${headers[h]}\n`).join(''),
    signedHeaders,
    'UNSIGNED-PAYLOAD',
  ].join('\n');
  const scope = `${date}/${loc.region}/s3/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const signature = hmac(signingKey(loc.secretAccessKey, date, loc.region), toSign).toString('hex');
  return {
    ...headers,
    authorization: `AWS4-HMAC-SHA256 Credential=${loc.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
}

/** How long a signed download link of a knowledge file works. */
export const DOWNLOAD_TTL_SECONDS = 15 * 60;

/** A SigV4 query-signed GET URL (S3's presigned URL): the bucket itself stays private. */
export function presignGetUrl(url: URL, loc: S3Location, now: Date, expiresSeconds: number): string {
  const { amzDate, date } = amzDates(now);
  const scope = `${date}/${loc.region}/s3/aws4_request`;
  const query: [string, string][] = [
    ['X-Amz-Algorithm', 'AWS4-HMAC-SHA256'],
    ['X-Amz-Credential', `${loc.accessKeyId}/${scope}`],
    ['X-Amz-Date', amzDate],
    ['X-Amz-Expires', String(expiresSeconds)],
    ['X-Amz-SignedHeaders', 'host'],
  ];
  const encode = (v: string) => encodeURIComponent(v).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  const canonicalQuery = query
    .map(([k, v]) => [encode(k), encode(v)] as const)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const path = url.pathname.split('/').map((s) => encode(decodeURIComponent(s))).join('/');
  const canonical = ['GET', path, canonicalQuery, `host:${url.host}\n`, 'host', 'UNSIGNED-PAYLOAD'].join('\n');
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const signature = hmac(signingKey(loc.secretAccessKey, date, loc.region), toSign).toString('hex');
  return `${url.origin}${path}?${canonicalQuery}&X-Amz-Signature=${signature}`;
}

/** S3-compatible storage: the browser posts straight to the bucket. */
export function createS3KnowledgeFiles(loc: S3Location, opts: { now?: () => Date } = {}): KnowledgeFiles {
  const now = () => opts.now?.() ?? new Date();
  const base = `${loc.endpoint}/${loc.bucket}`;
  const objectUrl = (key: string) => new URL(`${base}/${key}`);
  // The operator's own endpoint (private addresses allowed), through the server's one request path.
  const call = (method: 'GET' | 'HEAD' | 'DELETE', key: string, maxBytes = 64 * 1024) => {
    const url = objectUrl(key);
    return guardedFetch(url.toString(), { method, headers: signS3Request(method, url, loc, now()), allowPrivate: true, timeoutMs: 60_000, maxBytes, maxRedirects: 0, acceptErrorStatus: true });
  };
  const isOk = (status: number) => status >= 200 && status < 300;
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
      const key = url.slice(base.length + 1);
      return KEY_OF_USER(userId).test(key) ? key : null;
    },
    async exists(key) {
      return isOk((await call('HEAD', key)).status);
    },
    async size(key) {
      const res = await call('HEAD', key);
      if (res.status === 404) return null;
      if (!isOk(res.status)) throw new Error(`storage answered ${res.status}`);
      const length = Number(res.headers['content-length']);
      return Number.isSafeInteger(length) && length >= 0 ? length : null;
    },
    async read(key, maxBytes) {
      const res = await call('GET', key, maxBytes).catch((err: unknown) => {
        if (err instanceof SafeFetchError && err.kind === 'too-large') throw new Error('the file is larger than its type allows');
        throw err;
      });
      if (!isOk(res.status)) throw new Error(`storage answered ${res.status}`);
      return res.body;
    },
    async remove(key) {
      const res = await call('DELETE', key);
      if (!isOk(res.status) && res.status !== 404) throw new Error(`storage answered ${res.status}`);
    },
    downloadUrl: (key) => presignGetUrl(objectUrl(key), loc, now(), DOWNLOAD_TTL_SECONDS),
    verifyPost() {
      throw new PolicyError('uploads go to the bucket');
    },
    putStream() {
      throw new Error('uploads go to the bucket');
    },
  };
}
