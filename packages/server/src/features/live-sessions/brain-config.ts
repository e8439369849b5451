import { DefaultLlmInstruction, everyFieldRead, LiveCode, NlpEngine, RealtimeBaseUrls, RealtimeModels, RealtimeVoices, type TAvatarBrain, type TAvatarConfig, type TLiveBrainConfig } from '@persona/contract';

/** The operator's model for Simple mode (PLATFORM_LLM_*); null when not configured. */
export interface PlatformLlm {
  baseUrl: string;
  apiKey: string;
  model: string;
}

/**
 * An avatar's stored configuration (contract `readAvatarConfig`, secrets already opened) as what a
 * worker's brain needs (contract ZLiveBrainConfig). Engines a worker cannot run answer
 * `unavailable` with the code the page shows. Each engine's settings are handed on whole: every
 * field of its section is named here (`everyFieldRead`), so a field added to the contract's
 * section is a compile error until it is passed on or said to be unused.
 */
export function brainConfig(avatar: { nlpEngine: number; setupMode: number; config: TAvatarConfig }, platform: PlatformLlm | null): TLiveBrainConfig {
  const { brain, session } = avatar.config;
  const { baseUrl, apiKey, model, instructions: ownInstructions, assistantId, maxTokens, ...llmRest } = brain.llm;
  everyFieldRead(llmRest);
  const instructions = ownInstructions || DefaultLlmInstruction;
  switch (avatar.nlpEngine) {
    case NlpEngine.EchoTest:
      return { kind: 'echo' };
    case NlpEngine.LargeLanguageModel:
    case NlpEngine.CustomChatGPTPrompt: {
      // Simple mode runs the operator's platform model; Composite the avatar's own provider.
      if (avatar.setupMode === 0 || !baseUrl) {
        if (!platform) return { kind: 'unavailable', code: LiveCode.platformNotConfigured, detail: 'PLATFORM_LLM_URL is not set on this server' };
        return { kind: 'llm', baseUrl: platform.baseUrl, apiKey: platform.apiKey, model: platform.model, instructions, maxTokens, platform: true };
      }
      return { kind: 'llm', baseUrl, apiKey, model: model || 'gpt-4o-mini', instructions, maxTokens, platform: false };
    }
    case NlpEngine.CustomChatGPTAssistant:
      return { kind: 'assistant', baseUrl: baseUrl || 'https://api.openai.com/v1', apiKey, assistantId, instructions: ownInstructions, maxTokens };
    case NlpEngine.RestEndpoint: {
      const { url, apiKey: restKey, customText, agentLanguage, ...rest } = brain.rest;
      everyFieldRead(rest);
      return { kind: 'rest', url, apiKey: restKey, customText, agentLanguage: agentLanguage || 'en', sendChatHistory: session.sendChatHistory };
    }
    case NlpEngine.DialogflowES:
    case NlpEngine.DialogflowCX: {
      const { projectId, agentId, regionId, agentLanguage, jsonKey, jsonKeyBase64, ...rest } = brain.dialogflow;
      everyFieldRead(rest);
      return {
        kind: 'dialogflow',
        version: avatar.nlpEngine === NlpEngine.DialogflowES ? 'es' : 'cx',
        projectId,
        agentId,
        regionId: regionId || 'global',
        language: agentLanguage || 'en',
        serviceAccountJson: jsonKey || (jsonKeyBase64 ? Buffer.from(jsonKeyBase64, 'base64').toString('utf8') : ''),
      };
    }
    case NlpEngine.TrulienceRealtime:
      return realtimeConfig(brain.realtime, session.wakeUpMessage.trim());
    // Bring your own agent (ADR 072): the customer's agent joins over the agent API.
    case NlpEngine.Ten:
    case NlpEngine.CUSTOM_STT_LLM_TTS:
      return { kind: 'agent', framework: avatar.nlpEngine === NlpEngine.Ten ? 'ten' : 'custom', greeting: session.wakeUpMessage.trim() };
    case NlpEngine.ElevenLabsConversationAI:
      return elevenLabsConfig(brain.thirdParty);
    default:
      return { kind: 'unavailable', code: LiveCode.providerError, detail: `engine ${avatar.nlpEngine} does not run on this server yet` };
  }
}

/**
 * SpeechToSpeech (engine 9) from `speech_to_speech` and the realtime part of `vad_options`. No key
 * stored: the product's own realtime (OpenAI, the worker's operator key). A Gemini URL with a key
 * is Gemini Live. A voice or model of the other provider's catalogue (the URL was switched and the
 * rest left) falls back to this provider's first.
 */
function realtimeConfig(realtime: TAvatarBrain['realtime'], wakeUpMessage: string): TLiveBrainConfig {
  const { url, apiKey, model, voice, instructions, greeting, vad, ...rest } = realtime;
  everyFieldRead(rest);
  const provider = apiKey && /generativelanguage\.googleapis\.com/i.test(url) ? 'gemini' : 'openai';
  const other = provider === 'gemini' ? 'openai' : 'gemini';
  const own = (value: string, lists: Record<'openai' | 'gemini', readonly string[]>, foreign?: RegExp) =>
    value && !lists[other].some((v) => v.toLowerCase() === value.toLowerCase()) && !foreign?.test(value) ? value : lists[provider][0]!;
  return {
    kind: 'realtime',
    provider,
    url: apiKey ? url || RealtimeBaseUrls[0].url : '',
    apiKey,
    platform: !apiKey,
    model: own(model, RealtimeModels, provider === 'gemini' ? /^gpt-/i : /^(models\/)?gemini-/i),
    voice: own(voice, RealtimeVoices),
    instructions: instructions || DefaultLlmInstruction,
    greeting: greeting || wakeUpMessage,
    vad,
  };
}

/**
 * None mode with ElevenLabs Conversational AI (engine 11) from `third_party`. A public agent needs
 * no key; without a key there is nothing else to try. The agent's own first message (set at
 * ElevenLabs) is the greeting: the wake-up message is not asked for on top of it.
 */
function elevenLabsConfig(third: TAvatarBrain['thirdParty']): TLiveBrainConfig {
  const { agentId, apiKey, isPublic, connectionType, ...rest } = third;
  everyFieldRead(rest);
  if (!agentId) return { kind: 'unavailable', code: LiveCode.providerError, detail: 'no ElevenLabs agent id is set' };
  return { kind: 'elevenlabs', agentId, apiKey, isPublic: isPublic || !apiKey, connectionType, greeting: '' };
}
