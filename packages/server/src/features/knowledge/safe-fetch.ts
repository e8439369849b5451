import { decodeBody, guardedFetch, SafeFetchError, type DnsLookup, type FetchedResource, type FetchErrorKind } from '@persona/net';

/**
 * GETs a URL a user typed (URL items, crawls, robots.txt) with the server's one guarded request
 * (@persona/net's guardedFetch: connect-time DNS check, only global unicast unless ALLOW_PRIVATE_URLS,
 * every redirect checked, bounded in time and size), as the knowledge crawler identifies itself.
 */
export { decodeBody, SafeFetchError, type FetchedResource, type FetchErrorKind };

export interface SafeFetchOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  maxBytes: number;
  maxRedirects?: number;
  accept?: string;
  signal?: AbortSignal;
  /** Which resolved addresses are refused (default: everything but global unicast). */
  isBlockedAddress?: (address: string) => boolean;
  lookup?: DnsLookup;
}

export const USER_AGENT = 'PersonaStudioBot/1.0 (+knowledge base; respects robots.txt)';

export function safeFetch(url: string, { accept, ...opts }: SafeFetchOptions): Promise<FetchedResource> {
  return guardedFetch(url, {
    ...opts,
    method: 'GET',
    headers: {
      'user-agent': USER_AGENT,
      accept: accept ?? 'text/html,application/xhtml+xml,text/plain;q=0.9,*/*;q=0.5',
      'accept-encoding': 'gzip, deflate, br',
    },
  });
}
