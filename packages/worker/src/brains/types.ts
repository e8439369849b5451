import type { TLiveHistoryEntry, TLivePassage, TLiveSessionConfig } from '@persona/contract';
import type { BrainLogger, GuardedFetch, ToolRunner } from '../core/types.js';

/**
 * A brain answers the visitor's turns for one live session (echo, LLM with knowledge
 * and python tools, REST endpoint, Dialogflow ES/CX). The session owns history, timers and
 * transport; a brain only turns a user turn into a stream of events. Provider clients never leak
 * their wire format past their own file: they emit these events.
 */
export type BrainEvent =
  /** Part of the answer, streamed as soon as the provider produces it. */
  | { type: 'text'; delta: string }
  /** A function (tool) the model called; shown on the page's status line. */
  | {
      type: 'tool';
      name: string;
      status: 'started' | 'ok' | 'error';
      error?: string;
      /** With `ok` / `error`: the call's arguments and its result (or error), for the transcript (ADR 102). */
      arguments?: string;
      result?: string;
    }
  /** The knowledge passages the answer was given (ADR 102: the transcript shows them). */
  | { type: 'passages'; passages: readonly TLivePassage[] }
  /** Something the visitor should know while they wait (the functions are still starting). */
  | { type: 'notice'; code: 'tools-starting' };

export interface BrainTurn {
  /** What the visitor said or typed. */
  text: string;
  /** The conversation before this turn (what was actually heard for interrupted answers). */
  history: readonly TLiveHistoryEntry[];
  /** Aborted when the visitor interrupts or the session ends: stop work, stop billing the provider. */
  signal: AbortSignal;
}

export interface Brain {
  readonly kind: string;
  /** Before the first turn (REST: LOGIN). Throwing ProviderError ends nothing: the session goes on. */
  start?(signal: AbortSignal): Promise<void>;
  reply(turn: BrainTurn): AsyncIterable<BrainEvent>;
  /** The session's summary, asked once at its end (ADR 099): the visitor's memory when avatar memory is on, else this conversation's (null: none). */
  summarize?(history: readonly TLiveHistoryEntry[], signal: AbortSignal): Promise<string | null>;
  /** After the last turn (REST: LOGOUT). */
  end?(): Promise<void>;
}

export interface BrainDeps {
  config: TLiveSessionConfig;
  log: BrainLogger;
  /** Hybrid search over the avatar's linked collections, through the portal. */
  knowledge: (query: string, signal: AbortSignal) => Promise<TLivePassage[]>;
  tools: ToolRunner | null;
  fetch: GuardedFetch;
  now: () => number;
}
