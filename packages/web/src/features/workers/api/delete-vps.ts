import { useMutation, useQueryClient } from '@tanstack/react-query';
import { AdminMessages, ZDelVpsResponse, type TVps } from '@persona/contract';
import { apiRequest, isApiError } from '../../../lib/api-client';
import { vpsListQueryKey } from './list-vps';

/** POST /api/del_vps {vpsId, mode:'delete'} (admin): disconnects the server and removes it from the list. */
export async function deleteVps(vpsId: number): Promise<number> {
  await apiRequest('/api/del_vps', { method: 'POST', body: { vpsId, mode: 'delete' }, schema: ZDelVpsResponse });
  return vpsId;
}

/**
 * What a failed delete lists (spec section 8): 'Server Error occured while Delete', 'Invalid VPS',
 * 'VPS was already discinnected', or the HTTP status.
 */
export function deleteVpsErrors(error: unknown): string[] {
  if (!isApiError(error)) return [AdminMessages.vpsDeleteServerError];
  if (error.status >= 500) return [AdminMessages.vpsDeleteServerError];
  if (error.hasErrors) return error.errors;
  if (error.status === 404) return [AdminMessages.vpsInvalid];
  if (error.status === 409) return [AdminMessages.vpsAlreadyDisconnected];
  if (error.kind === 'http') return [`Error ${error.status}${error.statusText ? ` ${error.statusText}` : ''}`];
  return [error.message];
}

export function useDeleteVps() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deleteVps,
    onSuccess: (vpsId) => {
      client.setQueryData<TVps[]>(vpsListQueryKey, (list) => list?.filter((vps) => vps.id !== vpsId));
    },
  });
}
