import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The S3-compatible bucket of STORAGE_URL and AWS Signature Version 4 — the one signing
 * implementation of the server: header-signed REST requests (file storage, knowledge files),
 * query-signed GET URLs (knowledge download links) and POST policies (the browser's uploads of
 * knowledge files). No AWS SDK (ADR 077); checked against the examples of the S3 documentation
 * and against test/fake-s3.ts, which verifies signatures with its own code.
 */
export interface S3Location {
  /** `http(s)://host[:port]`: path-style requests go to `${endpoint}/${bucket}/${key}`. */
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** Parses STORAGE_URL when it names an S3-compatible bucket (null for unset or `file:`). */
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

/** The payload hash of a request whose body is not signed. */
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();
export const sha256Hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

export function signingKey(secret: string, date: string, region: string, service = 's3'): Buffer {
  return hmac(hmac(hmac(hmac(`AWS4${secret}`, date), region), service), 'aws4_request');
}

function amzDates(now: Date) {
  const amzDate = now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  return { amzDate, date: amzDate.slice(0, 8) };
}

/** AWS's UriEncode: everything but A-Z a-z 0-9 - . _ ~ percent-encoded, upper-case hex. */
export const uriEncode = (value: string) => encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
/** The canonical path: each segment encoded once (S3 does not normalise it further). */
const canonicalPath = (url: URL) => url.pathname.split('/').map((s) => uriEncode(decodeURIComponent(s))).join('/');
const canonicalQuery = (pairs: Iterable<[string, string]>) =>
  [...pairs]
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');

/**
 * Signs an S3 REST request (SigV4, Authorization header). `headers` (lower-case names) are sent
 * and signed with host, x-amz-date and x-amz-content-sha256; `payloadHash` is the hex SHA-256 of
 * the body, or UNSIGNED-PAYLOAD. Returns every header to send except host (the client sets it).
 */
export function signS3Request(
  method: string,
  url: URL,
  loc: S3Location,
  now: Date,
  opts: { headers?: Record<string, string>; payloadHash?: string } = {},
): Record<string, string> {
  const { amzDate, date } = amzDates(now);
  const payloadHash = opts.payloadHash ?? UNSIGNED_PAYLOAD;
  const headers: Record<string, string> = { ...opts.headers, host: url.host, 'x-amz-content-sha256': payloadHash, 'x-amz-date': amzDate };
  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(';');
  const canonical = [method, canonicalPath(url), canonicalQuery(url.searchParams), names.map((h) => `${h}:${headers[h]!.trim()}\n`).join(''), signedHeaders, payloadHash].join('\n');
  const scope = `${date}/${loc.region}/s3/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonical)].join('\n');
  const signature = hmac(signingKey(loc.secretAccessKey, date, loc.region), toSign).toString('hex');
  const { host: _host, ...send } = headers;
  return {
    ...send,
    authorization: `AWS4-HMAC-SHA256 Credential=${loc.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
}

/** A SigV4 query-signed GET URL (S3's presigned URL): the bucket itself stays private. */
export function presignGetUrl(url: URL, loc: S3Location, now: Date, expiresSeconds: number): string {
  const { amzDate, date } = amzDates(now);
  const scope = `${date}/${loc.region}/s3/aws4_request`;
  const query = canonicalQuery([
    ['X-Amz-Algorithm', 'AWS4-HMAC-SHA256'],
    ['X-Amz-Credential', `${loc.accessKeyId}/${scope}`],
    ['X-Amz-Date', amzDate],
    ['X-Amz-Expires', String(expiresSeconds)],
    ['X-Amz-SignedHeaders', 'host'],
  ]);
  const path = canonicalPath(url);
  const canonical = ['GET', path, query, `host:${url.host}\n`, 'host', UNSIGNED_PAYLOAD].join('\n');
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256Hex(canonical)].join('\n');
  const signature = hmac(signingKey(loc.secretAccessKey, date, loc.region), toSign).toString('hex');
  return `${url.origin}${path}?${query}&X-Amz-Signature=${signature}`;
}

/** How long a presigned POST form works. */
export const POLICY_TTL_MS = 15 * 60 * 1000;

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

export class PolicyError extends Error {
  override readonly name = 'PolicyError';
}

/**
 * Checks a posted form against its policy the way S3 does: the signature over the policy with the
 * credential's signing key, the expiry, and every condition against the fields.
 */
export function verifyPostPolicy(
  fields: Record<string, string>,
  opts: { bucket: string; accessKeyId: string; secretAccessKey: string; region: string; now: Date },
): { key: string; contentType: string; minBytes: number; maxBytes: number } {
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
