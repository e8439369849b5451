import { z } from 'zod';
import { ZStatus, ZId, TextChecks } from './common.js';
import { ZPlatformSpeechInfo } from './platform-speech.js';
import { TtsLookupKeyNames, TtsProviders, ttsRow, type TTtsLookupKeyName, type TTtsProviderNumber } from './providers.js';

/**
 * Provider look-ups (avatar creator spec sections 4, 7, 8): the Brain tab asks the portal, never a
 * provider, for the models of an LLM base URL, the OpenAI assistants, the voices of a TTS
 * provider, the STT languages, the Deepgram models and whether an ElevenLabs agent is public.
 * Each call carries the key from the form or, when the form holds the masked value, the avatar's
 * id (`avatarId`) so the server uses the stored key (never returned).
 */
export const ProviderLookupMessages = {
  /** STT key errors (spec section 8). */
  invalidSttKey: 'Invalid API Key',
  /** LLM models of a base URL (spec section 8, "internal query error"). */
  invalidUrlOrKey: 'Invalid URL or API Key provided.',
  assistantsFailed: 'Failed to retrieve assistants. Ensure that your key is valid.',
  /** The Assistants API is gone at this base URL (404/410): api.openai.com since 26 August 2026. */
  assistantsGone:
    'This base URL does not offer the Assistants API (OpenAI shut it down on 26 August 2026). Use the prompt interaction type with the assistant’s instructions instead.',
  voicesFailed: 'Failed to retrieve voices. Ensure that your keys are valid.',
  // ElevenLabs agent check (spec section 4, "Third-party agent ID check").
  agentKeyRequired: 'API key required for this agent',
  agentKeyInvalid: 'Invalid API key or insufficient permissions',
  agentNotFound: 'Agent ID not found',
  agentInvalid: 'Invalid agent ID',
  agentCheckFailed: 'An error occurred while validating the agent ID',
} as const;

export const ProviderLookupLimits = {
  urlMax: 2048,
  keyMax: 1000,
  /** ElevenLabs: the check runs from 12 characters of agent id and judges keys from 16. */
  agentIdMin: 12,
  agentIdMax: 100,
  agentKeyMin: 16,
  /** Neuphonic voices are fetched only for keys longer than this (its row's key field). */
  neuphonicKeyMinExclusive: ttsRow('neuphonic').fields[0].lookup.minLengthExclusive,
  regionMax: 40,
  /** Look-ups per user per minute (each one calls a provider). */
  perUserPerMinute: 60,
} as const;

const text = (max: number) => z.string().max(max).check(TextChecks.singleLine());
/** A key as the form holds it: typed, masked (`••••1234`) or empty. */
const key = text(ProviderLookupLimits.keyMax).optional();
/** The avatar whose stored keys a masked value stands for (the caller's own). */
const avatarId = z.optional(ZId);
const region = text(ProviderLookupLimits.regionMax).optional();

export const ZLlmModelsRequest = z.object({ avatarId, url: text(ProviderLookupLimits.urlMax), llmAPIKey: key });
export type TLlmModelsRequest = z.input<typeof ZLlmModelsRequest>;
export const ZLlmModelsResponse = z.object({ status: ZStatus, models: z.array(z.string()) });
export type TLlmModelsResponse = z.infer<typeof ZLlmModelsResponse>;

export const ZLlmAssistantsRequest = z.object({ avatarId, url: text(ProviderLookupLimits.urlMax).optional(), llmAPIKey: key });
export type TLlmAssistantsRequest = z.input<typeof ZLlmAssistantsRequest>;
export const ZLlmAssistant = z.object({ id: z.string(), name: z.string() });
export type TLlmAssistant = z.infer<typeof ZLlmAssistant>;
export const ZLlmAssistantsResponse = z.object({ status: ZStatus, assistants: z.array(ZLlmAssistant) });

/**
 * TTS voices (spec: POST list_voices with ttsProvider and the ttsDetails keys): a provider's
 * keys come in the fields its row's key fields name (`lookup`, providers.ts).
 */
const ttsLookupKeys = Object.fromEntries(TtsLookupKeyNames.map((name) => [name, key])) as { [Name in TTtsLookupKeyName]: typeof key };
// Polly's keys, then the region and speed, then the other providers' keys: the order the fields
// are checked in, so the first message a refused request gets (the one the Brain tab shows).
const { pollyAccessKey, pollySecretKey, ...otherLookupKeys } = ttsLookupKeys;
export const ZTtsVoicesRequest = z.object({
  avatarId,
  ttsProvider: z.union(TtsProviders.map((r) => z.literal(r.number)) as unknown as [z.ZodLiteral<TTtsProviderNumber>, ...z.ZodLiteral<TTtsProviderNumber>[]]),
  default_tts: z.enum(['azure', 'polly', 'offline', '']).optional(),
  pollyAccessKey,
  pollySecretKey,
  ttsRegion: region,
  ttsSpeechSpeed: z.number().min(-1).max(2).optional(),
  ...otherLookupKeys,
  /** Neuphonic: only voices of this language (en, es, de, nl, hi…). */
  lang_code: text(10).optional(),
  setupMode: z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]).optional(),
});
export type TTtsVoicesRequest = z.input<typeof ZTtsVoicesRequest>;
export const ZTtsVoice = z.object({
  /** What goes into `tts.voice_id` (Polly: "Joanna (neural)"). */
  id: z.string(),
  name: z.string(),
  language: z.string().optional(),
  gender: z.string().optional(),
  /** Speaks without any provider (the worker's offline voice). */
  offline: z.boolean().optional(),
});
export type TTtsVoice = z.infer<typeof ZTtsVoice>;
export const ZTtsVoicesResponse = z.object({ status: ZStatus, ttsProvider: z.number(), ttsVoices: z.array(ZTtsVoice) });
export type TTtsVoicesResponse = z.infer<typeof ZTtsVoicesResponse>;

/** STT languages (spec: POST list_voices with sttProvider azure or google). */
export const ZSttLanguagesRequest = z.object({ avatarId, sttProvider: z.enum(['azure', 'google']), sttAPIKey: key, sttRegion: region });
export type TSttLanguagesRequest = z.input<typeof ZSttLanguagesRequest>;
export const ZSttLanguage = z.object({ code: z.string(), name: z.string(), models: z.array(z.string()).optional(), locations: z.array(z.string()).optional() });
export type TSttLanguage = z.infer<typeof ZSttLanguage>;
export const ZSttLanguagesResponse = z.object({ status: ZStatus, sttProvider: z.string(), languages: z.array(ZSttLanguage) });

export const ZDeepgramModelsRequest = z.object({ avatarId, sttAPIKey: key });
export type TDeepgramModelsRequest = z.input<typeof ZDeepgramModelsRequest>;
export const ZDeepgramModel = z.object({ name: z.string(), canonical_name: z.string(), languages: z.array(z.string()) });
export type TDeepgramModel = z.infer<typeof ZDeepgramModel>;
export const ZDeepgramModelsResponse = z.object({ status: ZStatus, models: z.array(ZDeepgramModel) });

/** The ElevenLabs Conversational AI agent check; `idle` and `checking` are the form's own states. */
export const ElevenLabsAgentStates = ['idle', 'checking', 'public', 'private', 'invalid_agent_id', 'invalid_api_key'] as const;
export type TElevenLabsAgentState = (typeof ElevenLabsAgentStates)[number];
export const ZElevenLabsAgentCheckRequest = z.object({
  avatarId,
  agent_id: z
    .string()
    .trim()
    .min(ProviderLookupLimits.agentIdMin, ProviderLookupMessages.agentInvalid)
    .max(ProviderLookupLimits.agentIdMax, ProviderLookupMessages.agentInvalid)
    .regex(/^[A-Za-z0-9_-]+$/, ProviderLookupMessages.agentInvalid),
  api_key: key,
  connection_type: z.enum(['webrtc', 'websocket']).optional(),
});
export type TElevenLabsAgentCheckRequest = z.input<typeof ZElevenLabsAgentCheckRequest>;
export const ZElevenLabsAgentCheckResponse = z.object({
  status: ZStatus,
  state: z.enum(['public', 'private', 'invalid_agent_id', 'invalid_api_key']),
  message: z.string().optional(),
});
export type TElevenLabsAgentCheckResponse = z.infer<typeof ZElevenLabsAgentCheckResponse>;

/**
 * GET /api/lookups/platform: whether this server runs the product's own services an avatar can
 * use without keys of its own — the language model of Simple mode (PLATFORM_LLM_URL) and the
 * speech-to-speech realtime (REALTIME_API_KEY on a connected worker), and which voice and
 * recogniser its own speech uses. The Brain tab says so when an avatar relies on one that is
 * missing, and names what the visitor will hear.
 */
export const ZPlatformServicesResponse = z.object({
  status: ZStatus,
  llm: z.boolean(),
  realtime: z.boolean(),
  /** The operator's hosted voice and speech to text (PLATFORM_TTS_*, PLATFORM_STT_*; null: offline): what the visitor hears. */
  ...ZPlatformSpeechInfo.shape,
});
export type TPlatformServicesResponse = z.infer<typeof ZPlatformServicesResponse>;

export const PlatformServiceMessages = {
  llmMissing: 'Persona Studio’s own language model is not set up on this server yet, so this avatar cannot answer. Choose Composite mode and your own provider, or ask the administrator to configure it.',
  realtimeMissing:
    'Persona Studio’s own realtime is not set up on this server yet, so this avatar cannot answer without an API key. Enter your own key, or ask the administrator to configure it.',
} as const;
