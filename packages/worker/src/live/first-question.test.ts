import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LiveCode, LiveMessages, type TLiveBrainConfig, type TLiveFunction } from '@persona/contract';
import { createLlmBrain } from '../brains/llm.js';
import { awaitTools, toolCatalog, TOOLS_NOTICE_MS, TOOLS_WAIT_MS } from '../brains/tools.js';
import type { BrainEvent } from '../brains/types.js';
import { fakeTools, sessionConfig, testDeps } from '../test/brain-deps.js';
import { startFakeOpenAi, type FakeOpenAi, type FakeAnswer } from '../test/fake-openai.js';
import { fakePage, finals, framesOf, until } from '../test/live-page.js';
import { Conversation } from './conversation.js';

/**
 * Issue 26, item 10: the first question of a session that needs a function. It went to the model
 * without tools while the sandbox started (a 4 s wait), and the visitor saw no answer at all — a
 * model that answered with a call to the function it had not been offered ended the turn without
 * a word. Now the turn waits for its functions (bounded, saying so) and a turn never ends silent.
 */

const WEATHER: TLiveFunction = {
  id: 1,
  name: 'get_weather.py',
  code: 'def get_weather(city: str) -> str:\n    """The weather in a city.\n\n    Args:\n        city: The city.\n    """\n    return "sunny and 18 degrees in " + city\n',
  allowNetwork: false,
};

/** A model that knows it should look the weather up: it calls get_weather when asked about it, then answers from the result. */
function weatherModel(body: Record<string, unknown>): FakeAnswer {
  const messages = body.messages as { role: string; content: string | null }[];
  const last = messages.at(-1)!;
  if (last.role === 'tool') return { text: `It is ${JSON.parse(JSON.stringify(last.content))}.` };
  if (String(last.content).includes('weather')) return { toolCalls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }] };
  return { text: 'Hello.' };
}

let fake: FakeOpenAi;
beforeAll(async () => {
  fake = await startFakeOpenAi({ answer: weatherModel });
});
afterAll(() => fake.close());

const llm = (): Extract<TLiveBrainConfig, { kind: 'llm' }> => ({ kind: 'llm', baseUrl: fake.url, apiKey: 'test-key', model: 'fake-model', instructions: 'You are a guide.', maxTokens: null, platform: false });
const portal = { heartbeat: async () => ({ echo: false, end: null }), history: async () => undefined, end: async () => undefined };
const log = { info() {}, warn() {}, error() {} };

describe('the first question of a session that needs a function', () => {
  it('waits for the functions while the sandbox starts (the visitor is told after a moment), within TOOLS_WAIT_MS: fake clock', async () => {
    vi.useFakeTimers();
    try {
      let release!: () => void;
      const started = new Promise<void>((r) => (release = r));
      const base = fakeTools({ get_weather: { run: () => 'sunny' } });
      const deps = testDeps(sessionConfig(llm(), { functions: [WEATHER] }), { tools: { ...base, tools: async () => (await started, base.tools()) } });
      const catalog = toolCatalog(deps);
      const events: BrainEvent[] = [];
      const waiting = (async () => {
        const gen = awaitTools(catalog(), new AbortController().signal);
        for (;;) {
          const step = await gen.next();
          if (step.done) return step.value;
          events.push(step.value);
        }
      })();
      await vi.advanceTimersByTimeAsync(TOOLS_NOTICE_MS - 1);
      expect(events).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      expect(events).toEqual([{ type: 'notice', code: LiveCode.toolsStarting }]);
      // A cold start of 10 s (a busy machine): the turn still gets its function (before: none after 4 s).
      await vi.advanceTimersByTimeAsync(10_000 - TOOLS_NOTICE_MS);
      release();
      expect((await waiting).map((t) => t.name)).toEqual(['get_weather']);
      expect(deps.lines.some((l) => l.msg.includes('not ready'))).toBe(false);
      // Bounded: a sandbox that never starts leaves the turn without functions after TOOLS_WAIT_MS.
      const never = testDeps(sessionConfig(llm(), { functions: [WEATHER] }), { tools: { ...base, tools: () => new Promise(() => undefined) } });
      const bounded = toolCatalog(never)();
      await vi.advanceTimersByTimeAsync(TOOLS_WAIT_MS);
      expect(await bounded).toEqual([]);
      deps.fetch.close();
      never.fetch.close();
    } finally {
      vi.useRealTimers();
    }
  });

  it('a model that answers only with calls of functions it was not offered: one more request, then the visitor is told — never a turn without a word', async () => {
    // It keeps asking for the weather function whatever it is told.
    fake.options.answer = (body) => ((body.messages as { content: string | null }[]).some((m) => String(m.content).includes('weather')) ? { toolCalls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }] } : { text: 'Hello.' });
    const deps = testDeps(sessionConfig(llm()));
    const page = fakePage();
    const c = new Conversation({ config: deps.config, brain: createLlmBrain(deps), portal, log, now: () => 0 });
    c.attach(page);
    fake.requests.length = 0;
    c.onMessage(JSON.stringify({ type: 'text', id: 'q', text: 'What is the weather in Oslo?' }));
    await until(() => finals(page).length === 2, 10_000, 'an answer');
    // Two requests (before: four, then nothing for the visitor).
    expect(fake.chatBodies()).toHaveLength(2);
    expect(finals(page).at(-1)).toMatchObject({ text: LiveMessages['provider-error'] });
    expect(framesOf(page, 'error').at(-1)).toMatchObject({ code: LiveCode.providerError, fatal: false });
    deps.fetch.close();
    fake.options.answer = weatherModel;
    await c.finish(LiveCode.hangUp);
  });

});
