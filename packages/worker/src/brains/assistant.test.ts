import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TLiveBrainConfig } from '@persona/contract';
import { collect, entry, fakeTools, sessionConfig, testDeps, textOf, type TestDeps } from '../test/brain-deps.js';
import { startFakeOpenAi, type FakeOpenAi } from '../test/fake-openai.js';
import { createGuardedFetch } from '@persona/net';
import { citationFilter, createAssistantBrain } from './assistant.js';
import { ProviderError } from '../core/errors.js';
import type { BrainEvent } from './types.js';

let fake: FakeOpenAi;
const opened: TestDeps[] = [];

beforeAll(async () => {
  fake = await startFakeOpenAi({ assistants: [{ id: 'asst_museum', model: 'gpt-4o-mini', instructions: 'You are the museum assistant.', tools: [{ type: 'file_search' }] }] });
});
afterAll(() => fake.close());
afterEach(() => {
  fake.requests.length = 0;
  fake.threads.clear();
  fake.options.runAnswer = undefined;
  fake.options.failRunsWith = undefined;
  fake.options.defaults = undefined;
  for (const d of opened.splice(0)) d.fetch.close();
});

function assistantConfig(over: Partial<Extract<TLiveBrainConfig, { kind: 'assistant' }>> = {}): Extract<TLiveBrainConfig, { kind: 'assistant' }> {
  return { kind: 'assistant', baseUrl: fake.url, apiKey: 'test-key', assistantId: 'asst_museum', instructions: 'Answer in one or two short sentences.', maxTokens: 300, ...over };
}

function deps(...args: Parameters<typeof testDeps>): TestDeps {
  const d = testDeps(...args);
  opened.push(d);
  return d;
}

const runs = () => fake.requests.filter((r) => r.method === 'POST' && /\/runs$/.test(r.path));

describe('assistant brain (Assistants API v2)', () => {
  it('runs the stored assistant on a new thread with the history, adding the avatar prompt and memory', async () => {
    const brain = createAssistantBrain(deps(sessionConfig(assistantConfig(), { memory: 'Bob visited last week.' })));
    await brain.start!(new AbortController().signal);
    const history = [entry('assistant', 'Welcome to the museum!'), entry('user', 'Hi'), entry('assistant', 'Hello!')];
    const events = await collect(brain, 'Is it open today?', history);
    expect(textOf(events)).toBe('You said: Is it open today?');
    expect(fake.requests[0]).toMatchObject({ method: 'GET', path: '/v1/assistants/asst_museum' });
    const [run] = runs();
    expect(run!.path).toBe('/v1/threads/runs');
    expect(run!.headers['openai-beta']).toBe('assistants=v2');
    expect(run!.body).toMatchObject({ assistant_id: 'asst_museum', stream: true, max_completion_tokens: 300 });
    expect(run!.body!.tools).toBeUndefined();
    expect(run!.body!.additional_instructions).toContain('Answer in one or two short sentences.');
    expect(run!.body!.additional_instructions).toContain('Bob visited last week.');
    expect((run!.body!.thread as { messages: unknown[] }).messages).toEqual([
      { role: 'assistant', content: 'Welcome to the museum!' },
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'Is it open today?' },
    ]);
  });

  it('continues the same thread while the history is what the thread knows', async () => {
    const brain = createAssistantBrain(deps(sessionConfig(assistantConfig())));
    const first = textOf(await collect(brain, 'One'));
    const history = [entry('user', 'One'), entry('assistant', first)];
    expect(textOf(await collect(brain, 'Two', history))).toBe('You said: Two');
    const [r1, r2] = runs();
    expect(r1!.path).toBe('/v1/threads/runs');
    const threadId = [...fake.threads.keys()][0]!;
    expect(r2!.path).toBe(`/v1/threads/${threadId}/runs`);
    expect(r2!.body!.additional_messages).toEqual([{ role: 'user', content: 'Two' }]);
    expect(fake.threads.get(threadId)!.messages.map((m) => m.content)).toEqual(['One', 'You said: One', 'Two', 'You said: Two']);
  });

  it('starts a new thread with what was heard when the last answer was interrupted', async () => {
    const brain = createAssistantBrain(deps(sessionConfig(assistantConfig())));
    await collect(brain, 'Tell me everything');
    const history = [entry('user', 'Tell me everything'), { ...entry('assistant', 'You said:'), interrupted: true }];
    await collect(brain, 'Stop', history);
    const [, r2] = runs();
    expect(r2!.path).toBe('/v1/threads/runs');
    expect((r2!.body!.thread as { messages: unknown[] }).messages).toEqual([
      { role: 'user', content: 'Tell me everything' },
      { role: 'assistant', content: 'You said:' },
      { role: 'user', content: 'Stop' },
    ]);
  });

  it('runs the avatar function the assistant calls and submits its output', async () => {
    const tools = fakeTools({ opening_hours: { description: 'Opening hours of a day.', parameters: { type: 'object', properties: { day: { type: 'string' } } }, run: (a) => `${String(a.day)}: 9-17` } });
    const config = sessionConfig(assistantConfig(), { functions: [{ id: 5, name: 'opening_hours', code: '', allowNetwork: false }] });
    const events = await collect(createAssistantBrain(deps(config, { tools })), 'call opening_hours {"day":"Monday"}');
    expect(events).toEqual<BrainEvent[]>([
      { type: 'tool', name: 'opening_hours', status: 'started' },
      { type: 'tool', name: 'opening_hours', status: 'ok', arguments: '{"day":"Monday"}', result: 'Monday: 9-17' },
      ...'The function returned Monday: 9-17.'.match(/\S+\s*/g)!.map((delta) => ({ type: 'text' as const, delta })),
    ]);
    expect(tools.calls).toEqual([{ name: 'opening_hours', args: '{"day":"Monday"}' }]);
    expect(runs()[0]!.body!.tools).toEqual([{ type: 'file_search' }, { type: 'function', function: { name: 'opening_hours', description: 'Opening hours of a day.', parameters: { type: 'object', properties: { day: { type: 'string' } } } } }]);
    const submit = fake.requests.find((r) => r.path.endsWith('/submit_tool_outputs'))!;
    expect(submit.body).toMatchObject({ stream: true, tool_outputs: [{ output: 'Monday: 9-17' }] });
  });

  it('gives the passages with the message; the answer names the source', async () => {
    const config = sessionConfig(assistantConfig(), { avatar: { hasKnowledge: true } });
    const d = deps(config, { passages: [{ text: 'Tickets cost 12 euros. Children go free.', source: 'prices.txt', collectionId: 3, itemId: 9 }] });
    const events = await collect(createAssistantBrain(d), 'How much is a ticket?');
    expect(textOf(events)).toBe('According to prices.txt, Tickets cost 12 euros.');
    const run = runs()[0]!;
    expect(run.body!.additional_instructions).toMatch(/name the source you used/);
    expect(JSON.stringify(run.body!.thread)).toContain('[1] Source: prices.txt');
  });

  it('an unknown assistant id is a ProviderError with status 404', async () => {
    const err = await collect(createAssistantBrain(deps(sessionConfig(assistantConfig({ assistantId: 'asst_gone' })))), 'Hi').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).status).toBe(404);
  });

  it("on api.openai.com, a refused assistant says that OpenAI shut the Assistants API down", async () => {
    // api.openai.com resolved to the fake: the connection's own lookup is the test's.
    const lookup = ((_h: string, o: { all?: boolean }, cb: (...a: unknown[]) => void) => (o.all ? cb(null, [{ address: '127.0.0.1', family: 4 }]) : cb(null, '127.0.0.1', 4))) as never;
    const d = deps(sessionConfig(assistantConfig({ baseUrl: `http://api.openai.com:${new URL(fake.url).port}/v1`, assistantId: 'asst_gone' })));
    const fetch = createGuardedFetch({ allowPrivate: true, lookup });
    try {
      const err = await collect(createAssistantBrain({ ...d, fetch }), 'Hi').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ProviderError);
      expect((err as ProviderError).status).toBe(404);
      expect((err as ProviderError).message).toContain('OpenAI shut down the Assistants API on 26 August 2026');
    } finally {
      fetch.close();
    }
  });

  it('a failed run is a ProviderError with the run error', async () => {
    fake.options.failRunsWith = 'Sorry, something went wrong.';
    const err = await collect(createAssistantBrain(deps(sessionConfig(assistantConfig()))), 'Hi').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).message).toBe('the run failed: Sorry, something went wrong.');
  });

  it('an interrupted answer cancels the run; the end deletes the threads', async () => {
    fake.options.runAnswer = () => ({ text: 'a long answer about the whole collection of the museum', chunkDelayMs: 40 });
    const brain = createAssistantBrain(deps(sessionConfig(assistantConfig())));
    const ctl = new AbortController();
    const err = await (async () => {
      for await (const ev of brain.reply({ text: 'Tell me', history: [], signal: ctl.signal })) if (ev.type === 'text') ctl.abort();
    })().catch((e: unknown) => e);
    expect((err as Error).name).toBe('AbortError');
    await expect.poll(() => fake.requests.some((r) => r.path.endsWith('/cancel'))).toBe(true);
    const threadId = [...fake.threads.keys()][0]!;
    await brain.end!();
    expect(fake.requests.some((r) => r.method === 'DELETE' && r.path === `/v1/threads/${threadId}`)).toBe(true);
    expect(fake.threads.size).toBe(0);
  });

  it("summarizes with the assistant's model through chat completions", async () => {
    const brain = createAssistantBrain(deps(sessionConfig(assistantConfig(), { avatar: { summaryEnabled: true } })));
    const summary = await brain.summarize!([entry('user', 'I am Carla from Lyon.'), entry('assistant', 'Welcome, Carla!')], new AbortController().signal);
    expect(summary).toBeTruthy();
    const body = fake.chatBodies()[0]!;
    expect(body.model).toBe('gpt-4o-mini');
    expect(JSON.stringify(body.messages)).toContain('Visitor: I am Carla from Lyon.');
  });

  it('does not speak file-search citation markers, even split across deltas', () => {
    const f = citationFilter();
    const out = ['Tickets cost 12 euros', '【4:0†pri', 'ces.txt】.', ' Children go free【5:1†faq】!'].map((d) => f.push(d)).join('') + f.flush();
    expect(out).toBe('Tickets cost 12 euros. Children go free!');
  });
});
