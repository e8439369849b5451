import { useQueries } from '@tanstack/react-query';
import { ZListAvatarUsersResponse, type TOnlineUser } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { onlineUsersQueryKey } from './list-online-users';

/** POST /api/list_avatar_users {agentId, mode:'get'}: who is talking to one of your avatars right now. */
export async function listAvatarUsers(agentId: number): Promise<TOnlineUser[]> {
  return (await apiRequest('/api/list_avatar_users', { method: 'POST', body: { agentId, mode: 'get' }, schema: ZListAvatarUsersResponse })).onlineUsers;
}

export const avatarUsersQueryOptions = (agentId: number) => ({
  queryKey: [...onlineUsersQueryKey, 'avatar', agentId] as const,
  queryFn: () => listAvatarUsers(agentId),
  staleTime: 0,
});

/** One query per avatar, in the avatars' order. */
export function useAvatarsUsers(agentIds: readonly number[]) {
  return useQueries({ queries: agentIds.map((id) => avatarUsersQueryOptions(id)) });
}
