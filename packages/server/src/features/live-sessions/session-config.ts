import { SetupMode, SttProvider, TtsProvider, ZLivePipeline, providerNumber, type TLiveBrainConfig, type TLiveFunction, type TLivePipeline, type TLiveSessionConfig } from '@persona/contract';
import { brainConfig, llmSettings, type PlatformLlm } from './brain-config.js';
import type { LiveSessionRow } from './repository.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const numberish = (v: unknown): number | string | undefined => (typeof v === 'number' || typeof v === 'string' ? v : undefined);

/** STT providers that take the avatar's own key (the OpenAI-compatible endpoint by name). */
const STT_WITH_KEY = new Set<number | 'openai'>([SttProvider.Google, SttProvider.Azure, SttProvider.Deepgram, 'openai']);
const TTS_WITH_KEY = new Set<number | 'openai'>([TtsProvider.Polly, TtsProvider.Azure, TtsProvider.ElevenLabs, TtsProvider.Cartesia, TtsProvider.Neuphonic, 'openai']);

/** A stored provider as the worker's choosers read it: its number, 'openai', or null (unset or unknown). */
function providerOf(value: unknown, kind: 'stt' | 'tts'): number | 'openai' | null {
  if (typeof value === 'string' && /^openai(-compatible)?$/i.test(value.trim())) return 'openai';
  const n = providerNumber(value, kind);
  return n === undefined || Number.isNaN(n) ? null : n;
}

/**
 * Does this session run an STT and a TTS of the avatar's own (rather than the operator's, or none)?
 * Composite mode does; Bring-your-own-agent engines read theirs as in Composite (the agent's voice
 * and transcripts); Simple mode uses the operator's hosted ones; realtime and ElevenLabs brains
 * listen and speak themselves. A text-only session speaks and listens with nothing (but an agent's
 * `speak` frames are still said).
 */
function usesOwnSpeech(setupMode: number, brain: TLiveBrainConfig, textOnly: boolean): boolean {
  if (brain.kind === 'agent') return true;
  if (textOnly || brain.kind === 'realtime' || brain.kind === 'elevenlabs') return false;
  return setupMode === SetupMode.Composite;
}

/**
 * The speech settings of the session config (contract ZLivePipeline): every non-secret field the
 * worker's choosers read, and a key only where the provider the session will run takes it.
 */
export function liveSpeechOf(stored: Obj, own: boolean): TLivePipeline {
  const stt = obj(stored.stt);
  const tts = obj(stored.tts);
  const sttProvider = providerOf(stt.provider, 'stt');
  const ttsProvider = providerOf(tts.provider, 'tts');
  const sttKey = own && sttProvider !== null && STT_WITH_KEY.has(sttProvider);
  const ttsKey = own && ttsProvider !== null && TTS_WITH_KEY.has(ttsProvider);
  const pipeline = {
    stt: {
      provider: numberish(stt.provider),
      default_stt: str(stt.default_stt),
      api_key: sttKey ? str(stt.api_key) : undefined,
      region: str(stt.region),
      base_url: str(stt.base_url),
      model: str(stt.model),
      languages: str(stt.languages),
      context_phrases: str(stt.context_phrases),
      endpointing: numberish(stt.endpointing ?? stt.deepgramEndpoint ?? stt.deepgram_endpoint),
    },
    tts: {
      provider: numberish(tts.provider),
      default_tts: str(tts.default_tts),
      api_key: ttsKey ? str(tts.api_key) : undefined,
      secret_key: ttsKey && ttsProvider === TtsProvider.Polly ? str(tts.secret_key) : undefined,
      region: str(tts.region),
      base_url: str(tts.base_url),
      model: str(tts.model),
      voice_id: str(tts.voice_id),
      speed: numberish(tts.speed),
      lang_code: str(tts.lang_code),
    },
    vad_options: stored.vad_options && typeof stored.vad_options === 'object' ? obj(stored.vad_options) : undefined,
    interrupt_handling: stored.interrupt_handling && typeof stored.interrupt_handling === 'object' ? obj(stored.interrupt_handling) : undefined,
  };
  // Through the contract schema: what leaves is exactly its fields (undefined ones dropped by JSON).
  return ZLivePipeline.parse(pipeline);
}

export interface LiveSessionSource {
  row: Pick<LiveSessionRow, 'id' | 'startedAt' | 'echo' | 'history' | 'visitorId' | 'textOnly'>;
  resumed: boolean;
  avatar: { id: number; name: string; userId: number; nlpEngine: number; setupMode: number };
  /** The avatar's stored configuration, secrets opened. */
  config: Obj;
  rules: { idleTimeoutSeconds: number; demoSeconds: number };
  functions: TLiveFunction[];
  memory: string | null;
  hasKnowledge: boolean;
  summaryEnabled: boolean;
}

/**
 * The one place a worker's session config is built from the stored avatar (the `session.claim`
 * answer, contract ZLiveSessionConfig): the brain's settings with the brain's keys only (an echo
 * avatar's stored LLM key stays home, the operator's PLATFORM_LLM_API_KEY goes only to an LLM brain
 * of Simple mode), the speech settings with the keys of the providers this session runs.
 */
export function toLiveSessionConfig(src: LiveSessionSource, deps: { platformLlm: PlatformLlm | null; allowPrivateUrls: boolean }): TLiveSessionConfig {
  const { row, avatar, config } = src;
  const brain = brainConfig({ nlpEngine: avatar.nlpEngine, setupMode: avatar.setupMode, config }, deps.platformLlm);
  const pipeline = obj(obj(config.customData).agent_pipeline_config);
  return {
    sessionId: row.id,
    resumed: src.resumed,
    avatar: {
      id: avatar.id,
      name: avatar.name,
      ownerUserId: avatar.userId,
      nlpEngine: avatar.nlpEngine,
      setupMode: avatar.setupMode,
      wakeUpMessage: typeof config.wakeUpMessage === 'string' ? config.wakeUpMessage : '',
      idleTimeoutSeconds: src.rules.idleTimeoutSeconds,
      demoSeconds: src.rules.demoSeconds,
      startedAt: row.startedAt.getTime(),
      sendChatHistory: config.sendChatHistory === true,
      permissions: typeof config.permissions === 'number' ? config.permissions : 0,
      summaryEnabled: src.summaryEnabled,
      hasKnowledge: src.hasKnowledge,
      pipeline: liveSpeechOf(pipeline, usesOwnSpeech(avatar.setupMode, brain, row.textOnly)),
    },
    brain,
    functions: src.functions,
    echo: row.echo,
    history: row.history,
    memory: src.memory,
    visitorId: row.visitorId,
    allowPrivateUrls: deps.allowPrivateUrls,
    textOnly: row.textOnly,
  };
}

/** Is avatar memory on for this stored configuration (the brain's summary)? */
export function isSummaryEnabled(config: Obj): boolean {
  return obj(config.customData).summaryEnabled !== false && llmSettings(config).summary_enabled === true;
}
