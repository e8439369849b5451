import { SetupMode, SttProvider } from '@persona/contract';
import { chooseNetworkStt, createNetworkSttEngine, providerOf, sttSettingsOf, type NetworkSttChoice, type OperatorStt, type SttEngineDeps as NetworkSttDeps, type SttSettings } from './network.js';
import type { OfflineRecognizer } from './offline.js';
import { createOfflineStt } from './offline.js';
import type { SttEngine } from './types.js';

/**
 * Which speech-to-text engine an avatar listens with, from its stored
 * `agent_pipeline_config.stt` (as the portal sends it, keys decrypted):
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

/** The main language first, then the additional ones (at most 10 more); 'multi' for Deepgram. */
export function sttLanguages(stt: Record<string, unknown>): string[] {
  return typeof stt.languages === 'string' && stt.languages.trim() ? sttSettingsOf(stt).languages : [];
}

export function chooseStt(input: { setupMode: number; pipeline: Record<string, unknown> | null | undefined }, operator: OperatorStt = {}): SttChoice {
  if (input.setupMode === SetupMode.SpeechToSpeech || input.setupMode === SetupMode.None) return { kind: 'none', reason: 'the realtime model or the agent listens' };
  const raw = input.pipeline?.stt;
  const stt = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  if (providerOf(stt.provider) === SttProvider.None && input.setupMode !== SetupMode.Simple) return { kind: 'none', reason: 'the avatar does not listen (speech to text: None)' };
  const pick = chooseNetworkStt(input, operator);
  if (pick.choice) return { kind: 'network', choice: pick.choice, settings: pick.settings };
  return { kind: 'offline', reason: pick.reason, settings: pick.settings };
}

export interface SttEngineDeps extends NetworkSttDeps {
  /** The worker's pocketsphinx process (null: not installed here). */
  offline: OfflineRecognizer | null;
}

/** The engine for a choice; null when the avatar cannot listen on this worker (typed chat only). */
export function createSttEngine(choice: SttChoice, deps: SttEngineDeps): SttEngine | null {
  switch (choice.kind) {
    case 'none':
      return null;
    case 'offline':
      return deps.offline ? createOfflineStt(deps.offline) : null;
    case 'network':
      return createNetworkSttEngine(choice.choice, deps);
  }
}
