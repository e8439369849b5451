import { queryOptions, useQuery } from '@tanstack/react-query';
import { ZListEncryptionKeysResponse, type TEncryptionKey } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

/** GET /api/list_encryption_keys: the default key first (made on first need), then the others. */
export async function listEncryptionKeys(): Promise<TEncryptionKey[]> {
  return (await apiRequest('/api/list_encryption_keys', { schema: ZListEncryptionKeysResponse })).encKeys;
}

export const encryptionKeysQueryKey = ['encryption-keys', 'list'] as const;

export const encryptionKeysQueryOptions = () => queryOptions({ queryKey: encryptionKeysQueryKey, queryFn: listEncryptionKeys });

export function useEncryptionKeys() {
  return useQuery(encryptionKeysQueryOptions());
}
