import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import type { ZCustomAvatarsResponse } from '@persona/contract';
import type { z } from 'zod';
import type { TCatalogAvatar } from './get-avatar-catalog';

type CustomAvatarsAnswer = z.output<typeof ZCustomAvatarsResponse>;

/** GET {customAvatarsJsonUrl}: the account's own (finished) image avatars, shown first. */
export async function getCustomAvatars(url: string): Promise<TCatalogAvatar[]> {
  const answer = await apiRequest<CustomAvatarsAnswer>(url);
  return answer.image ?? [];
}

export const customAvatarsQueryOptions = (url: string | undefined) =>
  queryOptions({
    queryKey: ['avatars', 'catalog', 'custom', url],
    queryFn: () => getCustomAvatars(url!),
    enabled: Boolean(url),
  });

export function useCustomAvatars(url: string | undefined) {
  return useQuery(customAvatarsQueryOptions(url));
}
