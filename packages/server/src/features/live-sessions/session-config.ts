import { readLiveSpeech, SetupMode, type TLiveBrainConfig, type TLiveFunction, type TLiveSessionConfig } from '@persona/contract';
import { brainConfig, llmSettings, type PlatformLlm } from './brain-config.js';
import type { LiveSessionRow } from './repository.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

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
 * of Simple mode), the speech settings (contract readLiveSpeech: typed, with only the keys of the
 * providers this session runs, and none unless it runs the avatar's own).
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
    },
    brain,
    speech: readLiveSpeech(pipeline, { keys: usesOwnSpeech(avatar.setupMode, brain, row.textOnly) }),
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
