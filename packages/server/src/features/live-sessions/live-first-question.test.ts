import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LivePaths, type TLiveStartAnswer } from '@persona/contract';
import type { LiveWorkerHandle } from '@persona/worker';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createSignedInUser } from '../../test/factories.js';
import { PageClient, startEmbeddedWorker, until } from '../../test/live.js';
import { avatars, functions } from '../../db/schema/index.js';
import { startFakeOpenAi, type FakeOpenAi } from '../../../../worker/src/test/fake-openai.js';

/**
 * Issue 26, item 10: with an approved function linked to an LLM avatar, the first question of a
 * session ("What is the weather in Oslo?") went to the model without tools — the sandbox started
 * only with the session, and the turn waited 4 s for it. The worker now warms its sandbox when it
 * starts: the first question finds the function. (The fake OpenAI, a real Pyodide sandbox.)
 */

let t: TestContext;
let base: string;
let worker: LiveWorkerHandle;
let fake: FakeOpenAi;
const pages: PageClient[] = [];

beforeAll(async () => {
  fake = await startFakeOpenAi({
    // A model that looks the weather up when it can, and says it cannot otherwise.
    answer: (body) => {
      const messages = body.messages as { role: string; content: string | null }[];
      const tools = ((body.tools as { function: { name: string } }[] | undefined) ?? []).map((x) => x.function.name);
      const last = messages.at(-1)!;
      if (last.role === 'tool') return { text: `It is ${last.content}.` };
      if (tools.includes('get_weather') && body.tool_choice !== 'none') return { toolCalls: [{ name: 'get_weather', arguments: '{"city":"Oslo"}' }] };
      return { text: 'I cannot look the weather up right now.' };
    },
  });
  t = await createTestApp({ ALLOW_PRIVATE_URLS: 'true', EMBEDDINGS: 'off' });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  // The worker as `npm run worker` and the portal start it: the sandbox's defaults.
  worker = await startEmbeddedWorker(t, base, { sandbox: {} });
});
afterAll(async () => {
  for (const p of pages) p.close();
  await worker?.stop();
  await t?.close();
  await fake?.close();
});

/** Sandbox processes of the worker by state, as its metrics report them. */
async function sandboxProcesses(state: 'idle' | 'starting' | 'busy'): Promise<number> {
  const metric = await worker.runtime.metrics.registry.getSingleMetric('persona_worker_sandbox_processes')!.get();
  return metric.values.find((v) => v.labels.state === state)?.value ?? 0;
}

describe('the first question of a session that needs a function', () => {
  it('the worker warms its sandbox when it starts; the first question of a session finds the function and is answered with it', { timeout: 240_000 }, async () => {
    // Before any session: a warm process (before, the sandbox started with the first session that had functions).
    await until(async () => (await sandboxProcesses('idle')) >= 1, 180_000, 'a warm sandbox process');

    const owner = await createSignedInUser(t.app, t.database);
    const [fn] = await t.database.db
      .insert(functions)
      .values({ userId: owner.id, name: 'get_weather', code: 'def get_weather(city: str) -> str:\n    """The weather in a city."""\n    return "sunny and 18 degrees in " + city\n', approvalStatus: 1 })
      .returning();
    const [a] = await t.database.db
      .insert(avatars)
      .values({ userId: owner.id, name: 'Weather', nlpEngine: 10, setupMode: 1, config: { wakeUpMessage: '', idleTimeout: 300, functions: [fn!.id], customData: { agent_pipeline_config: { llm: { base_url: fake.url, api_key: 'test-key', model: 'gpt-fake', instructions: 'You tell the weather.' } } } } })
      .returning();
    const res = await t.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId: a!.id } });
    const p = new PageClient(res.json() as TLiveStartAnswer);
    pages.push(p);
    await p.waitFor('ready');
    const asked = Date.now();
    p.text('What is the weather in Oslo?');
    const answer = await p.waitFor('assistant', (f) => f.final, 60_000);
    const took = Date.now() - asked;
    expect(answer.text).toBe('It is sunny and 18 degrees in Oslo.');
    expect(p.of('tool').map((f) => `${f.name}:${f.status}`)).toEqual(['get_weather:started', 'get_weather:ok']);
    expect((fake.chatBodies()[0]!.tools as { function: { name: string } }[]).map((x) => x.function.name)).toEqual(['get_weather']);
    console.info(`[figures] first question with a function, worker warmed at start: answered in ${took} ms`);
    p.send({ type: 'bye' });
  });
});
