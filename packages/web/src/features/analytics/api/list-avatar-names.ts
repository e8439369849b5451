import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

export interface TAvatarName {
  id: number;
  name: string;
}

/** GET /api/list_avatar: the account's avatars, for the avatar choice (only id and name are read). */
export async function listAvatarNames(): Promise<TAvatarName[]> {
  const answer = await apiRequest<{ agents: TAvatarName[] }>('/api/list_avatar');
  return answer.agents.map(({ id, name }) => ({ id, name }));
}

export function useAvatarNames(enabled: boolean) {
  return useQuery({ queryKey: ['analytics', 'avatar-names'] as const, queryFn: listAvatarNames, enabled });
}
