import { cancelRun, deleteThread, getAssistant, streamRun, submitToolOutputs, type AssistantInfo, type AssistantsClient, type RunEvent } from '../providers/llm/assistant.js';
import { completeChat, type ChatTool, type ChatToolCall } from '../providers/llm/openai-compatible.js';
import { brainConfigOf, DEFAULT_KNOWLEDGE_PASSAGES, DEFAULT_MAX_TOOL_ROUNDS, type BrainOptions } from './options.js';
import { cleanSummary, historyMessages, retrievePassages, summaryMessages, systemPrompt, userMessage } from './prompt.js';
import { awaitTools, runToolCalls, toolCatalog, ToolBudget, type ToolOutput } from './tools.js';
import type { Brain, BrainDeps } from './types.js';

/**
 * The assistant brain (CustomChatGPTAssistant): the avatar's stored OpenAI assistant, run through
 * the Assistants API v2. The assistant keeps its own instructions, model and tools; the avatar's
 * prompt, its memory of the visitor and the knowledge rule are added as `additional_instructions`;
 * knowledge passages travel with the visitor's message, as for the LLM brain; the avatar's linked
 * functions are added to the assistant's tools for the run.
 *
 * One thread per session while the conversation goes as the thread knows it; when the history
 * differs (an interrupted answer keeps only what was heard, a resume on another worker, a failed
 * turn) the next turn starts a new thread seeded with the history. Threads are deleted at the end.
 */
export function createAssistantBrain(deps: BrainDeps, options: BrainOptions = {}): Brain {
  const config = brainConfigOf(deps.config.brain, 'assistant');
  const client: AssistantsClient = { baseUrl: config.baseUrl, apiKey: config.apiKey, fetch: deps.fetch, timeouts: options.chatTimeouts };
  const maxRounds = options.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS;
  const k = Math.min(10, options.knowledgePassages ?? DEFAULT_KNOWLEDGE_PASSAGES);
  const tools = toolCatalog(deps, options.toolsWaitMs);
  // Function calls per answer and per session (LiveRates).
  const budget = new ToolBudget();
  // Describing the functions needs a warm sandbox: start now, while the greeting plays.
  tools.warm();
  const additionalInstructions = systemPrompt({ instructions: config.instructions, memory: deps.config.memory, hasKnowledge: deps.config.avatar.hasKnowledge });
  let info: Promise<AssistantInfo> | null = null;
  const assistant = (signal: AbortSignal) =>
    (info ??= getAssistant(client, config.assistantId, signal).catch((err: unknown) => {
      info = null;
      throw err;
    }));
  /** The thread as the assistant knows it after the last completed turn. */
  let thread: { id: string; entries: number; lastAnswer: string } | null = null;
  const threads = new Set<string>();

  const brain: Brain = {
    kind: 'assistant',
    async start(signal) {
      await assistant(signal);
    },
    async *reply(turn) {
      const preparing = Promise.all([assistant(turn.signal), retrievePassages(deps, turn.text, k, turn.signal)]);
      preparing.catch(() => undefined);
      const ours = yield* awaitTools(tools(), turn.signal);
      const [a, passages] = await preparing;
      if (passages.length) yield { type: 'passages', passages };
      const content = userMessage(turn.text, passages);
      const common = {
        assistantId: config.assistantId,
        additionalInstructions,
        maxCompletionTokens: config.maxTokens,
        tools: ours.length ? mergeTools(a.tools, ours) : undefined,
      };
      const lastAnswer = turn.history.at(-1)?.role === 'assistant' ? turn.history.at(-1)!.text : null;
      const known = thread && thread.entries === turn.history.length && lastAnswer?.trim() === thread.lastAnswer.trim() ? thread : null;
      thread = null;
      let stream: AsyncGenerator<RunEvent> = known
        ? streamRun(client, { ...common, threadId: known.id, additionalMessages: [{ role: 'user', content }] }, turn.signal)
        : streamRun(client, { ...common, threadMessages: [...historyMessages(turn.history).map((m) => ({ role: m.role as 'user' | 'assistant', content: m.content as string })), { role: 'user', content }] }, turn.signal);
      let threadId = known?.id ?? null;
      let runId: string | null = null;
      let completed = false;
      let answer = '';
      const citations = citationFilter();
      const allowance = budget.turn();
      try {
        for (let round = 1; ; round++) {
          let pending: { threadId: string; runId: string; calls: ChatToolCall[] } | null = null;
          for await (const ev of stream) {
            if (ev.type === 'run') {
              threadId = ev.threadId;
              runId = ev.runId;
              threads.add(ev.threadId);
            } else if (ev.type === 'text') {
              const out = citations.push(ev.delta);
              if (out) {
                answer += out;
                yield { type: 'text', delta: out };
              }
            } else if (ev.type === 'tool-calls') pending = ev;
            else completed = true;
          }
          if (!pending) break;
          // Past the limit the run gets error outputs (it must answer); one more request ends the turn.
          if (round > maxRounds + 1) break;
          let outputs: ToolOutput[];
          if (round > maxRounds) outputs = pending.calls.map((c) => ({ id: c.id, output: JSON.stringify({ error: 'No more function calls in this turn: answer with what you have.' }) }));
          else outputs = yield* runToolCalls(deps, ours, pending.calls, turn.signal, allowance);
          stream = submitToolOutputs(client, pending.threadId, pending.runId, outputs, turn.signal);
        }
        const rest = citations.flush();
        if (rest) {
          answer += rest;
          yield { type: 'text', delta: rest };
        }
        if (completed && threadId) thread = { id: threadId, entries: turn.history.length + 2, lastAnswer: answer };
      } finally {
        // Interrupted, failed or abandoned: stop the run (it would keep the thread busy and billed).
        if (!completed && threadId && runId) void cancelRun(client, threadId, runId);
      }
    },
    async end() {
      await Promise.all([...threads].map((id) => deleteThread(client, id)));
      threads.clear();
    },
  };
  // The session's summary (ADR 099): the visitor's memory when it is on, else this conversation's; asked once, at the end.
  const memoryOn = deps.config.avatar.summaryEnabled;
  brain.summarize = async (history, signal) => {
    const messages = summaryMessages(history, deps.config.memory, memoryOn ? 'memory' : 'session');
    if (!messages) return memoryOn ? deps.config.memory : null;
    const { model } = await assistant(signal);
    if (!model) return memoryOn ? deps.config.memory : null;
    return cleanSummary(await completeChat({ ...client, provider: 'openai-assistants' }, { model, messages, maxTokens: 200 }, signal));
  };
  return brain;
}

/** The assistant's own tools plus the avatar's functions (ours win on a name clash). */
function mergeTools(own: readonly Record<string, unknown>[], ours: readonly ChatTool[]): Record<string, unknown>[] {
  const names = new Set(ours.map((t) => t.name));
  const kept = own.filter((t) => !(t.type === 'function' && names.has(String((t.function as { name?: unknown } | undefined)?.name))));
  return [...kept, ...ours.map((t) => ({ type: 'function', function: { name: t.name, description: t.description, parameters: t.parameters } }))];
}

/** Drops file-search citation markers (【4:0†source】) from streamed text: they are not to be spoken. */
export function citationFilter() {
  let held = '';
  return {
    push(delta: string): string {
      let text = (held + delta).replace(/【[^】]*】/g, '');
      held = '';
      const open = text.lastIndexOf('【');
      if (open !== -1 && text.length - open < 200) {
        held = text.slice(open);
        text = text.slice(0, open);
      }
      return text;
    },
    flush(): string {
      const rest = held;
      held = '';
      return rest;
    },
  };
}
