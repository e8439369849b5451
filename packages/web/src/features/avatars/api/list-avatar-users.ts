import { queryOptions, useQuery } from '@tanstack/react-query';
import type { TOnlineUser, ZListAvatarUsersResponse } from '@persona/contract';
import type { z } from 'zod';
import { apiRequest } from '../../../lib/api-client';

export type TAvatarOnlineUser = TOnlineUser;
type ListAvatarUsersAnswer = z.output<typeof ZListAvatarUsersResponse>;

/** POST /api/list_avatar_users {agentId, mode:'get'}: who is talking to the avatar right now. */
export async function listAvatarUsers(agentId: number): Promise<TAvatarOnlineUser[]> {
  const answer = await apiRequest<ListAvatarUsersAnswer>('/api/list_avatar_users', { method: 'POST', body: { agentId, mode: 'get' } });
  return answer.onlineUsers ?? [];
}

export const avatarUsersQueryOptions = (agentId: number) =>
  queryOptions({ queryKey: ['avatars', 'online-users', agentId], queryFn: () => listAvatarUsers(agentId), staleTime: 0, retry: false });

export function useAvatarUsers(agentId: number, isEnabled: boolean) {
  return useQuery({ ...avatarUsersQueryOptions(agentId), enabled: isEnabled });
}
