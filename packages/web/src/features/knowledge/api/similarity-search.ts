import { ZSimilaritySearchResponse, type TSimilaritySearchRequest, type TSimilaritySearchResponse } from '@persona/contract';
import { knowledgeRequest } from './knowledge-client';

/** POST /knowledge/similarity-search {collection_ids, query, k}: the best chunks with their source and score. */
export async function similaritySearch(request: TSimilaritySearchRequest): Promise<TSimilaritySearchResponse> {
  return knowledgeRequest('/knowledge/similarity-search', { method: 'POST', body: request, schema: ZSimilaritySearchResponse });
}
