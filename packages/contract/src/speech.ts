/**
 * The Brain tab's speech forms (avatar creator spec sections 3, 4, 5 "Speech forms", 9): the rules
 * both the browser and the server apply to `agent_pipeline_config.stt` / `.tts`, with the form-side
 * field each message belongs to (sttDetails / ttsDetails), so both say the same thing.
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

/** Numbers as in the contract's SttProvider / TtsProvider (kept here so this file imports nothing). */
const STT = { Default: 0, Google: 1, Azure: 2, Deepgram: 3, None: 4 } as const;
const TTS = { Polly: 0, Azure: 1, ElevenLabs: 2, Default: 3, None: 4, Cartesia: 5, Neuphonic: 6 } as const;
const MODE = { Simple: 0, Composite: 1, SpeechToSpeech: 2, None: 3 } as const;

/** Names the stored configuration may carry instead of the numbers. */
const STT_NAMES: Record<string, number> = { default: 0, google: 1, azure: 2, deepgram: 3, none: 4 };
const TTS_NAMES: Record<string, number> = { polly: 0, amazon: 0, azure: 1, microsoft: 1, elevenlabs: 2, default: 3, none: 4, cartesia: 5, neuphonic: 6 };

/** A stored provider (number, numeric string or name) as its number; undefined when absent, NaN when unknown. */
export function providerNumber(value: unknown, kind: 'stt' | 'tts'): number | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'number') return Number.isInteger(value) ? value : Number.NaN;
  const s = String(value).trim().toLowerCase();
  if (/^\d+$/.test(s)) return Number(s);
  return (kind === 'stt' ? STT_NAMES : TTS_NAMES)[s] ?? Number.NaN;
}

export interface SpeechIssue {
  /** The form-side field ('sttDetails.sttAPIKey', 'ttsDetails.ttsVoice', …). */
  field: string;
  message: string;
}

type Section = Record<string, unknown> | undefined;
const text = (v: unknown) => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '');
const isBlank = (v: unknown) => text(v) === '';
/** Languages as stored: comma-joined, the first is the main one. */
export const splitLanguages = (v: unknown): string[] =>
  text(v)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function isGoogleKeyFile(v: unknown): boolean {
  const s = text(v);
  // A masked value stands for the stored file.
  if (s.startsWith('••••')) return true;
  try {
    const parsed = JSON.parse(s) as Record<string, unknown>;
    return !!parsed && typeof parsed === 'object' && typeof parsed.client_email === 'string' && typeof parsed.private_key === 'string';
  } catch {
    return false;
  }
}

/**
 * The speech rules (spec section 5 "Speech forms") over the stored shape. The STT and TTS
 * sections exist only for Simple and Composite modes; a section without a provider is not
 * configured yet (the runtime then uses the product's own) and is not checked.
 * - STT (skipped for Simple or default STT): provider; language unless None; Google key file and
 *   region; Azure key and region; Deepgram key; endpoint an integer above 0; at most 10 additional
 *   languages.
 * - TTS: voice (unless None); key checks skipped for Simple or Default: Polly keys and region,
 *   Azure key and region, ElevenLabs and Cartesia keys, Neuphonic key and language; speech speed
 *   required and between -1 and 1 for Azure and Neuphonic (within -1…1 wherever given).
 */
export function checkSpeechConfig(setupMode: number, stt: Section, tts: Section): SpeechIssue[] {
  const issues: SpeechIssue[] = [];
  if (setupMode !== MODE.Simple && setupMode !== MODE.Composite) return issues;
  const add = (field: string, message: string) => issues.push({ field, message });

  if (stt && setupMode !== MODE.Simple) {
    const provider = providerNumber(stt.provider, 'stt');
    if (provider !== undefined && provider !== STT.Default) {
      if (!Object.values(STT).includes(provider as never)) add('sttDetails.sttProvider', SpeechMessages.sttProviderRequired);
      else if (provider !== STT.None) {
        const languages = splitLanguages(stt.languages);
        if (languages.length === 0) add('sttDetails.sttLanguage', SpeechMessages.sttLanguageRequired);
        if (languages.length - 1 > SpeechLimits.maxAdditionalLanguages) add('sttDetails.sttAdditionalLanguages', SpeechMessages.maxLanguages);
        if (provider === STT.Google) {
          if (isBlank(stt.api_key)) add('sttDetails.sttAPIKey', SpeechMessages.googleKeyRequired);
          else if (!isGoogleKeyFile(stt.api_key)) add('sttDetails.sttAPIKey', SpeechMessages.googleKeyInvalid);
          if (isBlank(stt.region)) add('sttDetails.sttRegion', SpeechMessages.sttRegionRequired);
        } else if (provider === STT.Azure) {
          if (isBlank(stt.api_key)) add('sttDetails.sttAPIKey', SpeechMessages.azureSttKeyRequired);
          if (isBlank(stt.region)) add('sttDetails.sttRegion', SpeechMessages.sttRegionRequired);
        } else if (provider === STT.Deepgram) {
          if (isBlank(stt.api_key)) add('sttDetails.sttAPIKey', SpeechMessages.deepgramKeyRequired);
          if (stt.endpointing !== undefined && stt.endpointing !== null && stt.endpointing !== '') {
            const n = Number(text(stt.endpointing));
            if (!/^\d+$/.test(text(stt.endpointing)) || !(n > 0)) add('sttDetails.deepgramEndpoint', SpeechMessages.deepgramEndpoint);
          }
        }
      }
    }
  }

  if (tts) {
    const provider = providerNumber(tts.provider, 'tts');
    if (provider !== undefined) {
      if (!Object.values(TTS).includes(provider as never)) {
        add('ttsDetails.ttsProvider', SpeechMessages.ttsProviderRequired);
        return issues;
      }
      if (provider === TTS.None) return issues;
      if (isBlank(tts.voice_id)) add('ttsDetails.ttsVoice', SpeechMessages.voiceRequired);
      const isOwn = setupMode !== MODE.Simple && provider !== TTS.Default;
      const speedText = text(tts.speed);
      const speed = Number(speedText);
      const speedRequired = isOwn && (provider === TTS.Azure || provider === TTS.Neuphonic);
      if (speedText === '') {
        if (speedRequired) add('ttsDetails.ttsSpeechSpeed', SpeechMessages.speedRequired);
      } else if (!Number.isFinite(speed) || speed < SpeechLimits.speedMin || speed > SpeechLimits.speedMax) {
        add('ttsDetails.ttsSpeechSpeed', SpeechMessages.speedRange);
      }
      if (isOwn) {
        switch (provider) {
          case TTS.Polly:
            if (isBlank(tts.api_key)) add('ttsDetails.pollyAccessKey', SpeechMessages.pollyAccessKeyRequired);
            if (isBlank(tts.secret_key)) add('ttsDetails.pollySecretKey', SpeechMessages.pollySecretKeyRequired);
            if (isBlank(tts.region)) add('ttsDetails.ttsRegion', SpeechMessages.ttsRegionRequired);
            break;
          case TTS.Azure:
            if (isBlank(tts.api_key)) add('ttsDetails.azureSubscriptionKey', SpeechMessages.azureTtsKeyRequired);
            if (isBlank(tts.region)) add('ttsDetails.ttsRegion', SpeechMessages.ttsRegionRequired);
            break;
          case TTS.ElevenLabs:
            if (isBlank(tts.api_key)) add('ttsDetails.elevenLabsAPIKey', SpeechMessages.elevenLabsKeyRequired);
            break;
          case TTS.Cartesia:
            if (isBlank(tts.api_key)) add('ttsDetails.cartesiaAPIKey', SpeechMessages.cartesiaKeyRequired);
            break;
          case TTS.Neuphonic:
            if (isBlank(tts.api_key)) add('ttsDetails.api_key', SpeechMessages.neuphonicKeyRequired);
            if (isBlank(tts.lang_code)) add('ttsDetails.lang_code', SpeechMessages.neuphonicLanguageRequired);
            break;
        }
      }
    }
  }
  return issues;
}
