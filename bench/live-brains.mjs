// Live avatar brains: our own latency in front of an LLM. The built LLM brain (guarded fetch,
// SSE, prompt building) talks to the local OpenAI-compatible fake, which sends its first token
// 200 ms after the request; "overhead" = time from reply() to the first text event − 200 ms.
// Two shapes of turn: a first turn (system prompt only) and a turn with 20 history entries and
// 5 knowledge passages (retrieval answered at once, so only our prompt building counts).
// The fake runs in this process: its own request parsing is counted as ours (pessimistic).
// Used by `npm run bench -- live` (measureLlmOverhead) and on its own: `npm run bench -- live-brains`.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import { percentile, root, round } from './support.mjs';

const FIRST_TOKEN_MS = 200;

const dist = (p) => pathToFileURL(path.join(root, 'packages/worker/dist', p)).href;

function stats(values) {
  return { p50: round(percentile(values, 50)), p95: round(percentile(values, 95)), max: round(Math.max(...values)) };
}

/**
 * Runs `turns` LLM turns (after a few warm-up turns) and returns the overhead figures.
 * The request leg is reply() → the fake has read the request; the answer leg is the fake's first
 * token → our first text event (both on this process's clock).
 */
export async function measureLlmOverhead({ turns = 100, firstTokenMs = FIRST_TOKEN_MS, warmup = 5 } = {}) {
  const { createLlmBrain } = await import(dist('brains/llm.js'));
  const { createGuardedFetch } = await import('@persona/net');
  const { startFakeOpenAi } = await tsImport(path.join(root, 'packages/worker/src/test/fake-openai.ts'), import.meta.url);
  const fake = await startFakeOpenAi({
    answer: () => ({ text: 'Sure, the museum opens at nine and closes at five every day except Monday.', firstTokenDelayMs: firstTokenMs }),
  });
  const fetch = createGuardedFetch({ allowPrivate: true });
  const config = (hasKnowledge) => ({
    sessionId: 'bench',
    resumed: false,
    avatar: { id: 1, name: 'Bench', ownerUserId: 1, nlpEngine: 10, setupMode: 1, wakeUpMessage: 'Hi', idleTimeoutSeconds: 300, demoSeconds: -1, startedAt: Date.now(), sendChatHistory: false, permissions: 0, summaryEnabled: false, hasKnowledge, pipeline: {} },
    brain: { kind: 'llm', baseUrl: fake.url, apiKey: 'test-key', model: 'bench-model', instructions: 'You are a helpful museum guide. Answer in one or two short sentences.', maxTokens: 200, platform: false },
    functions: [],
    echo: false,
    history: [],
    memory: 'The visitor likes modern art.',
    visitorId: 'v',
    allowPrivateUrls: true,
    textOnly: true,
  });
  const passages = Array.from({ length: 5 }, (_, i) => ({ text: `Passage ${i}: ${'The museum has a large collection of paintings and sculptures from many periods. '.repeat(8)}`, source: `guide-${i}.pdf`, collectionId: 1, itemId: i }));
  const history = Array.from({ length: 20 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', text: `Message ${i} of the conversation so far, with a few words in it.`, at: Date.now() }));
  const log = { info() {}, warn() {}, error() {} };
  const shapes = {
    first: { brain: createLlmBrain({ config: config(false), log, knowledge: async () => [], tools: null, fetch, now: Date.now }), history: [] },
    knowledgeAndHistory: { brain: createLlmBrain({ config: config(true), log, knowledge: async () => passages, tools: null, fetch, now: Date.now }), history },
  };
  const out = { turns, firstTokenMs };
  try {
    for (const [name, shape] of Object.entries(shapes)) {
      const overhead = [];
      const requestLeg = [];
      const answerLeg = [];
      for (let i = 0; i < warmup + turns; i++) {
        const before = fake.requests.length;
        const t0 = performance.now();
        let first = null;
        for await (const ev of shape.brain.reply({ text: `When does the museum open? (${i})`, history: shape.history, signal: new AbortController().signal })) {
          if (ev.type === 'text' && first === null) first = performance.now();
        }
        if (first === null) throw new Error('the brain gave no text');
        const arrived = fake.requests[before].at;
        if (i < warmup) continue;
        overhead.push(first - t0 - firstTokenMs);
        requestLeg.push(arrived - t0);
        // The fake sends its first token firstTokenMs after it read the request.
        answerLeg.push(first - (arrived + firstTokenMs));
      }
      out[name] = { overheadMs: stats(overhead), requestLegMs: stats(requestLeg), answerLegMs: stats(answerLeg) };
    }
  } finally {
    fetch.close();
    await fake.close();
  }
  out.targetP95Ms = 30;
  out.withinTarget = out.first.overheadMs.p95 <= 30 && out.knowledgeAndHistory.overheadMs.p95 <= 30;
  return out;
}

export async function run() {
  return { llm: await measureLlmOverhead() };
}
