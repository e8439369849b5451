import { queryOptions, useQuery } from '@tanstack/react-query';
import { apiRequest } from '../../../lib/api-client';
import type { TCatalogAvatar } from './get-avatar-catalog';

interface CustomAvatarsAnswer {
  status: 'OK';
  image: TCatalogAvatar[];
}

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
