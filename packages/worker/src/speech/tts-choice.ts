import { everyFieldRead, PlatformVoiceDefaults, SetupMode, spokenPlatformVoice, TtsProvider, type TLiveTts, type TPlatformTts } from '@persona/contract';
import type { GuardedFetch } from '../core/types.js';
import { createAzureTts } from '../providers/tts/azure.js';
import { createCartesiaTts } from '../providers/tts/cartesia.js';
import { createElevenLabsTts } from '../providers/tts/elevenlabs.js';
import { createNeuphonicTts } from '../providers/tts/neuphonic.js';
import { createOpenAiTts } from '../providers/tts/openai-compatible.js';
import { createPollyTts } from '../providers/tts/polly.js';
import { speedToRate, type TtsEngine } from '../providers/tts/types.js';
import { createOfflineTts, offlineVoiceFor, type OfflineVoice } from './offline-voice.js';

/**
 * Which voice an avatar speaks with, from its text to speech as the portal read it (contract
 * TLiveTts: typed, keys decrypted) and the operator's own voice settings:
 * - Speech to Speech and 3rd-party modes: none (the realtime model or the agent speaks);
 * - provider None: none (text only);
 * - Simple mode, or provider Default: the operator's hosted voice named by `default_tts`
 *   (azure, polly) or any the operator configured — and with nothing configured, the offline
 *   voice (flite), so every machine speaks after `npm install`;
 * - Polly, Azure, ElevenLabs, Cartesia, Neuphonic, or an OpenAI-compatible endpoint
 *   (`provider: 'openai'` with `baseUrl`): the avatar's own keys. Keys missing → the offline
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

/** The fields of one provider's voice: without the provider and the hosted voice's pick. */
function providerFields<T extends TLiveTts>(tts: T) {
  const { provider: _provider, defaultTts: _defaultTts, ...fields } = tts;
  return fields;
}

export function chooseTts(input: { setupMode: number; tts: TLiveTts }, operator: OperatorTts = {}): TtsChoice {
  if (input.setupMode === SetupMode.SpeechToSpeech || input.setupMode === SetupMode.None) return { kind: 'none', reason: 'the realtime model or the agent speaks' };
  const { tts } = input;
  if (input.setupMode === SetupMode.Simple || tts.provider === TtsProvider.Default) return hostedVoice(tts.defaultTts, tts.voice, tts.speed, operator, input.setupMode === SetupMode.Simple ? 'Simple mode' : 'Default voice');
  const offline = (reason: string): TtsChoice => ({ kind: 'offline', voice: offlineVoiceFor(tts.voice), rate: speedToRate(tts.speed), reason });
  // Each provider names every field it has (everyFieldRead): a field added to the contract is a compile error here.
  switch (tts.provider) {
    case TtsProvider.None:
      return { kind: 'none', reason: 'the avatar has no voice (text to speech: None)' };
    case TtsProvider.Polly: {
      const { voice, speed, apiKey, secretKey, region, model, ...unread } = providerFields(tts);
      everyFieldRead(unread);
      if (!apiKey || !secretKey) return offline("the avatar's Polly keys are missing");
      return { kind: 'polly', accessKeyId: apiKey, secretAccessKey: secretKey, region, voice: voice || 'Joanna', engine: model, speed };
    }
    case TtsProvider.Azure: {
      const { voice, speed, apiKey, region, ...unread } = providerFields(tts);
      everyFieldRead(unread);
      if (!apiKey || !region) return offline("the avatar's Azure key or region is missing");
      return { kind: 'azure', apiKey, region, voice: voice || 'en-US-JennyNeural', speed };
    }
    case TtsProvider.ElevenLabs: {
      const { voice, speed, apiKey, model, langCode, ...unread } = providerFields(tts);
      everyFieldRead(unread);
      if (!apiKey || !voice) return offline("the avatar's ElevenLabs key or voice is missing");
      return { kind: 'elevenlabs', apiKey, voiceId: voice, model, speed, languageCode: langCode };
    }
    case TtsProvider.Cartesia: {
      const { voice, speed, apiKey, model, langCode, ...unread } = providerFields(tts);
      everyFieldRead(unread);
      if (!apiKey || !voice) return offline("the avatar's Cartesia key or voice is missing");
      return { kind: 'cartesia', apiKey, voiceId: voice, model, speed, language: langCode };
    }
    case TtsProvider.Neuphonic: {
      const { voice, speed, apiKey, model, langCode, ...unread } = providerFields(tts);
      everyFieldRead(unread);
      if (!apiKey) return offline("the avatar's Neuphonic key is missing");
      return { kind: 'neuphonic', apiKey, voiceId: voice || undefined, langCode, speed, model };
    }
    case 'openai': {
      const { voice, speed, apiKey, baseUrl, model, ...unread } = providerFields(tts);
      everyFieldRead(unread);
      if (!baseUrl) return offline("the avatar's speech endpoint (base_url) is missing");
      return { kind: 'openai', baseUrl, apiKey, model, voice: voice || undefined, speed, operator: false };
    }
    case 'unknown':
      return offline(`unknown text-to-speech provider ${JSON.stringify(tts.name).slice(0, 40)}`);
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
