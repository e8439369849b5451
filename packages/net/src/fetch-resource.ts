import type { LookupAddress } from 'node:dns';
import type { IncomingHttpHeaders } from 'node:http';
import { checkFetchUrl, createGuardedFetch, GuardedFetchError, type GuardedFetchOptions } from './guarded-fetch.js';

/**
 * The portal's way to make an HTTP request: to URLs users typed (OAuth token endpoints, knowledge
 * URLs, crawls, robots.txt, provider look-ups, billing-auth URLs) and to the endpoints the operator
 * configured (embeddings). The same guarded fetch as the worker's (guarded-fetch.ts: http(s) only,
 * no credentials in the URL, every resolved address checked inside the connection's own DNS
 * lookup, IP literals before connecting, each redirect hop checked again, headers off
 * CROSS_ORIGIN_SAFE_HEADERS dropped on a cross-origin hop), with what the portal needs on top:
 * - the whole answer body in a Buffer; the time limit covers the body too, not only the headers;
 *   a declared Content-Length over `maxBytes` fails before the body is read;
 * - redirects followed for GET and HEAD only; other methods get an 'http' error (or, with
 *   `acceptErrorStatus`, the 3xx answer);
 * - 4xx/5xx answers are an 'http' error unless `acceptErrorStatus`;
 * - one connection per request (no pool: each call may come with its own rule);
 * - messages a user may read. They never tell "resolves to a private address" from "does not
 *   resolve" for a host name: that difference would let a user map the server's internal DNS. The
 *   precise reason is in `detail`, for the log.
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

export interface FetchResourceOptions {
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
  /** Which resolved addresses are refused (default: everything but global unicast, ip-ranges.ts). */
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

const DEFAULT_HEADERS = { 'user-agent': 'PersonaStudio/1.0', accept: '*/*' };

/** The address rule of GuardedFetchOptions from a yes/no one (undefined: the default rule). */
const reasonRule = (isBlocked?: (address: string) => boolean): GuardedFetchOptions['nonGlobalReason'] =>
  isBlocked && ((address) => (isBlocked(address) ? 'not a public address' : null));

/** A DnsLookup as the connection calls its resolver (options.family honoured). */
function connectionLookup(resolve: DnsLookup): NonNullable<GuardedFetchOptions['lookup']> {
  return ((hostname: string, options: { family?: number | string }, callback: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => {
    resolve(hostname, (err, answers) => {
      const family = options.family === 4 || options.family === 'IPv4' ? 4 : options.family === 6 || options.family === 'IPv6' ? 6 : 0;
      callback(err, (family ? answers?.filter((a) => a.family === family) : answers) ?? []);
    });
  }) as never;
}

/** Throws unless the URL may be requested at all (protocol, credentials, literal private address). */
export function checkUrl(value: string, allowPrivate: boolean, isBlocked?: (address: string) => boolean): URL {
  try {
    return checkFetchUrl(value, { allowPrivate, nonGlobalReason: reasonRule(isBlocked) });
  } catch (err) {
    throw toSafeFetchError(err, allowPrivate, 0);
  }
}

/** Makes the request (following GET/HEAD redirects) and returns the whole answer body. */
export async function guardedFetch(value: string, opts: FetchResourceOptions): Promise<FetchedResource> {
  const method = opts.method ?? 'GET';
  const follows = method === 'GET' || method === 'HEAD';
  const fetch = createGuardedFetch({
    allowPrivate: opts.allowPrivate,
    nonGlobalReason: reasonRule(opts.isBlockedAddress),
    lookup: opts.lookup && connectionLookup(opts.lookup),
    maxRedirects: follows ? (opts.maxRedirects ?? 5) : 0,
    defaultHeaders: DEFAULT_HEADERS,
    keepAlive: false,
  });
  // One deadline for the whole exchange, body included; the caller's signal cancels it.
  const bounds = new AbortController();
  const timer = setTimeout(() => bounds.abort(new SafeFetchError('The page took too long to answer.', 'timeout')), opts.timeoutMs);
  const cancel = () => bounds.abort(new SafeFetchError('The request was cancelled.', 'timeout'));
  if (opts.signal?.aborted) cancel();
  opts.signal?.addEventListener('abort', cancel, { once: true });
  try {
    const res = await fetch(value, {
      method,
      headers: opts.headers,
      body: opts.body === undefined ? undefined : Buffer.from(opts.body),
      redirect: follows ? 'follow' : 'manual',
      signal: bounds.signal,
      timeoutMs: opts.timeoutMs,
      maxBytes: opts.maxBytes,
    });
    const status = res.status;
    if (!follows && status >= 300 && status < 400 && res.headers.has('location') && !opts.acceptErrorStatus) {
      await res.body?.cancel();
      throw new SafeFetchError(`The page answered with a redirect (HTTP ${status}), which is not followed for ${method}.`, 'http', status);
    }
    if (status >= 400 && !opts.acceptErrorStatus) {
      await res.body?.cancel();
      throw new SafeFetchError(`The page answered HTTP ${status}.`, 'http', status);
    }
    const declared = Number(res.headers.get('content-length') ?? NaN);
    // A HEAD answer declares the size of a body it does not send.
    if (method !== 'HEAD' && !res.headers.has('content-encoding') && Number.isFinite(declared) && declared > opts.maxBytes) {
      await res.body?.cancel();
      throw tooLarge(opts.maxBytes);
    }
    const body = Buffer.from(await res.arrayBuffer());
    return { url: res.url, status, contentType: res.headers.get('content-type') ?? '', headers: incomingHeaders(res.headers), body };
  } catch (err) {
    throw toSafeFetchError(bounds.signal.aborted ? bounds.signal.reason : err, opts.allowPrivate, opts.maxBytes);
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', cancel);
    fetch.close();
  }
}

/** The answer's headers as Node names them (set-cookie a list). */
function incomingHeaders(headers: Headers): IncomingHttpHeaders {
  const out: IncomingHttpHeaders = {};
  headers.forEach((value, name) => {
    if (name !== 'set-cookie') out[name] = value;
  });
  const cookies = headers.getSetCookie();
  if (cookies.length) out['set-cookie'] = cookies;
  return out;
}

const tooLarge = (max: number) => new SafeFetchError(`The page is larger than ${max >= 1024 * 1024 ? `${Math.round(max / 1024 / 1024)} MB` : `${Math.round(max / 1024)} KB`}.`, 'too-large');

/** The one answer for a host name that is unresolvable or resolves to a non-public address. */
const unreachableName = (hostname: string, detail: string) =>
  new SafeFetchError(`${hostname} does not resolve to a public internet address.`, 'blocked', undefined, `${hostname}: ${detail}`);

/** The guarded fetch's error in the portal's words. */
function toSafeFetchError(err: unknown, allowPrivate: boolean, maxBytes: number): SafeFetchError {
  if (err instanceof SafeFetchError) return err;
  if (!(err instanceof GuardedFetchError)) {
    const e = err as NodeJS.ErrnoException;
    return new SafeFetchError(`The page could not be fetched (${e?.code ?? e?.message ?? String(err)}).`, 'network', undefined, `${e?.code ?? ''} ${e?.message ?? String(err)}`.trim());
  }
  const { facts } = err;
  switch (err.kind) {
    case 'invalid':
      if (facts.invalid === 'scheme') return new SafeFetchError('Only http and https URLs can be fetched.', 'invalid');
      if (facts.invalid === 'credentials') return new SafeFetchError('URLs with a user name or password cannot be fetched.', 'invalid');
      return new SafeFetchError('The URL is not valid.', 'invalid');
    case 'blocked': {
      const host = facts.host ?? '';
      // An address typed in the URL: saying it is private reveals nothing the user did not write.
      if (host === facts.address) return new SafeFetchError(`${host} is a private, local or reserved address.`, 'blocked');
      return unreachableName(host, `resolves to ${facts.address}, not a public address`);
    }
    case 'timeout':
      return new SafeFetchError('The page took too long to answer.', 'timeout');
    case 'too-large':
      return tooLarge(maxBytes);
    case 'redirect':
      return new SafeFetchError('Too many redirects.', 'network');
    case 'network': {
      const code = facts.code;
      const detail = `${code ?? ''} ${err.message}`.trim();
      if (facts.resolving && !allowPrivate) return unreachableName(facts.host ?? '', code ?? 'no address');
      if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new SafeFetchError('The site could not be found (its name does not resolve).', 'network', undefined, detail);
      if (code === 'ECONNREFUSED') return new SafeFetchError('The site refused the connection.', 'network', undefined, detail);
      if (code === 'ECONNRESET') return new SafeFetchError('The site closed the connection.', 'network', undefined, detail);
      if (code?.startsWith('ERR_TLS') || code?.includes('CERT')) return new SafeFetchError('The site’s TLS certificate could not be verified.', 'network', undefined, detail);
      return new SafeFetchError(`The page could not be fetched (${code ?? err.message}).`, 'network', undefined, detail);
    }
  }
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
