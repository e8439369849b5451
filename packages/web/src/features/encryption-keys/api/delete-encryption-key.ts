import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ZDelEncryptionKeyResponse } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { encryptionKeysQueryKey } from './list-encryption-keys';

/** POST /api/del_encryption_key {id, mode:'delete'}: any status other than 200 is an error. */
export function deleteEncryptionKey(id: number) {
  return apiRequest('/api/del_encryption_key', { method: 'POST', body: { id, mode: 'delete' }, schema: ZDelEncryptionKeyResponse });
}

export function useDeleteEncryptionKey() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deleteEncryptionKey,
    onSettled: () => client.invalidateQueries({ queryKey: encryptionKeysQueryKey }),
  });
}
