/**
 * Config hosting (spec "Embed (code) tab"): a config URL outside the product's config-file
 * locations (/config/, /catalog/ on the product's own origin) is self-hosted by the customer:
 * the editors are read-only until the hosting is transferred.
 */
export function productOriginOf(accessLink: string | undefined): string {
  if (accessLink) {
    const match = /^(https?:\/\/[^/]+)\/avatar\/\d+/.exec(accessLink);
    if (match?.[1]) return match[1];
  }
  return window.location.origin;
}

export function isSelfHosted(url: string | undefined, productOrigin: string): boolean {
  if (!url) return false;
  if (url.startsWith('/config/') || url.startsWith('/catalog/')) return false;
  for (const origin of new Set([productOrigin, window.location.origin])) {
    if (url.startsWith(`${origin}/config/`) || url.startsWith(`${origin}/catalog/`)) return false;
  }
  return true;
}

/** A product URL (maybe under the configured public origin) fetched from this page's origin. */
export function toFetchable(url: string): string {
  try {
    const parsed = new URL(url, window.location.origin);
    if (/^\/(api|catalog|config)\//.test(parsed.pathname)) return parsed.pathname + parsed.search;
    return parsed.toString();
  } catch {
    return url;
  }
}
