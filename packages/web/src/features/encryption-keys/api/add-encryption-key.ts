import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ZAddEncryptionKeyResponse, type TAddEncryptionKeyResponse } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { encryptionKeysQueryKey } from './list-encryption-keys';

/** POST /api/add_encryption_key {id, name}: the answer carries the private key, this once. */
export async function addEncryptionKey(name: string): Promise<TAddEncryptionKeyResponse['encKey']> {
  return (await apiRequest('/api/add_encryption_key', { method: 'POST', body: { id: null, name }, schema: ZAddEncryptionKeyResponse })).encKey;
}

export function useAddEncryptionKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: addEncryptionKey,
    onSettled: () => client.invalidateQueries({ queryKey: encryptionKeysQueryKey }),
  });
}
