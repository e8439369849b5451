import { queryOptions, useQuery } from '@tanstack/react-query';
import { ZLlmAssistantsResponse, type TLlmAssistant, type TLlmAssistantsRequest } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { fingerprinted, LOOKUP_STALE_MS } from '../lib/provider-lookups';

/**
 * POST /api/lookups/llm_assistants {url?, llmAPIKey, avatarId?}: the key's OpenAI assistants
 * (Assistants API v2, newest first, at most 100). Fails with 'Failed to retrieve assistants.
 * Ensure that your key is valid.', or — reason `assistants-gone` — with the message that the base
 * URL no longer offers the Assistants API (api.openai.com since 26 August 2026).
 */
export async function listLlmAssistants(request: TLlmAssistantsRequest, signal?: AbortSignal): Promise<TLlmAssistant[]> {
  const answer = await apiRequest('/api/lookups/llm_assistants', { method: 'POST', body: request, schema: ZLlmAssistantsResponse, signal });
  return answer.assistants;
}

export const llmAssistantsQueryOptions = (request: TLlmAssistantsRequest) =>
  queryOptions({
    queryKey: ['avatars', 'lookups', 'llm-assistants', fingerprinted(request, ['llmAPIKey'])],
    queryFn: ({ signal }) => listLlmAssistants(request, signal),
    staleTime: LOOKUP_STALE_MS,
    retry: false,
  });

/** For the 'assistant' interaction type (Composite, non-realtime, OpenAI base URL). */
export function useLlmAssistants(request: TLlmAssistantsRequest, isEnabled = true) {
  return useQuery({ ...llmAssistantsQueryOptions(request), enabled: isEnabled && Boolean(request.llmAPIKey) });
}
