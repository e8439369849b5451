import type { TLiveBrainConfig } from '@persona/contract';
import type { ChatTimeouts } from '../providers/llm/openai-compatible.js';
import type { GuardedFetch } from '../core/types.js';

/** Worker-level settings of the provider brains (the lead exposes them through worker config). */
export interface BrainOptions {
  /** Rounds of function calls per turn before the model must answer (default 3). */
  maxToolRounds?: number;
  /** Knowledge passages retrieved per user turn (default 5, at most 10). */
  knowledgePassages?: number;
  /** Longest a turn waits for the functions' definitions while the sandbox starts (default 20 s, TOOLS_WAIT_MS). */
  toolsWaitMs?: number;
  /** LLM and assistant streams: first-chunk and idle timeouts. */
  chatTimeouts?: Partial<ChatTimeouts>;
  /** REST brain and Dialogflow: one request, headers and body (default 15 s). */
  requestTimeoutMs?: number;
  /**
   * Replaces Dialogflow's API origins (https://dialogflow.googleapis.com and
   * https://{region}-dialogflow.googleapis.com) — a proxy, or a local fake in tests.
   */
  dialogflowBaseUrl?: string;
  /**
   * The fetch for endpoints the operator configured, not the avatar owner (Simple mode's platform
   * model, e.g. a model server on the operator's private network). Default: deps.fetch.
   */
  operatorFetch?: GuardedFetch;
}

export const DEFAULT_MAX_TOOL_ROUNDS = 3;
export const DEFAULT_KNOWLEDGE_PASSAGES = 5;
export const DEFAULT_REQUEST_TIMEOUT_MS = 15_000;

/** The session's brain config, checked to be of the kind a brain module expects. */
export function brainConfigOf<K extends TLiveBrainConfig['kind']>(config: TLiveBrainConfig, kind: K): Extract<TLiveBrainConfig, { kind: K }> {
  if (config.kind !== kind) throw new Error(`a ${kind} brain cannot run a ${config.kind} configuration`);
  return config as Extract<TLiveBrainConfig, { kind: K }>;
}
