import { LiveRates } from '@persona/contract';
import type { ChatTool, ChatToolCall } from '../providers/llm/openai-compatible.js';
import type { BrainDeps, BrainEvent } from './types.js';

/**
 * The avatar's linked functions as the model sees them, and one round of calls: `tool` events
 * (started, then ok/error) for the page, results for the model. A function that fails, or a
 * sandbox that does, gives the model an error result; only the caller's abort stops the turn.
 */
const RESULT_CHARS = 16_000;

export interface ToolOutput {
  id: string;
  output: string;
}

/**
 * Longest a turn waits for the definitions. A cold sandbox (the worker's first session with
 * functions) can take tens of seconds to start on a busy machine: the turn goes on without
 * functions rather than keep the visitor waiting, and the description carries on for later turns.
 */
export const TOOLS_WAIT_MS = 4000;

/**
 * Loads the definitions once per session (call it at the start to warm the sandbox); a sandbox
 * that cannot list them leaves the model without tools for that turn, and the next turn asks again.
 */
export function toolCatalog(deps: BrainDeps, waitMs: number = TOOLS_WAIT_MS): () => Promise<ChatTool[]> {
  let loaded: Promise<ChatTool[]> | null = null;
  let ready: ChatTool[] | null = null;
  return () => {
    if (!deps.tools || deps.config.functions.length === 0) return Promise.resolve([]);
    if (ready) return Promise.resolve(ready);
    const pending = (loaded ??= deps.tools.tools().then(
      (list) => (ready = list.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }))),
      (err: unknown) => {
        deps.log.warn('functions unavailable for this turn', { avatarId: deps.config.avatar.id, error: err instanceof Error ? err.message : String(err) });
        loaded = null;
        return [];
      },
    ));
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<ChatTool[]>((resolve) => {
      timer = setTimeout(() => {
        deps.log.info('functions not ready yet (the sandbox is starting): this turn goes without them', { avatarId: deps.config.avatar.id });
        resolve([]);
      }, waitMs);
    });
    return Promise.race([pending, late]).finally(() => clearTimeout(timer));
  };
}

/** What a call over the budget is answered (the model tells the visitor with what it has). */
export const TOOL_LIMIT_ERRORS = {
  turn: 'No more function calls for this answer: answer the visitor with what you have.',
  session: 'No more function calls in this conversation: answer the visitor without them.',
} as const;

/** One answer's share of the function calls (see ToolBudget). */
export interface ToolAllowance {
  /** Takes one call: 'ok', or which limit refuses it. */
  take(): 'ok' | keyof typeof TOOL_LIMIT_ERRORS;
  /** Calls left for this answer (0: ask the model to answer now). */
  readonly left: number;
}

/**
 * Function calls a session's model may make (issue 26): at most `perTurn` for one answer, all
 * rounds together, and `perSession` in the whole session (LiveRates). A call over either is not
 * run: the model gets an error result saying so.
 */
export class ToolBudget {
  private sessionLeft: number;

  constructor(
    private readonly perTurn: number = LiveRates.toolCallsPerTurn,
    perSession: number = LiveRates.toolCallsPerSession,
  ) {
    this.sessionLeft = perSession;
  }

  /** The allowance of one answer. */
  turn(): ToolAllowance {
    let left = this.perTurn;
    const session = () => this.sessionLeft;
    const takeSession = () => (this.sessionLeft -= 1);
    return {
      take() {
        if (session() <= 0) return 'session';
        if (left <= 0) return 'turn';
        left -= 1;
        takeSession();
        return 'ok';
      },
      get left() {
        return Math.min(left, session());
      },
    };
  }
}

export async function* runToolCalls(
  deps: BrainDeps,
  offered: readonly ChatTool[],
  calls: readonly ChatToolCall[],
  signal: AbortSignal,
  allowance: ToolAllowance = new ToolBudget().turn(),
): AsyncGenerator<BrainEvent, ToolOutput[]> {
  const names = new Set(offered.map((t) => t.name));
  // Over the budget: not run, not shown; the model is told (its own error result).
  const refused = calls.map((call) => (names.has(call.name) && deps.tools ? allowance.take() : 'ok'));
  const overs = refused.filter((r) => r !== 'ok');
  if (overs.length) deps.log.warn('function calls over the limit were not run', { avatarId: deps.config.avatar.id, calls: overs.length, limit: overs[0] });
  for (const [i, call] of calls.entries()) if (refused[i] === 'ok') yield { type: 'tool', name: call.name, status: 'started' };
  const results = await Promise.all(
    calls.map(async (call, i): Promise<{ ok: true; result: string } | { ok: false; error: string }> => {
      const over = refused[i]!;
      if (over !== 'ok') return { ok: false, error: TOOL_LIMIT_ERRORS[over] };
      if (!names.has(call.name) || !deps.tools) return { ok: false, error: `There is no function named ${call.name}.` };
      try {
        return await deps.tools.call(call.name, call.arguments, signal);
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        deps.log.error('function call failed in the sandbox', { avatarId: deps.config.avatar.id, function: call.name, error: err instanceof Error ? err.message : String(err) });
        return { ok: false, error: 'The function could not be run.' };
      }
    }),
  );
  signal.throwIfAborted();
  const outputs: ToolOutput[] = [];
  for (const [i, call] of calls.entries()) {
    const r = results[i]!;
    if (refused[i] === 'ok') yield { type: 'tool', name: call.name, status: r.ok ? 'ok' : 'error' };
    outputs.push({ id: call.id, output: r.ok ? clip(r.result) : JSON.stringify({ error: clip(r.error) }) });
  }
  return outputs;
}

function clip(text: string): string {
  return text.length > RESULT_CHARS ? `${text.slice(0, RESULT_CHARS)}… [truncated]` : text;
}
