/**
 * One row per speech provider (avatar creator spec sections 3, 4, 5, 9 and "Enumerations"): the
 * number stored in `agent_pipeline_config.stt|tts.provider`, the names a stored config may carry
 * instead, the label the editor and account_info show, the fields the Brain tab asks for with the
 * spec's messages, the secrets among them, defaults, the operator's base-URL variable and what the
 * worker's client gives. The enums (SttProvider, TtsProvider), `providerNumber`, the speech rules
 * (speech.ts), the sealed secrets (avatar-secrets.ts), account_info's lists (catalog.ts) and the
 * editor's menus are read from these rows, so a provider is added here, once, beside its client.
 *
 * Imports nothing (the contract's bottom): the messages the rows carry live here too.
 */

export const SpeechMessages = {
  sttProviderRequired: 'Speech to Text provider is required',
  sttLanguageRequired: 'Language is required',
  googleKeyRequired: 'Google JSON key file is required',
  googleKeyInvalid: 'The Google key file must be a service-account JSON file',
  sttRegionRequired: 'Region is required',
  azureSttKeyRequired: 'Azure Subscription Key is required',
  deepgramKeyRequired: 'Deepgram API Key is required',
  deepgramEndpoint: 'Endpoint must be an integer greater than 0',
  maxLanguages: 'Maximum of 10 languages can be selected',
  ttsProviderRequired: 'Text to Speech provider is required',
  voiceRequired: 'Voice is required',
  pollyAccessKeyRequired: 'Polly Access Key is required',
  pollySecretKeyRequired: 'Polly Secret Key is required',
  azureTtsKeyRequired: 'Azure Subscription Key is required',
  ttsRegionRequired: 'Region is required',
  elevenLabsKeyRequired: 'ElevenLabs API Key is required',
  cartesiaKeyRequired: 'Cartesia API Key is required',
  speedRequired: 'Speech speed is required',
  speedRange: 'Speech speed must be between -1 and 1',
  neuphonicKeyRequired: 'Neuphonic API Key is required',
  neuphonicLanguageRequired: 'Neuphonic language is required',
} as const;

/** Said when a save would send a kept speech secret to another provider or endpoint (avatar-secrets.ts). */
export const SpeechSecretMessages = {
  sttKeyAgain: 'Speech to Text API Key is required again when the provider or the endpoint URL changes',
  ttsKeyAgain: 'Text to Speech API Key is required again when the provider or the endpoint URL changes',
  ttsSecretAgain: 'Polly Secret Key is required again when the provider or the endpoint URL changes',
} as const;

export const SpeechLimits = {
  maxAdditionalLanguages: 10,
  speedMin: -1,
  speedMax: 1,
  /** Speech speed after a provider change: 1 for Neuphonic, else 0 (spec section 4). */
  neuphonicDefaultSpeed: 1,
  defaultSpeed: 0,
  /** Deepgram's endpointing default (ms of silence that ends an utterance). */
  deepgramEndpointDefault: 300,
  contextPhrasesMax: 100,
  contextPhraseMax: 200,
  googleKeyFileMaxBytes: 64 * 1024,
} as const;

/** The Brain tab's Info panel entries of the speech fields (their texts: the web's speech help). */
export type TSpeechHelpKey =
  | 'sttProvider'
  | 'sttAPIKey'
  | 'sttRegion'
  | 'sttModel'
  | 'deepgramEndpoint'
  | 'sttLanguage'
  | 'sttAdditionalLanguages'
  | 'sttContextPhrases'
  | 'ttsProvider'
  | 'ttsKey'
  | 'ttsRegion'
  | 'ttsLanguage'
  | 'ttsModel'
  | 'ttsVoice'
  | 'ttsSpeechSpeed';

/** Regions the editor offers (the region fields also take any other typed region) and the shape a look-up accepts. */
export const SpeechRegions = {
  aws: ['us-east-1', 'us-west-2', 'eu-west-1', 'eu-central-1', 'ap-southeast-1', 'ap-northeast-1'],
  azure: ['eastus', 'westus', 'westeurope', 'northeurope', 'uksouth', 'southeastasia'],
  /** Google's locations until the language table (the look-up) names the chosen language's. */
  google: ['global', 'us', 'eu'],
} as const;
export const SpeechRegionPatterns = {
  aws: /^[a-z]{2}(-[a-z]+)+-\d{1,2}$/,
  azure: /^[a-z0-9]{2,30}$/,
} as const;

/** Neuphonic's voice languages (the editor's menu). */
export const NeuphonicLanguages = [
  { value: 'en', label: 'English' },
  { value: 'es', label: 'Spanish' },
  { value: 'de', label: 'German' },
  { value: 'nl', label: 'Dutch' },
  { value: 'hi', label: 'Hindi' },
  { value: 'fr', label: 'French' },
] as const;

/** Neuphonic voices are looked up only for keys longer than this (spec section 7). */
const NEUPHONIC_KEY_MIN_EXCLUSIVE = 8;

/**
 * A field of a provider's stored section that the Brain tab asks for.
 * - `stored`: its key in `agent_pipeline_config.stt|tts`; `form`: the form-side field
 *   (`ttsDetails.cartesiaAPIKey`), where the rules' messages go; `label`: the editor's label.
 * - `required`: the spec's message when it is blank (checked only for the avatar's own provider
 *   in Composite mode); absent, the field is optional.
 * - `rule`: a check of a given value: `googleServiceAccount` (a service-account JSON key file or
 *   the mask), `positiveInteger` (digits, above 0), with its message.
 * - `secret`: sealed at rest and masked when read (avatar-secrets.ts), with the message said when a
 *   save would send the kept secret to another provider or endpoint. The editor shows it as a
 *   password field.
 * - How the editor shows it: `input` — 'text' (the default; a password field when `secret`),
 *   'select' (one of `options`), 'region' (free text, `options` offered), 'file' (a key file:
 *   a sub-form of its own), 'lookup' (a menu the provider's look-up fills, `options` until it
 *   answers; hidden while it has none); `placeholder`, `hint` (the text under it), `help` (its
 *   Info panel entry), in row order.
 * - `pattern`: the shape a look-up accepts for it (a region) before calling the provider.
 * - `lookup` (TTS): the voices look-up's request field that carries it (`ZTtsVoicesRequest`);
 *   voices are asked for once every field with a look-up name is given, except `optional` ones
 *   (sent only when given); `minLengthExclusive`: a typed value must be longer than this.
 */
export interface TProviderField {
  stored: string;
  form: string;
  label: string;
  required?: string;
  rule?: { test: 'googleServiceAccount' | 'positiveInteger'; message: string };
  secret?: { messageAgain: string };
  input?: 'text' | 'select' | 'region' | 'file' | 'lookup';
  options?: readonly string[] | readonly { value: string; label: string }[];
  placeholder?: string;
  hint?: string;
  help: TSpeechHelpKey;
  pattern?: RegExp;
  lookup?: { name: string; optional?: boolean; minLengthExclusive?: number };
}

/** What the worker's client for a provider gives (providers/stt/*.ts, providers/tts/*.ts). */
export interface TProviderCapabilities {
  /** Results (STT) or audio (TTS) arrive while the request runs. */
  streaming: boolean;
  /** TTS: 'provider' — visemes from the provider's own timings (marks, characters, phonemes); 'text' — derived from the text, scaled to the audio. */
  visemes?: 'provider' | 'text';
  /** TTS: the provider gives word times. */
  wordTimes?: boolean;
}

/**
 * One provider.
 * - `id`: stable lower-case name (the stored name it is read from, the worker's engine kind,
 *   the server's provider-URL key); `key`: its name in the enum (`TtsProvider.Cartesia`);
 *   `number`: the spec's stored number (never changes).
 * - `aliases`: other names a stored config may carry ('amazon' for Polly).
 * - `role`: 'own' — the avatar's own account with a provider; 'platform' — the product's own
 *   (Default: the operator's hosted provider); 'none' — switched off.
 * - `label`: account_info's and the editor's name; `menuOrder`: its place in the editor's menu
 *   of own providers (spec "STT choices per mode", "TTS providers").
 * - `fields`: what the Brain tab asks for, in the order the rules report them.
 * - `speedRequired` (TTS): speech speed must be given.
 * - `defaults`: what the editor sets after a provider change (or the client uses when none is
 *   stored); `models`: account_info's list.
 * - `baseUrlEnv` / `defaultBaseUrl`: the operator's override of the provider's host in the portal's
 *   config (server config.ts, PROVIDER_*_URL) and the host it defaults to.
 */
export interface TProviderRow<Kind extends 'stt' | 'tts' = 'stt' | 'tts'> {
  kind: Kind;
  id: string;
  key: string;
  number: number;
  aliases: readonly string[];
  role: 'own' | 'platform' | 'none';
  label: string;
  menuOrder?: number;
  fields: readonly TProviderField[];
  speedRequired?: boolean;
  defaults?: { model?: string; region?: string; language?: string; speed?: number; endpointingMs?: number };
  models?: readonly string[];
  baseUrlEnv?: string;
  defaultBaseUrl?: string;
  capabilities?: TProviderCapabilities;
}

const M = SpeechMessages;
const S = SpeechSecretMessages;
const MODEL_HINT = "Leave empty for the provider's default.";
const GOOGLE_STT_MODELS = ['long', 'short', 'telephony', 'chirp_2'] as const;

export const SttProviders = [
  { kind: 'stt', id: 'default', key: 'Default', number: 0, aliases: [], role: 'platform', label: 'Persona Studio (Azure)', fields: [] },
  {
    kind: 'stt',
    id: 'google',
    key: 'Google',
    number: 1,
    aliases: [],
    role: 'own',
    label: 'Google Cloud Custom',
    menuOrder: 2,
    fields: [
      {
        stored: 'api_key',
        form: 'sttDetails.sttAPIKey',
        label: 'Google JSON key file',
        required: M.googleKeyRequired,
        rule: { test: 'googleServiceAccount', message: M.googleKeyInvalid },
        secret: { messageAgain: S.sttKeyAgain },
        input: 'file',
        help: 'sttAPIKey',
      },
      { stored: 'region', form: 'sttDetails.sttRegion', label: 'Region', required: M.sttRegionRequired, input: 'region', options: SpeechRegions.google, help: 'sttRegion' },
      { stored: 'model', form: 'sttDetails.sttModel', label: 'Model', input: 'lookup', options: GOOGLE_STT_MODELS, help: 'sttModel' },
    ],
    defaults: { model: 'long', region: 'global' },
    models: GOOGLE_STT_MODELS,
    capabilities: { streaming: true },
  },
  {
    kind: 'stt',
    id: 'azure',
    key: 'Azure',
    number: 2,
    aliases: [],
    role: 'own',
    label: 'Microsoft Azure Custom',
    menuOrder: 3,
    fields: [
      { stored: 'api_key', form: 'sttDetails.sttAPIKey', label: 'Azure Subscription Key', required: M.azureSttKeyRequired, secret: { messageAgain: S.sttKeyAgain }, help: 'sttAPIKey' },
      {
        stored: 'region',
        form: 'sttDetails.sttRegion',
        label: 'Region',
        required: M.sttRegionRequired,
        input: 'region',
        options: SpeechRegions.azure,
        help: 'sttRegion',
        pattern: SpeechRegionPatterns.azure,
      },
    ],
    defaults: { language: 'en-US' },
    baseUrlEnv: 'PROVIDER_AZURE_STT_URL',
    defaultBaseUrl: 'https://{region}.api.cognitive.microsoft.com',
    capabilities: { streaming: true },
  },
  {
    kind: 'stt',
    id: 'deepgram',
    key: 'Deepgram',
    number: 3,
    aliases: [],
    role: 'own',
    label: 'Deepgram',
    menuOrder: 1,
    fields: [
      { stored: 'api_key', form: 'sttDetails.sttAPIKey', label: 'Deepgram API Key', required: M.deepgramKeyRequired, secret: { messageAgain: S.sttKeyAgain }, help: 'sttAPIKey' },
      { stored: 'model', form: 'sttDetails.sttModel', label: 'Model', input: 'lookup', options: ['nova-3-general', 'nova-2-general'], help: 'sttModel' },
      {
        stored: 'endpointing',
        form: 'sttDetails.deepgramEndpoint',
        label: 'Endpoint (ms)',
        rule: { test: 'positiveInteger', message: M.deepgramEndpoint },
        hint: `Silence that ends an utterance; default ${SpeechLimits.deepgramEndpointDefault} ms.`,
        help: 'deepgramEndpoint',
      },
    ],
    defaults: { model: 'nova-3-general', language: 'multi', endpointingMs: SpeechLimits.deepgramEndpointDefault },
    models: ['nova-3-general', 'nova-2-general', 'nova-2-meeting', 'nova-2-phonecall'],
    baseUrlEnv: 'PROVIDER_DEEPGRAM_URL',
    defaultBaseUrl: 'https://api.deepgram.com',
    capabilities: { streaming: true },
  },
  { kind: 'stt', id: 'none', key: 'None', number: 4, aliases: [], role: 'none', label: 'None', fields: [] },
] as const satisfies readonly TProviderRow<'stt'>[];

export const TtsProviders = [
  {
    kind: 'tts',
    id: 'polly',
    key: 'Polly',
    number: 0,
    aliases: ['amazon'],
    role: 'own',
    label: 'Amazon Polly',
    menuOrder: 1,
    fields: [
      {
        stored: 'api_key',
        form: 'ttsDetails.pollyAccessKey',
        label: 'Polly Access Key',
        required: M.pollyAccessKeyRequired,
        secret: { messageAgain: S.ttsKeyAgain },
        help: 'ttsKey',
        lookup: { name: 'pollyAccessKey' },
      },
      {
        stored: 'secret_key',
        form: 'ttsDetails.pollySecretKey',
        label: 'Polly Secret Key',
        required: M.pollySecretKeyRequired,
        secret: { messageAgain: S.ttsSecretAgain },
        help: 'ttsKey',
        lookup: { name: 'pollySecretKey' },
      },
      {
        stored: 'region',
        form: 'ttsDetails.ttsRegion',
        label: 'Region',
        required: M.ttsRegionRequired,
        input: 'region',
        options: SpeechRegions.aws,
        help: 'ttsRegion',
        pattern: SpeechRegionPatterns.aws,
        lookup: { name: 'ttsRegion' },
      },
    ],
    baseUrlEnv: 'PROVIDER_POLLY_URL',
    // Unset: the AWS SDK's regional endpoint.
    capabilities: { streaming: true, visemes: 'provider', wordTimes: true },
  },
  {
    kind: 'tts',
    id: 'azure',
    key: 'Azure',
    number: 1,
    aliases: ['microsoft'],
    role: 'own',
    label: 'Microsoft Azure',
    menuOrder: 5,
    fields: [
      {
        stored: 'api_key',
        form: 'ttsDetails.azureSubscriptionKey',
        label: 'Azure Subscription Key',
        required: M.azureTtsKeyRequired,
        secret: { messageAgain: S.ttsKeyAgain },
        help: 'ttsKey',
        lookup: { name: 'azureSubscriptionKey' },
      },
      {
        stored: 'region',
        form: 'ttsDetails.ttsRegion',
        label: 'Region',
        required: M.ttsRegionRequired,
        input: 'region',
        options: SpeechRegions.azure,
        help: 'ttsRegion',
        pattern: SpeechRegionPatterns.azure,
        lookup: { name: 'ttsRegion' },
      },
    ],
    speedRequired: true,
    baseUrlEnv: 'PROVIDER_AZURE_TTS_URL',
    defaultBaseUrl: 'https://{region}.tts.speech.microsoft.com',
    // The REST API gives no timings.
    capabilities: { streaming: true, visemes: 'text', wordTimes: false },
  },
  {
    kind: 'tts',
    id: 'elevenlabs',
    key: 'ElevenLabs',
    number: 2,
    aliases: [],
    role: 'own',
    label: 'ElevenLabs',
    menuOrder: 3,
    fields: [
      {
        stored: 'api_key',
        form: 'ttsDetails.elevenLabsAPIKey',
        label: 'ElevenLabs API Key',
        required: M.elevenLabsKeyRequired,
        secret: { messageAgain: S.ttsKeyAgain },
        help: 'ttsKey',
        lookup: { name: 'elevenLabsAPIKey' },
      },
      { stored: 'model', form: 'ttsDetails.ttsModel', label: 'Model', placeholder: 'eleven_flash_v2_5', hint: MODEL_HINT, help: 'ttsModel' },
    ],
    defaults: { model: 'eleven_flash_v2_5' },
    baseUrlEnv: 'PROVIDER_ELEVENLABS_URL',
    defaultBaseUrl: 'https://api.elevenlabs.io',
    // Character timings place the letters' visemes and give the word times.
    capabilities: { streaming: true, visemes: 'provider', wordTimes: true },
  },
  { kind: 'tts', id: 'default', key: 'Default', number: 3, aliases: [], role: 'platform', label: 'Persona Studio default', fields: [] },
  { kind: 'tts', id: 'none', key: 'None', number: 4, aliases: [], role: 'none', label: 'None', fields: [] },
  {
    kind: 'tts',
    id: 'cartesia',
    key: 'Cartesia',
    number: 5,
    aliases: [],
    role: 'own',
    label: 'Cartesia',
    menuOrder: 2,
    fields: [
      {
        stored: 'api_key',
        form: 'ttsDetails.cartesiaAPIKey',
        label: 'Cartesia API Key',
        required: M.cartesiaKeyRequired,
        secret: { messageAgain: S.ttsKeyAgain },
        help: 'ttsKey',
        lookup: { name: 'cartesiaAPIKey' },
      },
      { stored: 'model', form: 'ttsDetails.ttsModel', label: 'Model', placeholder: 'sonic-3', hint: MODEL_HINT, help: 'ttsModel' },
    ],
    defaults: { model: 'sonic-3' },
    baseUrlEnv: 'PROVIDER_CARTESIA_URL',
    defaultBaseUrl: 'https://api.cartesia.ai',
    // Phoneme timestamps (or the words' letters within their times) and word timestamps.
    capabilities: { streaming: true, visemes: 'provider', wordTimes: true },
  },
  {
    kind: 'tts',
    id: 'neuphonic',
    key: 'Neuphonic',
    number: 6,
    aliases: [],
    role: 'own',
    label: 'Neuphonic',
    menuOrder: 4,
    fields: [
      {
        stored: 'api_key',
        form: 'ttsDetails.api_key',
        label: 'Neuphonic API Key',
        required: M.neuphonicKeyRequired,
        secret: { messageAgain: S.ttsKeyAgain },
        help: 'ttsKey',
        lookup: { name: 'neuphonicAPIKey', minLengthExclusive: NEUPHONIC_KEY_MIN_EXCLUSIVE },
      },
      {
        stored: 'lang_code',
        form: 'ttsDetails.lang_code',
        label: 'Language',
        required: M.neuphonicLanguageRequired,
        input: 'select',
        options: NeuphonicLanguages,
        help: 'ttsLanguage',
        lookup: { name: 'lang_code', optional: true },
      },
    ],
    speedRequired: true,
    defaults: { speed: SpeechLimits.neuphonicDefaultSpeed, language: 'en' },
    baseUrlEnv: 'PROVIDER_NEUPHONIC_URL',
    defaultBaseUrl: 'https://api.neuphonic.com',
    // No timings: visemes from the text.
    capabilities: { streaming: true, visemes: 'text', wordTimes: false },
  },
] as const satisfies readonly TProviderRow<'tts'>[];

/** A row by its id, with its literal types (`sttRow('deepgram').defaults.model` is 'nova-3-general'). */
export function sttRow<Id extends (typeof SttProviders)[number]['id']>(id: Id): Extract<(typeof SttProviders)[number], { id: Id }> {
  return SttProviders.find((r) => r.id === id) as Extract<(typeof SttProviders)[number], { id: Id }>;
}
export function ttsRow<Id extends (typeof TtsProviders)[number]['id']>(id: Id): Extract<(typeof TtsProviders)[number], { id: Id }> {
  return TtsProviders.find((r) => r.id === id) as Extract<(typeof TtsProviders)[number], { id: Id }>;
}

type Rows = readonly { key: string; number: number }[];
/** `{ [row.key]: row.number }`, with the literal types (TtsProvider.Cartesia is the type 5). */
export type TProviderEnum<R extends Rows> = { readonly [Row in R[number] as Row['key']]: Row['number'] };

function enumOf<R extends Rows>(rows: R): TProviderEnum<R> {
  return Object.fromEntries(rows.map((r) => [r.key, r.number])) as TProviderEnum<R>;
}

/** Speech to text provider, spec numbers: Default 0, Google 1, Azure 2, Deepgram 3, None 4. */
export const SttProvider = enumOf(SttProviders);
/** Speech synthesis provider, spec numbers: Polly 0, Azure 1, ElevenLabs 2, Default 3, None 4, Cartesia 5, Neuphonic 6. */
export const TtsProvider = enumOf(TtsProviders);
export type TSttProviderNumber = (typeof SttProviders)[number]['number'];
export type TTtsProviderNumber = (typeof TtsProviders)[number]['number'];

export type TSpeechKind = 'stt' | 'tts';
const rowsOf = (kind: TSpeechKind): readonly TProviderRow[] => (kind === 'stt' ? SttProviders : TtsProviders);

/** Every name a stored config may carry (id and aliases, lower case) → the provider's number. */
export const ProviderNames: Record<TSpeechKind, Readonly<Record<string, number>>> = {
  stt: namesOf(SttProviders),
  tts: namesOf(TtsProviders),
};
function namesOf(rows: readonly TProviderRow[]): Record<string, number> {
  const names: Record<string, number> = {};
  for (const row of rows) for (const name of [row.id, ...row.aliases]) names[name.toLowerCase()] = row.number;
  return names;
}

/** The row of a provider number (undefined for a number no row has). */
export function providerRow(kind: TSpeechKind, number: number | undefined): TProviderRow | undefined {
  return number === undefined ? undefined : rowsOf(kind).find((r) => r.number === number);
}

/** A stored provider (number, numeric string or name) as its number; undefined when absent, NaN when unknown. */
export function providerNumber(value: unknown, kind: TSpeechKind): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'number') return Number.isInteger(value) ? value : Number.NaN;
  const s = String(value).trim().toLowerCase();
  if (/^\d+$/.test(s)) return Number(s);
  return ProviderNames[kind][s] ?? Number.NaN;
}

/** The stored keys of one kind's sections that hold secrets, in row order, each with its message. */
export function providerSecretFields(kind: TSpeechKind): { stored: string; messageAgain: string }[] {
  const out: { stored: string; messageAgain: string }[] = [];
  for (const row of rowsOf(kind)) {
    for (const f of row.fields) if (f.secret && !out.some((o) => o.stored === f.stored)) out.push({ stored: f.stored, messageAgain: f.secret.messageAgain });
  }
  return out;
}

/** The editor's own-provider menu of a kind (role 'own'), in `menuOrder`. */
export function ownProviderMenu(kind: TSpeechKind): TProviderRow[] {
  return rowsOf(kind)
    .filter((r) => r.role === 'own')
    .sort((a, b) => (a.menuOrder ?? Number.MAX_SAFE_INTEGER) - (b.menuOrder ?? Number.MAX_SAFE_INTEGER));
}

/** A provider's field by its stored key (undefined when the provider has no such field). */
export function providerField(kind: TSpeechKind, number: number | undefined, stored: string): TProviderField | undefined {
  return providerRow(kind, number)?.fields.find((f) => f.stored === stored);
}

type TtsField = (typeof TtsProviders)[number]['fields'][number];
/** The voices look-up's request fields that carry a key (`pollyAccessKey`, `cartesiaAPIKey`…). */
export type TTtsLookupKeyName = Extract<TtsField, { secret: object; lookup: object }>['lookup']['name'];
/** Those names, in row order: the look-up's request schema and the editor's cache fingerprints read them. */
export const TtsLookupKeyNames: readonly TTtsLookupKeyName[] = [
  ...new Set(TtsProviders.flatMap((r) => (r.fields as readonly TProviderField[]).flatMap((f) => (f.secret && f.lookup ? [f.lookup.name as TTtsLookupKeyName] : [])))),
];

/** The fields of a provider's row that the voices look-up is asked with, in row order. */
export function ttsLookupFields(number: number | undefined): (TProviderField & { lookup: NonNullable<TProviderField['lookup']> })[] {
  return (providerRow('tts', number)?.fields ?? []).filter((f): f is TProviderField & { lookup: NonNullable<TProviderField['lookup']> } => f.lookup !== undefined);
}
