import { KnowledgeLimits, ZCrawlResponse, type TCrawledUrl } from '@persona/contract';
import { knowledgeRequest } from './knowledge-client';

/** POST /knowledge/crawl {url, limit}: same-site pages with their titles. A crawl may take up to ~25 s. */
export async function crawlUrls(url: string, limit: number = KnowledgeLimits.crawlDefault): Promise<TCrawledUrl[]> {
  return (await knowledgeRequest('/knowledge/crawl', { method: 'POST', body: { url, limit }, schema: ZCrawlResponse, timeoutMs: 40_000 })).data;
}
