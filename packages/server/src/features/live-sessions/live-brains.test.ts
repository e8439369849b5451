import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LiveCode, LiveMessages, LivePaths, type TLiveStartAnswer } from '@persona/contract';
import type { LiveWorkerHandle } from '@persona/worker';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createSignedInUser } from '../../test/factories.js';
import { PageClient, startEmbeddedWorker, until } from '../../test/live.js';
import { eq } from 'drizzle-orm';
import { avatarMemories, avatars, functions } from '../../db/schema/index.js';
import { simulateModel, startFakeOpenAi, type FakeOpenAi } from '../../../../worker/src/test/fake-openai.js';

let t: TestContext;
let base: string;
let owner: Awaited<ReturnType<typeof createSignedInUser>>;
let worker: LiveWorkerHandle;
let fake: FakeOpenAi;
const lines: { level: string; msg: string; data?: Record<string, unknown> }[] = [];
const pages: PageClient[] = [];

beforeAll(async () => {
  fake = await startFakeOpenAi({
    answer: (body) => {
      const messages = (body.messages as { role: string; content: string | null }[]).map((m) => ({ role: m.role, content: m.content ?? '' }));
      if (messages.at(-1)?.content.includes('break please')) return { status: 500 };
      // Avatar memory: the end-of-session request for a note about the visitor.
      if (messages[0]?.content.includes('You keep the memory')) return { text: 'The visitor is Ada, a ferry captain who asked about the lighthouse.' };
      const tools = body.tool_choice === 'none' ? [] : ((body.tools as { function: { name: string } }[] | undefined) ?? []).map((x) => x.function.name);
      return simulateModel(messages, tools);
    },
  });
  // The platform model (Simple mode) and the avatar's own provider are both the local fake.
  t = await createTestApp({ ALLOW_PRIVATE_URLS: 'true', EMBEDDINGS: 'off', PLATFORM_LLM_URL: fake.url, PLATFORM_LLM_API_KEY: 'test-key', PLATFORM_LLM_MODEL: 'platform-model' });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  owner = await createSignedInUser(t.app, t.database);
  const record = (level: string) => (msg: string, data?: object) => lines.push({ level, msg, data: data as Record<string, unknown> });
  worker = await startEmbeddedWorker(t, base, { log: { info: record('info'), warn: record('warn'), error: record('error') }, sandbox: { size: 1, prewarm: false, queueTimeoutMs: 60_000 }, brainOptions: { toolsWaitMs: 60_000 } });
});
afterAll(async () => {
  for (const p of pages) p.close();
  await worker?.stop();
  await t?.close();
  await fake?.close();
});

async function start(avatarId: number, visitorId?: string) {
  const res = await t.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId, ...(visitorId ? { visitorId } : {}) } });
  const body = res.json() as TLiveStartAnswer;
  expect(body.status).toBe('OK');
  const p = new PageClient(body);
  pages.push(p);
  await p.waitFor('ready');
  return p;
}

describe('live sessions: LLM brains on the worker', () => {
  it('an LLM avatar answers from its knowledge collection (through the portal) and calls its approved python function', async () => {
    const jwt = (await t.app.inject({ url: '/api/token/jwt', headers: owner.headers })).json().jwtToken as string;
    const bearer = { authorization: `Bearer ${jwt}` };
    const collection = (await t.app.inject({ method: 'POST', url: '/knowledge_collection', headers: bearer, payload: { name: 'Harbour' } })).json().data as { id: number };
    const item = await t.app.inject({
      method: 'POST',
      url: '/knowledge',
      headers: bearer,
      payload: { collection_id: collection.id, name: 'Harbour notes', knowledge_type: 'text', content: 'The granite lighthouse was built in 1854. It still guides the ferries at night.' },
    });
    expect(item.statusCode).toBe(200);
    await t.app.knowledge.ingestion.idle();
    const [fn] = await t.database.db
      .insert(functions)
      .values({ userId: owner.id, name: 'add_numbers', code: 'def add_numbers(a: int, b: int) -> int:\n    """Adds two whole numbers."""\n    return a + b\n', approvalStatus: 1 })
      .returning();
    const [pending] = await t.database.db
      .insert(functions)
      .values({ userId: owner.id, name: 'not_approved', code: 'def not_approved() -> str:\n    """Not yet."""\n    return "x"\n', approvalStatus: 0 })
      .returning();
    const [a] = await t.database.db
      .insert(avatars)
      .values({
        userId: owner.id,
        name: 'Harbour guide',
        nlpEngine: 10,
        setupMode: 1,
        config: {
          wakeUpMessage: 'Ahoy!',
          idleTimeout: 300,
          functions: [fn!.id, pending!.id],
          customData: { collection_ids: [collection.id], agent_pipeline_config: { llm: { base_url: fake.url, api_key: 'test-key', model: 'gpt-fake', instructions: 'You are the harbour guide.' } } },
        },
      })
      .returning();
    const p = await start(a!.id);
    await p.waitFor('assistant', (f) => f.final && f.text === 'Ahoy!');

    p.text('When was the lighthouse built?');
    const answer = await p.waitFor('assistant', (f) => f.final && (f.text ?? '').startsWith('According to'), 150_000);
    expect(answer.text).toBe('According to Harbour notes, The granite lighthouse was built in 1854.');
    expect(p.of('assistant').filter((f) => !f.final && f.utt === answer.utt).length).toBeGreaterThan(1); // streamed
    const first = fake.chatBodies().at(-1)!;
    expect(first.model).toBe('gpt-fake');
    const messages = first.messages as { role: string; content: string }[];
    expect(messages[0]).toMatchObject({ role: 'system' });
    expect(messages[0]!.content).toContain('You are the harbour guide.');
    expect(messages.at(-1)!.content).toContain('The granite lighthouse was built in 1854.');
    expect((first.tools as { function: { name: string } }[]).map((x) => x.function.name)).toEqual(['add_numbers']);

    p.text('Please call add_numbers {"a": 2, "b": 3}');
    const sum = await p.waitFor('assistant', (f) => f.final && (f.text ?? '').includes('function returned'), 60_000);
    expect(sum.text).toBe('The function returned 5.');
    expect(p.of('tool').map((f) => [f.name, f.status])).toEqual([
      ['add_numbers', 'started'],
      ['add_numbers', 'ok'],
    ]);
    // The second turn carried the first as history.
    const withHistory = fake.chatBodies().find((b) => (b.messages as { content: string }[]).some((m) => String(m.content).includes('call add_numbers')))!;
    expect((withHistory.messages as { role: string; content: string }[]).some((m) => m.role === 'assistant' && m.content.startsWith('According to Harbour notes'))).toBe(true);
    p.send({ type: 'bye' });
    // The first question waits for the cold sandbox (this worker's is lazy): 8-19 s on a busy
    // machine, and more beside a CPU hog; 45 s was met (issue 26, item 16). Waits on the answer,
    // not sleeps: the bounds cost nothing when it comes.
  }, 240_000);

  it('a provider failure: a short apology, an error frame, a log line with the avatar and the status; the session goes on', async () => {
    const [a] = await t.database.db
      .insert(avatars)
      .values({ userId: owner.id, name: 'Fragile', nlpEngine: 10, setupMode: 1, config: { wakeUpMessage: 'Hi', idleTimeout: 300, customData: { agent_pipeline_config: { llm: { base_url: fake.url, api_key: 'test-key', model: 'gpt-fake' } } } } })
      .returning();
    const p = await start(a!.id);
    p.text('break please');
    await p.waitFor('assistant', (f) => f.final && f.text === LiveMessages['provider-error'], 15_000);
    expect(await p.waitFor('error')).toEqual({ type: 'error', code: LiveCode.providerError, message: LiveMessages['provider-error'], fatal: false });
    await until(() => lines.some((l) => l.level === 'warn' && l.data?.avatarId === a!.id && l.data?.status === 500));
    p.text('Are you back?');
    await p.waitFor('assistant', (f) => f.final && f.text === 'You said: Are you back?', 15_000);
    p.send({ type: 'bye' });
  });

  it('avatar memory: a note about the visitor is kept at the end and given to the model on their next visit', async () => {
    const [a] = await t.database.db
      .insert(avatars)
      .values({
        userId: owner.id,
        name: 'Rememberer',
        nlpEngine: 10,
        setupMode: 1,
        config: { wakeUpMessage: 'Hi', idleTimeout: 300, customData: { summaryEnabled: true, agent_pipeline_config: { llm: { base_url: fake.url, api_key: 'test-key', model: 'gpt-fake', summary_enabled: true } } } },
      })
      .returning();
    const first = await start(a!.id, 'visitor-ada-0001');
    first.text('I am Ada, I captain the ferry.');
    await first.waitFor('assistant', (f) => f.final && (f.text ?? '').startsWith('You said'), 15_000);
    first.send({ type: 'bye' });
    await until(async () => (await t.database.db.select().from(avatarMemories).where(eq(avatarMemories.avatarId, a!.id))).length === 1, 15_000);
    const [kept] = await t.database.db.select().from(avatarMemories).where(eq(avatarMemories.avatarId, a!.id));
    expect(kept).toMatchObject({ visitorId: 'visitor-ada-0001', summary: 'The visitor is Ada, a ferry captain who asked about the lighthouse.' });

    const again = await start(a!.id, 'visitor-ada-0001');
    again.text('Hello again');
    await again.waitFor('assistant', (f) => f.final && f.text === 'You said: Hello again', 15_000);
    const system = (fake.chatBodies().findLast((b) => (b.messages as { content: string }[]).at(-1)?.content.includes('Hello again'))!.messages as { content: string }[])[0]!.content;
    expect(system).toContain('The visitor is Ada, a ferry captain');
    again.send({ type: 'bye' });

    // Another visitor of the same avatar is a stranger to it.
    const stranger = await start(a!.id, 'visitor-bob-0002');
    stranger.text('Who am I?');
    await stranger.waitFor('assistant', (f) => f.final && f.text === 'You said: Who am I?', 15_000);
    const strangerSystem = (fake.chatBodies().findLast((b) => (b.messages as { content: string }[]).at(-1)?.content.includes('Who am I?'))!.messages as { content: string }[])[0]!.content;
    expect(strangerSystem).not.toContain('Ada');
    stranger.send({ type: 'bye' });
  });

  it('Simple mode uses the operator\u2019s platform model (PLATFORM_LLM_*)', async () => {
    const [a] = await t.database.db
      .insert(avatars)
      .values({ userId: owner.id, name: 'Simple', nlpEngine: 10, setupMode: 0, config: { wakeUpMessage: 'Hello', idleTimeout: 300 } })
      .returning();
    const p = await start(a!.id);
    p.text('Ping');
    await p.waitFor('assistant', (f) => f.final && f.text === 'You said: Ping', 15_000);
    const body = fake.chatBodies().at(-1)!;
    expect(body.model).toBe('platform-model');
    expect(String((body.messages as { content: string }[])[0]!.content)).toContain('between 15 and 35 words');
    p.send({ type: 'bye' });
  });
});
