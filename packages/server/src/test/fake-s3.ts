import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small S3-compatible server for tests: one bucket, path-style requests, objects in memory.
 * It checks what S3 checks, with its own code (written from the AWS documentation, sharing nothing
 * with the server's lib/s3.ts, so a signing mistake there cannot hide behind the same mistake
 * here): SigV4 header signatures of PUT/GET/HEAD/DELETE (with the payload hash when one is
 * signed), query-signed (presigned) GETs with their expiry, and presigned POST forms (policy
 * signature, expiry, every condition, every field covered by a condition). PUT needs a
 * Content-Length, as on S3. GET answers single byte ranges.
 *
 * In a test: `const s3 = await startFakeS3({ accessKey, secretKey, region, bucket })`, then
 * STORAGE_URL = `s3.storageUrl`. As its own process: test/fake-s3-main.ts (prints its URL).
 */
export interface FakeS3Options {
  /** 0 (default): a free port. */
  port?: number;
  host?: string;
  accessKey: string;
  secretKey: string;
  region: string;
  bucket: string;
  /** Largest request body taken (default 64 MB): larger ones get 400 EntityTooLarge. */
  maxBodyBytes?: number;
  /** Refuse header-signed requests whose x-amz-date is further than this from now (S3: 900 s); off by default (tests move clocks). */
  maxSkewSeconds?: number;
  now?: () => Date;
}

export interface FakeS3Object {
  body: Buffer;
  type: string;
  etag: string;
  lastModified: Date;
}

export interface FakeS3Request {
  method: string;
  key: string;
  status: number;
}

export interface FakeS3 {
  /** `http://host:port` (the endpoint). */
  url: string;
  /** STORAGE_URL for the server: `http://KEY:SECRET@host:port/bucket?region=…`. */
  storageUrl: string;
  /** The bucket's objects by key. */
  objects: Map<string, FakeS3Object>;
  /** Every request answered, in order. */
  requests: FakeS3Request[];
  /** Why requests were refused: `METHOD key: Code (detail)`. */
  refused: string[];
  /** Answers the next `count` requests with this status (503 SlowDown, 500 InternalError…) before looking at them. */
  failNext(status: number, count?: number): void;
  close(): Promise<void>;
}

class S3Failure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail = code,
  ) {
    super(`${code}: ${detail}`);
  }
}

const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest();
const hex = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');
/** AWS UriEncode: unreserved characters kept, everything else %XX (upper-case). */
const awsEncode = (s: string) =>
  Array.from(Buffer.from(s, 'utf8'))
    .map((b) => (/[A-Za-z0-9\-._~]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`))
    .join('');
const safeDecode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    throw new S3Failure(400, 'InvalidURI');
  }
};
const sameHex = (a: string, b: string) => a.length === b.length && /^[0-9a-f]+$/.test(a) && timingSafeEqual(Buffer.from(a), Buffer.from(b));
/** `YYYYMMDDTHHMMSSZ` → Date. */
const parseAmzDate = (v: string) => {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(v);
  if (!m) throw new S3Failure(403, 'AccessDenied', `bad date ${v}`);
  return new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!, +m[4]!, +m[5]!, +m[6]!));
};

export async function startFakeS3(opts: FakeS3Options): Promise<FakeS3> {
  const objects = new Map<string, FakeS3Object>();
  const requests: FakeS3Request[] = [];
  const refused: string[] = [];
  const failures: number[] = [];
  const now = () => opts.now?.() ?? new Date();
  const maxBody = opts.maxBodyBytes ?? 64 * 1024 * 1024;
  const keyFor = (date: string) => hmac(hmac(hmac(hmac(`AWS4${opts.secretKey}`, date), opts.region), 's3'), 'aws4_request');

  /** Checks `Credential=AK/date/region/s3/aws4_request`; returns the date. */
  const checkCredential = (credential: string) => {
    const [access, date, region, service, terminal, ...rest] = credential.split('/');
    if (access !== opts.accessKey) throw new S3Failure(403, 'InvalidAccessKeyId', `unknown key ${access}`);
    if (!date || !/^\d{8}$/.test(date) || region !== opts.region || service !== 's3' || terminal !== 'aws4_request' || rest.length) throw new S3Failure(400, 'AuthorizationHeaderMalformed', credential);
    return date;
  };
  const canonicalUri = (rawPath: string) => rawPath.split('/').map((s) => awsEncode(safeDecode(s))).join('/');
  const canonicalQueryOf = (rawQuery: string, skip?: string) =>
    rawQuery
      .split('&')
      .filter(Boolean)
      .map((pair) => {
        const i = pair.indexOf('=');
        const [k, v] = i < 0 ? [pair, ''] : [pair.slice(0, i), pair.slice(i + 1)];
        return [awsEncode(safeDecode(k.replace(/\+/g, '%20'))), awsEncode(safeDecode(v.replace(/\+/g, '%20')))] as const;
      })
      .filter(([k]) => k !== skip)
      .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
  const headerValue = (req: http.IncomingMessage, name: string) => {
    const v = req.headers[name];
    return (Array.isArray(v) ? v.join(',') : (v ?? '')).trim().replace(/\s+/g, ' ');
  };

  /** SigV4 with the Authorization header. */
  function checkHeaderSignature(req: http.IncomingMessage, rawPath: string, rawQuery: string, body: Buffer) {
    const auth = headerValue(req, 'authorization');
    const m = /^AWS4-HMAC-SHA256 (.+)$/.exec(auth);
    if (!m) throw new S3Failure(403, 'AccessDenied', 'no AWS4-HMAC-SHA256 authorization');
    const parts = Object.fromEntries(
      m[1]!.split(',').map((p) => {
        const [k, ...v] = p.trim().split('=');
        return [k, v.join('=')];
      }),
    ) as Record<string, string | undefined>;
    if (!parts.Credential || !parts.SignedHeaders || !parts.Signature) throw new S3Failure(400, 'AuthorizationHeaderMalformed', auth);
    const date = checkCredential(parts.Credential);
    const signed = parts.SignedHeaders.split(';');
    if ([...signed].sort().join(';') !== parts.SignedHeaders || signed.some((h) => h !== h.toLowerCase())) throw new S3Failure(403, 'SignatureDoesNotMatch', 'signed headers not sorted lower-case');
    for (const required of ['host', 'x-amz-date', 'x-amz-content-sha256']) if (!signed.includes(required)) throw new S3Failure(403, 'AccessDenied', `${required} is not signed`);
    for (const name of Object.keys(req.headers)) if (name.startsWith('x-amz-') && !signed.includes(name)) throw new S3Failure(403, 'AccessDenied', `${name} is sent but not signed`);
    const amzDate = headerValue(req, 'x-amz-date');
    const when = parseAmzDate(amzDate);
    if (amzDate.slice(0, 8) !== date) throw new S3Failure(403, 'SignatureDoesNotMatch', 'x-amz-date is not the credential date');
    if (opts.maxSkewSeconds !== undefined && Math.abs(when.getTime() - now().getTime()) > opts.maxSkewSeconds * 1000) throw new S3Failure(403, 'RequestTimeTooSkewed');
    const payload = headerValue(req, 'x-amz-content-sha256');
    if (payload !== 'UNSIGNED-PAYLOAD') {
      if (!/^[0-9a-f]{64}$/.test(payload)) throw new S3Failure(400, 'InvalidArgument', 'x-amz-content-sha256');
      if (payload !== hex(body)) throw new S3Failure(400, 'XAmzContentSHA256Mismatch');
    }
    const canonical = [
      req.method,
      canonicalUri(rawPath),
      canonicalQueryOf(rawQuery),
      signed.map((h) => `${h}:${headerValue(req, h)}\n`).join(''),
      parts.SignedHeaders,
      payload,
    ].join('\n');
    const toSign = ['AWS4-HMAC-SHA256', amzDate, `${date}/${opts.region}/s3/aws4_request`, hex(canonical)].join('\n');
    if (!sameHex(hmac(keyFor(date), toSign).toString('hex'), parts.Signature)) throw new S3Failure(403, 'SignatureDoesNotMatch', 'header signature');
  }

  /** SigV4 in the query (a presigned URL). */
  function checkQuerySignature(req: http.IncomingMessage, rawPath: string, rawQuery: string, query: URLSearchParams) {
    if (query.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') throw new S3Failure(400, 'AuthorizationQueryParametersError', 'algorithm');
    const date = checkCredential(query.get('X-Amz-Credential') ?? '');
    const amzDate = query.get('X-Amz-Date') ?? '';
    const when = parseAmzDate(amzDate);
    const expires = Number(query.get('X-Amz-Expires'));
    if (!Number.isInteger(expires) || expires < 1 || expires > 604800) throw new S3Failure(400, 'AuthorizationQueryParametersError', 'X-Amz-Expires');
    if (now().getTime() > when.getTime() + expires * 1000) throw new S3Failure(403, 'AccessDenied', 'Request has expired');
    const signedHeaders = query.get('X-Amz-SignedHeaders') ?? '';
    const signed = signedHeaders.split(';');
    if (!signed.includes('host')) throw new S3Failure(403, 'AccessDenied', 'host is not signed');
    const canonical = [req.method, canonicalUri(rawPath), canonicalQueryOf(rawQuery, 'X-Amz-Signature'), signed.map((h) => `${h}:${headerValue(req, h)}\n`).join(''), signedHeaders, 'UNSIGNED-PAYLOAD'].join('\n');
    const toSign = ['AWS4-HMAC-SHA256', amzDate, `${date}/${opts.region}/s3/aws4_request`, hex(canonical)].join('\n');
    if (!sameHex(hmac(keyFor(date), toSign).toString('hex'), query.get('X-Amz-Signature') ?? '')) throw new S3Failure(403, 'SignatureDoesNotMatch', 'query signature');
  }

  /** A browser's POST of a presigned form: returns the key stored. */
  function acceptPostForm(req: http.IncomingMessage, body: Buffer): string {
    const boundary = /boundary=(?:"([^"]+)"|([^;]+))/i.exec(headerValue(req, 'content-type'));
    if (!boundary) throw new S3Failure(412, 'PreconditionFailed', 'not multipart/form-data');
    const parts = parseMultipart(body, boundary[1] ?? boundary[2]!);
    const fileIndex = parts.findIndex((p) => p.name === 'file');
    if (fileIndex < 0) throw new S3Failure(400, 'InvalidArgument', 'POST requires exactly one file upload per request');
    const file = parts[fileIndex]!;
    // S3 ignores the fields after the file.
    const fields = new Map(parts.slice(0, fileIndex).map((p) => [p.name.toLowerCase(), p.data.toString('utf8')]));
    const field = (name: string) => fields.get(name.toLowerCase());
    const policy = field('policy');
    if (!policy || field('x-amz-algorithm') !== 'AWS4-HMAC-SHA256') throw new S3Failure(403, 'AccessDenied', 'policy and algorithm required');
    const date = checkCredential(field('x-amz-credential') ?? '');
    if (!sameHex(hmac(keyFor(date), policy).toString('hex'), field('x-amz-signature') ?? '')) throw new S3Failure(403, 'SignatureDoesNotMatch', 'policy signature');
    if ((field('x-amz-date') ?? '').slice(0, 8) !== date) throw new S3Failure(403, 'AccessDenied', 'x-amz-date is not the credential date');
    let doc: { expiration?: string; conditions?: unknown[] };
    try {
      doc = JSON.parse(Buffer.from(policy, 'base64').toString('utf8'));
    } catch {
      throw new S3Failure(400, 'InvalidPolicyDocument');
    }
    if (!doc.expiration || !Array.isArray(doc.conditions)) throw new S3Failure(400, 'InvalidPolicyDocument', 'expiration and conditions required');
    if (!(Date.parse(doc.expiration) > now().getTime())) throw new S3Failure(403, 'AccessDenied', 'Invalid according to Policy: Policy expired.');
    const covered = new Set<string>();
    const valueOf = (name: string) => (name === 'bucket' ? opts.bucket : field(name));
    for (const c of doc.conditions) {
      if (Array.isArray(c) && c[0] === 'content-length-range') {
        if (file.data.length < Number(c[1]) || file.data.length > Number(c[2])) throw new S3Failure(400, 'EntityTooLarge', `${file.data.length} bytes outside ${c[1]}..${c[2]}`);
      } else if (Array.isArray(c) && (c[0] === 'eq' || c[0] === 'starts-with') && typeof c[1] === 'string' && c[1].startsWith('$')) {
        const name = c[1].slice(1).toLowerCase();
        covered.add(name);
        const actual = valueOf(name) ?? '';
        if (c[0] === 'eq' ? actual !== c[2] : !actual.startsWith(String(c[2]))) throw new S3Failure(403, 'AccessDenied', `Invalid according to Policy: Policy Condition failed: ${JSON.stringify(c)}`);
      } else if (c && typeof c === 'object' && !Array.isArray(c) && Object.keys(c).length === 1) {
        const [name, expected] = Object.entries(c)[0]!;
        covered.add(name.toLowerCase());
        if (valueOf(name.toLowerCase()) !== expected) throw new S3Failure(403, 'AccessDenied', `Invalid according to Policy: Policy Condition failed: ${name}`);
      } else {
        throw new S3Failure(400, 'InvalidPolicyDocument', JSON.stringify(c));
      }
    }
    for (const name of fields.keys()) {
      if (['policy', 'x-amz-signature', 'file'].includes(name) || name.startsWith('x-ignore-')) continue;
      if (!covered.has(name)) throw new S3Failure(403, 'AccessDenied', `Invalid according to Policy: Extra input fields: ${name}`);
    }
    const key = field('key');
    if (!key) throw new S3Failure(400, 'InvalidArgument', 'key required');
    store(key, file.data, field('content-type') ?? file.type ?? 'binary/octet-stream');
    return key;
  }

  function store(key: string, body: Buffer, type: string) {
    objects.set(key, { body, type, etag: `"${createHash('md5').update(body).digest('hex')}"`, lastModified: now() });
  }

  async function handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<{ key: string; status: number }> {
    const [rawPath = '/', rawQuery = ''] = (req.url ?? '/').split('?', 2) as [string, string?];
    const query = new URLSearchParams(rawQuery);
    const segments = rawPath.split('/').slice(1);
    const bucket = safeDecode(segments[0] ?? '');
    const key = segments.slice(1).map(safeDecode).join('/');
    const failure = failures.shift();
    if (failure !== undefined) {
      req.resume();
      throw new S3Failure(failure, failure === 503 ? 'SlowDown' : 'InternalError', 'failNext');
    }
    const body = await readBody(req, maxBody);
    if (bucket !== opts.bucket) throw new S3Failure(404, 'NoSuchBucket', bucket);
    if (req.method === 'POST' && !key) {
      const stored = acceptPostForm(req, body);
      res.writeHead(204, { etag: objects.get(stored)!.etag }).end();
      return { key: stored, status: 204 };
    }
    if (!key) throw new S3Failure(400, 'InvalidRequest', 'bucket operations are not supported');
    if (query.has('X-Amz-Signature')) {
      if (req.method !== 'GET' && req.method !== 'HEAD') throw new S3Failure(403, 'AccessDenied', 'presigned URLs are for GET here');
      checkQuerySignature(req, rawPath, rawQuery, query);
    } else {
      checkHeaderSignature(req, rawPath, rawQuery, body);
    }
    switch (req.method) {
      case 'PUT': {
        if (req.headers['content-length'] === undefined || req.headers['transfer-encoding']) throw new S3Failure(411, 'MissingContentLength');
        store(key, body, headerValue(req, 'content-type') || 'binary/octet-stream');
        res.writeHead(200, { etag: objects.get(key)!.etag }).end();
        return { key, status: 200 };
      }
      case 'GET':
      case 'HEAD': {
        const object = objects.get(key);
        if (!object) throw new S3Failure(404, 'NoSuchKey', key);
        const headers = { 'content-type': object.type, etag: object.etag, 'last-modified': object.lastModified.toUTCString(), 'accept-ranges': 'bytes' };
        const range = req.method === 'GET' ? byteRange(headerValue(req, 'range'), object.body.length) : null;
        if (range === 'unsatisfiable') throw new S3Failure(416, 'InvalidRange');
        if (range) {
          res.writeHead(206, { ...headers, 'content-length': range.end - range.start + 1, 'content-range': `bytes ${range.start}-${range.end}/${object.body.length}` });
          res.end(object.body.subarray(range.start, range.end + 1));
          return { key, status: 206 };
        }
        res.writeHead(200, { ...headers, 'content-length': object.body.length });
        res.end(req.method === 'HEAD' ? undefined : object.body);
        return { key, status: 200 };
      }
      case 'DELETE':
        objects.delete(key);
        res.writeHead(204).end();
        return { key, status: 204 };
      default:
        throw new S3Failure(405, 'MethodNotAllowed', req.method ?? '');
    }
  }

  const server = http.createServer((req, res) => {
    handle(req, res)
      .then(({ key, status }) => requests.push({ method: req.method ?? '', key, status }))
      .catch((err: unknown) => {
        const failure = err instanceof S3Failure ? err : new S3Failure(500, 'InternalError', (err as Error).message);
        const key = (req.url ?? '').split('?')[0]!.split('/').slice(2).join('/');
        requests.push({ method: req.method ?? '', key, status: failure.status });
        refused.push(`${req.method} ${key}: ${failure.code} (${failure.detail})`);
        if (res.headersSent) return res.destroy();
        const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${failure.code}</Code><Message>${escapeXml(failure.detail)}</Message></Error>`;
        res.writeHead(failure.status, { 'content-type': 'application/xml', 'content-length': Buffer.byteLength(xml), ...(failure.status === 413 || failure.code === 'EntityTooLarge' ? { connection: 'close' } : {}) });
        res.end(req.method === 'HEAD' ? undefined : xml);
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host ?? '127.0.0.1';
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url,
    storageUrl: `http://${encodeURIComponent(opts.accessKey)}:${encodeURIComponent(opts.secretKey)}@${new URL(url).host}/${opts.bucket}?region=${encodeURIComponent(opts.region)}`,
    objects,
    requests,
    refused,
    failNext(status, count = 1) {
      for (let i = 0; i < count; i++) failures.push(status);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function readBody(req: http.IncomingMessage, max: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > max) {
        req.pause();
        return reject(new S3Failure(400, 'EntityTooLarge', `more than ${max} bytes`));
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** `bytes=a-b`, `bytes=a-`, `bytes=-n` (one range); null for no or an unparsable header, as S3 ignores those. */
function byteRange(header: string, size: number): { start: number; end: number } | 'unsatisfiable' | null {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header);
  if (!m || (m[1] === '' && m[2] === '')) return null;
  let start: number;
  let end: number;
  if (m[1] === '') {
    start = Math.max(0, size - Number(m[2]));
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  if (start >= size || start > end) return 'unsatisfiable';
  return { start, end };
}

/** multipart/form-data, whole body in memory (a test's uploads are small). */
function parseMultipart(body: Buffer, boundary: string): { name: string; type?: string; data: Buffer }[] {
  const parts: { name: string; type?: string; data: Buffer }[] = [];
  const delimiter = Buffer.from(`--${boundary}`);
  const next = Buffer.from(`\r\n--${boundary}`);
  let pos = body.indexOf(delimiter);
  if (pos < 0) throw new S3Failure(400, 'MalformedPOSTRequest', 'no boundary');
  pos += delimiter.length;
  while (body.subarray(pos, pos + 2).toString() !== '--') {
    const headerEnd = body.indexOf('\r\n\r\n', pos);
    if (headerEnd < 0) throw new S3Failure(400, 'MalformedPOSTRequest', 'part headers');
    const headers = body.subarray(pos + 2, headerEnd).toString('utf8');
    const end = body.indexOf(next, headerEnd + 4);
    if (end < 0) throw new S3Failure(400, 'MalformedPOSTRequest', 'unterminated part');
    const name = /content-disposition:[^\r\n]*;\s*name="([^"]*)"/i.exec(headers)?.[1];
    if (name === undefined) throw new S3Failure(400, 'MalformedPOSTRequest', 'part without a name');
    parts.push({ name, type: /content-type:\s*([^\r\n]+)/i.exec(headers)?.[1]?.trim(), data: body.subarray(headerEnd + 4, end) });
    pos = end + next.length;
  }
  return parts;
}

const escapeXml = (s: string) => s.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
