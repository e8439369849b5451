import type { TCrawledUrl } from '@persona/contract';
import { CRAWL_LIMITS, siteOf, type RobotsVerdicts } from './crawl-links.js';
import type { ExtractPool } from './extract-pool.js';
import { decodeBody, safeFetch, SafeFetchError, USER_AGENT } from './safe-fetch.js';
import { ROBOTS_LIMITS } from './robots.js';

/**
 * Finds pages of a site from one page: the page itself, then same-site links breadth first
 * (links of the first page before links of its links), each page fetched for its title. Only
 * HTML pages that robots.txt allows are listed; every fetch is public-only, time- and size-bound.
 *
 * The request thread only fetches and keeps the list: parsing a page for its links, choosing the
 * ones to follow and asking robots.txt about them run in the extraction pool,
 * robots.txt within a work budget per crawl (`CRAWL_LIMITS.robotsWorkPerCrawl`).
 */
export interface CrawlOptions {
  limit: number;
  allowPrivate: boolean;
  pageTimeoutMs?: number;
  pageMaxBytes?: number;
  totalTimeoutMs?: number;
  concurrency?: number;
  /** Robots work allowed (default CRAWL_LIMITS.robotsWorkPerCrawl). */
  robotsBudget?: number;
  /** Pages are parsed for their links in the extraction pool, never on the request thread. */
  extractor: ExtractPool;
}

export class CrawlError extends Error {
  override readonly name = 'CrawlError';
}

/** The site's robots.txt text, or null when there is none (everything allowed, RFC 9309 2.3.1.3). */
export async function fetchRobots(origin: URL, allowPrivate: boolean): Promise<string | null> {
  try {
    const res = await safeFetch(new URL('/robots.txt', origin).toString(), { allowPrivate, timeoutMs: 5000, maxBytes: ROBOTS_LIMITS.maxBytes, accept: 'text/plain,*/*;q=0.5' });
    if (!/text\/plain|^$/i.test(res.contentType.split(';')[0] ?? '')) return null;
    return decodeBody(res);
  } catch (err) {
    // No robots.txt (404) or none reachable: everything is allowed.
    if (err instanceof SafeFetchError && err.kind === 'blocked') throw err;
    return null;
  }
}

/** Asks robots.txt (in the extraction pool) about URLs, within `budget` units of work. */
export async function checkRobots(extractor: ExtractPool, robots: string | null, urls: string[], budget: number): Promise<RobotsVerdicts> {
  if (robots === null || urls.length === 0) return { allowed: urls, checked: urls.length, spent: 0 };
  const verdicts = await extractor.run({ op: 'robots', robots, userAgent: USER_AGENT, urls, budget });
  if (!('checked' in verdicts)) throw new Error('the extraction thread answered a robots job with something else');
  return verdicts;
}

/** Whether robots.txt lets us read one page (a crawled item being fetched again). */
export async function robotsAllows(url: URL, allowPrivate: boolean, extractor: ExtractPool): Promise<boolean> {
  const robots = await fetchRobots(url, allowPrivate);
  const { allowed } = await checkRobots(extractor, robots, [url.toString()], CRAWL_LIMITS.robotsWorkPerCrawl);
  return allowed.length === 1;
}

export async function crawlSite(startUrl: string, opts: CrawlOptions): Promise<TCrawledUrl[]> {
  const start = new URL(startUrl);
  start.hash = '';
  const site = siteOf(start);
  const deadline = Date.now() + (opts.totalTimeoutMs ?? 25_000);
  const robots = await fetchRobots(start, opts.allowPrivate);
  let budget = opts.robotsBudget ?? CRAWL_LIMITS.robotsWorkPerCrawl;
  const first = await checkRobots(opts.extractor, robots, [start.toString()], budget);
  budget -= first.spent;
  if (first.allowed.length === 0) throw new CrawlError('The site’s robots.txt does not allow crawling this page.');

  /** Every URL queued or refused by robots.txt: never asked about twice. */
  const seen = new Set<string>([start.toString()]);
  const queue: string[] = [start.toString()];
  const found: TCrawledUrl[] = [];
  let firstError: Error | null = null;
  let fetched = 0;
  const maxFetches = opts.limit * 3;

  /** Fetches one page; its title is listed, its links (chosen in the pool) returned. */
  const visit = async (url: string): Promise<string[]> => {
    fetched++;
    try {
      const res = await safeFetch(url, { allowPrivate: opts.allowPrivate, timeoutMs: Math.min(opts.pageTimeoutMs ?? 8000, Math.max(1000, deadline - Date.now())), maxBytes: opts.pageMaxBytes ?? 2 * 1024 * 1024 });
      if (!/html/i.test(res.contentType)) return [];
      const finalUrl = new URL(res.url);
      if (siteOf(finalUrl) !== site) return [];
      const parsed = await opts.extractor.run({ op: 'links', html: decodeBody(res), url: res.url, site });
      if (!('links' in parsed)) return [];
      const { title, links } = parsed;
      if (found.length < opts.limit && !found.some((f) => f.url === res.url)) found.push({ url: res.url, title: title || res.url });
      return links;
    } catch (err) {
      if (url === start.toString()) firstError = err as Error;
      return [];
    }
  };

  // Breadth first, a few pages at a time; the batch's new links are asked about together.
  const concurrency = opts.concurrency ?? 4;
  while (queue.length > 0 && found.length < opts.limit && fetched < maxFetches && Date.now() < deadline) {
    const batch = queue.splice(0, Math.min(concurrency, opts.limit - found.length + 1));
    const linkLists = await Promise.all(batch.map(visit));
    if (firstError) break;
    if (budget <= 0 || found.length >= opts.limit) continue;
    const fresh: string[] = [];
    for (const links of linkLists) {
      for (const link of links) {
        if (seen.has(link)) continue;
        seen.add(link);
        fresh.push(link);
      }
    }
    const verdicts = await checkRobots(opts.extractor, robots, fresh, budget);
    budget -= verdicts.spent;
    // Links left unasked when the budget ran out are not followed; the crawl ends with the queue.
    if (verdicts.checked < fresh.length) budget = 0;
    queue.push(...verdicts.allowed);
  }
  if (firstError) throw firstError;
  return found.slice(0, opts.limit);
}
