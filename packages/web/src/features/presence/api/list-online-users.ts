import { queryOptions, useQuery } from '@tanstack/react-query';
import { ZListOnlineUsersResponse, type TOnlineUser } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

/** POST /api/list_online_users {mode:'get'} (admin): every live avatar session. */
export async function listOnlineUsers(): Promise<TOnlineUser[]> {
  return (await apiRequest('/api/list_online_users', { method: 'POST', body: { mode: 'get' }, schema: ZListOnlineUsersResponse })).onlineUsers;
}

export const onlineUsersQueryKey = ['online-users'] as const;

export const onlineUsersQueryOptions = () =>
  queryOptions({ queryKey: [...onlineUsersQueryKey, 'all'] as const, queryFn: listOnlineUsers, staleTime: 0 });

export function useOnlineUsers() {
  return useQuery(onlineUsersQueryOptions());
}
