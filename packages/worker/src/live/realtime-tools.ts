import { LiveCode, LiveMessages, type TLivePassage, type TWorkerFrame } from '@persona/contract';
import { DEFAULT_KNOWLEDGE_PASSAGES } from '../brains/options.js';
import { retrievePassages } from '../brains/prompt.js';
import { runToolCalls, toolCatalog, ToolBudget, TOOL_LIMIT_ERRORS, TOOLS_NOTICE_MS, TOOLS_WAIT_MS, type ToolAllowance } from '../brains/tools.js';
import type { BrainDeps } from '../brains/types.js';
import type { RealtimeConnection, RealtimeTool } from '../providers/realtime/types.js';

/**
 * The tools of a SpeechToSpeech session: the avatar's linked functions, run in the
 * sandbox exactly as the LLM brain runs them (brains/tools.ts: its catalogue with the bounded wait
 * for a cold sandbox, its calls, error results and clipping), and — when the avatar has knowledge
 * collections — a search the model calls itself (the LLM brain retrieves passages for every
 * turn; a realtime model hears the visitor directly, so it asks when it needs to).
 */
export const KNOWLEDGE_TOOL = 'search_knowledge';

const knowledgeTool: RealtimeTool = {
  name: KNOWLEDGE_TOOL,
  description:
    'Search the knowledge base for passages about what the visitor asks. Use it for questions the knowledge base may answer, then answer from the passages found and name the source you used. Never invent a source; when nothing relevant is found, say so briefly or answer from what you know.',
  parameters: {
    type: 'object',
    properties: { query: { type: 'string', description: 'What to look for, in a few words or a question.' } },
    required: ['query'],
  },
};

const PASSAGE_CHARS = 1_500;
const PASSAGES_TOTAL_CHARS = 6_000;

export interface ToolAnswer {
  ok: boolean;
  /** What the model is given: the result, or `{"error": …}`. */
  output: string;
  /** A knowledge search's passages (the transcript shows them, ADR 102). */
  passages?: readonly TLivePassage[];
}

/** What a realtime session offers its model and how it runs a call. */
export interface RealtimeToolbox {
  /** The tools to offer when connecting (a cold sandbox is waited for a bounded time; [] without tools). */
  list(): Promise<RealtimeTool[]>;
  /** Runs one call; rejects only when `signal` aborts. */
  call(name: string, argsJson: string, signal: AbortSignal): Promise<ToolAnswer>;
}

export interface RealtimeToolboxOptions {
  /** Longest wait for the functions' definitions while the sandbox starts (default 20 s, TOOLS_WAIT_MS). */
  toolsWaitMs?: number;
  /** Passages per search (default 5, at most 10). */
  knowledgePassages?: number;
}

/** The session's toolbox from the brains' dependencies; null when the avatar has neither functions nor knowledge. */
export function createRealtimeToolbox(deps: BrainDeps, opts: RealtimeToolboxOptions = {}): RealtimeToolbox | null {
  const hasFunctions = deps.tools !== null && deps.config.functions.length > 0;
  const hasKnowledge = deps.config.avatar.hasKnowledge;
  if (!hasFunctions && !hasKnowledge) return null;
  const catalog = toolCatalog(deps, opts.toolsWaitMs ?? TOOLS_WAIT_MS);
  const k = Math.min(10, opts.knowledgePassages ?? DEFAULT_KNOWLEDGE_PASSAGES);
  /** The functions offered on the last connection: the only ones the model may call. */
  let functions: RealtimeTool[] = [];
  return {
    async list() {
      functions = (await catalog()).filter((t) => t.name !== KNOWLEDGE_TOOL);
      return hasKnowledge ? [knowledgeTool, ...functions] : functions;
    },
    async call(name, argsJson, signal) {
      if (name === KNOWLEDGE_TOOL && hasKnowledge) return searchKnowledge(deps, argsJson, k, signal);
      // One round of the LLM brain's calls: the same unknown-name and failure results, the same clipping.
      const round = runToolCalls(deps, functions, [{ id: name, name, arguments: argsJson }], signal);
      let ok = false;
      for (;;) {
        const step = await round.next();
        if (step.done) return { ok, output: step.value[0]?.output ?? JSON.stringify({ error: 'The function could not be run.' }) };
        if (step.value.type === 'tool' && step.value.status !== 'started') ok = step.value.status === 'ok';
      }
    },
  };
}

async function searchKnowledge(deps: BrainDeps, argsJson: string, k: number, signal: AbortSignal): Promise<ToolAnswer> {
  let query = '';
  try {
    const args = JSON.parse(argsJson) as { query?: unknown } | null;
    if (typeof args?.query === 'string') query = args.query.trim();
  } catch {
    // not JSON: no query
  }
  if (!query) return { ok: false, output: JSON.stringify({ error: 'Give a query: what to look for in the knowledge base.' }) };
  // As the LLM brain's retrieval: a failing search is logged and finds nothing.
  const passages = await retrievePassages(deps, query.slice(0, 2000), k, signal);
  return { ok: true, output: passagesOutput(passages), passages };
}

/** The passages for the model (each with its source), within the LLM brain's budget. */
export function passagesOutput(passages: readonly TLivePassage[]): string {
  let budget = PASSAGES_TOTAL_CHARS;
  const out: { source: string; text: string }[] = [];
  for (const p of passages) {
    if (budget <= 0) break;
    const text = p.text.trim().slice(0, Math.min(PASSAGE_CHARS, budget));
    budget -= text.length;
    out.push({ source: p.source.trim() || 'knowledge base', text });
  }
  return JSON.stringify(out.length ? { passages: out } : { passages: [], note: 'Nothing relevant was found in the knowledge base.' });
}

/**
 * The calls the model is waiting for, in one session: each sends the page `tool` frames (started,
 * then ok or error — as the LLM path), runs, and gives its result to the connection that asked.
 * An unknown tool or a failing function is an error result for the model, never a failure of the
 * session. `abortAll` (the visitor spoke over the avatar, the connection or session closed) stops
 * the running calls: their frames end with `error` and the model gets no result (the visitor's
 * new turn follows).
 */
export class RealtimeToolCalls {
  private readonly running = new Map<string, AbortController>();
  /** Calls per response and per session (LiveRates), the knowledge search included. */
  private readonly budget = new ToolBudget();

  constructor(
    private readonly toolbox: RealtimeToolbox | null,
    private readonly send: (frame: TWorkerFrame) => void,
    /** Every call has settled; `answered`: the last one gave its result (the model answers next). */
    private readonly onIdle: (answered: boolean) => void,
    /** One call settled with its answer (null: stopped, no result) — for the transcript's detail (ADR 102). */
    private readonly onSettled?: (call: { name: string; args: string }, answer: ToolAnswer | null) => void,
  ) {}

  /** The tools to offer on a new connection; a toolbox that fails offers none. */
  async offer(): Promise<RealtimeTool[]> {
    if (!this.toolbox) return [];
    // The connection (and the greeting) waits for the functions: past a moment, the visitor is told why.
    const timer = setTimeout(() => this.send({ type: 'notice', code: LiveCode.toolsStarting, message: LiveMessages['tools-starting'] }), TOOLS_NOTICE_MS);
    try {
      return await this.toolbox.list();
    } catch {
      return [];
    } finally {
      clearTimeout(timer);
    }
  }

  get busy(): boolean {
    return this.running.size > 0;
  }

  /** A response's share of the session's calls (its calls take from it). */
  allowance(): ToolAllowance {
    return this.budget.turn();
  }

  run(call: { callId: string; name: string; args: string }, conn: RealtimeConnection, allowance: ToolAllowance = this.allowance()) {
    if (this.running.has(call.callId)) return;
    const over = allowance.take();
    if (over !== 'ok') {
      // Not run, not shown: the model is told to answer with what it has.
      conn.toolResult(call.callId, call.name, JSON.stringify({ error: TOOL_LIMIT_ERRORS[over] }));
      if (this.running.size === 0) this.onIdle(true);
      return;
    }
    const controller = new AbortController();
    this.running.set(call.callId, controller);
    this.send({ type: 'tool', name: call.name, status: 'started' });
    let settled = false;
    const settle = (answer: ToolAnswer | null) => {
      if (settled) return;
      settled = true;
      this.running.delete(call.callId);
      this.send({ type: 'tool', name: call.name, status: answer?.ok ? 'ok' : 'error' });
      this.onSettled?.(call, answer);
      if (answer) conn.toolResult(call.callId, call.name, answer.output);
      if (this.running.size === 0) this.onIdle(answer !== null);
    };
    controller.signal.addEventListener('abort', () => settle(null), { once: true });
    const answer = this.toolbox
      ? this.toolbox.call(call.name, call.args, controller.signal)
      : Promise.resolve({ ok: false, output: JSON.stringify({ error: `There is no function named ${call.name}.` }) });
    void answer.then(
      (a) => settle(a),
      () => settle({ ok: false, output: JSON.stringify({ error: 'The function could not be run.' }) }),
    );
  }

  /** Stops every running call (no result goes to the model). */
  abortAll() {
    for (const c of [...this.running.values()]) c.abort(new Error('the visitor moved on'));
  }

  /** Stops the calls the provider withdrew (no result goes to the model). */
  abort(callIds: readonly string[]) {
    for (const id of callIds) this.running.get(id)?.abort(new Error('the model withdrew the call'));
  }
}
