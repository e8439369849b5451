import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import type { TAvatar, ZListAvatarsResponse } from '@persona/contract';
import type { z } from 'zod';

type ListAvatarAnswer = z.output<typeof ZListAvatarsResponse>;

/** GET /api/list_avatar: the account's avatars, newest updated first. */
export async function listAvatars(): Promise<TAvatar[]> {
  const answer = await apiRequest<ListAvatarAnswer>('/api/list_avatar');
  return answer.agents;
}

export const avatarsQueryKey = ['avatars', 'list'] as const;

export const avatarsQueryOptions = () => queryOptions({ queryKey: avatarsQueryKey, queryFn: listAvatars });

export function useAvatars() {
  return useQuery(avatarsQueryOptions());
}
