import { queryOptions, useQuery } from '@tanstack/react-query';
import type { TCustomAvatar } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

/** An appearance of the catalogue (default avatars list, or the account's own image avatars). */
export type TCatalogAvatar = TCustomAvatar;

export interface TAvatarCatalog {
  image: TCatalogAvatar[];
  upperBody: TCatalogAvatar[];
  fullBody: TCatalogAvatar[];
  video: TCatalogAvatar[];
}

/** GET {defaultAvatarsList}: the default appearances per type (a public file). */
export async function getDefaultAvatars(url: string): Promise<TAvatarCatalog> {
  const answer = await apiRequest<Partial<TAvatarCatalog>>(url, { auth: 'none' });
  return { image: answer.image ?? [], upperBody: answer.upperBody ?? [], fullBody: answer.fullBody ?? [], video: answer.video ?? [] };
}

export const defaultAvatarsQueryOptions = (url: string | undefined) =>
  queryOptions({
    queryKey: ['avatars', 'catalog', 'default', url],
    queryFn: () => getDefaultAvatars(url!),
    enabled: Boolean(url),
    staleTime: Infinity,
  });

export function useDefaultAvatars(url: string | undefined) {
  return useQuery(defaultAvatarsQueryOptions(url));
}
