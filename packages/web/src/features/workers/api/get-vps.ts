import { queryOptions, useQuery } from '@tanstack/react-query';
import { ZGetVpsResponse, type TVps } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { vpsQueryKey } from './list-vps';

/** POST /api/get_vps {vpsId, mode:'get'} (admin): one server in detail. */
export async function getVps(vpsId: number): Promise<TVps> {
  return (await apiRequest('/api/get_vps', { method: 'POST', body: { vpsId, mode: 'get' }, schema: ZGetVpsResponse })).vpsDetail;
}

export const vpsQueryOptions = (vpsId: number) =>
  queryOptions({ queryKey: [...vpsQueryKey, 'detail', vpsId] as const, queryFn: () => getVps(vpsId), staleTime: 0, gcTime: 0, retry: false });

export function useVps(vpsId: number | null) {
  return useQuery({ ...vpsQueryOptions(vpsId ?? 0), enabled: vpsId !== null });
}
