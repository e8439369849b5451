import { cachedRobots, type WorkMeter } from './robots.js';

/**
 * What a crawl does with a page's links, in the extraction threads: keep the
 * links it may follow (http(s), same site, not a file type it skips, not too long, at most
 * `maxLinksPerPage` of them), and ask robots.txt about them within the crawl's work budget.
 * Off the thread that answers requests, and within a budget: 240 long links tried against ~2,000
 * rules there held `/api/health` for 20 s.
 */
export const CRAWL_LIMITS = {
  /** Links of one page considered for the crawl (the first ones, in page order). */
  maxLinksPerPage: 200,
  /** Characters of a link (the whole URL); a longer link is not followed. */
  maxLinkLength: 1024,
  /**
   * Robots work of one crawl, in characters compared (`WorkMeter`): about 0.1–0.3 s of one
   * extraction thread. An ordinary robots.txt (indexed by prefix) spends a few thousand units a
   * page; past the budget the crawl follows no new link and returns what it found.
   */
  robotsWorkPerCrawl: 20_000_000,
} as const;

const SKIP_EXT = /\.(png|jpe?g|gif|webp|svg|ico|css|js|mjs|json|xml|zip|gz|tgz|rar|7z|mp3|mp4|mov|avi|webm|wav|ogg|woff2?|ttf|eot|exe|dmg|iso|apk|pdf|docx?|xlsx?|pptx?)$/i;

/** The site a URL belongs to (its host without `www.`). */
export const siteOf = (u: URL) => u.hostname.replace(/^www\./i, '').toLowerCase();

/** The links of a page a crawl of `site` may follow, normalised, in page order, capped. */
export function crawlCandidates(links: string[], site: string): string[] {
  const out: string[] = [];
  for (const link of links) {
    if (out.length >= CRAWL_LIMITS.maxLinksPerPage) break;
    if (link.length > CRAWL_LIMITS.maxLinkLength) continue;
    let u: URL;
    try {
      u = new URL(link);
    } catch {
      continue;
    }
    // The extension test reads only the path's last 8 characters (the longest extension is 5).
    if ((u.protocol !== 'http:' && u.protocol !== 'https:') || siteOf(u) !== site || SKIP_EXT.test(u.pathname.slice(-8))) continue;
    const key = u.toString();
    if (key.length <= CRAWL_LIMITS.maxLinkLength) out.push(key);
  }
  return out;
}

export interface RobotsVerdicts {
  /** The URLs robots.txt allows, of those checked. */
  allowed: string[];
  /** How many URLs were checked (in order); the rest were not, the budget being spent. */
  checked: number;
  /** Work done (characters compared). */
  spent: number;
}

/** Checks URLs against a robots.txt text in order until `budget` units of work are spent. */
export function filterByRobots(robots: string, userAgent: string, urls: string[], budget: number): RobotsVerdicts {
  const rules = cachedRobots(robots, userAgent);
  const meter: WorkMeter = { spent: 0 };
  const allowed: string[] = [];
  let checked = 0;
  for (const url of urls) {
    if (meter.spent >= budget) break;
    let u: URL;
    try {
      u = new URL(url);
    } catch {
      checked++;
      continue;
    }
    if (rules.isAllowed(u, meter)) allowed.push(url);
    checked++;
  }
  return { allowed, checked, spent: meter.spent };
}
