import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP } from 'node:net';
import type { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { nonGlobalReason as defaultNonGlobalReason } from './ip-ranges.js';

/** A fetch for URLs users typed (what the brains, providers and sandbox are given). */
export type GuardedFetch = (url: string, init?: RequestInit & { timeoutMs?: number; maxBytes?: number }) => Promise<Response>;

/**
 * The fetch for URLs that users typed — in the worker: REST brain, OpenAI-compatible base URLs,
 * Dialogflow's token_uri, functions' network access; in the server, through fetch-resource.ts:
 * OAuth token endpoints, knowledge pages and crawls, look-ups, billing-auth URLs:
 * - http(s) only, no credentials in the URL;
 * - unless `allowPrivate` (ALLOW_PRIVATE_URLS, sent by the portal per session), every address the
 *   host resolves to must be global unicast (see ip-ranges.ts). The check runs inside the
 *   connection's own DNS lookup, so the address checked is the address connected to (no DNS
 *   rebinding between a check and the connection); IP literals are checked before connecting;
 * - redirects are followed by hand (each hop checked the same way; when the origin changes every
 *   header not on CROSS_ORIGIN_SAFE_HEADERS is dropped, so no provider key of any name — authorization,
 *   x-goog-api-key, ocp-apim-subscription-key, xi-api-key, … — reaches another host), at most `maxRedirects`;
 * - `timeoutMs` bounds the time until the response headers; `maxBytes` caps the (decoded) body;
 *   the caller's signal aborts both the request and the body.
 * It answers a standard Response whose body streams (SSE works).
 */
export type GuardedFetchErrorKind = 'invalid' | 'blocked' | 'timeout' | 'too-large' | 'redirect' | 'network';

/** What a GuardedFetchError is about, for callers that word their own messages (fetch-resource.ts). */
export interface GuardedFetchErrorFacts {
  /** 'invalid': which rule the URL broke. */
  invalid?: 'url' | 'scheme' | 'credentials';
  /** The host name (or IP literal) refused or not reached. */
  host?: string;
  /** 'blocked': the refused address (equal to `host` for an IP literal in the URL). */
  address?: string;
  /** 'network': the system error code (ENOTFOUND, ECONNREFUSED, …). */
  code?: string;
  /** 'network': the host name's look-up failed or found no address (no connection was tried). */
  resolving?: boolean;
}

export class GuardedFetchError extends Error {
  override readonly name = 'GuardedFetchError';
  constructor(
    message: string,
    readonly kind: GuardedFetchErrorKind,
    readonly facts: GuardedFetchErrorFacts = {},
  ) {
    super(message);
  }
}

type LookupFn = typeof dnsLookup;

export interface GuardedFetchOptions {
  /** Reach private, loopback and other non-global addresses too (ALLOW_PRIVATE_URLS). */
  allowPrivate: boolean;
  /** Default time until the response headers, ms (per call: init.timeoutMs). */
  timeoutMs?: number;
  /** Default cap of the response body, bytes (per call: init.maxBytes). */
  maxBytes?: number;
  maxRedirects?: number;
  userAgent?: string;
  /**
   * Headers sent when the caller gives none of that name (default: `user-agent` = userAgent and
   * `accept-encoding: identity`, so streamed answers arrive as soon as they are written).
   */
  defaultHeaders?: Record<string, string>;
  /** Keep connections alive between calls (default true); false: one connection per request. */
  keepAlive?: boolean;
  /** Why an address may not be reached, or null when it may (default: global unicast only). */
  nonGlobalReason?: (address: string) => string | null;
  /** The resolver the connection uses (default dns.lookup). */
  lookup?: LookupFn;
}

export interface GuardedFetchHandle extends GuardedFetch {
  /** Closes the kept-alive connections. */
  close(): void;
}

type FetchInit = Parameters<GuardedFetch>[1];

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * The request headers that may follow a redirect to another origin. Everything else (any
 * authentication header, whatever a provider calls it) is dropped: an allow-list, not a block-list.
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

/** Deletes, in place, every header not on CROSS_ORIGIN_SAFE_HEADERS. */
export function dropUnsafeHeaders(headers: Headers): void {
  const names: string[] = [];
  headers.forEach((_value, name) => names.push(name));
  for (const name of names) if (!CROSS_ORIGIN_SAFE_HEADERS.has(name.toLowerCase())) headers.delete(name);
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

const blockedError = (host: string, address: string, reason: string) =>
  new GuardedFetchError(`${host === address ? address : `${host} (${address})`} is not a public address: ${reason}.`, 'blocked', { host, address });

/** Errors of the resolver (or its empty answers), told apart from the connection's own errors. */
const lookupFailures = new WeakSet<object>();

/**
 * dns.lookup as a connection calls it, refusing answers that are not all global unicast (unless
 * `allowPrivate`). Shared by the guarded fetch and the guarded WebSocket (guarded-socket.ts).
 */
export function createGuardedLookup(opts: Pick<GuardedFetchOptions, 'allowPrivate' | 'nonGlobalReason' | 'lookup'>) {
  const reasonFor = opts.nonGlobalReason ?? defaultNonGlobalReason;
  const resolve = opts.lookup ?? dnsLookup;
  return (hostname: string, options: { all?: boolean; family?: number } | number, callback: LookupCallback) => {
    const o = typeof options === 'number' ? { family: options } : options;
    resolve(hostname, { ...o, all: true } as never, ((err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => {
      if (err) {
        lookupFailures.add(err);
        return callback(err, []);
      }
      if (!addresses?.length) {
        const none = Object.assign(new Error(`${hostname} does not resolve`), { code: 'ENOTFOUND' });
        lookupFailures.add(none);
        return callback(none, []);
      }
      if (!opts.allowPrivate) {
        for (const a of addresses) {
          const reason = reasonFor(a.address);
          if (reason) return callback(blockedError(hostname, a.address, reason) as never, []);
        }
      }
      if (o.all) return callback(null, addresses);
      const first = addresses[0]!;
      callback(null, first.address, first.family);
    }) as never);
  };
}

/** An IP-literal host is connected to without DNS: checked here (null: it may be reached). */
export function literalHostRefusal(hostname: string, opts: Pick<GuardedFetchOptions, 'allowPrivate' | 'nonGlobalReason'>): GuardedFetchError | null {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (opts.allowPrivate || !isIP(host)) return null;
  const reason = (opts.nonGlobalReason ?? defaultNonGlobalReason)(host);
  return reason ? blockedError(host, host, reason) : null;
}

/**
 * Throws unless the URL may be requested at all: http(s), no user name or password, and (unless
 * `allowPrivate`) not an IP literal outside global unicast. Host names are checked at connect time.
 */
export function checkFetchUrl(value: string | URL, opts: Pick<GuardedFetchOptions, 'allowPrivate' | 'nonGlobalReason'>): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new GuardedFetchError('not a valid URL', 'invalid', { invalid: 'url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new GuardedFetchError('only http and https URLs can be called', 'invalid', { invalid: 'scheme' });
  if (url.username || url.password) throw new GuardedFetchError('URLs with a user name or password cannot be called', 'invalid', { invalid: 'credentials' });
  // The connection skips DNS for IP literals: check them here.
  const refused = literalHostRefusal(url.hostname, opts);
  if (refused) throw refused;
  return url;
}

export function createGuardedFetch(opts: GuardedFetchOptions): GuardedFetchHandle {
  const maxRedirects = opts.maxRedirects ?? 5;
  const defaultHeaders = opts.defaultHeaders ?? { 'user-agent': opts.userAgent ?? 'PersonaStudio/1.0 (live avatar)', 'accept-encoding': 'identity' };
  // One pool per guard: a connection checked under one rule is never reused under another.
  const agents = opts.keepAlive === false ? null : { http: new http.Agent({ keepAlive: true }), https: new https.Agent({ keepAlive: true }) };

  const lookup = createGuardedLookup(opts);

  const checkUrl = (value: string | URL): URL => checkFetchUrl(value, opts);

  const guardedFetch = async (input: string, init: FetchInit = {}): Promise<Response> => {
    const signal = init.signal ?? undefined;
    signal?.throwIfAborted();
    const timeoutMs = init.timeoutMs ?? opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const maxBytes = init.maxBytes ?? opts.maxBytes ?? DEFAULT_MAX_BYTES;
    const redirectMode = init.redirect ?? 'follow';
    const headers = new Headers(init.headers);
    let method = (init.method ?? 'GET').toUpperCase();
    let body = encodeBody(init.body, headers);
    for (const [name, value] of Object.entries(defaultHeaders)) if (!headers.has(name)) headers.set(name, value);
    let url = checkUrl(input);
    const deadline = Date.now() + timeoutMs;
    for (let hop = 0; ; hop++) {
      const res = await requestOnce({ url, method, headers, body, deadline, signal, agents, lookup });
      const status = res.statusCode ?? 0;
      if (REDIRECTS.has(status) && redirectMode !== 'manual') {
        res.resume();
        if (redirectMode === 'error') throw new GuardedFetchError(`redirected (HTTP ${status})`, 'redirect');
        if (hop >= maxRedirects) throw new GuardedFetchError('too many redirects', 'redirect');
        const location = res.headers.location;
        if (!location) return toResponse(res, url, hop > 0, method, maxBytes, signal);
        const next = checkUrl(new URL(location, url));
        if (status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST') {
          method = 'GET';
          body = null;
          for (const h of ['content-type', 'content-length', 'content-encoding', 'content-language', 'content-location']) headers.delete(h);
        }
        if (next.origin !== url.origin) dropUnsafeHeaders(headers);
        url = next;
        continue;
      }
      return toResponse(res, url, hop > 0, method, maxBytes, signal);
    }
  };

  return Object.assign(guardedFetch, {
    close() {
      agents?.http.destroy();
      agents?.https.destroy();
    },
  });
}

function encodeBody(body: RequestInit['body'], headers: Headers): Buffer | null {
  if (body === undefined || body === null) return null;
  if (typeof body === 'string') {
    if (!headers.has('content-type')) headers.set('content-type', 'text/plain;charset=UTF-8');
    return Buffer.from(body, 'utf8');
  }
  if (body instanceof URLSearchParams) {
    if (!headers.has('content-type')) headers.set('content-type', 'application/x-www-form-urlencoded;charset=UTF-8');
    return Buffer.from(body.toString(), 'utf8');
  }
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  throw new GuardedFetchError('unsupported request body (use a string, bytes or URLSearchParams)', 'invalid');
}

interface RequestArgs {
  url: URL;
  method: string;
  headers: Headers;
  body: Buffer | null;
  deadline: number;
  signal: AbortSignal | undefined;
  agents: { http: http.Agent; https: https.Agent } | null;
  lookup: (hostname: string, options: never, callback: LookupCallback) => void;
}

/** One HTTP exchange up to the response headers; retries once when a kept-alive socket was stale. */
async function requestOnce(args: RequestArgs): Promise<http.IncomingMessage> {
  try {
    return await exchange(args);
  } catch (err) {
    if ((err as { staleSocket?: boolean }).staleSocket) return exchange(args);
    throw err;
  }
}

function exchange({ url, method, headers, body, deadline, signal, agents, lookup }: RequestArgs): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason as Error);
    const remaining = deadline - Date.now();
    if (remaining <= 0) return reject(new GuardedFetchError(`no answer from ${url.host} in time`, 'timeout'));
    const outgoing: Record<string, string> = {};
    headers.forEach((value, name) => (outgoing[name] = value));
    if (body) outgoing['content-length'] = String(body.length);
    const isHttps = url.protocol === 'https:';
    const req = (isHttps ? https : http).request(url, {
      method,
      headers: outgoing,
      agent: agents ? (isHttps ? agents.https : agents.http) : false,
      lookup: lookup as never,
    });
    let settled = false;
    const finish = (err: Error | null, res?: http.IncomingMessage) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      if (err) {
        req.destroy();
        return reject(err);
      }
      resolve(res!);
    };
    const onAbort = () => finish(signal!.reason as Error);
    const timer = setTimeout(() => finish(new GuardedFetchError(`no answer from ${url.host} in time`, 'timeout')), remaining);
    signal?.addEventListener('abort', onAbort, { once: true });
    req.on('response', (res) => finish(null, res));
    req.on('error', (err: NodeJS.ErrnoException) => {
      if (err instanceof GuardedFetchError) return finish(err);
      const stale = req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
      finish(Object.assign(networkError(url, err), stale ? { staleSocket: true } : {}));
    });
    req.end(body ?? undefined);
  });
}

function networkError(url: URL, err: NodeJS.ErrnoException): GuardedFetchError {
  const code = err.code;
  const facts: GuardedFetchErrorFacts = { host: url.hostname, code, resolving: lookupFailures.has(err) };
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return new GuardedFetchError(`${url.hostname} does not resolve`, 'network', facts);
  if (code === 'ECONNREFUSED') return new GuardedFetchError(`${url.host} refused the connection`, 'network', facts);
  if (code === 'ECONNRESET') return new GuardedFetchError(`${url.host} closed the connection`, 'network', facts);
  if (code?.startsWith('ERR_TLS') || code?.includes('CERT')) return new GuardedFetchError(`${url.host}: TLS certificate not valid (${code})`, 'network', facts);
  return new GuardedFetchError(`${url.host}: ${code ?? err.message}`, 'network', facts);
}

function toResponse(res: http.IncomingMessage, url: URL, redirected: boolean, method: string, maxBytes: number, signal: AbortSignal | undefined): Response {
  const status = res.statusCode ?? 0;
  if (status < 200 || status > 599) {
    res.destroy();
    throw new GuardedFetchError(`${url.host} answered an invalid status (${status})`, 'network');
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const nullBody = method === 'HEAD' || status === 204 || status === 205 || status === 304;
  if (nullBody) res.resume();
  const response = new Response(nullBody ? null : bodyStream(res, url, maxBytes, signal), { status, statusText: res.statusMessage ?? '', headers });
  Object.defineProperty(response, 'url', { value: url.toString() });
  Object.defineProperty(response, 'redirected', { value: redirected });
  return response;
}

/** The body as a web stream: decoded, capped at maxBytes, broken off by the signal, erroring when the peer drops. */
function bodyStream(res: http.IncomingMessage, url: URL, maxBytes: number, signal: AbortSignal | undefined): ReadableStream<Uint8Array> {
  const encoding = String(res.headers['content-encoding'] ?? '').toLowerCase().trim();
  let source: Readable = res;
  if (encoding === 'gzip' || encoding === 'x-gzip') source = res.pipe(zlib.createGunzip());
  else if (encoding === 'deflate') source = res.pipe(zlib.createInflate());
  else if (encoding === 'br') source = res.pipe(zlib.createBrotliDecompress());
  let size = 0;
  let done = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const fail = (err: unknown) => {
        if (done) return;
        done = true;
        cleanup();
        res.destroy();
        if (source !== res) source.destroy();
        controller.error(err);
      };
      const onAbort = () => fail(signal!.reason);
      const cleanup = () => signal?.removeEventListener('abort', onAbort);
      if (signal?.aborted) return fail(signal.reason);
      signal?.addEventListener('abort', onAbort, { once: true });
      source.on('data', (chunk: Buffer) => {
        if (done) return;
        size += chunk.length;
        if (size > maxBytes) return fail(new GuardedFetchError(`the answer from ${url.host} is larger than ${maxBytes} bytes`, 'too-large'));
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 1) <= 0) source.pause();
      });
      source.on('end', () => {
        if (done) return;
        done = true;
        cleanup();
        controller.close();
      });
      source.on('error', (err: NodeJS.ErrnoException) => fail(err instanceof GuardedFetchError ? err : networkError(url, err)));
      res.on('error', (err: NodeJS.ErrnoException) => fail(networkError(url, err)));
      // A peer that drops the connection mid-body: 'close' without 'end'.
      res.on('close', () => {
        if (!res.complete) fail(new GuardedFetchError(`${url.host} closed the connection before the answer ended`, 'network'));
      });
    },
    pull() {
      source.resume();
    },
    cancel() {
      done = true;
      res.destroy();
      if (source !== res) source.destroy();
    },
  });
}

const shared = new Map<boolean, GuardedFetchHandle>();

/**
 * One guarded fetch per rule for the whole worker, so sessions share kept-alive connections
 * (the TLS handshake to a provider is paid once, not per session).
 */
export function sharedGuardedFetch(allowPrivate: boolean): GuardedFetchHandle {
  let handle = shared.get(allowPrivate);
  if (!handle) {
    handle = createGuardedFetch({ allowPrivate });
    shared.set(allowPrivate, handle);
  }
  return handle;
}
