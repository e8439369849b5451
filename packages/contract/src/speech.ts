/**
 * The Brain tab's speech forms (avatar creator spec sections 3, 4, 5 "Speech forms", 9): the rules
 * both the browser and the server apply to `agent_pipeline_config.stt` / `.tts`, with the form-side
 * field each message belongs to (sttDetails / ttsDetails), so both say the same thing. What each
 * provider asks for, and the messages, are its row's (providers.ts).
 */
import { providerNumber, providerRow, SpeechLimits, SpeechMessages, type TProviderField } from './providers.js';

/** The Simple and Composite modes (contract SetupMode's numbers). */
const MODE = { Simple: 0, Composite: 1 } as const;

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
 * Each provider's checks are its row's fields and `speedRequired` (providers.ts).
 */
export function checkSpeechConfig(setupMode: number, stt: Section, tts: Section): SpeechIssue[] {
  const issues: SpeechIssue[] = [];
  if (setupMode !== MODE.Simple && setupMode !== MODE.Composite) return issues;
  const add = (field: string, message: string) => issues.push({ field, message });

  if (stt && setupMode !== MODE.Simple) {
    const provider = providerNumber(stt.provider, 'stt');
    const row = providerRow('stt', provider);
    if (provider !== undefined && row?.role !== 'platform') {
      if (!row) add('sttDetails.sttProvider', SpeechMessages.sttProviderRequired);
      else if (row.role !== 'none') {
        const languages = splitLanguages(stt.languages);
        if (languages.length === 0) add('sttDetails.sttLanguage', SpeechMessages.sttLanguageRequired);
        if (languages.length - 1 > SpeechLimits.maxAdditionalLanguages) add('sttDetails.sttAdditionalLanguages', SpeechMessages.maxLanguages);
        checkFields(row.fields, stt, add);
      }
    }
  }

  if (tts) {
    const provider = providerNumber(tts.provider, 'tts');
    if (provider !== undefined) {
      const row = providerRow('tts', provider);
      if (!row) {
        add('ttsDetails.ttsProvider', SpeechMessages.ttsProviderRequired);
        return issues;
      }
      if (row.role === 'none') return issues;
      if (isBlank(tts.voice_id)) add('ttsDetails.ttsVoice', SpeechMessages.voiceRequired);
      const isOwn = setupMode !== MODE.Simple && row.role === 'own';
      const speedText = text(tts.speed);
      const speed = Number(speedText);
      const speedRequired = isOwn && row.speedRequired === true;
      if (speedText === '') {
        if (speedRequired) add('ttsDetails.ttsSpeechSpeed', SpeechMessages.speedRequired);
      } else if (!Number.isFinite(speed) || speed < SpeechLimits.speedMin || speed > SpeechLimits.speedMax) {
        add('ttsDetails.ttsSpeechSpeed', SpeechMessages.speedRange);
      }
      if (isOwn) checkFields(row.fields, tts, add);
    }
  }
  return issues;
}

/** A provider's fields in row order: a blank required one says its message; a given value breaking its rule says the rule's. */
function checkFields(fields: readonly TProviderField[], section: Record<string, unknown>, add: (field: string, message: string) => void) {
  for (const f of fields) {
    const value = section[f.stored];
    if (f.required !== undefined && isBlank(value)) add(f.form, f.required);
    else if (f.rule && value !== undefined && value !== null && value !== '' && !passes(f.rule.test, value)) add(f.form, f.rule.message);
  }
}

function passes(test: NonNullable<TProviderField['rule']>['test'], value: unknown): boolean {
  switch (test) {
    case 'googleServiceAccount':
      return isGoogleKeyFile(value);
    case 'positiveInteger':
      return /^\d+$/.test(text(value)) && Number(text(value)) > 0;
  }
}
