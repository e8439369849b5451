import { queryOptions, useQuery } from '@tanstack/react-query';
import { ZGetOnlineUserResponse, type TOnlineUserDetail } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { onlineUsersQueryKey } from './list-online-users';

/** POST /api/get_online_user {sessionId, mode:'get'} (admin): one live session in detail (404 once it ended). */
export async function getOnlineUser(sessionId: string): Promise<TOnlineUserDetail> {
  return (await apiRequest('/api/get_online_user', { method: 'POST', body: { sessionId, mode: 'get' }, schema: ZGetOnlineUserResponse })).userDetail;
}

export const onlineUserQueryOptions = (sessionId: string) =>
  queryOptions({
    queryKey: [...onlineUsersQueryKey, 'detail', sessionId] as const,
    queryFn: () => getOnlineUser(sessionId),
    staleTime: 0,
    gcTime: 0,
    retry: false,
  });

export function useOnlineUser(sessionId: string | null) {
  return useQuery({ ...onlineUserQueryOptions(sessionId ?? ''), enabled: sessionId !== null });
}
