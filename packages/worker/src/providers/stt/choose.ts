import { SetupMode, SttProvider, type TLiveStt } from '@persona/contract';
import { chooseNetworkStt, createNetworkSttEngine, type NetworkSttChoice, type OperatorStt, type SttEngineDeps as NetworkSttDeps, type SttSettings } from './network.js';
import type { OfflineRecognizer } from './offline.js';
import { createOfflineStt } from './offline.js';
import { createOfflineStreamStt, isStreamingRecognizer } from './offline-stream.js';
import type { SttEngine } from './types.js';

/**
 * Which speech-to-text engine an avatar listens with, from its speech to text as the portal read
 * it (contract TLiveStt: typed, keys decrypted):
 * - Speech to Speech and 3rd-party modes: none here (the realtime provider listens; next issue);
 * - provider None: none (typed chat only);
 * - Deepgram, Azure, Google, an OpenAI-compatible endpoint with their keys, or the operator's
 *   hosted STT for Simple mode / Default: the network clients (network.ts);
 * - otherwise (keys missing, nothing hosted): the offline recogniser (pocketsphinx) when it is
 *   installed on this worker, else none — the page is told in `ready` that it cannot listen.
 */
export type SttChoice =
  | { kind: 'none'; reason: string }
  | { kind: 'offline'; reason: string; settings: SttSettings }
  | { kind: 'network'; choice: NetworkSttChoice; settings: SttSettings };

export function chooseStt(input: { setupMode: number; stt: TLiveStt }, operator: OperatorStt = {}): SttChoice {
  if (input.setupMode === SetupMode.SpeechToSpeech || input.setupMode === SetupMode.None) return { kind: 'none', reason: 'the realtime model or the agent listens' };
  if (input.stt.provider === SttProvider.None && input.setupMode !== SetupMode.Simple) return { kind: 'none', reason: 'the avatar does not listen (speech to text: None)' };
  const pick = chooseNetworkStt(input, operator);
  if (pick.choice) return { kind: 'network', choice: pick.choice, settings: pick.settings };
  return { kind: 'offline', reason: pick.reason, settings: pick.settings };
}

export interface SttEngineDeps extends NetworkSttDeps {
  /** The worker's pocketsphinx process (null: not installed here). */
  offline: OfflineRecognizer | null;
  /** The over-the-avatar model's file once there (ADR 107; the streaming recogniser only). */
  overAvatarModel?: () => string | null;
}

/** The engine for a choice; null when the avatar cannot listen on this worker (typed chat only). */
export function createSttEngine(choice: SttChoice, deps: SttEngineDeps): SttEngine | null {
  switch (choice.kind) {
    case 'none':
      return null;
    case 'offline':
      return deps.offline ? (isStreamingRecognizer(deps.offline) ? createOfflineStreamStt(deps.offline, {}, deps.overAvatarModel) : createOfflineStt(deps.offline)) : null;
    case 'network':
      return createNetworkSttEngine(choice.choice, deps);
  }
}
