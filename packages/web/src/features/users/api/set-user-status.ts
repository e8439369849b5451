import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ZAdminUserResponse, type TAdminUser } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { adminUsersQueryKey } from './list-users';

export interface SetUserStatusInput {
  userId: number;
  status: 'ACTIVE' | 'DISABLED';
}

/** POST /api/admin/users/status {userId, status} (admin): disables or enables an account. */
export async function setUserStatus(body: SetUserStatusInput): Promise<TAdminUser> {
  return (await apiRequest('/api/admin/users/status', { method: 'POST', body, schema: ZAdminUserResponse })).user;
}

export function useSetUserStatus() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: setUserStatus,
    onSettled: () => client.invalidateQueries({ queryKey: adminUsersQueryKey }),
  });
}
