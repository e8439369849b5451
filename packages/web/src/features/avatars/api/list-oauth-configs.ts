import { queryOptions, useQuery } from '@tanstack/react-query';
import { ZListOAuthAppsResponse, type TOAuthApp } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

/** GET /api/list_oauthapp: the account's OAuth configs, for the avatar's OAuth setting. */
async function listOAuthConfigs(): Promise<TOAuthApp[]> {
  return (await apiRequest('/api/list_oauthapp', { schema: ZListOAuthAppsResponse })).oauthApps;
}

/** Shares its cache with the OAuth configs page (same key), so a config made there shows here. */
export const oauthConfigsQueryOptions = () => queryOptions({ queryKey: ['oauth-apps', 'list'] as const, queryFn: listOAuthConfigs });

export function useOAuthConfigs(enabled = true) {
  return useQuery({ ...oauthConfigsQueryOptions(), enabled });
}
