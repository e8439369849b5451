import { SetupMode, type TAvatarConfig, type TLiveBrainConfig, type TLiveFunction, type TLiveSessionConfig } from '@persona/contract';
import { brainConfig, type PlatformLlm } from './brain-config.js';
import type { LiveSessionRow } from './repository.js';

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
  /** The avatar's stored configuration (contract `readAvatarConfig`), secrets opened. */
  config: TAvatarConfig;
  functions: TLiveFunction[];
  memory: string | null;
}

/**
 * The one place a worker's session config is built from the stored avatar (the `session.claim`
 * answer, contract ZLiveSessionConfig): the brain's settings with the brain's keys only (an echo
 * avatar's stored LLM key stays home, the operator's PLATFORM_LLM_API_KEY goes only to an LLM brain
 * of Simple mode), the speech settings (contract readLiveSpeech, read with the configuration: typed,
 * with only the keys of the providers this session runs, and none unless it runs the avatar's own).
 */
export function toLiveSessionConfig(src: LiveSessionSource, deps: { platformLlm: PlatformLlm | null; allowPrivateUrls: boolean }): TLiveSessionConfig {
  const { row, avatar, config } = src;
  const brain = brainConfig({ nlpEngine: avatar.nlpEngine, setupMode: avatar.setupMode, config }, deps.platformLlm);
  return {
    sessionId: row.id,
    resumed: src.resumed,
    avatar: {
      id: avatar.id,
      name: avatar.name,
      ownerUserId: avatar.userId,
      nlpEngine: avatar.nlpEngine,
      setupMode: avatar.setupMode,
      wakeUpMessage: config.session.wakeUpMessage,
      idleTimeoutSeconds: config.access.idleTimeoutSeconds,
      demoSeconds: config.access.demoSeconds,
      startedAt: row.startedAt.getTime(),
      sendChatHistory: config.session.sendChatHistory,
      permissions: config.session.permissions,
      summaryEnabled: config.session.summaryEnabled,
      hasKnowledge: config.collectionIds.length > 0,
      fillers: config.session.fillers,
    },
    brain,
    speech: usesOwnSpeech(avatar.setupMode, brain, row.textOnly) ? config.speech.withKeys : config.speech.withoutKeys,
    functions: src.functions,
    echo: row.echo,
    history: row.history,
    memory: src.memory,
    visitorId: row.visitorId,
    allowPrivateUrls: deps.allowPrivateUrls,
    textOnly: row.textOnly,
  };
}
