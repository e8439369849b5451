import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import zlib from 'node:zlib';
import type { Readable } from 'node:stream';
import { isPrivateAddress } from '../../lib/outbound-url.js';

/**
 * GETs a URL a user typed (URL items, crawls, robots.txt) the safe way: http(s) only, no
 * credentials in the URL, and unless private addresses are allowed (ALLOW_PRIVATE_URLS) every
 * address the host resolves to — checked at connect time, so DNS cannot change its answer between
 * the check and the connection — and every redirect must be public. Bounded in time and size.
 */
export type FetchErrorKind = 'invalid' | 'blocked' | 'timeout' | 'too-large' | 'http' | 'network';

export class SafeFetchError extends Error {
  override readonly name = 'SafeFetchError';
  constructor(
    message: string,
    readonly kind: FetchErrorKind,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface SafeFetchOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects?: number;
  accept?: string;
  signal?: AbortSignal;
  /** Which resolved addresses are refused (default: private, loopback, link-local, reserved). */
  isBlockedAddress?: (address: string) => boolean;
}

export interface FetchedResource {
  /** The URL after redirects. */
  url: string;
  status: number;
  contentType: string;
  body: Buffer;
}

export const USER_AGENT = 'PersonaStudioBot/1.0 (+knowledge base; respects robots.txt)';

/** Throws unless the URL may be fetched at all (protocol, credentials, literal private address). */
export function checkUrl(value: string, allowPrivate: boolean, isBlocked: (address: string) => boolean = isPrivateAddress): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new SafeFetchError('The URL is not valid.', 'invalid');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SafeFetchError('Only http and https URLs can be fetched.', 'invalid');
  if (url.username || url.password) throw new SafeFetchError('URLs with a user name or password cannot be fetched.', 'invalid');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(host) && isBlocked(host)) throw blockedError(host);
  return url;
}

const blockedError = (host: string) =>
  new SafeFetchError(`${host} is a private, local or reserved address, which knowledge sources may not use.`, 'blocked');

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A dns.lookup that refuses private answers: used by the connection itself. */
function guardedLookup(allowPrivate: boolean, isBlocked: (address: string) => boolean) {
  return (hostname: string, options: { all?: boolean; family?: number } | number, callback: LookupCallback) => {
    const opts = typeof options === 'number' ? { family: options } : options;
    dnsLookup(hostname, { ...opts, all: true, verbatim: true } as never, ((err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => {
      if (err) return callback(err, []);
      if (!allowPrivate && addresses.some((a) => isBlocked(a.address))) return callback(blockedError(hostname) as never, []);
      if (opts.all) return callback(null, addresses);
      const first = addresses[0];
      if (!first) return callback(Object.assign(new Error(`${hostname} cannot be resolved`), { code: 'ENOTFOUND' }), []);
      callback(null, first.address, first.family);
    }) as never);
  };
}

export async function safeFetch(value: string, opts: SafeFetchOptions): Promise<FetchedResource> {
  const maxRedirects = opts.maxRedirects ?? 5;
  const isBlocked = opts.isBlockedAddress ?? isPrivateAddress;
  let url = checkUrl(value, opts.allowPrivate, isBlocked);
  const deadline = Date.now() + opts.timeoutMs;
  for (let hop = 0; ; hop++) {
    const answer = await requestOnce(url, opts, deadline);
    if (answer.redirect) {
      if (hop >= maxRedirects) throw new SafeFetchError('Too many redirects.', 'network');
      url = checkUrl(new URL(answer.redirect, url).toString(), opts.allowPrivate, isBlocked);
      continue;
    }
    return answer.resource!;
  }
}

function requestOnce(url: URL, opts: SafeFetchOptions, deadline: number): Promise<{ redirect?: string; resource?: FetchedResource }> {
  return new Promise((resolve, reject) => {
    const remaining = deadline - Date.now();
    if (remaining <= 0) return reject(new SafeFetchError('The page took too long to answer.', 'timeout'));
    const mod = url.protocol === 'https:' ? https : http;
    let settled = false;
    const fail = (err: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      reject(err instanceof SafeFetchError ? err : toFetchError(err));
    };
    const req = mod.request(
      url,
      {
        method: 'GET',
        headers: {
          'user-agent': USER_AGENT,
          accept: opts.accept ?? 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5',
          'accept-encoding': 'gzip, deflate, br',
        },
        lookup: guardedLookup(opts.allowPrivate, opts.isBlockedAddress ?? isPrivateAddress) as never,
        agent: false,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          settled = true;
          clearTimeout(timer);
          return resolve({ redirect: res.headers.location });
        }
        if (status >= 400) {
          res.resume();
          return fail(new SafeFetchError(`The page answered HTTP ${status}.`, 'http', status));
        }
        const declared = Number(res.headers['content-length'] ?? NaN);
        const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase();
        if (!encoding && Number.isFinite(declared) && declared > opts.maxBytes) {
          res.resume();
          return fail(tooLarge(opts.maxBytes));
        }
        let stream: Readable = res;
        if (encoding === 'gzip' || encoding === 'x-gzip') stream = res.pipe(zlib.createGunzip());
        else if (encoding === 'deflate') stream = res.pipe(zlib.createInflate());
        else if (encoding === 'br') stream = res.pipe(zlib.createBrotliDecompress());
        const chunks: Buffer[] = [];
        let size = 0;
        stream.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > opts.maxBytes) {
            stream.destroy();
            return fail(tooLarge(opts.maxBytes));
          }
          chunks.push(chunk);
        });
        stream.on('error', (err) => fail(err));
        stream.on('end', () => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          resolve({ resource: { url: url.toString(), status, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks) } });
        });
      },
    );
    const timer = setTimeout(() => fail(new SafeFetchError('The page took too long to answer.', 'timeout')), remaining);
    req.on('error', fail);
    opts.signal?.addEventListener('abort', () => fail(new SafeFetchError('The request was cancelled.', 'timeout')), { once: true });
    req.end();
  });
}

const tooLarge = (max: number) => new SafeFetchError(`The page is larger than ${Math.round(max / 1024 / 1024)} MB.`, 'too-large');

function toFetchError(err: Error): SafeFetchError {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new SafeFetchError('The site could not be found (its name does not resolve).', 'network');
  if (code === 'ECONNREFUSED') return new SafeFetchError('The site refused the connection.', 'network');
  if (code === 'ECONNRESET') return new SafeFetchError('The site closed the connection.', 'network');
  if (code?.startsWith('ERR_TLS') || code?.includes('CERT')) return new SafeFetchError('The site’s TLS certificate could not be verified.', 'network');
  return new SafeFetchError(`The page could not be fetched (${code ?? err.message}).`, 'network');
}

/** Decodes a page body with the charset its content type names (UTF-8 otherwise). */
export function decodeBody(resource: FetchedResource): string {
  const charset = /charset=["']?([\w-]+)/i.exec(resource.contentType)?.[1]?.toLowerCase() ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(resource.body);
  } catch {
    return new TextDecoder('utf-8').decode(resource.body);
  }
}
