import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  ZCreateKnowledgeResponse,
  ZDeleteKnowledgeResponse,
  ZKnowledgeBatchResponse,
  ZKnowledgeItemResponse,
  ZKnowledgeListResponse,
  type TCreateKnowledge,
  type TKnowledgeBatchResult,
  type TKnowledgeItem,
  type TUpdateKnowledge,
} from '@persona/contract';
import { isApiError } from '../../../lib/api-client';
import { knowledgeKeys } from './collections';
import { knowledgeRequest } from './knowledge-client';

/** GET /knowledge?collection_id= */
export async function listKnowledge(collectionId: number): Promise<TKnowledgeItem[]> {
  return (await knowledgeRequest('/knowledge', { query: { collection_id: collectionId }, schema: ZKnowledgeListResponse })).data;
}

/** While any item is processing, the list is read again every 1.5 s (the status column follows). */
export const knowledgeQueryOptions = (collectionId: number) =>
  queryOptions({
    queryKey: knowledgeKeys.items(collectionId),
    queryFn: () => listKnowledge(collectionId),
    refetchInterval: (query) => (query.state.data?.some((i) => i.status === 'processing') ? 1500 : false),
  });

export function useKnowledge(collectionId: number | null) {
  return useQuery({ ...knowledgeQueryOptions(collectionId ?? 0), enabled: collectionId !== null });
}

/** POST /knowledge with one item. */
export async function createKnowledge(item: TCreateKnowledge): Promise<TKnowledgeItem> {
  const answer = await knowledgeRequest('/knowledge', { method: 'POST', body: item, schema: ZCreateKnowledgeResponse });
  if (Array.isArray(answer.data)) throw new Error('unexpected batch answer');
  return answer.data;
}

/** POST /knowledge with a batch: per-item results (a batch where every item failed answers 400 with them too). */
export async function createKnowledgeBatch(items: TCreateKnowledge[]): Promise<TKnowledgeBatchResult[]> {
  try {
    return (await knowledgeRequest('/knowledge', { method: 'POST', body: items, schema: ZKnowledgeBatchResponse })).data;
  } catch (error) {
    const data = isApiError(error) ? (error.body as { data?: TKnowledgeBatchResult[] } | null)?.data : undefined;
    if (Array.isArray(data)) return data;
    throw error;
  }
}

/** PUT /knowledge/{id}: rename, new content, or a retry ({reprocess: true}). */
export async function updateKnowledge(input: { id: number; changes: TUpdateKnowledge }): Promise<TKnowledgeItem> {
  return (await knowledgeRequest(`/knowledge/${input.id}`, { method: 'PUT', body: input.changes, schema: ZKnowledgeItemResponse })).data;
}

/** DELETE /knowledge/{id} */
export async function deleteKnowledge(id: number) {
  return knowledgeRequest(`/knowledge/${id}`, { method: 'DELETE', schema: ZDeleteKnowledgeResponse });
}

export function useKnowledgeMutations(collectionId: number) {
  const client = useQueryClient();
  const invalidate = () => Promise.all([client.invalidateQueries({ queryKey: knowledgeKeys.items(collectionId) }), client.invalidateQueries({ queryKey: knowledgeKeys.collections })]);
  return {
    remove: useMutation({ mutationFn: deleteKnowledge, onSettled: invalidate }),
    update: useMutation({ mutationFn: updateKnowledge, onSettled: invalidate }),
    invalidate,
  };
}
