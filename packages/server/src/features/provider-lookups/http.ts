import { guardedFetch, SafeFetchError, type DnsLookup } from '@persona/net';

/** Largest provider answer read (Azure's voice list is about 1 MB; OpenRouter-like model lists are larger). */
export const LOOKUP_MAX_BYTES = 4 * 1024 * 1024;

export interface LookupHttpOptions {
  timeoutMs: number;
  /** May a user-supplied URL reach private addresses (ALLOW_PRIVATE_URLS). */
  allowPrivateUrls: boolean;
  maxBytes?: number;
  /** DNS for user-supplied URLs (tests). */
  lookup?: DnsLookup;
}

/**
 * Where a request goes: `operator` — a provider host fixed by the server's configuration
 * (PROVIDER_*_URL or the provider's public default), reached wherever the operator points it;
 * `user` — a URL typed in the form (custom LLM base URL), reached only at global unicast
 * addresses unless ALLOW_PRIVATE_URLS.
 */
export type Target = 'operator' | 'user';

export interface LookupAnswer {
  status: number;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  json: unknown;
}

/** Why a look-up's HTTP call did not get an answer (for the log and the `reason` of the failure). */
export class LookupTransportError extends Error {
  override readonly name = 'LookupTransportError';
  constructor(
    readonly reason: 'invalid-url' | 'blocked' | 'timeout' | 'too-large' | 'redirect' | 'network',
    readonly detail: string,
  ) {
    super(detail);
  }
}

/**
 * One GET (or POST) to a provider: bounded in time and size, never following a redirect (the
 * request carries a key, and a redirect could lead it elsewhere — or to a private address), any
 * status returned to the caller, which maps it to the spec's message.
 */
export async function lookupRequest(
  url: string,
  target: Target,
  opts: LookupHttpOptions,
  req: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: string } = {},
): Promise<LookupAnswer> {
  try {
    const res = await guardedFetch(url, {
      allowPrivate: target === 'operator' || opts.allowPrivateUrls,
      timeoutMs: opts.timeoutMs,
      maxBytes: opts.maxBytes ?? LOOKUP_MAX_BYTES,
      method: req.method ?? 'GET',
      headers: { accept: 'application/json', ...req.headers, ...(req.body ? { 'content-type': 'application/json' } : {}) },
      body: req.body,
      maxRedirects: 0,
      acceptErrorStatus: true,
      ...(target === 'user' && opts.lookup ? { lookup: opts.lookup } : {}),
    });
    if (res.status >= 300 && res.status < 400) throw new LookupTransportError('redirect', `answered a redirect (HTTP ${res.status}), not followed`);
    let json: unknown;
    try {
      json = res.body.length ? JSON.parse(res.body.toString('utf8')) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, json };
  } catch (err) {
    if (err instanceof LookupTransportError) throw err;
    if (err instanceof SafeFetchError) {
      const reason =
        err.kind === 'invalid' ? 'invalid-url' : err.kind === 'blocked' ? 'blocked' : err.kind === 'timeout' ? 'timeout' : err.kind === 'too-large' ? 'too-large' : err.message.startsWith('Too many redirects') || err.status ? 'redirect' : 'network';
      throw new LookupTransportError(reason, err.detail);
    }
    throw new LookupTransportError('network', err instanceof Error ? err.message : String(err));
  }
}

/** `base` + `path` with exactly one slash between them; the base's own query is dropped. */
export function joinUrl(base: string, path: string): string {
  return `${base.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
}

export const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
export const str = (v: unknown, max = 200): string => (typeof v === 'string' ? v.slice(0, max) : typeof v === 'number' ? String(v) : '');
