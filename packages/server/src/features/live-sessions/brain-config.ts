import { DefaultLlmInstruction, LiveCode, NlpEngine, RealtimeBaseUrls, RealtimeModels, RealtimeVadDefaults, RealtimeVoices, type TLiveBrainConfig } from '@persona/contract';

/** The operator's model for Simple mode (PLATFORM_LLM_*); null when not configured. */
export interface PlatformLlm {
  baseUrl: string;
  apiKey: string;
  model: string;
}

type Obj = Record<string, unknown>;
const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const positiveInt = (v: unknown): number | null => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() ? Number(v) : Number.NaN;
  return Number.isInteger(n) && n > 0 && n <= 1_000_000 ? n : null;
};

/** The LLM settings of an avatar's agent pipeline. */
export function llmSettings(config: Obj): Obj {
  return obj(obj(obj(config.customData).agent_pipeline_config).llm);
}

/**
 * Normalises an avatar's stored configuration (secrets already opened) into what a worker's brain
 * needs (contract ZLiveBrainConfig). Engines a worker cannot run answer `unavailable`
 * with the code the page shows.
 */
export function brainConfig(avatar: { nlpEngine: number; setupMode: number; config: Obj }, platform: PlatformLlm | null): TLiveBrainConfig {
  const c = avatar.config;
  const llm = llmSettings(c);
  const instructions = str(llm.instructions) || DefaultLlmInstruction;
  const maxTokens = positiveInt(llm.max_tokens);
  switch (avatar.nlpEngine) {
    case NlpEngine.EchoTest:
      return { kind: 'echo' };
    case NlpEngine.LargeLanguageModel:
    case NlpEngine.CustomChatGPTPrompt: {
      // Simple mode runs the operator's platform model; Composite the avatar's own provider.
      if (avatar.setupMode === 0 || !str(llm.base_url)) {
        if (!platform) return { kind: 'unavailable', code: LiveCode.platformNotConfigured, detail: 'PLATFORM_LLM_URL is not set on this server' };
        return { kind: 'llm', baseUrl: platform.baseUrl, apiKey: platform.apiKey, model: platform.model, instructions, maxTokens, platform: true };
      }
      return { kind: 'llm', baseUrl: str(llm.base_url), apiKey: str(llm.api_key), model: str(llm.model) || 'gpt-4o-mini', instructions, maxTokens, platform: false };
    }
    case NlpEngine.CustomChatGPTAssistant:
      return {
        kind: 'assistant',
        baseUrl: str(llm.base_url) || 'https://api.openai.com/v1',
        apiKey: str(llm.api_key),
        assistantId: str(llm.assistant_id),
        instructions: str(llm.instructions),
        maxTokens,
      };
    case NlpEngine.RestEndpoint:
      return {
        kind: 'rest',
        url: str(c.restEndPointURL),
        apiKey: str(c.restApiKey),
        customText: str(llm.custom_text),
        agentLanguage: str(c.agentLanguage) || 'en',
        sendChatHistory: c.sendChatHistory === true,
      };
    case NlpEngine.DialogflowES:
    case NlpEngine.DialogflowCX: {
      const base64 = str(c.jsonKeyBase64);
      let serviceAccountJson = str(c.jsonKey);
      if (!serviceAccountJson && base64) serviceAccountJson = Buffer.from(base64, 'base64').toString('utf8');
      return {
        kind: 'dialogflow',
        version: avatar.nlpEngine === NlpEngine.DialogflowES ? 'es' : 'cx',
        projectId: str(c.projectId),
        agentId: str(c.agentId),
        regionId: str(c.regionId) || 'global',
        language: str(c.agentLanguage) || 'en',
        serviceAccountJson,
      };
    }
    case NlpEngine.TrulienceRealtime:
      return realtimeConfig(c);
    // Bring your own agent (ADR 072): the customer's agent joins over the agent API.
    case NlpEngine.Ten:
    case NlpEngine.CUSTOM_STT_LLM_TTS:
      return { kind: 'agent', framework: avatar.nlpEngine === NlpEngine.Ten ? 'ten' : 'custom', greeting: str(c.wakeUpMessage) };
    case NlpEngine.ElevenLabsConversationAI:
      return elevenLabsConfig(c);
    default:
      return { kind: 'unavailable', code: LiveCode.providerError, detail: `engine ${avatar.nlpEngine} does not run on this server yet` };
  }
}

const numberIn = (v: unknown, min: number, max: number, fallback: number): number => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() ? Number(v) : Number.NaN;
  return Number.isFinite(n) && n >= min && n <= max ? n : fallback;
};

/**
 * SpeechToSpeech (engine 9) from `speech_to_speech` and the realtime part of `vad_options`. No key
 * stored: the product's own realtime (OpenAI, the worker's operator key). A Gemini URL with a key
 * is Gemini Live. A voice or model of the other provider's catalogue (the URL was switched and the
 * rest left) falls back to this provider's first.
 */
function realtimeConfig(c: Obj): TLiveBrainConfig {
  const pipeline = obj(obj(c.customData).agent_pipeline_config);
  const s2s = obj(pipeline.speech_to_speech);
  const vad = obj(pipeline.vad_options);
  const apiKey = str(s2s.api_key);
  const url = str(s2s.url);
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
    model: own(str(s2s.model), RealtimeModels, provider === 'gemini' ? /^gpt-/i : /^(models\/)?gemini-/i),
    voice: own(str(s2s.voice_id), RealtimeVoices),
    instructions: str(s2s.instructions) || DefaultLlmInstruction,
    greeting: str(s2s.greeting) || str(c.wakeUpMessage),
    vad: {
      threshold: numberIn(vad.threshold, 0, 1, RealtimeVadDefaults.threshold),
      prefixPaddingMs: Math.round(numberIn(vad.prefix_padding_ms, 0, 10_000, RealtimeVadDefaults.prefix_padding_ms)),
      silenceDurationMs: Math.round(numberIn(vad.silence_duration_ms, 0, 10_000, RealtimeVadDefaults.silence_duration_ms)),
    },
  };
}

/**
 * None mode with ElevenLabs Conversational AI (engine 11) from `third_party`. A public agent needs
 * no key; without a key there is nothing else to try. The agent's own first message (set at
 * ElevenLabs) is the greeting: the wake-up message is not asked for on top of it.
 */
function elevenLabsConfig(c: Obj): TLiveBrainConfig {
  const third = obj(obj(obj(c.customData).agent_pipeline_config).third_party);
  const agentId = str(third.agent_id);
  if (!agentId) return { kind: 'unavailable', code: LiveCode.providerError, detail: 'no ElevenLabs agent id is set' };
  const apiKey = str(third.api_key);
  return {
    kind: 'elevenlabs',
    agentId,
    apiKey,
    isPublic: third.is_public === true || !apiKey,
    connectionType: third.connection_type === 'websocket' ? 'websocket' : 'webrtc',
    greeting: '',
  };
}
