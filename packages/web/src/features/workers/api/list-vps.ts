import { queryOptions, useQuery } from '@tanstack/react-query';
import { ZListVpsResponse, type TVps } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

/** GET /api/list_vps (admin): the connected avatar servers (workers). */
export async function listVps(): Promise<TVps[]> {
  return (await apiRequest('/api/list_vps', { schema: ZListVpsResponse })).vpsList;
}

export const vpsQueryKey = ['vps'] as const;
export const vpsListQueryKey = [...vpsQueryKey, 'list'] as const;

export const vpsListQueryOptions = () => queryOptions({ queryKey: vpsListQueryKey, queryFn: listVps, staleTime: 0 });

export function useVpsList() {
  return useQuery(vpsListQueryOptions());
}
