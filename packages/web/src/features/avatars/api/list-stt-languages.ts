import { queryOptions, useQuery } from '@tanstack/react-query';
import { ZSttLanguagesResponse, type TSttLanguage, type TSttLanguagesRequest } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { fingerprinted, LOOKUP_STALE_MS } from '../lib/provider-lookups';

/**
 * POST /api/lookups/stt_languages {sttProvider: 'azure'|'google', sttAPIKey?, sttRegion?, avatarId?}:
 * Azure's locales for a key and region; Google's languages with their models and locations
 * (no key needed). Fails with 'Invalid API Key'.
 */
export async function listSttLanguages(request: TSttLanguagesRequest, signal?: AbortSignal): Promise<TSttLanguage[]> {
  const answer = await apiRequest('/api/lookups/stt_languages', { method: 'POST', body: request, schema: ZSttLanguagesResponse, signal });
  return answer.languages;
}

export const sttLanguagesQueryOptions = (request: TSttLanguagesRequest) =>
  queryOptions({
    queryKey: ['avatars', 'lookups', 'stt-languages', fingerprinted(request, ['sttAPIKey'])],
    queryFn: ({ signal }) => listSttLanguages(request, signal),
    staleTime: request.sttProvider === 'google' ? Infinity : LOOKUP_STALE_MS,
    retry: false,
  });

export function useSttLanguages(request: TSttLanguagesRequest, isEnabled = true) {
  return useQuery({ ...sttLanguagesQueryOptions(request), enabled: isEnabled && (request.sttProvider === 'google' || Boolean(request.sttAPIKey && request.sttRegion)) });
}
