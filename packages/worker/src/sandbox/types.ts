import type { GuardedFetch } from '../core/types.js';

/**
 * What the function sandbox offers its callers (pool.ts): the pool's options, a call's options,
 * and the answers — a result, a tool description, or a failure of one of a few kinds.
 */

/** The tool definition an OpenAI-compatible chat API takes in `tools`. */
export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchemaObject };
}
export interface JsonSchemaObject {
  type: 'object';
  properties: Record<string, Record<string, unknown>>;
  required: string[];
  additionalProperties?: boolean;
}

export type SandboxErrorKind =
  /** The function (or its module) raised; error is "ExceptionType: message". */
  | 'raised'
  /** The code, the entry or the arguments are not usable. */
  | 'invalid'
  | 'timeout'
  | 'memory'
  /** The sandbox process died under the function. */
  | 'crashed'
  /** Too many calls waiting, or none could start in time. */
  | 'busy'
  /** The caller's signal aborted the call. */
  | 'aborted'
  | 'closed';
export type SandboxFailure = { ok: false; kind: SandboxErrorKind; error: string };
export type CallResult = { ok: true; result: string; truncated: boolean } | SandboxFailure;
export type DescribeResult = { ok: true; tool: ToolSpec } | SandboxFailure;

/** What functions allowed on the network may do through urllib (each request goes through the guarded fetch). */
export interface SandboxOutboundOptions {
  /** The pool's own guarded fetch reaches private addresses too (a call's `fetch` overrides it). Default false. */
  allowPrivateAddresses?: boolean;
  /** Longest one request may wait for its answer's headers (also bounded by the call's time limit). Default 8000 ms. */
  timeoutMs?: number;
  /** Largest answer body. Default 1 MiB. */
  maxResponseBytes?: number;
  /** Largest request body. Default 256 KiB. */
  maxRequestBytes?: number;
  /** Requests one call may make (each redirect hop is one). Default 10. */
  maxRequestsPerCall?: number;
}

export interface SandboxLogger {
  warn(msg: string, data?: object): void;
  error(msg: string, data?: object): void;
}

export interface SandboxPoolOptions {
  /** Sandbox processes at most (each ~150 MB resident when warm). Default 2. */
  size?: number;
  /** Start processes now and keep that many warm: `size` (true), none (false) or a number. Default true. */
  prewarm?: boolean | number;
  /** Time limit of one call or description. Default 5000 ms. */
  timeoutMs?: number;
  /** Resident memory limit of a sandbox process. Default 320 MB. */
  memoryLimitMb?: number;
  /** Results longer than this (UTF-8 bytes) are cut, with a note. Default 16 KiB. */
  resultMaxBytes?: number;
  /** Calls waiting for a process at most; more answer `busy`. Default 100. */
  maxQueue?: number;
  /** Longest a call waits for a process (a call's own `queueTimeoutMs` may be shorter). Default 20000 ms. */
  queueTimeoutMs?: number;
  /**
   * Longest a call waits while the pool is still cold (its snapshot being made, no process ready
   * yet): the first start loads Pyodide, which on a busy machine took 24 s here. Default 90000 ms.
   */
  coldStartTimeoutMs?: number;
  /** A process idle this long after running some code is replaced by a fresh one. Default 120000 ms. */
  recycleIdleMs?: number;
  /**
   * Start processes from a memory snapshot of a warm interpreter, made once by the pool (~0.4 s a
   * process instead of ~2.5 s). Off: every process loads Pyodide afresh. Default true.
   */
  snapshot?: boolean;
  /** Limits of the network access of functions that may use it. */
  outbound?: SandboxOutboundOptions;
  log?: SandboxLogger;
}

export interface CallOptions {
  /** This call's time limit (default: the pool's). */
  timeoutMs?: number;
  /** Let urllib reach public addresses through the outbound guard (the function's template needs it). */
  allowNetwork?: boolean;
  /** The guarded fetch those requests use: the session's, with its private-address rule. Default: the pool's. */
  fetch?: GuardedFetch;
  /** Aborting stops the call: dropped from the queue, or its process killed (answers kind 'aborted'). */
  signal?: AbortSignal;
  /**
   * Which code may share a process with this one: calls with the same key may run in the same
   * interpreter (module state persists between them). Default: the code itself, so two
   * different functions never share. Pass e.g. `user:<ownerId>` to let one owner's functions share.
   * It is also the unit of fairness: a key with no process running goes before keys that have one.
   */
  isolationKey?: string;
  /**
   * Longest this call waits for a process once the pool is warm (default: the pool's
   * `queueTimeoutMs`); then it answers `busy`. A tool call waits less than the model's patience.
   */
  queueTimeoutMs?: number;
}

export interface SandboxPoolStats {
  processes: number;
  starting: number;
  idle: number;
  busy: number;
  queued: number;
  /** Processes started since the pool was made (the first `size` included). */
  started: number;
  /** Calls whose process was stopped or lost, by reason, since the pool was made (metrics). */
  kills: Record<SandboxKillReason, number>;
  /** Calls refused `busy` (queue full, or no process free in time) since the pool was made. */
  busyRefusals: number;
}

export type SandboxKillReason = 'timeout' | 'memory' | 'crashed' | 'aborted';

export interface SandboxPool {
  /** The tool definition of `entry` (or, without it, of the first public top-level def); the code is parsed, never run. */
  describe(code: string, entry?: string, opts?: Pick<CallOptions, 'timeoutMs' | 'isolationKey'>): Promise<DescribeResult>;
  /** Calls `entry` with the JSON object `argsJson` (as an LLM's tool call gives it). Never throws. */
  call(code: string, entry: string, argsJson: string, opts?: CallOptions): Promise<CallResult>;
  /** Resolves when the processes it keeps warm (`prewarm`; without: all `size`) are; rejects when processes fail to start (three in a row). */
  ready(): Promise<void>;
  stats(): SandboxPoolStats;
  close(): Promise<void>;
}

export const KILL_REASONS = new Set<string>(['timeout', 'memory', 'crashed', 'aborted']);

export const fail = (kind: SandboxErrorKind, error: string): SandboxFailure => ({ ok: false, kind, error });

const KINDS = new Set<SandboxErrorKind>(['raised', 'invalid', 'timeout', 'memory', 'crashed', 'busy', 'aborted', 'closed']);

/** A process's answer that is not a success, as a failure the caller can show (unknown kinds: crashed). */
export function toFailure(answer: Record<string, unknown>): SandboxFailure {
  const kind = KINDS.has(answer.kind as SandboxErrorKind) ? (answer.kind as SandboxErrorKind) : 'crashed';
  const error = typeof answer.error === 'string' && answer.error ? answer.error.slice(0, 500) : 'The function failed.';
  return { ok: false, kind, error };
}
