/** The lists the avatar creator reads with account_info (spec "Account info used by the creator"). */
import { LlmProviders, RealtimeProviders } from './engines.js';
import { sttRow, SttProviders, TtsProviders } from './providers.js';

/** Each row of a tuple reduced to its account_info fields, the tuple and the literal types kept. */
type TListed<Rows extends readonly unknown[]> = { readonly [I in keyof Rows]: Rows[I] extends { name: infer N; url: infer U; provider: infer Pr } ? { readonly name: N; readonly url: U; readonly provider: Pr } : Rows[I] extends { name: infer N; url: infer U } ? { readonly name: N; readonly url: U } : never };

/** account_info's LLM base URLs: each row's name, URL and mapped provider (engines.ts). */
export const LlmBaseUrls = LlmProviders.map(({ name, url, provider }) => ({ name, url, provider })) as unknown as TListed<typeof LlmProviders>;

type TRealtimeRows = typeof RealtimeProviders;
/** account_info's realtime URLs, voices and models: each realtime row's (engines.ts). */
export const RealtimeBaseUrls = RealtimeProviders.map(({ name, url }) => ({ name, url })) as unknown as TListed<TRealtimeRows>;

export const RealtimeVoices = Object.fromEntries(RealtimeProviders.map((r) => [r.id, r.voices])) as { readonly [Row in TRealtimeRows[number] as Row['id']]: Row['voices'] };

export const RealtimeModels = Object.fromEntries(RealtimeProviders.map((r) => [r.id, r.models])) as { readonly [Row in TRealtimeRows[number] as Row['id']]: Row['models'] };

export const SimpleModeLlmModels = ['llama-3.3-70b-versatile', 'llama-3.1-8b-instant'] as const;

/** account_info's provider lists: each row's number, label and (STT) models (providers.ts). */
export const SttProviderList = SttProviders.map((r) => ({ id: r.number, name: r.label, models: [...('models' in r ? r.models : [])] as string[] }));

export const TtsProviderList = TtsProviders.map((r) => ({ id: r.number, name: r.label }));

/** Voices the product itself hosts (Default TTS), per engine variant. */
export const DefaultVoices = {
  azure: ['en-US-JennyNeural', 'en-US-GuyNeural', 'en-GB-SoniaNeural', 'de-DE-KatjaNeural', 'fr-FR-DeniseNeural', 'es-ES-ElviraNeural'],
  polly: ['Joanna (standard)', 'Matthew (standard)', 'Joanna (neural)', 'Matthew (neural)', 'Amy (neural)', 'Brian (neural)'],
} as const;

export const GooglePreferredSttLanguages = ['en-US', 'en-GB', 'es-ES', 'fr-FR', 'de-DE', 'it-IT', 'pt-BR', 'ja-JP', 'ko-KR', 'cmn-Hans-CN', 'hi-IN', 'ar-XA'] as const;

export const InterruptOptions = {
  allow_interruptions: true,
  min_interruption_duration: 0.5,
  min_interruption_words: 0,
} as const;

/**
 * Fillers (ADR 100): a short line the avatar says in its own voice when its answer is slow (a
 * function call, a slow model) — `agent_pipeline_config.fillers` `{ enabled, phrases }`, off
 * unless the owner turns them on (its voice through a laptop's speakers may be heard back).
 */
export const FillerOptions = {
  enabled: false,
  phrases: ['Let me check that.', 'One moment.', 'Just a second.'],
  maxPhrases: 10,
  maxChars: 80,
  /** Said when the answer's first audio has not come this long after the turn started. */
  afterMs: 1500,
} as const;

export const VadDefaults = {
  min_endpointing_delay: 0.5,
  max_endpointing_delay: 6,
  min_speech_duration: 0.05,
  min_silence_duration: 0.55,
  prefix_padding_duration: 0.5,
  max_buffered_speech: 60,
  activation_threshold: 0.5,
} as const;

export const RealtimeVadDefaults = { threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 500 } as const;

/** The STT providers' defaults (their rows' in providers.ts), the product's default language and the agent's. */
export const SttDefaults = {
  deepgram: { model: sttRow('deepgram').defaults.model, language: sttRow('deepgram').defaults.language },
  google: { model: sttRow('google').defaults.model, region: sttRow('google').defaults.region },
  azure: { language: sttRow('azure').defaults.language },
  defaultLanguage: 'en-US',
  agentLanguage: 'en',
} as const;

export const DefaultLlmInstruction =
  'You are a friendly, helpful assistant speaking out loud. Keep every reply between 15 and 35 words, in plain conversational sentences without lists or markdown.';
