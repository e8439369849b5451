import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TLiveBrainConfig } from '@persona/contract';
import { collect, entry, sessionConfig, testDeps, textOf, type TestDeps } from '../test/brain-deps.js';
import { startFakeRestBrain, type FakeRestBrain, type RestAnswer } from '../test/fake-rest-brain.js';
import { createRestBrain } from './rest.js';
import { ProviderError } from '../core/errors.js';

let fake: FakeRestBrain;
const opened: TestDeps[] = [];

beforeAll(async () => {
  fake = await startFakeRestBrain();
});
afterAll(() => fake.close());
afterEach(() => {
  fake.calls.length = 0;
  fake.answer = null;
  for (const d of opened.splice(0)) d.fetch.close();
});

function rest(over: Partial<Extract<TLiveBrainConfig, { kind: 'rest' }>> = {}): Extract<TLiveBrainConfig, { kind: 'rest' }> {
  return { kind: 'rest', url: fake.url, apiKey: 'rest-key', customText: '', agentLanguage: 'en-GB', sendChatHistory: false, ...over };
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

const signal = () => new AbortController().signal;

describe('REST brain', () => {
  it('LOGIN at start, CHAT per turn, LOGOUT at the end, with the Bearer key', async () => {
    const brain = createRestBrain(deps(sessionConfig(rest())));
    await brain.start!(signal());
    expect(textOf(await collect(brain, 'Hello'))).toBe('Echo: Hello');
    expect(textOf(await collect(brain, 'How are you?', [entry('user', 'Hello'), entry('assistant', 'Echo: Hello')]))).toBe('Echo: How are you?');
    await brain.end!();
    expect(fake.calls.map((c) => c.body)).toEqual([
      { action: 'LOGIN', sessionId: 'sess-0123456789abcdef', userId: 'visitor-1', locale: 'en-GB', lastSeen: null },
      { action: 'CHAT', sessionId: 'sess-0123456789abcdef', userId: 'visitor-1', message: 'Hello' },
      { action: 'CHAT', sessionId: 'sess-0123456789abcdef', userId: 'visitor-1', message: 'How are you?' },
      { action: 'LOGOUT', sessionId: 'sess-0123456789abcdef', userId: 'visitor-1' },
    ]);
    for (const c of fake.calls) {
      expect(c.headers.authorization).toBe('Bearer rest-key');
      expect(c.headers['content-type']).toBe('application/json');
    }
  });

  it('sends the chat history only with sendChatHistory, and the custom text when set', async () => {
    const history = [entry('assistant', 'Welcome!'), entry('user', 'Hi'), entry('assistant', 'Hello there.')];
    await collect(createRestBrain(deps(sessionConfig(rest()))), 'Next', history);
    await collect(createRestBrain(deps(sessionConfig(rest({ sendChatHistory: true, customText: 'tier=gold' })))), 'Next', history);
    expect(fake.calls[0]!.body).not.toHaveProperty('chatHistory');
    expect(fake.calls[0]!.body).not.toHaveProperty('customText');
    expect(fake.calls[1]!.body).toEqual({
      action: 'CHAT',
      sessionId: 'sess-0123456789abcdef',
      userId: 'visitor-1',
      message: 'Next',
      chatHistory: [
        { role: 'assistant', text: 'Welcome!' },
        { role: 'user', text: 'Hi' },
        { role: 'assistant', text: 'Hello there.' },
      ],
      customText: 'tier=gold',
    });
  });

  it('reads reply, message or text, a bare JSON string or plain text; empty means say nothing', async () => {
    const brain = createRestBrain(deps(sessionConfig(rest())));
    const cases: [RestAnswer, string][] = [
      [{ body: { status: 'OK', reply: 'from reply' } }, 'from reply'],
      [{ body: { status: 'OK', message: 'from message' } }, 'from message'],
      [{ body: { text: 'from text' } }, 'from text'],
      [{ body: 'a bare string' }, 'a bare string'],
      [{ body: 'plain text answer', raw: true }, 'plain text answer'],
      [{ body: '', raw: true }, ''],
      [{ body: { status: 'OK', reply: '' } }, ''],
      [{ body: { status: 'OK' } }, ''],
    ];
    for (const [answer, expected] of cases) {
      fake.answer = () => answer;
      const events = await collect(brain, 'Hi');
      expect(textOf(events)).toBe(expected);
      if (!expected) expect(events).toEqual([]);
    }
  });

  it('a FAIL status, an HTTP error or a wrong key is a ProviderError with the status', async () => {
    const brain = createRestBrain(deps(sessionConfig(rest())));
    fake.answer = () => ({ body: { status: 'FAIL', message: 'backend down' } });
    expect((await failure(collect(brain, 'Hi'))).message).toContain('status FAIL: backend down');
    fake.answer = () => ({ status: 503, body: { status: 'FAIL', message: 'maintenance' } });
    const e503 = await failure(collect(brain, 'Hi'));
    expect(e503.status).toBe(503);
    expect(e503.provider).toBe('rest');
    expect(e503.message).toContain('maintenance');
    fake.answer = null;
    const e401 = await failure(collect(createRestBrain(deps(sessionConfig(rest({ apiKey: 'wrong' })))), 'Hi'));
    expect(e401.status).toBe(401);
  });

  it('an endpoint that does not answer in time is a ProviderError', async () => {
    fake.answer = () => ({ delayMs: 2_000, body: { reply: 'late' } });
    const t0 = performance.now();
    const err = await failure(collect(createRestBrain(deps(sessionConfig(rest())), { requestTimeoutMs: 250 }), 'Hi'));
    expect(err.message).toMatch(/timed out|no answer/);
    expect(performance.now() - t0).toBeLessThan(1_500);
  });

  it('refuses an endpoint on a private address unless the portal allows private URLs', async () => {
    const brain = createRestBrain(deps(sessionConfig(rest(), { allowPrivateUrls: false })));
    const err = await failure(brain.start!(signal()));
    expect(err.message).toContain('is not a public address');
    expect(fake.calls).toHaveLength(0);
  });

  it('a failing LOGOUT is logged for the owner, never thrown', async () => {
    fake.answer = () => ({ status: 500, body: { status: 'FAIL' } });
    const d = deps(sessionConfig(rest()));
    await expect(createRestBrain(d).end!()).resolves.toBeUndefined();
    expect(d.lines).toContainEqual(expect.objectContaining({ level: 'warn', msg: 'REST endpoint LOGOUT failed', data: expect.objectContaining({ avatarId: 42, status: 500 }) }));
  });

  it('a resumed session tells LOGIN when the visitor was last seen; without a visitor id the user is the session', async () => {
    const at = Date.UTC(2025, 0, 2, 3, 4, 5);
    const config = sessionConfig(rest(), { resumed: true, visitorId: null, history: [{ role: 'user', text: 'Hi', at }] });
    await createRestBrain(deps(config)).start!(signal());
    expect(fake.calls[0]!.body).toEqual({ action: 'LOGIN', sessionId: 'sess-0123456789abcdef', userId: 'session-sess-0123456789abcdef', locale: 'en-GB', lastSeen: '2025-01-02T03:04:05.000Z' });
  });
});
