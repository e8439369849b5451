import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineMessages as M, FailReason, SubscriptionType } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createSignedInUser, validAvatar } from '../../test/factories.js';

// Spec section 5 "Engine forms", checked again by the save call (InvalidOrMissingParams with the messages).
let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

type User = Awaited<ReturnType<typeof createSignedInUser>>;
type Agent = { id: number; version: number; customData: Record<string, unknown> } & Record<string, unknown>;
const add = (user: User, payload: object) => t.app.inject({ method: 'POST', url: '/api/add_avatar', headers: user.headers, payload });

async function fresh(): Promise<{ user: User; agent: Agent }> {
  const user = await createSignedInUser(t.app, t.database, { subscriptionType: SubscriptionType.ENTERPRISE });
  const res = await add(user, validAvatar());
  return { user, agent: res.json().agent as Agent };
}

const pipeline = (p: Record<string, unknown>) => ({ customData: { agent_pipeline_config: p } });

async function refused(payload: Record<string, unknown>, messages: string[]) {
  const { user, agent } = await fresh();
  const res = await add(user, validAvatar({ id: agent.id, version: agent.version, ...payload }));
  expect(res.statusCode).toBe(400);
  expect(res.json()).toMatchObject({ status: 'FAIL', failReason: FailReason.InvalidOrMissingParams });
  expect(res.json().errors).toEqual(messages);
}

describe('engine settings on save', () => {
  it('LLM (Composite): base URL, model, key and memory are required; max tokens a whole number above 0', async () => {
    await refused({ nlpEngine: 10, setupMode: 1, ...pipeline({ llm: {} }) }, [M.llmUrlRequired, M.llmModelRequired, M.llmKeyRequired, M.memoryRequired]);
    await refused({ nlpEngine: 10, setupMode: 1, ...pipeline({ llm: { base_url: 'ftp://x', model: 'm', api_key: 'sk-1', summary_enabled: true, max_tokens: 0 } }) }, [M.notAValidUrl, M.maxTokens]);
    await refused({ nlpEngine: 10, setupMode: 1, ...pipeline({ llm: { base_url: 'https://api.openai.com/v1', model: 'm', api_key: 'sk-1', summary_enabled: false, max_tokens: 2.5 } }) }, [M.maxTokens]);
  });

  it('LLM assistant: the assistant is required', async () => {
    await refused({ nlpEngine: 7, setupMode: 1, ...pipeline({ llm: { base_url: 'https://api.openai.com/v1', api_key: 'sk-1', summary_enabled: true } }) }, [M.assistantRequired]);
  });

  it('LLM in Simple mode needs no key of the customer’s', async () => {
    const { user, agent } = await fresh();
    const res = await add(user, validAvatar({ id: agent.id, version: agent.version, nlpEngine: 10, setupMode: 0, ...pipeline({ llm: { base_url: 'https://api.groq.com/openai/v1', model: 'llama-3.3-70b-versatile', summary_enabled: true } }) }));
    expect(res.statusCode).toBe(200);
  });

  it('REST: URL required and valid, key required, memory required', async () => {
    await refused({ nlpEngine: 1, setupMode: 0 }, [M.restUrlRequired, M.restKeyRequired, M.memoryRequired]);
    await refused({ nlpEngine: 1, setupMode: 0, restEndPointURL: 'not a url', restApiKey: 'k', ...pipeline({ llm: { summary_enabled: true } }) }, [M.notAValidUrl]);
  });

  it('Dialogflow ES needs project and JSON key; CX also agent and region; the key must be a service-account key', async () => {
    await refused({ nlpEngine: 2, setupMode: 1 }, [M.dialogflowProjectRequired, M.dialogflowKeyRequired]);
    await refused({ nlpEngine: 3, setupMode: 1, projectId: 'p', jsonKey: '{"type":"service_account"}' }, [M.dialogflowKeyInvalid, M.dialogflowAgentRequired, M.dialogflowRegionRequired]);
  });

  it('Realtime: URL, key, model and voice', async () => {
    await refused({ nlpEngine: 9, setupMode: 2 }, [M.realtimeUrlRequired, M.realtimeKeyRequired, M.realtimeModelRequired, M.realtimeVoiceRequired]);
  });

  it('ElevenLabs: agent id required, not too short, well-formed; a private agent needs a key of at least 16 characters', async () => {
    await refused({ nlpEngine: 11, setupMode: 3 }, [M.agentIdRequired, M.agentKeyRequired]);
    await refused({ nlpEngine: 11, setupMode: 3, ...pipeline({ third_party: { agent_id: 'agent_1', is_public: true } }) }, [M.agentIdTooShort]);
    await refused({ nlpEngine: 11, setupMode: 3, ...pipeline({ third_party: { agent_id: 'agent 0123456789', is_public: true } }) }, [M.agentIdInvalid]);
    await refused({ nlpEngine: 11, setupMode: 3, ...pipeline({ third_party: { agent_id: 'agent_0123456789', is_public: false, api_key: 'short' } }) }, [M.agentKeyInvalid]);
  });

  it('keeps a stored key when the mask comes back, refuses a cleared one, and lets other tabs save an untouched brain', async () => {
    const { user, agent } = await fresh();
    const llm = { provider: 'openai', base_url: 'https://api.openai.com/v1', model: 'gpt-4o-mini', api_key: 'sk-live-abcdefgh1234', summary_enabled: true };
    const saved = await add(user, validAvatar({ id: agent.id, version: agent.version, nlpEngine: 10, setupMode: 1, ...pipeline({ llm }) }));
    expect(saved.statusCode).toBe(200);
    const a = saved.json().agent as Agent;
    const masked = (a.customData.agent_pipeline_config as { llm: { api_key: string } }).llm.api_key;
    expect(masked).toBe('••••1234');

    // The mask is "keep the stored key": a changed model saves.
    const changed = { ...(a.customData.agent_pipeline_config as { llm: object }).llm, model: 'gpt-4o' };
    const again = await add(user, validAvatar({ id: a.id, version: a.version, nlpEngine: 10, setupMode: 1, customData: { ...a.customData, agent_pipeline_config: { llm: changed } } }));
    expect(again.statusCode).toBe(200);
    const b = again.json().agent as Agent;

    const cleared = await add(user, validAvatar({ id: b.id, version: b.version, nlpEngine: 10, setupMode: 1, customData: { ...b.customData, agent_pipeline_config: { llm: { ...changed, api_key: '' } } } }));
    expect(cleared.statusCode).toBe(400);
    expect(cleared.json().errors).toEqual([M.llmKeyRequired]);

    // Data stored before the rules (no memory value) still saves from another tab as long as the engine is untouched.
    await t.database.db.execute(
      sql`update avatars set config = jsonb_set(config, '{customData,agent_pipeline_config,llm}', (config->'customData'->'agent_pipeline_config'->'llm') - 'summary_enabled') where id = ${b.id}`,
    );
    const legacy = (await t.app.inject({ url: `/api/get_avatar?agentId=${b.id}`, headers: user.headers })).json().agent as Agent;
    const otherTab = await add(user, validAvatar({ id: legacy.id, version: legacy.version, nlpEngine: 10, setupMode: 1, customData: legacy.customData, wakeUpMessage: 'Hi again' }));
    expect(otherTab.statusCode).toBe(200);
  });
});
