import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { signS3Request, uriEncode, UNSIGNED_PAYLOAD, type S3Location } from './s3.js';
import { storageKey } from './storage-key.js';

/**
 * Signed requests to the bucket of STORAGE_URL, over Node's fetch (ADR 077). The bucket is the
 * operator's own endpoint (a private address is fine, like guarded-fetch's `allowPrivate`), so
 * no address check; what fetch gives and guarded-fetch does not: request and answer bodies are
 * streams (an upload is not held in memory, a served file flows to the browser as it arrives) on
 * pooled keep-alive connections. Redirects are not followed: a bucket that redirects is
 * misconfigured (wrong region or endpoint).
 */
export class S3RequestError extends Error {
  override readonly name = 'S3RequestError';
  constructor(
    message: string,
    readonly kind: 'network' | 'timeout',
  ) {
    super(message);
  }
}

export interface S3SendOptions {
  /** Extra headers to send and sign (lower-case names), e.g. content-type. */
  headers?: Record<string, string>;
  /** The body: a Buffer, or a stream of exactly `length` bytes (S3 needs Content-Length). */
  body?: Buffer | Readable;
  length?: number;
  /** Hex SHA-256 of the body (the bucket checks it), else UNSIGNED-PAYLOAD. */
  payloadHash?: string;
  /** Until the answer's headers arrive (the body then flows at its own pace). */
  timeoutMs?: number;
}

export interface S3Client {
  readonly location: S3Location;
  objectUrl(key: string): URL;
  send(method: 'GET' | 'HEAD' | 'PUT' | 'DELETE', key: string, opts?: S3SendOptions): Promise<Response>;
}

const DEFAULT_TIMEOUT_MS = 30_000;

export function createS3Client(loc: S3Location, opts: { now?: () => Date; timeoutMs?: number } = {}): S3Client {
  // Every request to the bucket and every presigned link names a canonical key (lib/storage-key.ts).
  const objectUrl = (key: string) => new URL(`${loc.endpoint}/${uriEncode(loc.bucket)}/${storageKey(key).split('/').map(uriEncode).join('/')}`);
  return {
    location: loc,
    objectUrl,
    async send(method, key, send = {}) {
      const url = objectUrl(key);
      const headers = signS3Request(method, url, loc, opts.now?.() ?? new Date(), { headers: send.headers, payloadHash: send.payloadHash ?? UNSIGNED_PAYLOAD });
      const timeoutMs = send.timeoutMs ?? opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), timeoutMs);
      let body: Uint8Array | ReadableStream<Uint8Array> | undefined;
      if (Buffer.isBuffer(send.body)) body = new Uint8Array(send.body.buffer, send.body.byteOffset, send.body.length);
      else if (send.body) {
        if (send.length === undefined) throw new Error('a streamed S3 body needs its length');
        headers['content-length'] = String(send.length);
        body = Readable.toWeb(send.body) as ReadableStream<Uint8Array>;
      }
      try {
        return await fetch(url, { method, headers, body, redirect: 'manual', signal: abort.signal, ...(body instanceof ReadableStream ? { duplex: 'half' } : {}) } as RequestInit);
      } catch (err) {
        if (send.body instanceof Readable) send.body.destroy();
        if (abort.signal.aborted) throw new S3RequestError(`the bucket did not answer ${method} within ${timeoutMs} ms`, 'timeout');
        const cause = (err as { cause?: { code?: string; message?: string } }).cause;
        throw new S3RequestError(`the bucket could not be reached (${cause?.code ?? cause?.message ?? (err as Error).message})`, 'network');
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

/** Lets go of an answer's body (a connection is reused only once its body is consumed or cancelled). */
export async function discardBody(res: Response): Promise<void> {
  await res.body?.cancel().catch(() => {});
}

/** The `<Code>` of an S3 error answer (its first 4 KB read, the rest dropped), for the log. */
export async function s3ErrorCode(res: Response): Promise<string> {
  if (!res.body) return `HTTP ${res.status}`;
  const reader = res.body.getReader();
  let text = '';
  try {
    while (text.length < 4096) {
      const { done, value } = await reader.read();
      if (done) break;
      text += Buffer.from(value).toString('utf8');
    }
  } catch {
    // A broken error body: the status says enough.
  } finally {
    await reader.cancel().catch(() => {});
  }
  const code = /<Code>([^<]{1,100})<\/Code>/.exec(text)?.[1];
  return code ? `HTTP ${res.status} ${code}` : `HTTP ${res.status}`;
}

/** An answer's body as a Node stream. */
export const bodyStream = (res: Response): Readable => (res.body ? Readable.fromWeb(res.body as NodeReadableStream<Uint8Array>) : Readable.from([]));
