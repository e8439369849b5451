import { queryOptions, useQuery } from '@tanstack/react-query';
import type { TConfigDocument } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';

export type { TConfigDocument };

/**
 * GET a config file (avatar config with its ParentConfig, or client config). `updated` busts
 * caches between saves, as the spec's client-config read does.
 */
export async function getConfigFile(url: string, updated?: string): Promise<TConfigDocument> {
  const answer = await apiRequest<unknown>(url, { auth: 'none', query: updated ? { updated } : undefined });
  return answer && typeof answer === 'object' && !Array.isArray(answer) ? (answer as TConfigDocument) : {};
}

export const configFileQueryOptions = (url: string | undefined, updated?: string) =>
  queryOptions({
    queryKey: ['avatars', 'config-file', url, updated],
    queryFn: () => getConfigFile(url!, updated),
    enabled: Boolean(url),
    retry: false,
  });

export function useConfigFile(url: string | undefined, updated?: string) {
  return useQuery(configFileQueryOptions(url, updated));
}
