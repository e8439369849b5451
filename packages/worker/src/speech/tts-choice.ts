import { PlatformVoiceDefaults, SetupMode, spokenPlatformVoice, TtsProvider, type TPlatformTts } from '@persona/contract';
import type { GuardedFetch } from '../brains/types.js';
import { createAzureTts } from '../providers/tts/azure.js';
import { createCartesiaTts } from '../providers/tts/cartesia.js';
import { createElevenLabsTts } from '../providers/tts/elevenlabs.js';
import { createNeuphonicTts } from '../providers/tts/neuphonic.js';
import { createOpenAiTts } from '../providers/tts/openai-compatible.js';
import { createPollyTts } from '../providers/tts/polly.js';
import { speedToRate, type TtsEngine } from '../providers/tts/types.js';
import { createOfflineTts, offlineVoiceFor, type OfflineVoice } from './offline-voice.js';

/**
 * Which voice an avatar speaks with, from its `agent_pipeline_config.tts` (as the portal sends it,
 * keys decrypted) and the operator's own voice settings:
 * - Speech to Speech and 3rd-party modes: none (the realtime model or the agent speaks);
 * - provider None: none (text only);
 * - Simple mode, or provider Default: the operator's hosted voice named by `default_tts`
 *   (azure, polly) or any the operator configured — and with nothing configured, the offline
 *   voice (flite), so every machine speaks after `npm install`;
 * - Polly, Azure, ElevenLabs, Cartesia, Neuphonic, or an OpenAI-compatible endpoint
 *   (`provider: "openai"` with `base_url`): the avatar's own keys. Keys missing → the offline
 *   voice, with the reason for the owner's log.
 */
export interface OperatorTts {
  /** `baseUrl`: a gateway instead of Azure's regional host (may hold `{region}`); `voice`: the default (en-US-JennyNeural). */
  azure?: { apiKey: string; region: string; baseUrl?: string; voice?: string };
  /** `baseUrl`: a gateway instead of Polly's regional endpoint; `voice`: the default (Joanna (neural)). */
  polly?: { accessKeyId: string; secretAccessKey: string; region: string; baseUrl?: string; voice?: string };
  openai?: { baseUrl: string; apiKey: string; model?: string; voice?: string };
}

/** The operator's voice of PLATFORM_TTS_* (contract's platformSpeechFromEnv) as the chooser takes it. */
export function operatorTtsOf(tts: TPlatformTts | null): OperatorTts {
  if (!tts) return {};
  const base = tts.url ? { baseUrl: tts.url } : {};
  switch (tts.provider) {
    case 'azure':
      return { azure: { apiKey: tts.apiKey, region: tts.region ?? '', ...base, voice: tts.voice } };
    case 'polly':
      return { polly: { accessKeyId: tts.apiKey, secretAccessKey: tts.secretKey ?? '', region: tts.region ?? 'us-east-1', ...base, voice: tts.voice } };
    case 'openai':
      return { openai: { baseUrl: tts.url ?? '', apiKey: tts.apiKey, ...(tts.model ? { model: tts.model } : {}), voice: tts.voice } };
  }
}

/** Provider base URLs (tests, proxies, sovereign clouds); `azure` may contain `{region}`. */
export interface TtsBaseUrls {
  polly?: string;
  azure?: string;
  elevenlabs?: string;
  cartesia?: string;
  neuphonic?: string;
}

export type TtsChoice =
  | { kind: 'none'; reason: string }
  | { kind: 'offline'; voice: string; rate: number; reason: string }
  | { kind: 'polly'; accessKeyId: string; secretAccessKey: string; region: string; voice: string; engine?: string; speed?: number; baseUrl?: string; operator?: true }
  | { kind: 'azure'; apiKey: string; region: string; voice: string; speed?: number; baseUrl?: string; operator?: true }
  | { kind: 'elevenlabs'; apiKey: string; voiceId: string; model?: string; speed?: number; languageCode?: string }
  | { kind: 'cartesia'; apiKey: string; voiceId: string; model?: string; speed?: number; language?: string }
  | { kind: 'neuphonic'; apiKey: string; voiceId?: string; langCode?: string; speed?: number; model?: string }
  | { kind: 'openai'; baseUrl: string; apiKey: string; model?: string; voice?: string; speed?: number; operator: boolean };

const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : typeof v === 'number' ? String(v) : '');
const num = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
};

const PROVIDER_NAMES: Record<string, number | 'openai'> = {
  polly: TtsProvider.Polly,
  amazon: TtsProvider.Polly,
  azure: TtsProvider.Azure,
  microsoft: TtsProvider.Azure,
  elevenlabs: TtsProvider.ElevenLabs,
  default: TtsProvider.Default,
  none: TtsProvider.None,
  cartesia: TtsProvider.Cartesia,
  neuphonic: TtsProvider.Neuphonic,
  openai: 'openai',
  'openai-compatible': 'openai',
};

function providerOf(value: unknown): number | 'openai' | null {
  if (value === undefined || value === null || value === '') return null;
  if (typeof value === 'number') return value;
  const s = String(value).trim().toLowerCase();
  if (/^\d+$/.test(s)) return Number(s);
  return PROVIDER_NAMES[s] ?? -1;
}

export function chooseTts(input: { setupMode: number; pipeline: Record<string, unknown> | null | undefined }, operator: OperatorTts = {}): TtsChoice {
  if (input.setupMode === SetupMode.SpeechToSpeech || input.setupMode === SetupMode.None) return { kind: 'none', reason: 'the realtime model or the agent speaks' };
  const raw = input.pipeline?.tts;
  const tts = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const provider = providerOf(tts.provider);
  const voice = str(tts.voice_id);
  const speed = num(tts.speed);
  const hosted = (why: string) => hostedVoice(str(tts.default_tts).toLowerCase(), voice, speed, operator, why);
  if (input.setupMode === SetupMode.Simple || provider === null || provider === TtsProvider.Default) return hosted(provider === TtsProvider.Default ? 'Default voice' : 'Simple mode');
  const offline = (reason: string): TtsChoice => ({ kind: 'offline', voice: offlineVoiceFor(voice), rate: speedToRate(speed), reason });
  const key = str(tts.api_key);
  const model = str(tts.model) || undefined;
  switch (provider) {
    case TtsProvider.None:
      return { kind: 'none', reason: 'the avatar has no voice (text to speech: None)' };
    case TtsProvider.Polly: {
      const secret = str(tts.secret_key);
      if (!key || !secret) return offline("the avatar's Polly keys are missing");
      return { kind: 'polly', accessKeyId: key, secretAccessKey: secret, region: str(tts.region) || 'us-east-1', voice: voice || 'Joanna', engine: model, speed };
    }
    case TtsProvider.Azure:
      if (!key || !str(tts.region)) return offline("the avatar's Azure key or region is missing");
      return { kind: 'azure', apiKey: key, region: str(tts.region), voice: voice || 'en-US-JennyNeural', speed };
    case TtsProvider.ElevenLabs:
      if (!key || !voice) return offline("the avatar's ElevenLabs key or voice is missing");
      return { kind: 'elevenlabs', apiKey: key, voiceId: voice, model, speed, languageCode: str(tts.lang_code) || undefined };
    case TtsProvider.Cartesia:
      if (!key || !voice) return offline("the avatar's Cartesia key or voice is missing");
      return { kind: 'cartesia', apiKey: key, voiceId: voice, model, speed, language: str(tts.lang_code) || undefined };
    case TtsProvider.Neuphonic:
      if (!key) return offline("the avatar's Neuphonic key is missing");
      return { kind: 'neuphonic', apiKey: key, voiceId: voice || undefined, langCode: str(tts.lang_code) || 'en', speed, model };
    case 'openai': {
      const baseUrl = str(tts.base_url);
      if (!baseUrl) return offline("the avatar's speech endpoint (base_url) is missing");
      return { kind: 'openai', baseUrl, apiKey: key, model, voice: voice || undefined, speed, operator: false };
    }
    default:
      return offline(`unknown text-to-speech provider ${JSON.stringify(String(tts.provider)).slice(0, 40)}`);
  }
}

/**
 * The product's own voice: the operator's Azure or Polly (as `default_tts` asks), any other it
 * has, else offline; the voice itself is the contract's rule (spokenPlatformVoice), which the
 * Brain tab names too.
 */
function hostedVoice(defaultTts: string, voice: string, speed: number | undefined, op: OperatorTts, why: string): TtsChoice {
  const offline = (reason: string): TtsChoice => ({ kind: 'offline', voice: offlineVoiceFor(voice), rate: speedToRate(speed), reason });
  if (defaultTts === 'offline') return offline(`${why}: the offline voice`);
  const wantsPolly = defaultTts === 'polly' || /\((standard|neural|long-form|generative)\)$/.test(voice);
  const provider = wantsPolly ? (op.polly ? 'polly' : op.azure ? 'azure' : op.openai ? 'openai' : null) : op.azure ? 'azure' : op.polly ? 'polly' : op.openai ? 'openai' : null;
  if (!provider) return offline(`${why}: no hosted voice is configured on this server, so the offline voice speaks`);
  const spoken = spokenPlatformVoice({ defaultTts, voice }, { provider, voice: op[provider]?.voice || PlatformVoiceDefaults[provider] }).voice;
  const { baseUrl, voice: _default, ...keys } = op[provider]!;
  const gateway = baseUrl ? { baseUrl } : {};
  if (provider === 'azure') return { kind: 'azure', ...(keys as { apiKey: string; region: string }), voice: spoken, speed, ...gateway, operator: true };
  if (provider === 'polly') return { kind: 'polly', ...(keys as { accessKeyId: string; secretAccessKey: string; region: string }), voice: spoken, speed, ...gateway, operator: true };
  return { kind: 'openai', ...op.openai!, voice: spoken, speed, operator: true };
}

export interface TtsEngineDeps {
  /** The guarded fetch (OpenAI-compatible base URLs are the avatar owner's). */
  fetch: GuardedFetch;
  /** The operator's endpoint may be private: its own fetch (default: `fetch`). */
  operatorFetch?: GuardedFetch;
  offline: OfflineVoice;
  baseUrls?: TtsBaseUrls;
  /** Wanted session rate (providers pick their nearest); default: each provider's own. */
  sampleRate?: number;
}

/** The engine for a choice; null for `none`. */
export function createTtsEngine(choice: TtsChoice, deps: TtsEngineDeps): TtsEngine | null {
  const b = deps.baseUrls ?? {};
  switch (choice.kind) {
    case 'none':
      return null;
    case 'offline':
      return createOfflineTts(deps.offline, { voice: choice.voice, rate: choice.rate });
    case 'polly':
      return createPollyTts({ accessKeyId: choice.accessKeyId, secretAccessKey: choice.secretAccessKey, region: choice.region, voice: choice.voice, engine: choice.engine, speed: choice.speed, endpoint: choice.baseUrl ?? b.polly });
    case 'azure':
      // The operator's key goes to its own gateway when it named one (which may be private: its own fetch).
      return createAzureTts({ apiKey: choice.apiKey, region: choice.region, voice: choice.voice, speed: choice.speed, baseUrl: choice.baseUrl ?? b.azure, fetch: choice.operator ? (deps.operatorFetch ?? deps.fetch) : deps.fetch, sampleRate: deps.sampleRate });
    case 'elevenlabs':
      return createElevenLabsTts({ ...choice, baseUrl: b.elevenlabs, fetch: deps.fetch, sampleRate: deps.sampleRate });
    case 'cartesia':
      return createCartesiaTts({ ...choice, baseUrl: b.cartesia, fetch: deps.fetch, sampleRate: deps.sampleRate });
    case 'neuphonic':
      return createNeuphonicTts({ ...choice, baseUrl: b.neuphonic, fetch: deps.fetch, sampleRate: deps.sampleRate });
    case 'openai':
      return createOpenAiTts({ baseUrl: choice.baseUrl, apiKey: choice.apiKey, model: choice.model, voice: choice.voice, speed: choice.speed, fetch: choice.operator ? (deps.operatorFetch ?? deps.fetch) : deps.fetch });
  }
}
