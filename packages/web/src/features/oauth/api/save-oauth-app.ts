import { useMutation, useQueryClient } from '@tanstack/react-query';
import { ZAddOAuthAppResponse, type TAddOAuthAppResponse, type TOAuthAppInput } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { oauthAppsQueryKey } from './list-oauth-apps';

/** POST /api/add_oauthapp: creates (no appId) or edits; an empty client secret on edit keeps the stored one. */
export function saveOAuthApp(body: TOAuthAppInput): Promise<TAddOAuthAppResponse> {
  return apiRequest('/api/add_oauthapp', { method: 'POST', body, schema: ZAddOAuthAppResponse });
}

export function useSaveOAuthApp() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: saveOAuthApp,
    onSettled: () => client.invalidateQueries({ queryKey: oauthAppsQueryKey }),
  });
}
