import { isMasked, ProviderLookupLimits, ProviderLookupMessages, type TElevenLabsAgentState } from '@persona/contract';

/*
 * The ElevenLabs agent check's messages (spec section 4, "Third-party agent ID check"). Apart from
 * lib/brain-form.ts so that the editor's own chunk does not carry the look-up contract: only the
 * Brain tab's chunk needs it.
 */

/** The ElevenLabs check's message for a state (spec section 4, "Third-party agent ID check"). */
export function agentCheckMessage(state: TElevenLabsAgentState, apiKey: string, serverMessage?: string): string {
  if (state === 'invalid_api_key') {
    return !apiKey || (!isMasked(apiKey) && apiKey.length < ProviderLookupLimits.agentKeyMin) ? ProviderLookupMessages.agentKeyRequired : ProviderLookupMessages.agentKeyInvalid;
  }
  if (state === 'invalid_agent_id') return serverMessage || ProviderLookupMessages.agentInvalid;
  return '';
}

/** The API key field is shown only for private or invalid_api_key. */
export const showsAgentKey = (status: TElevenLabsAgentState) => status === 'private' || status === 'invalid_api_key';

