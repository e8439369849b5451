import { entryFunctionName, type TLiveFunction } from '@persona/contract';
import type { BrainLogger, GuardedFetch, ToolRunner } from '../core/types.js';
import type { SandboxPool } from './types.js';

export interface FunctionToolsOptions {
  pool: SandboxPool;
  /** The avatar's linked, approved functions (the session config's `functions`). */
  functions: readonly TLiveFunction[];
  /**
   * Which functions may share an interpreter: those of one owner (`user:<ownerUserId>`) is the
   * intended key — never a key two owners share.
   */
  isolationKey: string;
  /** The session's guarded fetch (its private-address rule), for functions allowed on the network. */
  fetch?: GuardedFetch;
  /** Time limit of one call (default: the pool's). */
  timeoutMs?: number;
  /** Time limit of a call of a function allowed on the network (its requests take time). Default 10000 ms. */
  networkTimeoutMs?: number;
  /** Longest a call waits for a process (default TOOL_QUEUE_WAIT_MS). */
  queueTimeoutMs?: number;
  log: BrainLogger;
}

/** Kinds of failure that say nothing about the function itself: try again later. */
const TRANSIENT = new Set(['busy', 'crashed', 'timeout', 'closed', 'aborted']);

/**
 * Longest a tool call waits for a sandbox process: well within the time a turn may go
 * without a word (the model's stream idles out after 10 s, LLM_IDLE_MS), so a busy pool gives the
 * model a result it can tell the visitor about instead of a silent turn.
 */
export const TOOL_QUEUE_WAIT_MS = 5000;

/** What the model is told when no sandbox process was free in time. */
export const TOOL_BUSY_ERROR = 'The function could not run now because the function service is busy. Tell the visitor to try again in a moment.';

/**
 * The brains' ToolRunner over the sandbox pool: each function is offered under its entry name
 * (the File Name without .py — the def the code must contain), described from its signature and
 * docstring, and called with the model's JSON arguments. A function that cannot be described is
 * left out (logged); one that fails answers {ok: false, error} for the model.
 */
export function createFunctionTools(opts: FunctionToolsOptions): ToolRunner {
  const byName = new Map<string, TLiveFunction>();
  return {
    async tools() {
      const described = await Promise.all(
        opts.functions.map(async (fn) => ({ fn, answer: await opts.pool.describe(fn.code, entryFunctionName(fn.name), { isolationKey: opts.isolationKey }) })),
      );
      const transient = described.find(({ answer }) => !answer.ok && TRANSIENT.has(answer.kind));
      if (transient && !transient.answer.ok) throw new Error(`the function sandbox could not describe ${transient.fn.name}: ${transient.answer.error}`);
      const tools = [];
      byName.clear();
      for (const { fn, answer } of described) {
        if (!answer.ok) {
          opts.log.warn('a linked function cannot be offered to the model', { functionId: fn.id, name: fn.name, error: answer.error });
          continue;
        }
        const { name, description, parameters } = answer.tool.function;
        if (byName.has(name)) continue;
        byName.set(name, fn);
        tools.push({ name, description, parameters: parameters as unknown as Record<string, unknown> });
      }
      return tools;
    },

    async call(name, argsJson, signal) {
      const fn = byName.get(name);
      if (!fn) return { ok: false, error: `There is no function named ${name}.` };
      const answer = await opts.pool.call(fn.code, entryFunctionName(fn.name), argsJson, {
        allowNetwork: fn.allowNetwork,
        fetch: opts.fetch,
        isolationKey: opts.isolationKey,
        timeoutMs: fn.allowNetwork ? (opts.networkTimeoutMs ?? 10_000) : opts.timeoutMs,
        queueTimeoutMs: opts.queueTimeoutMs ?? TOOL_QUEUE_WAIT_MS,
        signal,
      });
      if (answer.ok) return { ok: true, result: answer.result };
      if (answer.kind === 'busy') {
        opts.log.warn('a function call found no free sandbox in time', { functionId: fn.id, name, error: answer.error });
        return { ok: false, error: TOOL_BUSY_ERROR };
      }
      // For the owner: the function's own failures at info, the sandbox's limits and crashes as warnings.
      const entry = { functionId: fn.id, name, kind: answer.kind, error: answer.error };
      if (answer.kind === 'raised' || answer.kind === 'invalid') opts.log.info('a function call raised', entry);
      else if (answer.kind !== 'aborted') opts.log.warn('a function call failed in the sandbox', entry);
      return { ok: false, error: answer.error };
    },
  };
}
