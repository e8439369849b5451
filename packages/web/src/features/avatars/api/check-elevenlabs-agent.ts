import { queryOptions, useQuery } from '@tanstack/react-query';
import { ProviderLookupLimits, ZElevenLabsAgentCheckResponse, type TElevenLabsAgentCheckRequest, type TElevenLabsAgentCheckResponse } from '@persona/contract';
import { apiRequest } from '../../../lib/api-client';
import { fingerprinted } from '../lib/provider-lookups';

export type TElevenLabsAgentCheck = Omit<TElevenLabsAgentCheckResponse, 'status'>;

/**
 * POST /api/lookups/elevenlabs_agent {agent_id, api_key?, connection_type?, avatarId?}: the
 * server asks ElevenLabs for a conversation token without a key (public) and then with it
 * (private) → state public | private | invalid_api_key | invalid_agent_id with the spec's message.
 */
export async function checkElevenLabsAgent(request: TElevenLabsAgentCheckRequest, signal?: AbortSignal): Promise<TElevenLabsAgentCheck> {
  const answer = await apiRequest('/api/lookups/elevenlabs_agent', { method: 'POST', body: request, schema: ZElevenLabsAgentCheckResponse, signal });
  return answer.message === undefined ? { state: answer.state } : { state: answer.state, message: answer.message };
}

export const elevenLabsAgentQueryOptions = (request: TElevenLabsAgentCheckRequest) =>
  queryOptions({
    queryKey: ['avatars', 'lookups', 'elevenlabs-agent', fingerprinted(request, ['api_key'])],
    queryFn: ({ signal }) => checkElevenLabsAgent(request, signal),
    staleTime: 30_000,
    retry: false,
  });

/**
 * Pass the agent id after the form's 500 ms debounce; ids under 12 characters are the form's
 * `idle` state and make no call, a fetching query is its `checking` state.
 */
export function useElevenLabsAgentCheck(request: TElevenLabsAgentCheckRequest, isEnabled = true) {
  return useQuery({ ...elevenLabsAgentQueryOptions(request), enabled: isEnabled && request.agent_id.trim().length >= ProviderLookupLimits.agentIdMin });
}
