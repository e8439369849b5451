import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ZCollectionDeleteResponse, ZCollectionListResponse, ZCollectionResponse, type TKnowledgeCollection } from '@persona/contract';
import { knowledgeRequest } from './knowledge-client';

export const knowledgeKeys = {
  all: ['knowledge'] as const,
  collections: ['knowledge', 'collections'] as const,
  items: (collectionId: number) => ['knowledge', 'items', collectionId] as const,
};

/** GET /knowledge_collection */
export async function listCollections(): Promise<TKnowledgeCollection[]> {
  return (await knowledgeRequest('/knowledge_collection', { schema: ZCollectionListResponse })).data;
}

export const collectionsQueryOptions = () => queryOptions({ queryKey: knowledgeKeys.collections, queryFn: listCollections });

export function useCollections() {
  return useQuery(collectionsQueryOptions());
}

/** POST /knowledge_collection {name} */
export async function createCollection(name: string): Promise<TKnowledgeCollection> {
  return (await knowledgeRequest('/knowledge_collection', { method: 'POST', body: { name }, schema: ZCollectionResponse })).data;
}

export function useCreateCollection() {
  const client = useQueryClient();
  return useMutation({ mutationFn: createCollection, onSettled: () => client.invalidateQueries({ queryKey: knowledgeKeys.collections }) });
}

/** PUT /knowledge_collection/{id} {name} */
export async function renameCollection(input: { id: number; name: string }): Promise<TKnowledgeCollection> {
  return (await knowledgeRequest(`/knowledge_collection/${input.id}`, { method: 'PUT', body: { name: input.name }, schema: ZCollectionResponse })).data;
}

export function useRenameCollection() {
  const client = useQueryClient();
  return useMutation({ mutationFn: renameCollection, onSettled: () => client.invalidateQueries({ queryKey: knowledgeKeys.collections }) });
}

/** DELETE /knowledge_collection/{id}: also removes it from linked avatars. */
export async function deleteCollection(id: number) {
  return knowledgeRequest(`/knowledge_collection/${id}`, { method: 'DELETE', schema: ZCollectionDeleteResponse });
}

export function useDeleteCollection() {
  const client = useQueryClient();
  return useMutation({ mutationFn: deleteCollection, onSettled: () => client.invalidateQueries({ queryKey: knowledgeKeys.all }) });
}
