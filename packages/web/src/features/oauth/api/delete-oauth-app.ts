import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ZDelOAuthAppResponse } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { oauthAppsQueryKey } from './list-oauth-apps';

/** POST /api/del_oauthapp {appId, mode:'delete'}. */
export function deleteOAuthApp(appId: number) {
  return apiRequest('/api/del_oauthapp', { method: 'POST', body: { appId, mode: 'delete' }, schema: ZDelOAuthAppResponse });
}

export function useDeleteOAuthApp() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deleteOAuthApp,
    onSettled: () => client.invalidateQueries({ queryKey: oauthAppsQueryKey }),
  });
}
