import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import zlib from 'node:zlib';
import type { Readable } from 'node:stream';
import { isPrivateAddress } from './outbound-url.js';

/**
 * The one way the server makes an HTTP request: to URLs users typed (OAuth token endpoints,
 * knowledge URLs, crawls, robots.txt) and to the endpoints the operator configured (S3 storage,
 * embeddings). http(s) only, no credentials in the URL, bounded in time and size, redirects
 * followed only for GET/HEAD and each hop checked again. Unless private addresses are allowed
 * (ALLOW_PRIVATE_URLS, or an operator's own endpoint), every address a host name resolves to must
 * be global unicast (lib/outbound-url.ts) — checked inside the connection's own DNS lookup, so the
 * name is resolved once and the socket connects to the address that was checked (no window for
 * DNS rebinding between a check and the connection).
 *
 * Messages never tell "resolves to a private address" from "does not resolve" for a host name:
 * that difference would let a user map the server's internal DNS. The precise reason is in
 * `detail`, for the log.
 */
export type FetchErrorKind = 'invalid' | 'blocked' | 'timeout' | 'too-large' | 'http' | 'network';

export class SafeFetchError extends Error {
  override readonly name = 'SafeFetchError';
  constructor(
    message: string,
    readonly kind: FetchErrorKind,
    readonly status?: number,
    /** The precise reason, for the log only (may name internal addresses). */
    readonly detail: string = message,
  ) {
    super(message);
  }
}

/** Resolves a host name to all its addresses (dns.lookup by default). */
export type DnsLookup = (hostname: string, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

const systemLookup: DnsLookup = (hostname, callback) => dnsLookup(hostname, { all: true, verbatim: true }, callback);

export interface GuardedFetchOptions {
  /** May the request reach private, loopback, link-local or reserved addresses. */
  allowPrivate: boolean;
  timeoutMs: number;
  /** Largest (decoded) answer body; larger answers fail with 'too-large'. */
  maxBytes: number;
  method?: 'GET' | 'HEAD' | 'POST' | 'PUT' | 'DELETE';
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Redirects followed (GET and HEAD only; default 5). Other methods never follow one. */
  maxRedirects?: number;
  /** Return 4xx/5xx answers (and, for methods that do not follow them, 3xx) instead of throwing. */
  acceptErrorStatus?: boolean;
  signal?: AbortSignal;
  /** Which resolved addresses are refused (default: everything but global unicast). */
  isBlockedAddress?: (address: string) => boolean;
  /** DNS resolution (default: the system resolver). */
  lookup?: DnsLookup;
}

export interface FetchedResource {
  /** The URL after redirects. */
  url: string;
  status: number;
  contentType: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

const DEFAULT_USER_AGENT = 'PersonaStudio/1.0';

/** Throws unless the URL may be requested at all (protocol, credentials, literal private address). */
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
  // An address typed in the URL: saying it is private reveals nothing the user did not write.
  if (!allowPrivate && isIP(host) && isBlocked(host)) throw new SafeFetchError(`${host} is a private, local or reserved address.`, 'blocked');
  return url;
}

/** The one answer for a host name that is unresolvable or resolves to a non-public address. */
const unreachableName = (hostname: string, detail: string) =>
  new SafeFetchError(`${hostname} does not resolve to a public internet address.`, 'blocked', undefined, `${hostname}: ${detail}`);

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** The lookup the socket itself uses: resolves once and refuses non-public answers. */
function guardedLookup(resolve: DnsLookup, allowPrivate: boolean, isBlocked: (address: string) => boolean) {
  return (hostname: string, options: { all?: boolean; family?: number | string } | number, callback: LookupCallback) => {
    const opts = typeof options === 'number' ? { family: options } : options;
    resolve(hostname, (err, answers) => {
      const family = opts.family === 4 || opts.family === 'IPv4' ? 4 : opts.family === 6 || opts.family === 'IPv6' ? 6 : 0;
      const addresses = family ? answers?.filter((a) => a.family === family) : answers;
      if (err || !addresses || addresses.length === 0) {
        const reason = err?.code ?? 'no address';
        if (!allowPrivate) return callback(unreachableName(hostname, reason) as never, []);
        return callback(err ?? Object.assign(new Error(`${hostname} cannot be resolved`), { code: 'ENOTFOUND' }), []);
      }
      const refused = allowPrivate ? undefined : addresses.find((a) => isBlocked(a.address));
      if (refused) return callback(unreachableName(hostname, `resolves to ${refused.address}, not a public address`) as never, []);
      if (opts.all) return callback(null, addresses);
      callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** Makes the request (following GET/HEAD redirects) and returns the whole answer body. */
export async function guardedFetch(value: string, opts: GuardedFetchOptions): Promise<FetchedResource> {
  const method = opts.method ?? 'GET';
  const follows = method === 'GET' || method === 'HEAD';
  const maxRedirects = follows ? (opts.maxRedirects ?? 5) : 0;
  const isBlocked = opts.isBlockedAddress ?? isPrivateAddress;
  let url = checkUrl(value, opts.allowPrivate, isBlocked);
  let headers = opts.headers ?? {};
  const deadline = Date.now() + opts.timeoutMs;
  for (let hop = 0; ; hop++) {
    const answer = await requestOnce(url, headers, opts, deadline, follows || !opts.acceptErrorStatus);
    if (answer.redirect) {
      if (!follows) throw new SafeFetchError(`The page answered with a redirect (HTTP ${answer.redirect.status}), which is not followed for ${method}.`, 'http', answer.redirect.status);
      if (hop >= maxRedirects) throw new SafeFetchError('Too many redirects.', 'network');
      const next = checkUrl(new URL(answer.redirect.location, url).toString(), opts.allowPrivate, isBlocked);
      if (next.origin !== url.origin) headers = crossOriginHeaders(headers);
      url = next;
      continue;
    }
    return answer.resource!;
  }
}

/**
 * The request headers that may follow a redirect to another origin. Every other header (any
 * credential, whatever its name: authorization, cookie, x-api-key, x-goog-api-key…) is dropped:
 * an allow-list, so a key under a name nobody listed cannot leak either.
 */
export const CROSS_ORIGIN_SAFE_HEADERS: ReadonlySet<string> = new Set([
  'accept',
  'accept-encoding',
  'accept-language',
  'cache-control',
  'content-language',
  'content-type',
  'pragma',
  'user-agent',
]);

/** The headers without those that must not reach another origin. */
export function crossOriginHeaders(headers: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => CROSS_ORIGIN_SAFE_HEADERS.has(name.toLowerCase())));
}

function requestOnce(
  url: URL,
  headers: Record<string, string>,
  opts: GuardedFetchOptions,
  deadline: number,
  redirectIsSpecial: boolean,
): Promise<{ redirect?: { status: number; location: string }; resource?: FetchedResource }> {
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
    const body = opts.body === undefined ? undefined : Buffer.from(opts.body);
    const req = mod.request(
      url,
      {
        method: opts.method ?? 'GET',
        headers: {
          'user-agent': DEFAULT_USER_AGENT,
          accept: '*/*',
          ...headers,
          ...(body ? { 'content-length': String(body.length) } : {}),
        },
        lookup: guardedLookup(opts.lookup ?? systemLookup, opts.allowPrivate, opts.isBlockedAddress ?? isPrivateAddress) as never,
        agent: false,
      },
      (res) => {
        const status = res.statusCode ?? 0;
        if (redirectIsSpecial && status >= 300 && status < 400 && res.headers.location) {
          res.resume();
          settled = true;
          clearTimeout(timer);
          return resolve({ redirect: { status, location: res.headers.location } });
        }
        if (status >= 400 && !opts.acceptErrorStatus) {
          res.resume();
          return fail(new SafeFetchError(`The page answered HTTP ${status}.`, 'http', status));
        }
        const declared = Number(res.headers['content-length'] ?? NaN);
        const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase();
        // A HEAD answer declares the size of a body it does not send.
        if (opts.method !== 'HEAD' && !encoding && Number.isFinite(declared) && declared > opts.maxBytes) {
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
          resolve({ resource: { url: url.toString(), status, contentType: String(res.headers['content-type'] ?? ''), headers: res.headers, body: Buffer.concat(chunks) } });
        });
      },
    );
    const timer = setTimeout(() => fail(new SafeFetchError('The page took too long to answer.', 'timeout')), remaining);
    req.on('error', fail);
    if (opts.signal?.aborted) return fail(new SafeFetchError('The request was cancelled.', 'timeout'));
    opts.signal?.addEventListener('abort', () => fail(new SafeFetchError('The request was cancelled.', 'timeout')), { once: true });
    req.end(body);
  });
}

const tooLarge = (max: number) => new SafeFetchError(`The page is larger than ${max >= 1024 * 1024 ? `${Math.round(max / 1024 / 1024)} MB` : `${Math.round(max / 1024)} KB`}.`, 'too-large');

function toFetchError(err: Error): SafeFetchError {
  const code = (err as NodeJS.ErrnoException).code;
  const detail = `${code ?? ''} ${err.message}`.trim();
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new SafeFetchError('The site could not be found (its name does not resolve).', 'network', undefined, detail);
  if (code === 'ECONNREFUSED') return new SafeFetchError('The site refused the connection.', 'network', undefined, detail);
  if (code === 'ECONNRESET') return new SafeFetchError('The site closed the connection.', 'network', undefined, detail);
  if (code?.startsWith('ERR_TLS') || code?.includes('CERT')) return new SafeFetchError('The site’s TLS certificate could not be verified.', 'network', undefined, detail);
  return new SafeFetchError(`The page could not be fetched (${code ?? err.message}).`, 'network', undefined, detail);
}

/** Decodes a body with the charset its content type names (UTF-8 otherwise). */
export function decodeBody(resource: FetchedResource): string {
  const charset = /charset=["']?([\w-]+)/i.exec(resource.contentType)?.[1]?.toLowerCase() ?? 'utf-8';
  try {
    return new TextDecoder(charset).decode(resource.body);
  } catch {
    return new TextDecoder('utf-8').decode(resource.body);
  }
}
