import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

export interface TAvatarOnlineUser {
  sessionId: string;
  userName: string;
  deviceOS: string;
  onlineStatus: string;
  locale: string;
  lastConnectTimeStamp: string | number;
  ipAddress: string;
  spokenLanguage: string;
}

interface ListAvatarUsersAnswer {
  agentId: number;
  status: 'OK';
  onlineUsers: TAvatarOnlineUser[];
}

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
