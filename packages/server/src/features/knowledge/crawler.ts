import type { TCrawledUrl } from '@persona/contract';
import type { ExtractPool } from './extract-pool.js';
import { allowAll, parseRobots, type RobotsRules } from './robots.js';
import { decodeBody, safeFetch, SafeFetchError, USER_AGENT } from './safe-fetch.js';

/**
 * Finds pages of a site from one page: the page itself, then same-site links breadth first
 * (links of the first page before links of its links), each page fetched for its title. Only
 * HTML pages that robots.txt allows are listed; every fetch is public-only, time- and size-bound.
 */
export interface CrawlOptions {
  limit: number;
  allowPrivate: boolean;
  pageTimeoutMs?: number;
  pageMaxBytes?: number;
  totalTimeoutMs?: number;
  concurrency?: number;
  /** Pages are parsed for their links in the extraction pool, never on the request thread. */
  extractor: ExtractPool;
}

export class CrawlError extends Error {
  override readonly name = 'CrawlError';
}

const SKIP_EXT = /\.(png|jpe?g|gif|webp|svg|ico|css|js|mjs|json|xml|zip|gz|tgz|rar|7z|mp3|mp4|mov|avi|webm|wav|ogg|woff2?|ttf|eot|exe|dmg|iso|apk|pdf|docx?|xlsx?|pptx?)$/i;
const siteOf = (u: URL) => u.hostname.replace(/^www\./i, '').toLowerCase();

export async function loadRobots(origin: URL, allowPrivate: boolean): Promise<RobotsRules> {
  try {
    const res = await safeFetch(new URL('/robots.txt', origin).toString(), { allowPrivate, timeoutMs: 5000, maxBytes: 512 * 1024, accept: 'text/plain,*/*;q=0.5' });
    if (!/text\/plain|^$/i.test(res.contentType.split(';')[0] ?? '')) return allowAll;
    return parseRobots(decodeBody(res), USER_AGENT);
  } catch (err) {
    // No robots.txt (404) or none reachable: everything is allowed (RFC 9309, 2.3.1.3).
    if (err instanceof SafeFetchError && err.kind === 'blocked') throw err;
    return allowAll;
  }
}

export async function crawlSite(startUrl: string, opts: CrawlOptions): Promise<TCrawledUrl[]> {
  const start = new URL(startUrl);
  start.hash = '';
  const site = siteOf(start);
  const deadline = Date.now() + (opts.totalTimeoutMs ?? 25_000);
  const robots = await loadRobots(start, opts.allowPrivate);
  if (!robots.isAllowed(start)) throw new CrawlError('The site’s robots.txt does not allow crawling this page.');

  const seen = new Set<string>([start.toString()]);
  const queue: string[] = [start.toString()];
  const found: TCrawledUrl[] = [];
  let firstError: Error | null = null;
  let fetched = 0;
  const maxFetches = opts.limit * 3;

  const visit = async (url: string) => {
    fetched++;
    try {
      const res = await safeFetch(url, { allowPrivate: opts.allowPrivate, timeoutMs: Math.min(opts.pageTimeoutMs ?? 8000, Math.max(1000, deadline - Date.now())), maxBytes: opts.pageMaxBytes ?? 2 * 1024 * 1024 });
      if (!/html/i.test(res.contentType)) return;
      const finalUrl = new URL(res.url);
      if (siteOf(finalUrl) !== site) return;
      const parsed = await opts.extractor.run({ op: 'links', html: decodeBody(res), url: res.url });
      if (!('links' in parsed)) return;
      const { title, links } = parsed;
      if (found.length < opts.limit && !found.some((f) => f.url === res.url)) found.push({ url: res.url, title: title || res.url });
      for (const link of links) {
        let u: URL;
        try {
          u = new URL(link);
        } catch {
          continue;
        }
        if ((u.protocol !== 'http:' && u.protocol !== 'https:') || siteOf(u) !== site || SKIP_EXT.test(u.pathname)) continue;
        const key = u.toString();
        if (seen.has(key) || !robots.isAllowed(u)) continue;
        seen.add(key);
        queue.push(key);
      }
    } catch (err) {
      if (url === start.toString()) firstError = err as Error;
    }
  };

  // Breadth first, a few pages at a time.
  const concurrency = opts.concurrency ?? 4;
  while (queue.length > 0 && found.length < opts.limit && fetched < maxFetches && Date.now() < deadline) {
    const batch = queue.splice(0, Math.min(concurrency, opts.limit - found.length + 1));
    await Promise.all(batch.map(visit));
    if (firstError) break;
  }
  if (firstError) throw firstError;
  return found.slice(0, opts.limit);
}
