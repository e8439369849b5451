import { useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

export interface TAvatarName {
  id: number;
  name: string;
}

/** GET /api/list_avatar: the account's avatars, for an endpoint's avatar (only id and name are read). */
export async function listAvatarNames(): Promise<TAvatarName[]> {
  const answer = await apiRequest<{ agents: TAvatarName[] }>('/api/list_avatar');
  return answer.agents.map(({ id, name }) => ({ id, name }));
}

export function useAvatarNames() {
  return useQuery({ queryKey: ['webhooks', 'avatar-names'] as const, queryFn: listAvatarNames });
}
