import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LivePaths, NlpEngine, SetupMode, ZLiveSessionConfig, type TLiveStartAnswer } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createSignedInUser } from '../../test/factories.js';
import { RawWorker, ticketClaims } from '../../test/live.js';
import { avatars } from '../../db/schema/index.js';

// Issue 26, item 3: the session config a worker receives carries only the keys the session's brain,
// STT and TTS use. Asserted on the raw text of the `session.claim` answer over the real worker
// socket: a key that is not in it did not reach the worker.
let t: TestContext;
let base: string;
let owner: Awaited<ReturnType<typeof createSignedInUser>>;
let worker: RawWorker;
let nextIp = 1;

const PLATFORM_KEY = 'platform-llm-key-0123456789';
const KEYS = {
  llm: 'sk-avatar-llm-key-0123456789',
  realtime: 'rt-avatar-key-0123456789',
  elevenlabs: 'el-agent-key-0123456789',
  rest: 'rest-avatar-key-0123456789',
  stt: 'dg-stt-key-0123456789',
  tts: 'azure-tts-key-0123456789',
  pollySecret: 'polly-secret-0123456789',
  dialogflow: '{"type":"service_account","private_key":"dialogflow-key-0123456789"}',
};

beforeAll(async () => {
  t = await createTestApp({ PLATFORM_LLM_URL: 'https://platform-llm.example/v1', PLATFORM_LLM_API_KEY: PLATFORM_KEY, PLATFORM_LLM_MODEL: 'm' });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  owner = await createSignedInUser(t.app, t.database);
  worker = new RawWorker(base, await workerToken());
  expect((await worker.register('keys-probe')).registered).not.toBeNull();
});
afterAll(async () => {
  worker?.close();
  await t?.close();
});

/** What a worker of this server authenticates with: its own credential (ADR 086). */
async function workerToken(): Promise<string> {
  return (await t.app.workerHub.issueCredential('keys-probe')).credential;
}

/** Every key an avatar can store, whatever its engine: what a session must not carry unless it uses it. */
const everyKey = (stt: Record<string, unknown>, tts: Record<string, unknown>) => ({
  restApiKey: KEYS.rest,
  jsonKey: KEYS.dialogflow,
  customData: {
    agent_pipeline_config: {
      llm: { base_url: 'https://api.openai.com/v1', api_key: KEYS.llm, model: 'gpt-4o-mini' },
      speech_to_speech: { url: 'wss://api.openai.com/v1/realtime', api_key: KEYS.realtime },
      third_party: { agent_id: 'agent_0123456789', api_key: KEYS.elevenlabs },
      stt: { provider: 3, languages: 'en-US', ...stt },
      tts: { provider: 1, region: 'eastus', voice_id: 'en-US-JennyNeural', ...tts },
    },
  },
});

/** Admits a session of this avatar (on the probe worker) and claims it over the socket: the raw answer. */
async function claim(nlpEngine: number, setupMode: number, config: Record<string, unknown>, opts: { textOnly?: boolean } = {}): Promise<string> {
  const [a] = await t.database.db
    .insert(avatars)
    .values({ userId: owner.id, name: 'Keys', nlpEngine, setupMode, config: { wakeUpMessage: 'Hi', idleTimeout: 300, dailyLimitPerSession: -1, dailyLimitPerIP: -1, dailyLimits: { Demo: -1 }, ...config } })
    .returning();
  const ip = `198.51.100.${nextIp++}`;
  const res = await t.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId: a!.id, textOnly: opts.textOnly === true }, headers: { 'x-forwarded-for': ip }, remoteAddress: ip });
  expect(res.statusCode, res.body).toBe(200);
  const answer = res.json() as TLiveStartAnswer;
  const answered = await worker.rpc('session.claim', { sessionId: answer.sessionId, jti: ticketClaims(answer.ticket!).jti });
  expect(answered?.ok, answered?.text).toBe(true);
  // What the worker decodes it with.
  expect(ZLiveSessionConfig.safeParse(answered!.result).success).toBe(true);
  return answered!.text;
}

const NEEDLES: Record<string, string> = { ...KEYS, dialogflow: 'dialogflow-key-0123456789', platform: PLATFORM_KEY };
/** The names of the keys found in a raw answer. */
const keysIn = (text: string) =>
  Object.entries(NEEDLES)
    .filter(([, v]) => text.includes(v))
    .map(([k]) => k);

describe('the session config carries only the keys the session uses', () => {
  it('an Echo avatar (Simple mode) gets no key at all', async () => {
    expect(keysIn(await claim(NlpEngine.EchoTest, SetupMode.Simple, everyKey({ api_key: KEYS.stt }, { api_key: KEYS.tts })))).toEqual([]);
  });

  it("a Simple-mode LLM avatar gets the operator's platform key for its brain, and none of its own", async () => {
    expect(keysIn(await claim(NlpEngine.LargeLanguageModel, SetupMode.Simple, everyKey({ api_key: KEYS.stt }, { api_key: KEYS.tts })))).toEqual(['platform']);
  });

  it("a Composite Echo avatar gets its own STT and TTS keys, no LLM key and not the operator's", async () => {
    const text = await claim(NlpEngine.EchoTest, SetupMode.Composite, everyKey({ api_key: KEYS.stt }, { provider: 0, api_key: KEYS.tts, secret_key: KEYS.pollySecret, region: 'us-east-1' }));
    expect(keysIn(text).sort()).toEqual(['pollySecret', 'stt', 'tts']);
  });

  it('a Composite LLM avatar: its LLM key, its STT key; an Azure voice gets no Polly secret; a Default voice no key', async () => {
    expect(keysIn(await claim(NlpEngine.LargeLanguageModel, SetupMode.Composite, everyKey({ api_key: KEYS.stt }, { api_key: KEYS.tts, secret_key: KEYS.pollySecret }))).sort()).toEqual(['llm', 'stt', 'tts']);
    expect(keysIn(await claim(NlpEngine.LargeLanguageModel, SetupMode.Composite, everyKey({ provider: 0, api_key: KEYS.stt }, { provider: 3, api_key: KEYS.tts }))).sort()).toEqual(['llm']);
  });

  it('a text-only session gets no speech key; a REST avatar only its REST key; a realtime avatar only its realtime key', async () => {
    expect(keysIn(await claim(NlpEngine.LargeLanguageModel, SetupMode.Composite, everyKey({ api_key: KEYS.stt }, { api_key: KEYS.tts }), { textOnly: true }))).toEqual(['llm']);
    expect(keysIn(await claim(NlpEngine.RestEndpoint, SetupMode.Simple, everyKey({ api_key: KEYS.stt }, { api_key: KEYS.tts })))).toEqual(['rest']);
    expect(keysIn(await claim(NlpEngine.TrulienceRealtime, SetupMode.SpeechToSpeech, everyKey({ api_key: KEYS.stt }, { api_key: KEYS.tts })))).toEqual(['realtime']);
  });

  it('the avatar\u2019s fillers (ADR 100) reach the worker only when turned on', async () => {
    const fillersOf = async (fillers: unknown) => {
      const raw = JSON.parse(await claim(NlpEngine.EchoTest, SetupMode.Simple, { customData: { agent_pipeline_config: { fillers } } })) as { avatar?: { fillers?: string[] }; result?: { avatar: { fillers?: string[] } } };
      return (raw.avatar ?? raw.result?.avatar)?.fillers;
    };
    expect(await fillersOf({ enabled: true, phrases: [' One moment. ', 'Let me see.'] })).toEqual(['One moment.', 'Let me see.']);
    expect(await fillersOf({ enabled: false, phrases: ['One moment.'] })).toEqual([]);
  });
});
