import { queryOptions, useQuery } from '@tanstack/react-query';
import { ZLlmModelsResponse, type TLlmModelsRequest } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { fingerprinted, LOOKUP_STALE_MS } from '../lib/provider-lookups';

/**
 * POST /api/lookups/llm_models {url, llmAPIKey, avatarId?}: the models of an LLM base URL
 * (OpenAI-style `GET /models`, Gemini `models?key=`), called by the server. A masked key with
 * `avatarId` uses the avatar's stored key. Fails with 'Invalid URL or API Key provided.'
 */
export async function listLlmModels(request: TLlmModelsRequest, signal?: AbortSignal): Promise<string[]> {
  const answer = await apiRequest('/api/lookups/llm_models', { method: 'POST', body: request, schema: ZLlmModelsResponse, signal });
  return answer.models;
}

export const llmModelsQueryOptions = (request: TLlmModelsRequest) =>
  queryOptions({
    queryKey: ['avatars', 'lookups', 'llm-models', fingerprinted(request, ['llmAPIKey'])],
    queryFn: ({ signal }) => listLlmModels(request, signal),
    staleTime: LOOKUP_STALE_MS,
    retry: false,
  });

/** Runs once a base URL and a key are there (`isEnabled` lets the form wait for blur). */
export function useLlmModels(request: TLlmModelsRequest, isEnabled = true) {
  return useQuery({ ...llmModelsQueryOptions(request), enabled: isEnabled && Boolean(request.url && request.llmAPIKey) });
}
