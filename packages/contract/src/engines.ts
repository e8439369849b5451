/**
 * One row per engine (avatar creator spec sections 3, 4, 5 "Engine forms" and "Enumerations"):
 * the number stored as `nlpEngine`, its name, the setup modes that offer it, the fields its form
 * asks for with the spec's messages, its secrets, the URLs the server or a worker will call for
 * it, and the kind of brain a live session builds for it. `NlpEngine`, `NlpEngineName`,
 * `EnginesPerMode` (avatars.ts), the engine rules (engine-rules.ts, for the editor and the save)
 * and the save's outbound-URL check are read from these rows. Beside them, one row per LLM base
 * URL of the catalogue and per realtime provider (`LlmBaseUrls`, `RealtimeBaseUrls`,
 * `RealtimeVoices`, `RealtimeModels` in catalog.ts are read from them).
 *
 * Imports only brain.ts (messages): avatars.ts imports this file.
 */
import { EngineMessages as M, type OutboundUrlFields } from './brain.js';

/** Said when a save would send a kept engine key to another URL (avatar-secrets.ts). */
export const EngineSecretMessages = {
  restKeyAgain: 'REST API Key is required again when the REST Endpoint URL changes',
  llmKeyAgain: 'LLM API Key is required again when the LLM Base URL changes',
  realtimeKeyAgain: 'Realtime API Key is required again when the Realtime URL changes',
} as const;
const S = EngineSecretMessages;

/** The setup modes' numbers (contract SetupMode, avatars.ts). */
const MODE = { Simple: 0, Composite: 1, SpeechToSpeech: 2, None: 3 } as const;
type TModeNumber = (typeof MODE)[keyof typeof MODE];

const P = 'customData.agent_pipeline_config';

/**
 * A field of an engine's settings that its form asks for, checked in row order.
 * - `stored`: its dotted path in the avatar (the save's payload, the stored configuration);
 *   `form`: the Brain tab's form field (BrainValues), where the message goes.
 * - `required`: the message when it is blank (a secret: when none is given, see
 *   engine-rules.ts); `optionalIn`: setup modes where it is not required (Simple runs the
 *   product's own model); `requiredWhen: 'assistant'`: only when the form runs an OpenAI assistant.
 * - `boolean`: the message when the value is not true or false (avatar memory).
 * - `rule`: a check of a given value, with its message: `httpUrl`, `httpOrWsUrl`,
 *   `maxTokens` (a whole number above 0, at most EngineLimits.maxTokensMax), `serviceAccountJson`
 *   (a new key must be a service-account key file); `elevenLabsAgentId` and `elevenLabsAgentKey`
 *   are the ElevenLabs agent's own checks (engine-rules.ts).
 * - `secret`: a key (sealed at rest, masked when read); `alsoStored`: another path that holds
 *   the same key (Dialogflow's base64 key file); `messageAgain`: the key is bound to the row's
 *   outbound URLs, and this is said when a save would send the kept key to another one (a key
 *   without it goes to the provider's own host whatever the avatar says).
 * - `outboundUrl`: a URL the server or a worker calls (the save's outbound-URL check, OutboundUrlFields).
 */
export interface TEngineField {
  stored: string;
  form: string;
  required?: string;
  optionalIn?: readonly number[];
  requiredWhen?: 'assistant';
  boolean?: string;
  rule?: { test: 'httpUrl' | 'httpOrWsUrl' | 'maxTokens' | 'serviceAccountJson' | 'elevenLabsAgentId' | 'elevenLabsAgentKey'; message: string };
  secret?: { alsoStored?: readonly string[]; messageAgain?: string };
  outboundUrl?: keyof typeof OutboundUrlFields;
}

/** What a live session runs for an engine (contract ZLiveBrainConfig's `kind`; server live-sessions/brain-config.ts). */
export type TBrainKind = 'echo' | 'llm' | 'assistant' | 'rest' | 'dialogflow' | 'realtime' | 'agent' | 'elevenlabs';

/**
 * One engine.
 * - `key`: its name in the enum (`NlpEngine.DialogflowCX`); `number`: the spec's stored number
 *   (never changes); `name`: the editor's and the avatar list's name.
 * - `modes`: the setup modes whose engine menu offers it (spec "Engines per mode");
 *   `menuOrder`: its place in those menus. An engine in no mode is one a stored avatar may
 *   still carry (the older prompt and assistant engines, shown as LLM).
 * - `fields`: what its form asks for, in the order the rules report them.
 * - `brain`: the brain a live session builds for it.
 */
export interface TEngineRow {
  key: string;
  number: number;
  name: string;
  modes: readonly TModeNumber[];
  menuOrder?: number;
  fields: readonly TEngineField[];
  brain: TBrainKind;
}

const LLM_URL = { stored: `${P}.llm.base_url`, form: 'llmDetails.url', required: M.llmUrlRequired, rule: { test: 'httpUrl', message: M.notAValidUrl }, outboundUrl: 'llmBaseUrl' } as const;
const LLM_MODEL = { stored: `${P}.llm.model`, form: 'llmDetails.llmModel', required: M.llmModelRequired } as const;
const LLM_KEY = { stored: `${P}.llm.api_key`, form: 'llmDetails.llmAPIKey', required: M.llmKeyRequired, optionalIn: [MODE.Simple], secret: { messageAgain: S.llmKeyAgain } } as const;
const LLM_ASSISTANT = { stored: `${P}.llm.assistant_id`, form: 'llmDetails.llmAssistantId', required: M.assistantRequired } as const;
const LLM_MEMORY = { stored: `${P}.llm.summary_enabled`, form: 'llmDetails.summaryEnabled', boolean: M.memoryRequired } as const;
const LLM_MAX_TOKENS = { stored: `${P}.llm.max_tokens`, form: 'llmDetails.llmMaxTokens', rule: { test: 'maxTokens', message: M.maxTokens } } as const;
/** The LLM engines' fields: the assistant only when the form runs one (the prompt engines), or always (the assistant engine, which asks no model). */
const LLM_FIELDS = [LLM_URL, LLM_MODEL, LLM_KEY, { ...LLM_ASSISTANT, requiredWhen: 'assistant' }, LLM_MEMORY, LLM_MAX_TOKENS] as const;

const DIALOGFLOW_FIELDS = [
  { stored: 'projectId', form: 'dialogFlow.project_id', required: M.dialogflowProjectRequired },
  {
    stored: 'jsonKey',
    form: 'dialogFlow.api_key',
    required: M.dialogflowKeyRequired,
    rule: { test: 'serviceAccountJson', message: M.dialogflowKeyInvalid },
    secret: { alsoStored: ['jsonKeyBase64'] },
  },
] as const;

export const NlpEngines = [
  { key: 'EchoTest', number: 0, name: 'Echo Test', modes: [MODE.Simple, MODE.Composite], menuOrder: 1, fields: [], brain: 'echo' },
  {
    key: 'RestEndpoint',
    number: 1,
    name: 'REST Endpoint',
    modes: [MODE.Simple, MODE.Composite],
    menuOrder: 3,
    fields: [
      { stored: 'restEndPointURL', form: 'restEndpoint.base_url', required: M.restUrlRequired, rule: { test: 'httpUrl', message: M.notAValidUrl }, outboundUrl: 'restEndpointUrl' },
      { stored: 'restApiKey', form: 'restEndpoint.api_key', required: M.restKeyRequired, secret: { messageAgain: S.restKeyAgain } },
      { stored: `${P}.llm.summary_enabled`, form: 'restEndpoint.summary_enabled', boolean: M.memoryRequired },
    ],
    brain: 'rest',
  },
  { key: 'DialogflowES', number: 2, name: 'Google Dialogflow ES', modes: [MODE.Composite], menuOrder: 5, fields: DIALOGFLOW_FIELDS, brain: 'dialogflow' },
  {
    key: 'DialogflowCX',
    number: 3,
    name: 'Google Dialogflow CX',
    modes: [MODE.Composite],
    menuOrder: 4,
    fields: [
      ...DIALOGFLOW_FIELDS,
      { stored: 'agentId', form: 'dialogFlow.agent_id', required: M.dialogflowAgentRequired },
      { stored: 'regionId', form: 'dialogFlow.region_id', required: M.dialogflowRegionRequired },
    ],
    brain: 'dialogflow',
  },
  // The older prompt and assistant engines: no menu offers them (the editor shows them as LLM), stored avatars still run them.
  { key: 'CustomChatGPTPrompt', number: 6, name: 'Custom ChatGPT Prompt', modes: [], fields: LLM_FIELDS, brain: 'llm' },
  {
    key: 'CustomChatGPTAssistant',
    number: 7,
    name: 'Custom ChatGPT Assistant',
    modes: [],
    fields: [LLM_URL, { stored: LLM_MODEL.stored, form: LLM_MODEL.form }, LLM_KEY, LLM_ASSISTANT, LLM_MEMORY, LLM_MAX_TOKENS],
    brain: 'assistant',
  },
  { key: 'Ten', number: 8, name: 'TEN', modes: [MODE.None], menuOrder: 6, fields: [], brain: 'agent' },
  {
    key: 'TrulienceRealtime',
    number: 9,
    name: 'Persona Studio Realtime',
    modes: [MODE.SpeechToSpeech],
    menuOrder: 1,
    fields: [
      { stored: `${P}.speech_to_speech.url`, form: 'trulienceRealtime.url', required: M.realtimeUrlRequired, rule: { test: 'httpOrWsUrl', message: M.notAValidUrl }, outboundUrl: 'realtimeUrl' },
      { stored: `${P}.speech_to_speech.api_key`, form: 'trulienceRealtime.api_key', required: M.realtimeKeyRequired, secret: { messageAgain: S.realtimeKeyAgain } },
      { stored: `${P}.speech_to_speech.model`, form: 'trulienceRealtime.model', required: M.realtimeModelRequired },
      { stored: `${P}.speech_to_speech.voice_id`, form: 'trulienceRealtime.voice_id', required: M.realtimeVoiceRequired },
    ],
    brain: 'realtime',
  },
  { key: 'LargeLanguageModel', number: 10, name: 'Large Language Model', modes: [MODE.Simple, MODE.Composite], menuOrder: 2, fields: LLM_FIELDS, brain: 'llm' },
  {
    key: 'ElevenLabsConversationAI',
    number: 11,
    name: 'ElevenLabs Conversational AI',
    modes: [MODE.None],
    menuOrder: 7,
    fields: [
      { stored: `${P}.third_party.agent_id`, form: 'elevenLabsConversationAI.agent_id', required: M.agentIdRequired, rule: { test: 'elevenLabsAgentId', message: M.agentIdInvalid } },
      { stored: `${P}.third_party.api_key`, form: 'elevenLabsConversationAI.api_key', secret: {}, rule: { test: 'elevenLabsAgentKey', message: M.agentKeyInvalid } },
    ],
    brain: 'elevenlabs',
  },
  { key: 'CUSTOM_STT_LLM_TTS', number: 12, name: 'Custom STT/LLM/TTS', modes: [MODE.None], menuOrder: 8, fields: [], brain: 'agent' },
] as const satisfies readonly TEngineRow[];

type TEngineRows = typeof NlpEngines;
/** `{ [row.key]: row.number }`, with the literal types (NlpEngine.DialogflowCX is the type 3). */
export type TEngineEnum = { readonly [Row in TEngineRows[number] as Row['key']]: Row['number'] };
export type TNlpEngineNumber = TEngineRows[number]['number'];

export const engineEnum = (): TEngineEnum => Object.fromEntries(NlpEngines.map((r) => [r.key, r.number])) as TEngineEnum;
export const engineNames = (): Record<TNlpEngineNumber, string> => Object.fromEntries(NlpEngines.map((r) => [r.number, r.name])) as Record<TNlpEngineNumber, string>;
/** The engines a setup mode's menu offers, in menu order. */
export const enginesOfMode = (mode: number): TNlpEngineNumber[] =>
  (NlpEngines as readonly TEngineRow[])
    .filter((r) => (r.modes as readonly number[]).includes(mode))
    .sort((a, b) => (a.menuOrder ?? 0) - (b.menuOrder ?? 0))
    .map((r) => r.number as TNlpEngineNumber);

/** The row of an engine number (undefined for a number no row has). */
export function engineRow(number: number | undefined): TEngineRow | undefined {
  return (NlpEngines as readonly TEngineRow[]).find((r) => r.number === number);
}

/** The engines that call an outbound URL field (a changed engine re-checks its URL on save). */
export function enginesCalling(field: keyof typeof OutboundUrlFields): number[] {
  return (NlpEngines as readonly TEngineRow[]).filter((r) => r.fields.some((f) => f.outboundUrl === field)).map((r) => r.number);
}

/** An engine secret: its stored path, the URLs it is sent to (none: the provider's own host) and the message. */
export interface TEngineSecretField {
  stored: string;
  boundToUrls: string[];
  messageAgain: string;
}

/** Every key the engines' rows hold (also stored forms), once each, in row order. */
export function engineSecretFields(): TEngineSecretField[] {
  const out: TEngineSecretField[] = [];
  for (const row of NlpEngines as readonly TEngineRow[]) {
    const urls = row.fields.filter((f) => f.outboundUrl).map((f) => f.stored);
    for (const f of row.fields) {
      if (!f.secret) continue;
      const bound = f.secret.messageAgain !== undefined;
      for (const stored of [f.stored, ...(f.secret.alsoStored ?? [])]) {
        if (!out.some((o) => o.stored === stored)) out.push({ stored, boundToUrls: bound ? urls : [], messageAgain: f.secret.messageAgain ?? '' });
      }
    }
  }
  return out;
}

/**
 * The LLM base URLs the editor offers (account_info's `llmBaseUrls`), one row each:
 * `provider` is the name the editor stores in `llm.provider` for the mapped ones (null: 'custom');
 * for those, `lookup` is the protocol the portal's model look-up speaks (OpenAI-style or Gemini's
 * own), `baseUrlEnv` the portal's override of the host the look-up calls (server config.ts,
 * PROVIDER_*_URL) and `defaultBaseUrl` the host it defaults to.
 */
export interface TLlmProviderRow {
  name: string;
  url: string;
  provider: string | null;
  lookup?: 'openai' | 'gemini';
  baseUrlEnv?: string;
  defaultBaseUrl?: string;
}

export const LlmProviders = [
  { name: 'OpenAI', url: 'https://api.openai.com/v1', provider: 'openai', lookup: 'openai', baseUrlEnv: 'PROVIDER_OPENAI_URL', defaultBaseUrl: 'https://api.openai.com/v1' },
  { name: 'Groq', url: 'https://api.groq.com/openai/v1', provider: 'groq', lookup: 'openai', baseUrlEnv: 'PROVIDER_GROQ_URL', defaultBaseUrl: 'https://api.groq.com/openai/v1' },
  // The look-up lists models with Gemini's own API, not its OpenAI-compatible one.
  {
    name: 'Gemini',
    url: 'https://generativelanguage.googleapis.com/v1beta/openai',
    provider: 'gemini',
    lookup: 'gemini',
    baseUrlEnv: 'PROVIDER_GEMINI_URL',
    defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
  },
  { name: 'Cerebras', url: 'https://api.cerebras.ai/v1', provider: null },
  { name: 'DeepSeek', url: 'https://api.deepseek.com/v1', provider: null },
  { name: 'Fireworks', url: 'https://api.fireworks.ai/inference/v1', provider: null },
  { name: 'Perplexity', url: 'https://api.perplexity.ai', provider: null },
  { name: 'Telnyx', url: 'https://api.telnyx.com/v2/ai', provider: null },
  { name: 'Together', url: 'https://api.together.xyz/v1', provider: null },
  { name: 'xAI', url: 'https://api.x.ai/v1', provider: null },
] as const satisfies readonly TLlmProviderRow[];

/** The mapped LLM providers' names (the keys of the portal's look-up hosts). */
export type TLlmProviderId = NonNullable<(typeof LlmProviders)[number]['provider']>;

/** The realtime (speech to speech) providers the editor offers: the URL, voices and models of each. */
export const RealtimeProviders = [
  { id: 'openai', name: 'OpenAI', url: 'wss://api.openai.com/v1/realtime', voices: ['alloy', 'echo', 'shimmer', 'ash', 'ballad', 'coral', 'sage', 'verse'], models: ['gpt-4o-mini-realtime-preview', 'gpt-4o-realtime-preview'] },
  { id: 'gemini', name: 'Gemini', url: 'wss://generativelanguage.googleapis.com/ws', voices: ['Aoede', 'Charon', 'Fenrir', 'Kore', 'Puck'], models: ['gemini-2.0-flash-exp'] },
] as const satisfies readonly { id: string; name: string; url: string; voices: readonly string[]; models: readonly string[] }[];
