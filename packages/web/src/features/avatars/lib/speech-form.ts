import type { z } from 'zod';
import {
  checkSpeechConfig,
  ownProviderMenu,
  providerField,
  providerNumber,
  providerRow,
  SetupMode,
  SpeechLimits,
  splitLanguages,
  SttDefaults,
  SttProvider,
  TtsProvider,
  TtsProviders,
  type TAvatar,
} from '@persona/contract';

/**
 * The speech forms' values (spec section 3, "Form-side detail groups": sttDetails and ttsDetails),
 * how they come from and go into `customData.agent_pipeline_config`, the provider-change
 * transitions of section 4, and the section 5 rules (shared with the server through the contract).
 */
export interface SttDetails {
  sttProvider: number;
  /** The product's own STT variant: 'azure' or 'google'. */
  default_stt: string;
  /** Key, or for Google the JSON key file's text; a mask (`••••1234`) keeps the stored one. */
  sttAPIKey: string;
  sttAPIKeyFileName: string;
  sttAPIKeyType: string;
  sttRegion: string;
  sttModel: string;
  /** One per line. */
  sttContextPhrases: string;
  sttLanguage: string;
  sttAdditionalLanguages: string[];
  /** Deepgram endpointing, ms (stored as `stt.endpointing`). */
  deepgramEndpoint: string | number;
}

/** Each field a TTS provider's row names (providers.ts: the keys, region, model, Neuphonic's language), as text. */
type TtsRowValues = { [Key in FormKey<(typeof TtsProviders)[number]['fields'][number]['form']>]: string };
type FormKey<Form> = Form extends `ttsDetails.${infer Key}` ? Key : never;

/**
 * ttsProvider, default_tts, ttsSpeechSpeed, ttsVoice, and the rows' fields: pollyAccessKey,
 * pollySecretKey, ttsRegion, azureSubscriptionKey, elevenLabsAPIKey, cartesiaAPIKey, ttsModel,
 * and Neuphonic's key and language (api_key, lang_code).
 */
export interface TtsDetails extends TtsRowValues {
  ttsProvider: number;
  /** The product's own voice: 'azure', 'polly' or 'offline'. */
  default_tts: string;
  ttsSpeechSpeed: string | number;
  ttsVoice: string;
}

export interface SpeechValues {
  sttDetails: SttDetails;
  ttsDetails: TtsDetails;
}

type Obj = Record<string, unknown>;
const str = (v: unknown) => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

export const emptyStt = (): SttDetails => ({
  sttProvider: SttProvider.Default,
  default_stt: 'azure',
  sttAPIKey: '',
  sttAPIKeyFileName: '',
  sttAPIKeyType: '',
  sttRegion: '',
  sttModel: '',
  sttContextPhrases: '',
  sttLanguage: SttDefaults.defaultLanguage,
  sttAdditionalLanguages: [],
  deepgramEndpoint: SpeechLimits.deepgramEndpointDefault,
});

export const emptyTts = (): TtsDetails => ({
  ...(Object.fromEntries(TtsProviders.flatMap((row) => row.fields.map((f) => [ttsFormKey(f.form), '']))) as TtsRowValues),
  ttsProvider: TtsProvider.Default,
  default_tts: 'azure',
  ttsSpeechSpeed: SpeechLimits.defaultSpeed,
  ttsVoice: '',
});

/** The ttsDetails field of a row's form field ('ttsDetails.cartesiaAPIKey' → 'cartesiaAPIKey'). */
export const ttsFormKey = (form: string) => form.slice('ttsDetails.'.length) as keyof TtsDetails;

/** The speed a provider starts from: its row's default (Neuphonic 1), else 0. */
const ttsDefaultSpeed = (provider: number) => providerRow('tts', provider)?.defaults?.speed ?? SpeechLimits.defaultSpeed;

const pipelineOf = (agent: Partial<TAvatar>) => obj(obj(agent.customData).agent_pipeline_config);

/** The form's values for a stored avatar (defaults of spec section 9 where it has none). */
export function speechValuesOf(agent: Partial<TAvatar>): SpeechValues {
  const pipeline = pipelineOf(agent);
  const stt = obj(pipeline.stt);
  const tts = obj(pipeline.tts);
  const sttProvider = providerNumber(stt.provider, 'stt');
  const ttsProvider = providerNumber(tts.provider, 'tts');
  const languages = splitLanguages(stt.languages);
  const sttDetails: SttDetails = {
    ...emptyStt(),
    sttProvider: sttProvider !== undefined && Number.isFinite(sttProvider) ? sttProvider : SttProvider.Default,
    default_stt: str(stt.default_stt) || 'azure',
    sttAPIKey: str(stt.api_key),
    sttAPIKeyFileName: str(stt.api_key_file_name),
    sttAPIKeyType: sttProvider === SttProvider.Google ? 'json' : '',
    sttRegion: str(stt.region),
    sttModel: str(stt.model),
    sttContextPhrases: str(stt.context_phrases),
    sttLanguage: languages[0] ?? (sttProvider === SttProvider.Deepgram ? SttDefaults.deepgram.language : SttDefaults.defaultLanguage),
    sttAdditionalLanguages: languages.slice(1),
    deepgramEndpoint: str(stt.endpointing) || SpeechLimits.deepgramEndpointDefault,
  };
  const provider = ttsProvider !== undefined && Number.isFinite(ttsProvider) ? ttsProvider : TtsProvider.Default;
  const ttsDetails: TtsDetails = {
    ...emptyTts(),
    ttsProvider: provider,
    default_tts: str(tts.default_tts) || 'azure',
    ttsRegion: str(tts.region),
    ttsSpeechSpeed: str(tts.speed) || ttsDefaultSpeed(provider),
    ttsModel: str(tts.model),
    ttsVoice: str(tts.voice_id),
    lang_code: str(tts.lang_code),
  };
  // Each field the provider's row names (its keys among them) from its stored key.
  for (const field of providerRow('tts', provider)?.fields ?? []) (ttsDetails as unknown as Obj)[ttsFormKey(field.form)] = str(tts[field.stored]);
  return { sttDetails, ttsDetails };
}

const usesOwnStt = (mode: number, provider: number) => mode === SetupMode.Composite && provider !== SttProvider.Default && provider !== SttProvider.None;

/** The stored `stt` section for the form's values (only what the provider uses). */
export function sttSectionOf(values: SttDetails, setupMode: number): Obj {
  const provider = setupMode === SetupMode.Simple ? SttProvider.Default : values.sttProvider;
  const languages = provider === SttProvider.None ? [] : [values.sttLanguage.trim(), ...values.sttAdditionalLanguages].filter(Boolean);
  const section: Obj = { provider, languages: languages.join(',') };
  if (provider === SttProvider.Default) section.default_stt = values.default_stt || 'azure';
  if (usesOwnStt(setupMode, provider)) {
    section.api_key = values.sttAPIKey;
    section.region = providerField('stt', provider, 'region') ? values.sttRegion.trim() : '';
    section.model = values.sttModel.trim();
    section.context_phrases = contextPhrasesOf(values.sttContextPhrases).join('\n');
    if (provider === SttProvider.Google) section.api_key_file_name = values.sttAPIKeyFileName;
    if (provider === SttProvider.Deepgram) section.endpointing = String(values.deepgramEndpoint).trim() === '' ? undefined : Number(values.deepgramEndpoint);
  } else {
    // A product voice or none: no key of the avatar's own is kept.
    section.api_key = '';
  }
  return section;
}

/** The stored `tts` section for the form's values. */
export function ttsSectionOf(values: TtsDetails, setupMode: number): Obj {
  const provider = setupMode === SetupMode.Simple ? TtsProvider.Default : values.ttsProvider;
  if (provider === TtsProvider.None) return { provider, voice_id: '', api_key: '', secret_key: '' };
  const speed = String(values.ttsSpeechSpeed).trim();
  const section: Obj = { provider, voice_id: values.ttsVoice, speed: speed === '' ? undefined : Number(speed) };
  if (provider === TtsProvider.Default) {
    section.default_tts = values.default_tts || 'azure';
    section.api_key = '';
    section.secret_key = '';
    return section;
  }
  section.api_key = '';
  section.secret_key = '';
  section.model = values.ttsModel.trim();
  // Each field the provider's row names: secrets as typed, the rest trimmed.
  for (const field of providerRow('tts', provider)?.fields ?? []) {
    const value = str(values[ttsFormKey(field.form)]);
    section[field.stored] = field.secret ? value : value.trim();
  }
  return section;
}

/** Writes the speech forms into the save payload (Simple and Composite only; other modes keep theirs). */
export function applySpeechValues(payload: Obj, values: SpeechValues, setupMode: number): Obj {
  if (setupMode !== SetupMode.Simple && setupMode !== SetupMode.Composite) return payload;
  const customData = { ...obj(payload.customData) };
  const pipeline = { ...obj(customData.agent_pipeline_config) };
  pipeline.stt = { ...obj(pipeline.stt), ...sttSectionOf(values.sttDetails, setupMode) };
  pipeline.tts = { ...obj(pipeline.tts), ...ttsSectionOf(values.ttsDetails, setupMode) };
  customData.agent_pipeline_config = pipeline;
  return { ...payload, customData };
}

/** Context phrases: one per line, blank lines dropped, bounded. */
export const contextPhrasesOf = (text: string) =>
  text
    .split(/\r?\n/)
    .map((l) => l.trim().slice(0, SpeechLimits.contextPhraseMax))
    .filter(Boolean)
    .slice(0, SpeechLimits.contextPhrasesMax);

/**
 * Spec section 4: an STT provider change clears key, file name, region, context phrases and model
 * (errors are reset by the caller); Deepgram sets the language to multi and clears the additional
 * languages. Google and Azure start from their defaults (long/global, en-US).
 */
export function sttAfterProviderChange(current: SttDetails, provider: number, defaultStt?: string): SttDetails {
  const next: SttDetails = {
    ...current,
    sttProvider: provider,
    default_stt: defaultStt ?? current.default_stt,
    sttAPIKey: '',
    sttAPIKeyFileName: '',
    sttAPIKeyType: provider === SttProvider.Google ? 'json' : '',
    sttRegion: '',
    sttContextPhrases: '',
    sttModel: '',
  };
  if (provider === SttProvider.Deepgram) {
    next.sttLanguage = SttDefaults.deepgram.language;
    next.sttAdditionalLanguages = [];
    next.sttModel = SttDefaults.deepgram.model;
    next.deepgramEndpoint = SpeechLimits.deepgramEndpointDefault;
  } else {
    if (current.sttLanguage === 'multi' || !current.sttLanguage) next.sttLanguage = SttDefaults.defaultLanguage;
    if (provider === SttProvider.Google) {
      next.sttModel = SttDefaults.google.model;
      next.sttRegion = SttDefaults.google.region;
    }
  }
  return next;
}

/** Spec section 4: a TTS provider change clears keys, region, voice and model; speed 1 for Neuphonic, else 0. */
export function ttsAfterProviderChange(current: TtsDetails, provider: number, defaultTts?: string): TtsDetails {
  return {
    ...emptyTts(),
    ttsProvider: provider,
    default_tts: defaultTts ?? current.default_tts,
    ttsSpeechSpeed: ttsDefaultSpeed(provider),
    lang_code: providerRow('tts', provider)?.defaults?.language ?? '',
  };
}

/**
 * The section 5 rules on the form's values, as zod issues on their fields: the stored shape is
 * built and checked with the contract's rules, as the server does on save.
 */
export function refineSpeech(values: SpeechValues & { setupMode: number }, ctx: z.RefinementCtx) {
  const { setupMode } = values;
  const stt = sttSectionOf(values.sttDetails, setupMode);
  // An endpoint the form holds as text: checked as typed.
  if (values.sttDetails.sttProvider === SttProvider.Deepgram) stt.endpointing = String(values.sttDetails.deepgramEndpoint).trim() || 'missing';
  const tts = ttsSectionOf(values.ttsDetails, setupMode);
  tts.speed = String(values.ttsDetails.ttsSpeechSpeed).trim();
  for (const issue of checkSpeechConfig(setupMode, stt, tts)) ctx.addIssue({ code: 'custom', path: issue.field.split('.'), message: issue.message });
}

/** STT choices per mode (spec "STT choices per mode"). */
export interface SttChoice {
  value: string;
  label: string;
  provider: number;
  defaultStt?: string;
}

export function sttChoices(setupMode: number, isRealtime: boolean): SttChoice[] {
  const own: SttChoice[] = isRealtime
    ? [{ value: 'default:azure', label: 'Persona Studio', provider: SttProvider.Default, defaultStt: 'azure' }]
    : [
        { value: 'default:azure', label: 'Persona Studio (Azure)', provider: SttProvider.Default, defaultStt: 'azure' },
        { value: 'default:google', label: 'Persona Studio (Google)', provider: SttProvider.Default, defaultStt: 'google' },
      ];
  if (setupMode === SetupMode.Simple) return own.slice(0, 1);
  return [
    ...ownProviderMenu('stt').map((row) => ({ value: String(row.number), label: row.label, provider: row.number })),
    ...own,
    { value: String(SttProvider.None), label: 'None', provider: SttProvider.None },
  ];
}

export const sttChoiceValue = (v: Pick<SttDetails, 'sttProvider' | 'default_stt'>, isRealtime: boolean) =>
  v.sttProvider === SttProvider.Default ? (isRealtime ? 'default:azure' : `default:${v.default_stt === 'google' ? 'google' : 'azure'}`) : String(v.sttProvider);

export interface TtsChoice {
  value: string;
  label: string;
  provider: number;
  defaultTts?: string;
  /** Speaks on any server, without a provider (the worker's offline voice). */
  isOffline?: boolean;
}

/** TTS choices (spec "TTS providers"): the product's voices, then the avatar's own providers (Composite). */
export function ttsChoices(setupMode: number): TtsChoice[] {
  const own: TtsChoice[] = [
    { value: 'default:azure', label: 'Persona Studio (Azure)', provider: TtsProvider.Default, defaultTts: 'azure' },
    { value: 'default:polly', label: 'Persona Studio (Polly)', provider: TtsProvider.Default, defaultTts: 'polly' },
    { value: 'default:offline', label: 'Persona Studio offline', provider: TtsProvider.Default, defaultTts: 'offline', isOffline: true },
  ];
  if (setupMode === SetupMode.Simple) return own;
  return [
    ...ownProviderMenu('tts').map((row) => ({ value: String(row.number), label: row.label, provider: row.number })),
    ...own,
    { value: String(TtsProvider.None), label: 'None', provider: TtsProvider.None },
  ];
}

export const ttsChoiceValue = (v: Pick<TtsDetails, 'ttsProvider' | 'default_tts'>) =>
  v.ttsProvider === TtsProvider.Default ? `default:${['polly', 'offline'].includes(v.default_tts) ? v.default_tts : 'azure'}` : String(v.ttsProvider);
