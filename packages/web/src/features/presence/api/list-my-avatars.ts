import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';

export interface TMyAvatar {
  id: number;
  name: string;
}

interface ListAvatarAnswer {
  status: 'OK';
  agents: TMyAvatar[];
}

/** GET /api/list_avatar: the signed-in account's avatars (only id and name are read here). */
export async function listMyAvatars(): Promise<TMyAvatar[]> {
  const answer = await apiRequest<ListAvatarAnswer>('/api/list_avatar');
  return answer.agents.map(({ id, name }) => ({ id, name }));
}

export const myAvatarsQueryOptions = () => queryOptions({ queryKey: ['online-users', 'my-avatars'] as const, queryFn: listMyAvatars });

export function useMyAvatars() {
  return useQuery(myAvatarsQueryOptions());
}
