import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { LiveRates, type TLiveBrainConfig } from '@persona/contract';
import { collect, entry, fakeTools, sessionConfig, testDeps, textOf, type TestDeps } from '../test/brain-deps.js';
import { startFakeOpenAi, type FakeOpenAi } from '../test/fake-openai.js';
import { createLlmBrain } from './llm.js';
import { TOOL_LIMIT_ERRORS } from './tools.js';
import { ProviderError } from '../core/errors.js';
import type { BrainEvent } from './types.js';

let fake: FakeOpenAi;
const opened: TestDeps[] = [];

beforeAll(async () => {
  fake = await startFakeOpenAi();
});
afterAll(() => fake.close());
afterEach(() => {
  fake.requests.length = 0;
  fake.options.answer = undefined;
  fake.options.defaults = undefined;
  for (const d of opened.splice(0)) d.fetch.close();
});

function llm(over: Partial<Extract<TLiveBrainConfig, { kind: 'llm' }>> = {}): Extract<TLiveBrainConfig, { kind: 'llm' }> {
  return { kind: 'llm', baseUrl: fake.url, apiKey: 'test-key', model: 'fake-model', instructions: 'You are Ava, a friendly guide. Answer in one or two sentences.', maxTokens: null, platform: false, ...over };
}

function deps(...args: Parameters<typeof testDeps>): TestDeps {
  const d = testDeps(...args);
  opened.push(d);
  return d;
}

async function failure(p: Promise<unknown>): Promise<ProviderError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

describe('LLM brain (OpenAI-compatible, streamed)', () => {
  it('streams the answer token by token, in order, as the provider sends it', async () => {
    fake.options.answer = () => ({ text: 'one two three four five', chunkDelayMs: 40 });
    const brain = createLlmBrain(deps(sessionConfig(llm())));
    const seen: { delta: string; at: number }[] = [];
    const t0 = performance.now();
    for await (const ev of brain.reply({ text: 'count', history: [], signal: new AbortController().signal })) {
      if (ev.type === 'text') seen.push({ delta: ev.delta, at: performance.now() - t0 });
    }
    expect(seen.map((s) => s.delta)).toEqual(['one ', 'two ', 'three ', 'four ', 'five']);
    // Streamed, not buffered: the first token arrived well before the last.
    expect(seen[4]!.at - seen[0]!.at).toBeGreaterThan(120);
  });

  it('sends the instructions, the memory, the session history and the max tokens', async () => {
    const config = sessionConfig(llm({ maxTokens: 120 }), { memory: 'The visitor is called Bob and likes jazz.' });
    const brain = createLlmBrain(deps(config));
    const history = [entry('assistant', 'Hello!'), entry('user', 'What is your name?'), entry('assistant', 'I am Ava.')];
    const events = await collect(brain, 'And mine?', history);
    expect(textOf(events)).toBe('You said: And mine?');
    const [body] = fake.chatBodies();
    expect(body!.model).toBe('fake-model');
    expect(body!.stream).toBe(true);
    expect(body!.max_tokens).toBe(120);
    expect(body!.tools).toBeUndefined();
    const messages = body!.messages as { role: string; content: string }[];
    expect(messages[0]!.role).toBe('system');
    expect(messages[0]!.content).toContain('You are Ava, a friendly guide.');
    expect(messages[0]!.content).toContain('The visitor is called Bob and likes jazz.');
    // How to show a mood or gesture (the tags the worker takes out of the answer), after the owner's words.
    expect(messages[0]!.content).toMatch(/You are Ava[\s\S]*<trl-mood id="happy" \/> \(moods: neutral, happy, sad, surprised, concerned, thinking\)[\s\S]*gestures: nod, shake, wave, shrug, point/);
    expect(messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: 'What is your name?' },
      { role: 'assistant', content: 'I am Ava.' },
      { role: 'user', content: 'And mine?' },
    ]);
    expect(fake.requests[0]!.headers.authorization).toBe('Bearer test-key');
  });

  it('gives the model the passages retrieved for the turn, and the answer names the source', async () => {
    const config = sessionConfig(llm(), { avatar: { hasKnowledge: true } });
    const d = deps(config, {
      passages: [
        { text: 'The museum opens at 9 am every day except Monday. Tickets cost 12 euros.', source: 'visitor-guide.pdf', collectionId: 1, itemId: 10 },
        { text: 'Guided tours start at 11 am.', source: 'https://museum.example/tours', collectionId: 1, itemId: 11 },
      ],
    });
    const events = await collect(createLlmBrain(d), 'When does the museum open?');
    expect(d.knowledgeQueries).toEqual(['When does the museum open?']);
    const messages = fake.chatBodies()[0]!.messages as { role: string; content: string }[];
    expect(messages[0]!.content).toMatch(/name the source you used/);
    const user = messages.at(-1)!.content;
    expect(user).toContain('[1] Source: visitor-guide.pdf\nThe museum opens at 9 am every day except Monday.');
    expect(user).toContain('[2] Source: https://museum.example/tours\nGuided tours start at 11 am.');
    expect(user).toMatch(/The visitor's message:\nWhen does the museum open\?$/);
    expect(textOf(events)).toBe('According to visitor-guide.pdf, The museum opens at 9 am every day except Monday.');
  });

  it('answers without passages when the knowledge search fails, and logs it', async () => {
    const config = sessionConfig(llm(), { avatar: { hasKnowledge: true } });
    const d = deps(config, {
      passages: () => {
        throw new Error('portal unreachable');
      },
    });
    const events = await collect(createLlmBrain(d), 'Hello there');
    expect(textOf(events)).toBe('You said: Hello there');
    expect(d.lines).toContainEqual(expect.objectContaining({ level: 'warn', data: expect.objectContaining({ avatarId: 42, error: 'portal unreachable' }) }));
  });

  it('does not search knowledge when the avatar has none', async () => {
    const d = deps(sessionConfig(llm()), { passages: [{ text: 'x', source: 'y', collectionId: 1, itemId: 1 }] });
    await collect(createLlmBrain(d), 'Hi');
    expect(d.knowledgeQueries).toEqual([]);
  });

  it('runs a function the model calls and feeds its result into the next request', async () => {
    const tools = fakeTools({
      get_weather: {
        description: 'Current weather of a city.',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        run: (args) => JSON.stringify({ city: args.city, celsius: 21 }),
      },
    });
    const config = sessionConfig(llm(), { functions: [{ id: 1, name: 'get_weather', code: 'def get_weather(city: str): ...', allowNetwork: false }] });
    const events = await collect(createLlmBrain(deps(config, { tools })), 'Please call get_weather {"city":"Paris"}');
    expect(tools.calls).toEqual([{ name: 'get_weather', args: '{"city":"Paris"}' }]);
    expect(events.filter((e) => e.type === 'tool')).toEqual([
      { type: 'tool', name: 'get_weather', status: 'started' },
      { type: 'tool', name: 'get_weather', status: 'ok', arguments: '{"city":"Paris"}', result: '{"city":"Paris","celsius":21}' },
    ]);
    expect(textOf(events)).toBe('The function returned {"city":"Paris","celsius":21}.');
    const [first, second] = fake.chatBodies();
    expect(first!.tools).toEqual([{ type: 'function', function: { name: 'get_weather', description: 'Current weather of a city.', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }]);
    const msgs = second!.messages as { role: string; content: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string }[];
    const call = msgs.at(-2)!;
    expect(call.role).toBe('assistant');
    expect(call.tool_calls![0]!.function).toEqual({ name: 'get_weather', arguments: '{"city":"Paris"}' });
    expect(msgs.at(-1)).toEqual({ role: 'tool', tool_call_id: call.tool_calls![0]!.id, content: '{"city":"Paris","celsius":21}' });
  });

  it('describes the functions as soon as the session starts (the sandbox warms while the greeting plays), once', async () => {
    const tools = fakeTools({ ping: { run: () => 'pong' } });
    let described = 0;
    const counted = { ...tools, tools: () => (described++, tools.tools()) };
    const config = sessionConfig(llm(), { functions: [{ id: 4, name: 'ping', code: '', allowNetwork: false }] });
    const brain = createLlmBrain(deps(config, { tools: counted }));
    expect(described).toBe(1);
    await collect(brain, 'Hello');
    await collect(brain, 'Hello again');
    expect(described).toBe(1);
    expect(fake.chatBodies()[0]!.tools).toHaveLength(1);
  });

  it('gives the model an error result when a function fails, and says so on the status line', async () => {
    const tools = fakeTools({
      divide: {
        run: () => {
          throw new Error('ZeroDivisionError: division by zero');
        },
      },
    });
    const config = sessionConfig(llm(), { functions: [{ id: 2, name: 'divide', code: '', allowNetwork: false }] });
    const events = await collect(createLlmBrain(deps(config, { tools })), 'call divide {"a":1,"b":0}');
    expect(events.filter((e) => e.type === 'tool').map((e) => (e as { status: string }).status)).toEqual(['started', 'error']);
    const msgs = fake.chatBodies()[1]!.messages as { role: string; content: string }[];
    expect(JSON.parse(msgs.at(-1)!.content)).toEqual({ error: 'ZeroDivisionError: division by zero' });
    expect(textOf(events)).toContain('ZeroDivisionError');
  });

  it('stops offering functions after a few rounds, so a model that keeps calling them must answer', async () => {
    fake.options.answer = (body) => (body.tool_choice === 'none' ? { text: 'Done.' } : { toolCalls: [{ name: 'ping', arguments: '{}' }] });
    const tools = fakeTools({ ping: { run: () => 'pong' } });
    const config = sessionConfig(llm(), { functions: [{ id: 3, name: 'ping', code: '', allowNetwork: false }] });
    const events = await collect(createLlmBrain(deps(config, { tools }), { maxToolRounds: 2 }), 'loop');
    expect(tools.calls).toHaveLength(2);
    const bodies = fake.chatBodies();
    expect(bodies.map((b) => b.tool_choice)).toEqual(['auto', 'auto', 'none']);
    expect(textOf(events)).toBe('Done.');
  });

  it('function calls are bounded per answer and per session (LiveRates): calls over either are not run, the model is told and asked to answer', async () => {
    // A model that asks for five calls at once, every round it may.
    fake.options.answer = (body) => (body.tool_choice === 'none' ? { text: 'Done.' } : { toolCalls: Array.from({ length: 5 }, () => ({ name: 'ping', arguments: '{}' })) });
    const tools = fakeTools({ ping: { run: () => 'pong' } });
    const config = sessionConfig(llm(), { functions: [{ id: 3, name: 'ping', code: '', allowNetwork: false }] });
    const d = deps(config, { tools });
    const brain = createLlmBrain(d, { maxToolRounds: 10 });
    const events = await collect(brain, 'loop');
    // One answer: toolCallsPerTurn run, the rest refused; then the model must answer.
    expect(tools.calls).toHaveLength(LiveRates.toolCallsPerTurn);
    expect(events.filter((e) => e.type === 'tool' && e.status === 'started')).toHaveLength(LiveRates.toolCallsPerTurn);
    const bodies = fake.chatBodies();
    expect(bodies.map((b) => b.tool_choice)).toEqual(['auto', 'auto', 'none']);
    const results = (bodies[2]!.messages as { role: string; content: string }[]).filter((m) => m.role === 'tool').map((m) => m.content);
    expect(results.filter((r) => r === 'pong')).toHaveLength(LiveRates.toolCallsPerTurn);
    expect(results.filter((r) => r === JSON.stringify({ error: TOOL_LIMIT_ERRORS.turn }))).toHaveLength(10 - LiveRates.toolCallsPerTurn);
    expect(textOf(events)).toBe('Done.');
    // The session's calls: once they are used up, no answer runs one more.
    for (let turn = 1; tools.calls.length < LiveRates.toolCallsPerSession && turn < 100; turn++) await collect(brain, 'again');
    expect(tools.calls).toHaveLength(LiveRates.toolCallsPerSession);
    fake.requests.length = 0;
    expect(textOf(await collect(brain, 'and again'))).toBe('Done.');
    expect(tools.calls).toHaveLength(LiveRates.toolCallsPerSession);
    expect(fake.chatBodies().map((b) => b.tool_choice)).toEqual(['none']);
  });

  it('keeps one connection to the provider across turns (no new handshake per turn)', async () => {
    // The end of the response comes in its own packet, after `data: [DONE]`.
    fake.options.answer = () => ({ text: 'fine', endDelayMs: 30 });
    const brain = createLlmBrain(deps(sessionConfig(llm())));
    for (const text of ['one', 'two', 'three']) {
      await collect(brain, text);
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(fake.requests.map((r) => r.connection)).toEqual(Array(3).fill(fake.requests[0]!.connection));
  });

  it('reaches Gemini-style base URLs (…/v1beta/openai/)', async () => {
    const brain = createLlmBrain(deps(sessionConfig(llm({ baseUrl: `${fake.origin}/v1beta/openai/`, model: 'gemini-2.0-flash' }))));
    expect(textOf(await collect(brain, 'Hallo'))).toBe('You said: Hallo');
    expect(fake.requests[0]!.path).toBe('/v1beta/openai/chat/completions');
  });

  it('a wrong API key is a ProviderError with status 401', async () => {
    const err = await failure(collect(createLlmBrain(deps(sessionConfig(llm({ apiKey: 'wrong' })))), 'Hi'));
    expect(err.status).toBe(401);
    expect(err.provider).toBe('openai-compatible');
    expect(err.message).toContain('Incorrect API key provided');
  });

  it('a provider 500 is a ProviderError with status 500', async () => {
    fake.options.answer = () => ({ status: 500 });
    const err = await failure(collect(createLlmBrain(deps(sessionConfig(llm()))), 'Hi'));
    expect(err.status).toBe(500);
  });

  it('no first token in time is a ProviderError (timeout)', async () => {
    fake.options.answer = () => ({ text: 'late', firstTokenDelayMs: 2_000 });
    const t0 = performance.now();
    const err = await failure(collect(createLlmBrain(deps(sessionConfig(llm())), { chatTimeouts: { firstChunkMs: 300 } }), 'Hi'));
    expect(err.message).toMatch(/timed out waiting for the first token/);
    expect(performance.now() - t0).toBeLessThan(1_500);
  });

  it('a stream that stalls mid-answer is a ProviderError (idle timeout)', async () => {
    fake.options.answer = () => ({ text: 'one two three', stallAfterChunks: 1 });
    const events: BrainEvent[] = [];
    const brain = createLlmBrain(deps(sessionConfig(llm())), { chatTimeouts: { idleMs: 300 } });
    const err = await failure(
      (async () => {
        for await (const ev of brain.reply({ text: 'Hi', history: [], signal: new AbortController().signal })) events.push(ev);
      })(),
    );
    expect(textOf(events)).toBe('one ');
    expect(err.message).toMatch(/timed out waiting for the next token/);
  });

  it('a connection dropped mid-answer is a ProviderError', async () => {
    fake.options.answer = () => ({ text: 'one two three', dropAfterChunks: 2 });
    const err = await failure(collect(createLlmBrain(deps(sessionConfig(llm()))), 'Hi'));
    expect(err.message).toMatch(/closed the connection|broke off/);
  });

  it('the visitor interrupting aborts the request: the abort passes through, not a ProviderError', async () => {
    fake.options.answer = () => ({ text: 'a long answer that keeps going on and on', chunkDelayMs: 50 });
    const ctl = new AbortController();
    const brain = createLlmBrain(deps(sessionConfig(llm())));
    const events: BrainEvent[] = [];
    const err = await (async () => {
      for await (const ev of brain.reply({ text: 'Hi', history: [], signal: ctl.signal })) {
        events.push(ev);
        if (events.length === 2) ctl.abort();
      }
    })().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).not.toBeInstanceOf(ProviderError);
    expect((err as Error).name).toBe('AbortError');
    expect(events).toHaveLength(2);
  });

  it('refuses a base URL on a private address unless the portal allows private URLs', async () => {
    const err = await failure(collect(createLlmBrain(deps(sessionConfig(llm(), { allowPrivateUrls: false }))), 'Hi'));
    expect(err.message).toMatch(/127\.0\.0\.1 is not a public address: loopback/);
    expect(fake.requests).toHaveLength(0);
  });

  it("Simple mode's platform model, configured by the operator, goes through the operator's fetch", async () => {
    const operator = testDeps(sessionConfig(llm(), { allowPrivateUrls: true }));
    opened.push(operator);
    const config = sessionConfig(llm({ platform: true }), { allowPrivateUrls: false });
    expect(textOf(await collect(createLlmBrain(deps(config), { operatorFetch: operator.fetch }), 'Hi'))).toBe('You said: Hi');
    const err = await failure(collect(createLlmBrain(deps(config)), 'Hi'));
    expect(err.provider).toBe('platform-llm');
  });

  it('summarizes the session for avatar memory with the same model', async () => {
    const config = sessionConfig(llm(), { avatar: { summaryEnabled: true }, memory: 'Bob likes jazz.' });
    const brain = createLlmBrain(deps(config));
    expect(brain.summarize).toBeTypeOf('function');
    const summary = await brain.summarize!([entry('user', 'My name is Bob, I am looking for a saxophone.'), entry('assistant', 'Great choice!')], new AbortController().signal);
    expect(summary).toBeTruthy();
    const body = fake.chatBodies()[0]!;
    expect(body.max_tokens).toBe(200);
    const msgs = body.messages as { content: string }[];
    expect(msgs[1]!.content).toContain('Earlier memory:\nBob likes jazz.');
    expect(msgs[1]!.content).toContain('Visitor: My name is Bob, I am looking for a saxophone.\nAvatar: Great choice!');
  });

  it('summarizes the conversation alone when avatar memory is off (ADR 099: the summary above the transcript)', async () => {
    const brain = createLlmBrain(deps(sessionConfig(llm())));
    const summary = await brain.summarize!([entry('user', 'Do you ship to Norway?'), entry('assistant', 'Yes, in five days.')], new AbortController().signal);
    expect(summary).toBeTruthy();
    const body = fake.chatBodies()[0]!;
    expect(body.max_tokens).toBe(200);
    const msgs = body.messages as { content: string }[];
    expect(msgs[0]!.content).toContain('Summarise a conversation');
    expect(msgs[1]!.content).not.toContain('Earlier memory');
    expect(msgs[1]!.content).toContain('Visitor: Do you ship to Norway?\nAvatar: Yes, in five days.');
    // Nothing said by the visitor: no call, no summary.
    expect(await brain.summarize!([entry('assistant', 'Hello!')], new AbortController().signal)).toBeNull();
    expect(fake.requests).toHaveLength(1);
  });

  it('keeps the memory when the visitor said nothing', async () => {
    const brain = createLlmBrain(deps(sessionConfig(llm(), { avatar: { summaryEnabled: true }, memory: 'Bob likes jazz.' })));
    expect(await brain.summarize!([entry('assistant', 'Hello!')], new AbortController().signal)).toBe('Bob likes jazz.');
    expect(fake.requests).toHaveLength(0);
  });
});
