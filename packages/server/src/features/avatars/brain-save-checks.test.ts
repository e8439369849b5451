import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { EngineMessages as M, FailReason, OutboundUrlFields as F, OutboundUrlLimits, OutboundUrlMessages as U, SubscriptionType } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createSignedInUser, validAvatar } from '../../test/factories.js';
import { ELEVENLABS_AGENTS, ELEVENLABS_KEY, startFakeElevenLabs, type FakeProvider } from '../../test/fake-providers.js';
import { outboundUrlProblem } from './url-guard.js';

/*
 * What a save asks again of the Brain tab's checks (issue 11): ElevenLabs' verdict on the agent
 * (against the local fake ElevenLabs) and the outbound-URL rule for every URL the worker or the
 * server will call.
 */

/** The check's bound on the apps the tests use: patient, far above a loaded machine's pauses (issue 26, item 16). */
const PATIENT_MS = 20_000;
/** The bound of a third instance (t's database) against an ElevenLabs that never answers. */
const TIMEOUT_MS = 400;
let eleven: FakeProvider;
let t: TestContext; // ALLOW_PRIVATE_URLS=false (the default)
let open: TestContext; // ALLOW_PRIVATE_URLS=true
let impatient: TestContext;

beforeAll(async () => {
  eleven = await startFakeElevenLabs();
  const env = { PROVIDER_ELEVENLABS_URL: eleven.origin, PROVIDER_LOOKUP_TIMEOUT_MS: String(PATIENT_MS) };
  [t, open] = await Promise.all([createTestApp(env), createTestApp({ ...env, ALLOW_PRIVATE_URLS: 'true' })]);
  impatient = await createTestApp({ ...env, PROVIDER_LOOKUP_TIMEOUT_MS: String(TIMEOUT_MS) }, { database: t.database });
});
afterAll(async () => {
  await impatient.close();
  await Promise.all([t.close(), open.close()]);
  await eleven.close();
});
beforeEach(() => {
  eleven.requests.length = 0;
  eleven.knobs = {};
});

type User = Awaited<ReturnType<typeof createSignedInUser>>;
type Agent = { id: number; version: number; nlpEngine: number; customData: { agent_pipeline_config: Record<string, Record<string, unknown>> } } & Record<string, unknown>;

const add = (ctx: TestContext, user: User, payload: object) => ctx.app.inject({ method: 'POST', url: '/api/add_avatar', headers: user.headers, payload });

/** A signed-in user with a freshly created (echo) avatar. */
async function fresh(ctx: TestContext = t): Promise<{ user: User; agent: Agent }> {
  const user = await createSignedInUser(ctx.app, ctx.database, { subscriptionType: SubscriptionType.ENTERPRISE });
  const res = await add(ctx, user, validAvatar());
  expect(res.statusCode, res.body).toBe(200);
  return { user, agent: res.json().agent as Agent };
}

/** The avatar as the editor saves it with the ElevenLabs engine and this agent. */
const elevenLabs = (agent: Agent, thirdParty: Record<string, unknown>, over: Record<string, unknown> = {}) =>
  validAvatar({ id: agent.id, version: agent.version, nlpEngine: 11, setupMode: 3, customData: { agent_pipeline_config: { third_party: { connection_type: 'webrtc', ...thirdParty } } }, ...over });

function expectRefused(res: Awaited<ReturnType<typeof add>>, errors: string[]) {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json()).toMatchObject({ status: 'FAIL', failReason: FailReason.InvalidOrMissingParams, errors });
}

const storedAgent = async (ctx: TestContext, user: User, id: number) => (await ctx.app.inject({ url: `/api/get_avatar?agentId=${id}`, headers: user.headers })).json().agent as Agent;

describe('the ElevenLabs agent, checked again on save', () => {
  it('saves a public agent once ElevenLabs gives its token without a key', async () => {
    const { user, agent } = await fresh();
    const res = await add(t, user, elevenLabs(agent, { agent_id: ELEVENLABS_AGENTS.public, is_public: true, api_key: '' }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().agent).toMatchObject({ nlpEngine: 11, customData: { agent_pipeline_config: { third_party: { agent_id: ELEVENLABS_AGENTS.public, is_public: true } } } });
    expect(eleven.requests.map((r) => [r.path, r.query.get('agent_id'), r.headers['xi-api-key']])).toEqual([['/v1/convai/conversation/token', ELEVENLABS_AGENTS.public, undefined]]);
  });

  it('refuses an agent id ElevenLabs does not know (404) or refuses (disabled) with the form’s message, and keeps what was stored', async () => {
    const { user, agent } = await fresh();
    expectRefused(await add(t, user, elevenLabs(agent, { agent_id: 'agent_unknown_0000000001', is_public: true })), [M.agentIdInvalid]);
    expectRefused(await add(t, user, elevenLabs(agent, { agent_id: ELEVENLABS_AGENTS.disabled, is_public: true })), [M.agentIdInvalid]);
    expect((await storedAgent(t, user, agent.id)).nlpEngine).toBe(0);
  });

  it('refuses a wrong key for a private agent, and a private agent sent as public without a key; saves it with the right key', async () => {
    const { user, agent } = await fresh();
    expectRefused(await add(t, user, elevenLabs(agent, { agent_id: ELEVENLABS_AGENTS.private, is_public: false, api_key: 'sk_wrong_but_long_enough_000' })), [M.agentKeyInvalid]);
    expectRefused(await add(t, user, elevenLabs(agent, { agent_id: ELEVENLABS_AGENTS.private, is_public: true, api_key: '' })), [M.agentKeyRequired]);
    eleven.requests.length = 0;
    const res = await add(t, user, elevenLabs(agent, { agent_id: ELEVENLABS_AGENTS.private, is_public: true, api_key: ELEVENLABS_KEY }));
    expect(res.statusCode, res.body).toBe(200);
    // Recorded as ElevenLabs said: private (the form claimed public), the key masked.
    expect(res.json().agent.customData.agent_pipeline_config.third_party).toMatchObject({ is_public: false, api_key: `••••${ELEVENLABS_KEY.slice(-4)}` });
    expect(eleven.requests.map((r) => r.headers['xi-api-key'])).toEqual([undefined, ELEVENLABS_KEY]);
  });

  it('saves when ElevenLabs cannot be reached (timeout, 5xx): unchecked, as the editor sent it', async () => {
    const { user, agent } = await fresh();
    eleven.knobs.hang = true;
    const started = Date.now();
    const slow = await add(impatient, user, elevenLabs(agent, { agent_id: ELEVENLABS_AGENTS.public, is_public: true }));
    expect(slow.statusCode, slow.body).toBe(200);
    // The save waited the check's bound, not for ever (the fake holds the request until the end).
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(Date.now() - started).toBeLessThan(PATIENT_MS / 2);
    const saved = slow.json().agent as Agent;
    expect(saved.customData.agent_pipeline_config.third_party).toMatchObject({ agent_id: ELEVENLABS_AGENTS.public, is_public: true });

    eleven.knobs = { status: 503 };
    const down = await add(t, user, elevenLabs(saved, { agent_id: ELEVENLABS_AGENTS.private, is_public: false, api_key: ELEVENLABS_KEY }));
    expect(down.statusCode, down.body).toBe(200);
    expect(down.json().agent.customData.agent_pipeline_config.third_party).toMatchObject({ agent_id: ELEVENLABS_AGENTS.private, is_public: false });
    expect(eleven.requests.length).toBeGreaterThanOrEqual(2);
  });

  it('asks ElevenLabs nothing when the save leaves the agent, the connection and the key as stored; asks again when one changes', async () => {
    const { user, agent } = await fresh();
    const first = await add(t, user, elevenLabs(agent, { agent_id: ELEVENLABS_AGENTS.private, is_public: false, api_key: ELEVENLABS_KEY }));
    expect(first.statusCode, first.body).toBe(200);
    let saved = first.json().agent as Agent;
    eleven.requests.length = 0;

    // Another tab: the brain comes back as loaded (the key as its mask).
    const otherTab = await add(t, user, validAvatar({ id: saved.id, version: saved.version, nlpEngine: 11, setupMode: 3, customData: saved.customData, wakeUpMessage: 'Welcome back!' }));
    expect(otherTab.statusCode, otherTab.body).toBe(200);
    saved = otherTab.json().agent as Agent;
    expect(eleven.requests).toHaveLength(0);

    // The connection type changes: asked again (a signed URL for WebSocket) with the stored key.
    const third = saved.customData.agent_pipeline_config.third_party!;
    const socket = await add(t, user, elevenLabs(saved, { ...third, connection_type: 'websocket' }));
    expect(socket.statusCode, socket.body).toBe(200);
    expect(eleven.requests.map((r) => [r.path, r.headers['xi-api-key']])).toEqual([
      ['/v1/convai/conversation/get-signed-url', undefined],
      ['/v1/convai/conversation/get-signed-url', ELEVENLABS_KEY],
    ]);

    // A public agent, saved again by the editor with its empty key: nothing changed, nothing asked.
    const pub = await add(t, user, elevenLabs(socket.json().agent as Agent, { agent_id: ELEVENLABS_AGENTS.public, is_public: true, api_key: '' }));
    expect(pub.statusCode, pub.body).toBe(200);
    eleven.requests.length = 0;
    const again = await add(t, user, elevenLabs(pub.json().agent as Agent, { agent_id: ELEVENLABS_AGENTS.public, is_public: true, api_key: '' }, { wakeUpMessage: 'Hi there' }));
    expect(again.statusCode, again.body).toBe(200);
    expect(eleven.requests).toHaveLength(0);
  });
});

describe('URLs the worker or the server will call, guarded on save', () => {
  const llm = (base_url: string) => ({ nlpEngine: 10, setupMode: 1, customData: { agent_pipeline_config: { llm: { base_url, model: 'llama3', api_key: 'sk-local-0123456789', summary_enabled: true } } } });
  const PRIVATE_LLM = 'http://127.0.0.1:11434/v1';

  it('refuses a private-address LLM base URL, naming the field', async () => {
    const { user, agent } = await fresh();
    expectRefused(await add(t, user, validAvatar({ id: agent.id, version: agent.version, ...llm(PRIVATE_LLM) })), [U.privateAddress(F.llmBaseUrl)]);
    expectRefused(await add(t, user, validAvatar({ id: agent.id, version: agent.version, ...llm('http://localhost:11434/v1') })), [U.privateAddress(F.llmBaseUrl)]);
    expect((await storedAgent(t, user, agent.id)).nlpEngine).toBe(0);
    const ok = await add(t, user, validAvatar({ id: agent.id, version: agent.version, ...llm('https://api.groq.com/openai/v1') }));
    expect(ok.statusCode, ok.body).toBe(200);
  });

  it('allows the same URL when the server allows private URLs (ALLOW_PRIVATE_URLS)', async () => {
    const { user, agent } = await fresh(open);
    const res = await add(open, user, validAvatar({ id: agent.id, version: agent.version, ...llm(PRIVATE_LLM) }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().agent.customData.agent_pipeline_config.llm.base_url).toBe(PRIVATE_LLM);
  });

  it('guards every URL field that is called: REST endpoint, realtime, STT/TTS endpoints, billing-auth URL', async () => {
    const { user, agent } = await fresh();
    const save = async (over: Record<string, unknown>) => add(t, user, validAvatar({ id: agent.id, version: (await storedAgent(t, user, agent.id)).version, ...over }));
    expectRefused(await save({ nlpEngine: 1, setupMode: 0, restEndPointURL: 'http://10.0.0.5/brain', restApiKey: 'rest-key', customData: { agent_pipeline_config: { llm: { summary_enabled: true } } } }), [U.privateAddress(F.restEndpointUrl)]);
    const realtime = (url: string) => ({ nlpEngine: 9, setupMode: 2, customData: { agent_pipeline_config: { speech_to_speech: { url, api_key: 'sk-realtime', model: 'gpt-4o-realtime-preview', voice_id: 'alloy' } } } });
    expectRefused(await save(realtime('ws://[::1]:8080/realtime')), [U.privateAddress(F.realtimeUrl)]);
    expect((await save(realtime('wss://api.openai.com/v1/realtime'))).statusCode).toBe(200);
    // Whatever the engine: the worker calls them for an OpenAI-compatible speech provider.
    const speech = (stt: string, tts: string) => save({ customData: { agent_pipeline_config: { stt: { base_url: stt }, tts: { base_url: tts } } } });
    expectRefused(await speech('http://169.254.169.254/v1', 'http://192.168.1.20/v1'), [U.privateAddress(F.sttBaseUrl), U.privateAddress(F.ttsBaseUrl)]);
    expectRefused(await speech('https://stt.example.com/v1', 'file:///etc/passwd'), [U.invalid(F.ttsBaseUrl)]);
    // The billing ping is the server's own call.
    expectRefused(await save({ billingAuthURL: 'http://[::ffff:7f00:1]/ping', billingAuthHeader: 'X-Key: k' }), [U.privateAddress(F.billingAuthUrl)]);
    expectRefused(await save({ billingAuthURL: 'https://user:secret@billing.example.com/ping', billingAuthHeader: 'X-Key: k' }), [U.credentials(F.billingAuthUrl)]);
  });

  it('does not refuse another tab’s save over a URL stored earlier (under another ALLOW_PRIVATE_URLS)', async () => {
    const { user, agent } = await fresh();
    const saved = await add(t, user, validAvatar({ id: agent.id, version: agent.version, ...llm('https://api.groq.com/openai/v1') }));
    expect(saved.statusCode, saved.body).toBe(200);
    await t.database.db.execute(sql`update avatars set config = jsonb_set(config, '{customData,agent_pipeline_config,llm,base_url}', ${JSON.stringify(PRIVATE_LLM)}::jsonb) where id = ${agent.id}`);
    const loaded = await storedAgent(t, user, agent.id);
    expect(loaded.customData.agent_pipeline_config.llm!.base_url).toBe(PRIVATE_LLM);
    const otherTab = await add(t, user, validAvatar({ id: loaded.id, version: loaded.version, nlpEngine: 10, setupMode: 1, customData: loaded.customData, wakeUpMessage: 'Hello again' }));
    expect(otherTab.statusCode, otherTab.body).toBe(200);
  });
});

describe('the outbound-URL rule for one field', () => {
  const check = (url: string, opts: { allowPrivate?: boolean; websocket?: boolean } = {}) => outboundUrlProblem(url, 'X', { allowPrivate: opts.allowPrivate ?? false, websocket: opts.websocket });

  it('refuses every form of a private, loopback or reserved address, and localhost names', () => {
    for (const url of ['http://127.0.0.1/', 'http://0x7f.1/', 'http://2130706433/', 'http://[::1]/', 'http://[::ffff:127.0.0.1]/', 'http://169.254.169.254/', 'http://10.1.2.3/', 'http://[fd00::1]/', 'http://localhost/', 'http://api.localhost./', 'http://0.0.0.0/']) {
      expect(check(url), url).toBe(U.privateAddress('X'));
      expect(check(url, { allowPrivate: true }), url).toBeNull();
    }
  });

  it('takes http(s) everywhere and ws(s) only where asked; no credentials; a sane length', () => {
    expect(check('https://api.openai.com/v1')).toBeNull();
    expect(check('wss://api.openai.com/v1/realtime')).toBe(U.invalid('X'));
    expect(check('wss://api.openai.com/v1/realtime', { websocket: true })).toBeNull();
    expect(check('ws://127.0.0.1:9/', { websocket: true })).toBe(U.privateAddress('X'));
    expect(check('ftp://example.com/')).toBe(U.invalid('X'));
    expect(check('not a url')).toBe(U.invalid('X'));
    expect(check('https://me:pw@example.com/')).toBe(U.credentials('X'));
    expect(check(`https://example.com/${'a'.repeat(OutboundUrlLimits.urlMax)}`)).toBe(U.tooLong('X'));
  });
});
