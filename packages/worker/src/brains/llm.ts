import { completeChat, streamChat, type ChatMessage, type ChatToolCall, type OpenAiCompatibleClient } from '../providers/llm/openai-compatible.js';
import { brainConfigOf, DEFAULT_KNOWLEDGE_PASSAGES, DEFAULT_MAX_TOOL_ROUNDS, type BrainOptions } from './options.js';
import { cleanSummary, historyMessages, retrievePassages, summaryMessages, systemPrompt, userMessage } from './prompt.js';
import { awaitTools, runToolCalls, toolCatalog, ToolBudget } from './tools.js';
import type { Brain, BrainDeps } from './types.js';

/**
 * The LLM brain (LargeLanguageModel, CustomChatGPTPrompt, Simple mode's platform model): an
 * OpenAI-compatible chat model with the avatar's instructions and memory, the session's history,
 * the knowledge passages retrieved for each turn, and the avatar's functions as tools — up to
 * `maxToolRounds` rounds of calls, then the model must answer.
 */
export function createLlmBrain(deps: BrainDeps, options: BrainOptions = {}): Brain {
  const config = brainConfigOf(deps.config.brain, 'llm');
  const client: OpenAiCompatibleClient = {
    baseUrl: config.baseUrl,
    apiKey: config.apiKey,
    fetch: config.platform ? (options.operatorFetch ?? deps.fetch) : deps.fetch,
    timeouts: options.chatTimeouts,
    provider: config.platform ? 'platform-llm' : 'openai-compatible',
  };
  const maxRounds = options.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS;
  const k = Math.min(10, options.knowledgePassages ?? DEFAULT_KNOWLEDGE_PASSAGES);
  const tools = toolCatalog(deps, options.toolsWaitMs);
  // Function calls per answer and per session (LiveRates).
  const budget = new ToolBudget();
  // Describing the functions needs a warm sandbox: start now, while the greeting plays.
  tools.warm();
  const system = systemPrompt({ instructions: config.instructions, memory: deps.config.memory, hasKnowledge: deps.config.avatar.hasKnowledge });

  const brain: Brain = {
    kind: 'llm',
    async *reply(turn) {
      const retrieving = retrievePassages(deps, turn.text, k, turn.signal);
      retrieving.catch(() => undefined);
      // A turn that has functions waits for them (bounded, the visitor told): asked without them, a question that needs one gets no useful answer.
      const offered = yield* awaitTools(tools(), turn.signal);
      const passages = await retrieving;
      if (passages.length) yield { type: 'passages', passages };
      const messages: ChatMessage[] = [{ role: 'system', content: system }, ...historyMessages(turn.history), { role: 'user', content: userMessage(turn.text, passages) }];
      const allowance = budget.turn();
      /** The model called functions it was not offered (none this turn): it gets one more request, to answer. */
      let uninvited = false;
      for (let round = 0; ; round++) {
        // The last round: the rounds are used up, or the calls (the model must answer now).
        const last = round >= maxRounds || allowance.left === 0 || uninvited;
        let text = '';
        let calls: ChatToolCall[] = [];
        const stream = streamChat(
          client,
          { model: config.model, messages, maxTokens: config.maxTokens, tools: offered, toolChoice: offered.length ? (last ? 'none' : 'auto') : undefined },
          turn.signal,
        );
        for await (const ev of stream) {
          if (ev.type === 'text') {
            text += ev.delta;
            yield { type: 'text', delta: ev.delta };
          } else if (ev.type === 'tool-calls') calls = ev.calls;
        }
        if (calls.length === 0 || last) return;
        uninvited = offered.length === 0;
        messages.push({ role: 'assistant', content: text || null, toolCalls: calls });
        const outputs = yield* runToolCalls(deps, offered, calls, turn.signal, allowance);
        for (const o of outputs) messages.push({ role: 'tool', toolCallId: o.id, content: o.output });
      }
    },
  };
  // The session's summary (ADR 099): the visitor's memory when it is on, else this conversation's; asked once, at the end.
  const memoryOn = deps.config.avatar.summaryEnabled;
  brain.summarize = async (history, signal) => {
    const messages = summaryMessages(history, deps.config.memory, memoryOn ? 'memory' : 'session');
    if (!messages) return memoryOn ? deps.config.memory : null;
    return cleanSummary(await completeChat(client, { model: config.model, messages, maxTokens: 200 }, signal));
  };
  return brain;
}
