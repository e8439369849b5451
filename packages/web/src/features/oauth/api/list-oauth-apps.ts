import { queryOptions, useQuery } from '@tanstack/react-query';
import { ZListOAuthAppsResponse, type TOAuthApp } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

/** GET /api/list_oauthapp: the account's OAuth configs (client secrets masked). */
export async function listOAuthApps(): Promise<TOAuthApp[]> {
  return (await apiRequest('/api/list_oauthapp', { schema: ZListOAuthAppsResponse })).oauthApps;
}

export const oauthAppsQueryKey = ['oauth-apps', 'list'] as const;

export const oauthAppsQueryOptions = () => queryOptions({ queryKey: oauthAppsQueryKey, queryFn: listOAuthApps });

export function useOAuthApps() {
  return useQuery(oauthAppsQueryOptions());
}
