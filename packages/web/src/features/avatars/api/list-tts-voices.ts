import { queryOptions, useQuery } from '@tanstack/react-query';
import { TtsLookupKeyNames, ZTtsVoicesResponse, type TTtsVoice, type TTtsVoicesRequest } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { fingerprinted, LOOKUP_STALE_MS } from '../lib/provider-lookups';


/**
 * POST /api/lookups/tts_voices {ttsProvider, the ttsDetails keys, ttsRegion, avatarId?} →
 * {ttsProvider, ttsVoices}. Polly voices come as "Joanna (standard)" / "Joanna (neural)";
 * Default lists the hosted voices and the offline ones (`offline: true`); None lists none.
 * Fails with 'Failed to retrieve voices. Ensure that your keys are valid.' (also for an empty list).
 */
export async function listTtsVoices(request: TTtsVoicesRequest, signal?: AbortSignal): Promise<{ ttsProvider: number; ttsVoices: TTtsVoice[] }> {
  const answer = await apiRequest('/api/lookups/tts_voices', { method: 'POST', body: request, schema: ZTtsVoicesResponse, signal });
  return { ttsProvider: answer.ttsProvider, ttsVoices: answer.ttsVoices };
}

export const ttsVoicesQueryOptions = (request: TTtsVoicesRequest) =>
  queryOptions({
    queryKey: ['avatars', 'lookups', 'tts-voices', fingerprinted(request, TtsLookupKeyNames)],
    queryFn: ({ signal }) => listTtsVoices(request, signal),
    staleTime: LOOKUP_STALE_MS,
    retry: false,
  });

/** The form reloads voices on blur of a key or region field: pass the values as of the last blur. */
export function useTtsVoices(request: TTtsVoicesRequest, isEnabled = true) {
  return useQuery({ ...ttsVoicesQueryOptions(request), enabled: isEnabled });
}
