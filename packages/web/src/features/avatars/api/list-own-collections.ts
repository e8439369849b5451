import { queryOptions, useQuery } from '@tanstack/react-query';
import { ZCollectionListResponse, ZKnowledgeTokenResponse, type TKnowledgeCollection } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

/**
 * The user's own knowledge collections, for the Brain tab's 'Collection List' dialog:
 * GET /api/token/jwt, then GET /knowledge_collection with that token as Bearer (spec section 7).
 */
export async function listOwnCollections(signal?: AbortSignal): Promise<TKnowledgeCollection[]> {
  const { jwtToken } = await apiRequest('/api/token/jwt', { schema: ZKnowledgeTokenResponse, signal });
  const answer = await apiRequest('/knowledge_collection', {
    auth: 'none',
    headers: { Authorization: `Bearer ${jwtToken}` },
    logoutOnUnauthorized: false,
    schema: ZCollectionListResponse,
    signal,
  });
  return answer.data;
}

export const ownCollectionsQueryOptions = () =>
  queryOptions({ queryKey: ['avatars', 'linkable', 'collections'], queryFn: ({ signal }) => listOwnCollections(signal), staleTime: 30_000 });

export function useOwnCollections(isEnabled = true) {
  return useQuery({ ...ownCollectionsQueryOptions(), enabled: isEnabled });
}
