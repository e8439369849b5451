import { z } from 'zod';
import { SpeechRegionPatterns } from './providers.js';

/**
 * The product's own speech: the voice and the recogniser the operator pays for, which
 * Simple-mode avatars and the "Persona Studio" (Default) choices of Composite mode use. The portal
 * reads them for its embedded worker and for the Brain tab (which says what will be heard), and
 * `npm run worker` reads the same variables: one parser here, so both say the same about them.
 *
 * - PLATFORM_TTS_PROVIDER: azure | polly | openai (an OpenAI-compatible `/audio/speech`); unset:
 *   every product voice is the offline voice (flite).
 * - PLATFORM_TTS_API_KEY (Azure key, Polly access key id, OpenAI-compatible key),
 *   PLATFORM_TTS_SECRET_KEY (Polly), PLATFORM_TTS_REGION (Azure: required; Polly: default
 *   us-east-1), PLATFORM_TTS_URL (OpenAI-compatible: its base URL, required; Azure, Polly: a
 *   gateway instead of the provider's own endpoint, Azure's may hold `{region}`),
 *   PLATFORM_TTS_VOICE (the voice when the avatar's is not one of this provider's),
 *   PLATFORM_TTS_MODEL (OpenAI-compatible).
 * - PLATFORM_STT_PROVIDER: azure | google | deepgram | openai; unset: the offline recogniser
 *   (pocketsphinx) or the visitor's browser. PLATFORM_STT_API_KEY, PLATFORM_STT_REGION (Azure:
 *   required; Google: optional), PLATFORM_STT_URL (OpenAI-compatible: required; the others: a
 *   gateway), PLATFORM_STT_MODEL (Google, Deepgram, OpenAI-compatible).
 */
export const PlatformTtsProviders = ['azure', 'polly', 'openai'] as const;
export type TPlatformTtsProvider = (typeof PlatformTtsProviders)[number];
export const PlatformSttProviders = ['azure', 'google', 'deepgram', 'openai'] as const;
export type TPlatformSttProvider = (typeof PlatformSttProviders)[number];

/** The operator's hosted voice, as configured (keys included: server and worker only). */
export interface TPlatformTts {
  provider: TPlatformTtsProvider;
  apiKey: string;
  /** Polly's secret access key. */
  secretKey?: string;
  region?: string;
  /** OpenAI-compatible: the base URL (…/v1); Azure, Polly: a gateway replacing the provider's endpoint. */
  url?: string;
  /** The voice of avatars whose own voice is not one of this provider's. */
  voice: string;
  model?: string;
}

/** The operator's hosted speech to text, as configured (keys included: server and worker only). */
export interface TPlatformStt {
  provider: TPlatformSttProvider;
  apiKey: string;
  region?: string;
  url?: string;
  model?: string;
}

/** What the portal says of them (no key): the Brain tab's "what the visitor hears". */
export const ZPlatformSpeechInfo = z.object({
  tts: z.object({ provider: z.enum(PlatformTtsProviders), voice: z.string() }).nullable(),
  stt: z.object({ provider: z.enum(PlatformSttProviders) }).nullable(),
});
export type TPlatformSpeechInfo = z.infer<typeof ZPlatformSpeechInfo>;

/** The default voice of each hosted provider (the worker's and the Brain tab's). */
export const PlatformVoiceDefaults: Record<TPlatformTtsProvider, string> = { azure: 'en-US-JennyNeural', polly: 'Joanna (neural)', openai: 'alloy' };

export const PlatformSpeechProviderNames: Record<TPlatformTtsProvider | TPlatformSttProvider, string> = {
  azure: 'Microsoft Azure',
  polly: 'Amazon Polly',
  google: 'Google Cloud',
  deepgram: 'Deepgram',
  openai: 'an OpenAI-compatible service',
};

const httpUrl = (v: string) => {
  try {
    return ['http:', 'https:'].includes(new URL(v.replaceAll('{region}', 'region')).protocol);
  } catch {
    return false;
  }
};

/**
 * PLATFORM_TTS_* and PLATFORM_STT_* of an environment: the settings, or the problems (each
 * "NAME: what is wrong", for a start that fails fast). Empty values are unset.
 */
export function platformSpeechFromEnv(env: Record<string, string | undefined>): { tts: TPlatformTts | null; stt: TPlatformStt | null; problems: string[] } {
  const problems: string[] = [];
  const read = (name: string) => env[name]?.trim() || undefined;
  const url = (name: string) => {
    const v = read(name);
    if (v === undefined) return undefined;
    if (httpUrl(v)) return v.replace(/\/+$/, '');
    problems.push(`${name}: must be a URL starting with http:// or https://`);
    return undefined;
  };
  const need = (name: string, provider: string) => {
    const v = read(name);
    if (v === undefined) problems.push(`${name}: is required with ${provider}`);
    return v ?? '';
  };

  let tts: TPlatformTts | null = null;
  const ttsProvider = read('PLATFORM_TTS_PROVIDER')?.toLowerCase();
  if (ttsProvider !== undefined) {
    if (!(PlatformTtsProviders as readonly string[]).includes(ttsProvider)) {
      problems.push(`PLATFORM_TTS_PROVIDER: must be one of ${PlatformTtsProviders.join(', ')}`);
    } else {
      const provider = ttsProvider as TPlatformTtsProvider;
      const ttsUrl = url('PLATFORM_TTS_URL');
      const voice = read('PLATFORM_TTS_VOICE') ?? PlatformVoiceDefaults[provider];
      if (provider === 'azure') {
        const apiKey = need('PLATFORM_TTS_API_KEY', 'azure');
        const region = ttsUrl && !ttsUrl.includes('{region}') ? read('PLATFORM_TTS_REGION') : need('PLATFORM_TTS_REGION', 'azure');
        if (region && !SpeechRegionPatterns.azure.test(region)) problems.push('PLATFORM_TTS_REGION: must be an Azure region name such as westeurope');
        tts = { provider, apiKey, region: region || 'custom', ...(ttsUrl ? { url: ttsUrl } : {}), voice };
      } else if (provider === 'polly') {
        const apiKey = need('PLATFORM_TTS_API_KEY', 'polly (the access key id)');
        const secretKey = need('PLATFORM_TTS_SECRET_KEY', 'polly');
        const region = read('PLATFORM_TTS_REGION') ?? 'us-east-1';
        if (!/^[a-z]{2}(-[a-z]+)+-\d$/.test(region)) problems.push('PLATFORM_TTS_REGION: must be an AWS region such as us-east-1');
        tts = { provider, apiKey, secretKey, region, ...(ttsUrl ? { url: ttsUrl } : {}), voice };
      } else {
        const base = ttsUrl ?? (need('PLATFORM_TTS_URL', 'openai'), '');
        tts = { provider, apiKey: read('PLATFORM_TTS_API_KEY') ?? '', url: base, voice, ...(read('PLATFORM_TTS_MODEL') ? { model: read('PLATFORM_TTS_MODEL') } : {}) };
      }
    }
  } else {
    for (const name of ['PLATFORM_TTS_API_KEY', 'PLATFORM_TTS_SECRET_KEY', 'PLATFORM_TTS_URL']) if (read(name)) problems.push(`${name}: is set but PLATFORM_TTS_PROVIDER is not (${PlatformTtsProviders.join(', ')})`);
  }

  let stt: TPlatformStt | null = null;
  const sttProvider = read('PLATFORM_STT_PROVIDER')?.toLowerCase();
  if (sttProvider !== undefined) {
    if (!(PlatformSttProviders as readonly string[]).includes(sttProvider)) {
      problems.push(`PLATFORM_STT_PROVIDER: must be one of ${PlatformSttProviders.join(', ')}`);
    } else {
      const provider = sttProvider as TPlatformSttProvider;
      const sttUrl = url('PLATFORM_STT_URL');
      const model = read('PLATFORM_STT_MODEL');
      if (model !== undefined && !/^[A-Za-z0-9._:/-]{1,100}$/.test(model)) problems.push('PLATFORM_STT_MODEL: must be a model name (letters, digits, . _ : / -)');
      const extra = { ...(sttUrl ? { url: sttUrl } : {}), ...(model && provider !== 'azure' ? { model } : {}) };
      if (provider === 'azure') {
        const apiKey = need('PLATFORM_STT_API_KEY', 'azure');
        const region = sttUrl && !sttUrl.includes('{region}') ? read('PLATFORM_STT_REGION') : need('PLATFORM_STT_REGION', 'azure');
        if (region && !SpeechRegionPatterns.azure.test(region)) problems.push('PLATFORM_STT_REGION: must be an Azure region name such as westeurope');
        stt = { provider, apiKey, region: region || 'custom', ...extra };
      } else if (provider === 'google') {
        const region = read('PLATFORM_STT_REGION');
        stt = { provider, apiKey: need('PLATFORM_STT_API_KEY', 'google'), ...(region ? { region } : {}), ...extra };
      } else if (provider === 'deepgram') {
        stt = { provider, apiKey: need('PLATFORM_STT_API_KEY', 'deepgram'), ...extra };
      } else {
        if (!sttUrl) need('PLATFORM_STT_URL', 'openai');
        stt = { provider, apiKey: read('PLATFORM_STT_API_KEY') ?? '', ...extra, url: sttUrl ?? '' };
      }
    }
  } else {
    for (const name of ['PLATFORM_STT_API_KEY', 'PLATFORM_STT_URL']) if (read(name)) problems.push(`${name}: is set but PLATFORM_STT_PROVIDER is not (${PlatformSttProviders.join(', ')})`);
  }
  return { tts: problems.length ? null : tts, stt: problems.length ? null : stt, problems };
}

/** What the portal may say of the settings (no key). */
export function platformSpeechInfo(tts: TPlatformTts | null, stt: TPlatformStt | null): TPlatformSpeechInfo {
  return { tts: tts ? { provider: tts.provider, voice: tts.voice } : null, stt: stt ? { provider: stt.provider } : null };
}

/** The offline voices (flite's, compiled into the worker's package; `awb_time` only speaks the time). */
export const OfflineVoices = [
  { id: 'slt', description: 'US English, female (CMU Arctic slt)', sampleRate: 16_000 },
  { id: 'rms', description: 'US English, male (CMU Arctic rms)', sampleRate: 16_000 },
  { id: 'awb', description: 'Scottish English, male (CMU Arctic awb)', sampleRate: 16_000 },
  { id: 'kal16', description: 'US English, male, diphone (kal, 16 kHz)', sampleRate: 16_000 },
  { id: 'kal', description: 'US English, male, diphone (kal, 8 kHz)', sampleRate: 8_000 },
] as const satisfies readonly { id: string; description: string; sampleRate: number }[];

export const OfflineVoiceDefault = 'slt';

const MALE_NAMES = new Set(['guy', 'matthew', 'brian', 'joey', 'justin', 'kevin', 'stephen', 'russell', 'davis', 'tony', 'jason', 'andrew', 'christopher', 'eric', 'roger', 'steffan', 'ryan', 'thomas', 'liam', 'william', 'hans', 'conrad', 'daniel', 'enrique', 'jorge', 'henri', 'remy', 'giorgio', 'mathieu', 'alvaro', 'killian', 'gregory', 'arthur', 'adam']);

/** The offline voice that speaks for a configured voice id (product-hosted voices map by gender). */
export function offlineVoiceFor(voiceId: string | undefined): string {
  const id = (voiceId ?? '').trim();
  if (OfflineVoices.some((v) => v.id === id)) return id;
  // Azure "en-US-GuyNeural", Polly "Matthew (neural)": the speaker's name.
  const name = (/^[a-z]{2,3}-[A-Z]{2,4}-([A-Za-z]+?)(?:Multilingual)?Neural$/.exec(id)?.[1] ?? /^([A-Za-z]+)/.exec(id)?.[1] ?? '').toLowerCase();
  return MALE_NAMES.has(name) ? 'rms' : OfflineVoiceDefault;
}

const AZURE_VOICE = /^[a-z]{2,3}-[A-Z]{2,4}-/;
const POLLY_VOICE = /\((standard|neural|long-form|generative)\)$/;

/** What a product voice (Simple mode, or Default in Composite) is spoken with. */
export type TSpokenVoice = { provider: TPlatformTtsProvider; voice: string } | { provider: 'offline'; voice: string };

/**
 * The voice the visitor hears for an avatar's product voice (`default_tts`, `voice_id`) on a
 * server whose operator has `hosted` (null: none): the avatar's voice when it is one of the hosted
 * provider's, else the operator's default voice; the offline voice when `default_tts` asks for it
 * or nothing is hosted. The worker speaks with this choice and the Brain tab names it.
 */
export function spokenPlatformVoice(input: { defaultTts: string; voice: string }, hosted: Pick<TPlatformTts, 'provider' | 'voice'> | null): TSpokenVoice {
  const defaultTts = input.defaultTts.trim().toLowerCase();
  const voice = input.voice.trim();
  if (defaultTts === 'offline' || !hosted) return { provider: 'offline', voice: offlineVoiceFor(voice) };
  const wantsPolly = defaultTts === 'polly' || POLLY_VOICE.test(voice);
  if (hosted.provider === 'azure') return { provider: 'azure', voice: !wantsPolly && AZURE_VOICE.test(voice) ? voice : hosted.voice };
  if (hosted.provider === 'polly') return { provider: 'polly', voice: wantsPolly && voice ? voice : hosted.voice };
  return { provider: 'openai', voice: hosted.voice };
}

/** What the Brain tab says the visitor will hear, and be heard by, with the product's own speech. */
export const PlatformSpeechMessages = {
  voiceHosted: (voice: string, provider: TPlatformTtsProvider) => `Visitors hear ${voice} from ${PlatformSpeechProviderNames[provider]}, the voice this server is set up with.`,
  voiceOffline: (description: string) =>
    `This server has no hosted voice yet, so visitors hear the offline voice: ${description}. Ask the administrator to set one up, or choose your own provider in Composite mode.`,
  sttHosted: (provider: TPlatformSttProvider) => `What visitors say is recognised by ${PlatformSpeechProviderNames[provider]}, the speech to text this server is set up with.`,
  sttOffline: 'This server has no hosted speech to text yet: what visitors say is recognised offline (English only), or by their own browser.',
} as const;

/** The Brain tab's sentence for a product voice: the voice that will speak, and whether it is the offline fallback. */
export function platformVoiceSentence(input: { defaultTts: string; voice: string }, hosted: TPlatformSpeechInfo['tts']): { text: string; isOffline: boolean } {
  const spoken = spokenPlatformVoice(input, hosted);
  if (spoken.provider === 'offline') {
    const info = OfflineVoices.find((v) => v.id === spoken.voice) ?? OfflineVoices[0];
    return { text: PlatformSpeechMessages.voiceOffline(info.description), isOffline: true };
  }
  return { text: PlatformSpeechMessages.voiceHosted(spoken.voice, spoken.provider), isOffline: false };
}
