import WebSocket from 'ws';
import { createGuardedLookup, GuardedFetchError, literalHostRefusal, type GuardedFetchOptions } from './guarded-fetch.js';

export interface GuardedSocketOptions extends Pick<GuardedFetchOptions, 'allowPrivate' | 'nonGlobalReason' | 'lookup'> {
  headers?: Record<string, string>;
  /** Largest message accepted (bytes). */
  maxPayload?: number;
}

/**
 * A URL an avatar owner typed for a WebSocket (the realtime URL): ws(s) — http(s) is taken as
 * its ws(s) twin —, no user name or password. Throws GuardedFetchError('invalid' | 'blocked').
 */
export function checkSocketUrl(value: string, opts: Pick<GuardedFetchOptions, 'allowPrivate' | 'nonGlobalReason'>): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new GuardedFetchError('not a valid URL', 'invalid');
  }
  if (url.protocol === 'http:') url.protocol = 'ws:';
  else if (url.protocol === 'https:') url.protocol = 'wss:';
  if (url.protocol !== 'ws:' && url.protocol !== 'wss:') throw new GuardedFetchError('only ws(s) and http(s) URLs can be connected to', 'invalid');
  if (url.username || url.password) throw new GuardedFetchError('URLs with a user name or password cannot be called', 'invalid');
  const refused = literalHostRefusal(url.hostname, opts);
  if (refused) throw refused;
  return url;
}

/**
 * Opens a WebSocket to a user-supplied URL under the guarded fetch's rules (guarded-fetch.ts):
 * private addresses refused unless the portal allows them, checked inside the connection's own
 * DNS lookup (no rebinding between check and connect), IP literals before connecting, and no
 * redirects followed (a redirect could carry the key's header to another host).
 */
export function openGuardedSocket(value: string, opts: GuardedSocketOptions): WebSocket {
  const url = checkSocketUrl(value, opts);
  return new WebSocket(url, {
    headers: opts.headers,
    maxPayload: opts.maxPayload,
    perMessageDeflate: false,
    followRedirects: false,
    lookup: createGuardedLookup(opts) as never,
  });
}
