import { queryOptions, useQuery } from '@tanstack/react-query';
import { ZDeepgramModelsResponse, type TDeepgramModel, type TDeepgramModelsRequest } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { fingerprinted, LOOKUP_STALE_MS } from '../lib/provider-lookups';

/**
 * POST /api/lookups/deepgram_models {sttAPIKey, avatarId?}: Deepgram's speech-to-text models
 * (canonical_name, name, languages). Fails with 'Invalid API Key'.
 */
export async function listDeepgramModels(request: TDeepgramModelsRequest, signal?: AbortSignal): Promise<TDeepgramModel[]> {
  const answer = await apiRequest('/api/lookups/deepgram_models', { method: 'POST', body: request, schema: ZDeepgramModelsResponse, signal });
  return answer.models;
}

export const deepgramModelsQueryOptions = (request: TDeepgramModelsRequest) =>
  queryOptions({
    queryKey: ['avatars', 'lookups', 'deepgram-models', fingerprinted(request, ['sttAPIKey'])],
    queryFn: ({ signal }) => listDeepgramModels(request, signal),
    staleTime: LOOKUP_STALE_MS,
    retry: false,
  });

export function useDeepgramModels(request: TDeepgramModelsRequest, isEnabled = true) {
  return useQuery({ ...deepgramModelsQueryOptions(request), enabled: isEnabled && Boolean(request.sttAPIKey) });
}
