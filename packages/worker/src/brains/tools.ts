import { LiveCode, LiveRates } from '@persona/contract';
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
 * Longest a turn waits for the definitions. The worker warms its sandbox when it starts, so this
 * is only met by a turn of a worker still starting, or whose sandbox was lost: a cold start took
 * 8–19 s on a busy machine. A turn that has functions waits for them (the visitor is told, after
 * TOOLS_NOTICE_MS) — a question that needs a function, asked without it, gets no useful answer
 * — and goes on without them only past this bound (as long as a model's first token
 * may take, LLM_FIRST_TOKEN_MS); the description carries on for later turns.
 */
export const TOOLS_WAIT_MS = 20_000;

/** A turn that has waited this long for its functions tells the visitor (`notice` tools-starting). */
export const TOOLS_NOTICE_MS = 1000;

/** A session's function definitions: `()` for a turn (waits, bounded); `warm()` starts loading them. */
export interface ToolCatalog {
  (): Promise<ChatTool[]>;
  /** Starts describing the functions now (the session opens), without waiting or logging. */
  warm(): void;
}

/**
 * Loads the definitions once per session (warm it at the start); a sandbox that cannot list them
 * leaves the model without tools for that turn, and the next turn asks again.
 */
export function toolCatalog(deps: BrainDeps, waitMs: number = TOOLS_WAIT_MS): ToolCatalog {
  let loaded: Promise<ChatTool[]> | null = null;
  let ready: ChatTool[] | null = null;
  const load = () =>
    (loaded ??= deps.tools!.tools().then(
      (list) => (ready = list.map((t) => ({ name: t.name, description: t.description, parameters: t.parameters }))),
      (err: unknown) => {
        deps.log.warn('functions unavailable for this turn', { avatarId: deps.config.avatar.id, error: err instanceof Error ? err.message : String(err) });
        loaded = null;
        return [];
      },
    ));
  const hasTools = () => deps.tools !== null && deps.config.functions.length > 0;
  const catalog = () => {
    if (!hasTools()) return Promise.resolve([]);
    if (ready) return Promise.resolve(ready);
    const pending = load();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<ChatTool[]>((resolve) => {
      timer = setTimeout(() => {
        deps.log.info('functions not ready yet (the sandbox is starting): this turn goes without them', { avatarId: deps.config.avatar.id });
        resolve([]);
      }, waitMs);
    });
    return Promise.race([pending, late]).finally(() => clearTimeout(timer));
  };
  return Object.assign(catalog, {
    warm() {
      if (hasTools() && !ready) void load();
    },
  });
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
 * Function calls a session's model may make: at most `perTurn` for one answer, all
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

/**
 * Waits for a turn's functions (a `toolCatalog` promise), telling the visitor when it takes longer
 * than TOOLS_NOTICE_MS (a `notice` event; the wait itself is bounded by the catalogue).
 */
export async function* awaitTools(pending: Promise<ChatTool[]>, signal: AbortSignal, noticeMs: number = TOOLS_NOTICE_MS): AsyncGenerator<BrainEvent, ChatTool[]> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  // The visitor moving on (an interruption, the session's end) stops the wait.
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => reject(signal.reason);
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  aborted.catch(() => undefined);
  try {
    const slow = new Promise<'slow'>((resolve) => (timer = setTimeout(() => resolve('slow'), noticeMs)));
    const first = await Promise.race([pending, slow, aborted]);
    if (first !== 'slow') return first;
    clearTimeout(timer);
    yield { type: 'notice', code: LiveCode.toolsStarting };
    return await Promise.race([pending, aborted]);
  } finally {
    clearTimeout(timer);
    if (onAbort) signal.removeEventListener('abort', onAbort);
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
    if (refused[i] === 'ok') {
      yield r.ok
        ? { type: 'tool', name: call.name, status: 'ok', arguments: call.arguments, result: clip(r.result) }
        : { type: 'tool', name: call.name, status: 'error', error: clip(r.error), arguments: call.arguments, result: clip(r.error) };
    }
    outputs.push({ id: call.id, output: r.ok ? clip(r.result) : JSON.stringify({ error: clip(r.error) }) });
  }
  return outputs;
}

function clip(text: string): string {
  return text.length > RESULT_CHARS ? `${text.slice(0, RESULT_CHARS)}… [truncated]` : text;
}
