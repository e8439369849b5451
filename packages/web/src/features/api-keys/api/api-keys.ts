import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { ApiKeyPaths, ZAddApiKeyResponse, ZDelApiKeyResponse, ZListApiKeysResponse, type TAddApiKeyRequest, type TAddApiKeyResponse, type TApiKey } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

export const apiKeysQueryKey = ['api-keys'] as const;

/** GET /api/list_api_key: the account's keys that are not revoked (never their secrets). */
export async function listApiKeys(): Promise<TApiKey[]> {
  return (await apiRequest(ApiKeyPaths.list, { schema: ZListApiKeysResponse })).apiKeys;
}

export function useApiKeys() {
  return useQuery({ queryKey: apiKeysQueryKey, queryFn: listApiKeys });
}

/** POST /api/add_api_key: the answer carries the whole key, this once. */
export async function addApiKey(input: TAddApiKeyRequest): Promise<TAddApiKeyResponse> {
  return apiRequest(ApiKeyPaths.add, { method: 'POST', body: input, schema: ZAddApiKeyResponse });
}

export function useAddApiKey() {
  const client = useQueryClient();
  return useMutation({ mutationFn: addApiKey, onSettled: () => client.invalidateQueries({ queryKey: apiKeysQueryKey }) });
}

/** POST /api/del_api_key {id}: revokes it; calls with it are refused from then on. */
export async function revokeApiKey(id: string): Promise<void> {
  await apiRequest(ApiKeyPaths.del, { method: 'POST', body: { id }, schema: ZDelApiKeyResponse });
}

export function useRevokeApiKey() {
  const client = useQueryClient();
  return useMutation({ mutationFn: revokeApiKey, onSettled: () => client.invalidateQueries({ queryKey: apiKeysQueryKey }) });
}
