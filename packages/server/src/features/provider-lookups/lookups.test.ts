import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { LlmBaseUrls, ProviderLookupMessages as M } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createSignedInUser, validAvatar } from '../../test/factories.js';
import {
  AZURE_KEY,
  CARTESIA_KEY,
  DEEPGRAM_KEY,
  ELEVENLABS_AGENTS,
  ELEVENLABS_KEY,
  GEMINI_KEY,
  NEUPHONIC_KEY,
  OPENAI_KEY,
  POLLY_KEY,
  startFakeOpenAi,
  startFakeProviders,
} from '../../test/fake-providers.js';

const OPENAI_URL = LlmBaseUrls.find((b) => b.provider === 'openai')!.url;
const GROQ_URL = LlmBaseUrls.find((b) => b.provider === 'groq')!.url;
const GEMINI_URL = LlmBaseUrls.find((b) => b.provider === 'gemini')!.url;
/**
 * The look-ups' bound of the app the tests use: patient, far above any pause of a loaded machine
 * (at 500 ms, Polly's two pages of voices timed out under load: issue 26, item 16).
 */
const PATIENT_MS = 20_000;
/** The bound of a second instance (same database) whose fakes never answer: the timeout cases. */
const TIMEOUT_MS = 500;

let fakes: Awaited<ReturnType<typeof startFakeProviders>>;
let t: TestContext;
let impatient: TestContext;
type User = Awaited<ReturnType<typeof createSignedInUser>>;
let user: User;
let other: User;

beforeAll(async () => {
  fakes = await startFakeProviders();
  t = await createTestApp({ ...fakes.env, PROVIDER_LOOKUP_TIMEOUT_MS: String(PATIENT_MS) });
  impatient = await createTestApp({ ...fakes.env, PROVIDER_LOOKUP_TIMEOUT_MS: String(TIMEOUT_MS) }, { database: t.database });
  user = await createSignedInUser(t.app, t.database, { subscriptionType: 4 });
  other = await createSignedInUser(t.app, t.database, { subscriptionType: 4 });
});
afterAll(async () => {
  await impatient.close();
  await t.close();
  await fakes.close();
});
beforeEach(() => fakes.reset());

const call = (path: string, payload: Record<string, unknown>, who: User = user) => t.app.inject({ method: 'POST', url: `/api/lookups/${path}`, headers: who.headers, payload });
/** The same call on the instance with the short bound (its provider set to hang). */
const callImpatient = (path: string, payload: Record<string, unknown>, who: User = user) => impatient.app.inject({ method: 'POST', url: `/api/lookups/${path}`, headers: who.headers, payload });

/** Saves an avatar through the API with this pipeline (keys sealed as the creator stores them). */
async function avatarWith(pipeline: Record<string, unknown>, who: User = user): Promise<{ id: number; pipeline: Record<string, Record<string, unknown>> }> {
  const res = await t.app.inject({ method: 'POST', url: '/api/add_avatar', headers: who.headers, payload: validAvatar({ customData: { agent_pipeline_config: pipeline } }) });
  expect(res.statusCode, res.body).toBe(200);
  const agent = res.json().agent;
  return { id: agent.id, pipeline: agent.customData.agent_pipeline_config };
}

function expectFailure(res: Awaited<ReturnType<typeof call>>, message: string, reason: string) {
  expect(res.statusCode, res.body).toBe(400);
  expect(res.json()).toMatchObject({ status: 'FAIL', errors: [message], reason });
}

describe('LLM models of a base URL', () => {
  it('lists the OpenAI models with the bearer key, at the configured host', async () => {
    const res = await call('llm_models', { url: OPENAI_URL, llmAPIKey: OPENAI_KEY });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ status: 'OK', models: ['gpt-4o-mini', 'gpt-4o', 'o3-mini'] });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(fakes.openai.requests).toHaveLength(1);
    expect(fakes.openai.requests[0]).toMatchObject({ method: 'GET', path: '/v1/models' });
    expect(fakes.openai.requests[0]!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
  });

  it('reaches Groq at its own host', async () => {
    const res = await call('llm_models', { url: `${GROQ_URL}/`, llmAPIKey: OPENAI_KEY });
    expect(res.statusCode, res.body).toBe(200);
    expect(fakes.groq.requests).toHaveLength(1);
    expect(fakes.openai.requests).toHaveLength(0);
  });

  it('lists Gemini models by models?key=, every page, only those that generate content', async () => {
    const res = await call('llm_models', { url: GEMINI_URL, llmAPIKey: GEMINI_KEY });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().models).toEqual(['gemini-2.0-flash', 'gemini-2.5-pro']);
    expect(fakes.gemini.requests.map((r) => [r.path, r.query.get('key'), r.query.get('pageToken')])).toEqual([
      ['/v1beta/models', GEMINI_KEY, null],
      ['/v1beta/models', GEMINI_KEY, 'page-2'],
    ]);
  });

  it('answers the spec text for a wrong key, a missing key and a Gemini key refused', async () => {
    expectFailure(await call('llm_models', { url: OPENAI_URL, llmAPIKey: 'sk-wrong-key-000000000' }), M.invalidUrlOrKey, 'unauthorized');
    expectFailure(await call('llm_models', { url: OPENAI_URL, llmAPIKey: '' }), M.invalidUrlOrKey, 'missing-key');
    expectFailure(await call('llm_models', { url: GEMINI_URL, llmAPIKey: 'AIza-wrong' }), M.invalidUrlOrKey, 'provider-refused');
    expectFailure(await call('llm_models', { url: 'not a url', llmAPIKey: OPENAI_KEY }), M.invalidUrlOrKey, 'invalid-url');
    expectFailure(await call('llm_models', { url: 'ftp://example.com/v1', llmAPIKey: OPENAI_KEY }), M.invalidUrlOrKey, 'invalid-url');
  });

  it('refuses a custom base URL at a private address (nothing is sent)', async () => {
    expectFailure(await call('llm_models', { url: `${fakes.openai.origin}/v1`, llmAPIKey: OPENAI_KEY }), M.invalidUrlOrKey, 'blocked');
    expectFailure(await call('llm_models', { url: 'http://[::ffff:127.0.0.1]:9/v1', llmAPIKey: OPENAI_KEY }), M.invalidUrlOrKey, 'blocked');
    expectFailure(await call('llm_models', { url: 'http://169.254.169.254/latest', llmAPIKey: OPENAI_KEY }), M.invalidUrlOrKey, 'blocked');
    // A name that resolves to a private address: checked where the connection resolves it.
    expectFailure(await call('llm_models', { url: `${fakes.openai.origin.replace('127.0.0.1', 'localhost')}/v1`, llmAPIKey: OPENAI_KEY }), M.invalidUrlOrKey, 'blocked');
    expect(fakes.openai.requests).toHaveLength(0);
  });

  it('gives up on a slow answer (timeout) and on an oversize answer', async () => {
    fakes.openai.knobs.hang = true;
    const started = Date.now();
    expectFailure(await callImpatient('llm_models', { url: OPENAI_URL, llmAPIKey: OPENAI_KEY }), M.invalidUrlOrKey, 'timeout');
    // It waited its bound and gave up: a timer never fires early, and however late a loaded
    // machine runs it, it is far from never (the fake would hold the request until the test ends).
    expect(Date.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(Date.now() - started).toBeLessThan(PATIENT_MS / 2);
    fakes.openai.knobs = { oversizeBytes: 5 * 1024 * 1024 };
    expectFailure(await call('llm_models', { url: OPENAI_URL, llmAPIKey: OPENAI_KEY }), M.invalidUrlOrKey, 'too-large');
  });

  it('does not follow a redirect (the key would go with it)', async () => {
    fakes.openai.knobs.redirectTo = `${fakes.groq.origin}/v1/models`;
    expectFailure(await call('llm_models', { url: OPENAI_URL, llmAPIKey: OPENAI_KEY }), M.invalidUrlOrKey, 'redirect');
    expect(fakes.groq.requests).toHaveLength(0);
  });

  it('uses the stored key for the masked value, for the stored base URL only, and never returns it', async () => {
    const avatar = await avatarWith({ llm: { provider: 'openai', base_url: OPENAI_URL, api_key: OPENAI_KEY, model: 'gpt-4o' } });
    const masked = avatar.pipeline.llm!.api_key as string;
    expect(masked).toMatch(/^••••/);
    const res = await call('llm_models', { avatarId: avatar.id, url: OPENAI_URL, llmAPIKey: masked });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).not.toContain(OPENAI_KEY);
    expect(fakes.openai.requests[0]!.headers.authorization).toBe(`Bearer ${OPENAI_KEY}`);
    // The mask with another base URL: the stored key is not sent there.
    expectFailure(await call('llm_models', { avatarId: avatar.id, url: GROQ_URL, llmAPIKey: masked }), M.invalidUrlOrKey, 'stored-key-elsewhere');
    expect(fakes.groq.requests).toHaveLength(0);
    // The mask without an avatar, or another account's avatar.
    expectFailure(await call('llm_models', { url: OPENAI_URL, llmAPIKey: masked }), M.invalidUrlOrKey, 'missing-key');
    const theirs = await call('llm_models', { avatarId: avatar.id, url: OPENAI_URL, llmAPIKey: masked }, other);
    expect(theirs.statusCode).toBe(404);
    expect(theirs.body).not.toContain(OPENAI_KEY);
    expect(fakes.openai.requests).toHaveLength(1);
  });
});

describe('OpenAI assistants', () => {
  it('lists them (Assistants v2 header, order=desc, limit=100)', async () => {
    const res = await call('llm_assistants', { url: OPENAI_URL, llmAPIKey: OPENAI_KEY });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().assistants).toEqual([
      { id: 'asst_abc123', name: 'Front desk' },
      { id: 'asst_def456', name: 'asst_def456' },
    ]);
    expect(fakes.openai.requests[0]!.headers['openai-beta']).toBe('assistants=v2');
  });

  it('answers the spec text for a wrong key', async () => {
    expectFailure(await call('llm_assistants', { url: OPENAI_URL, llmAPIKey: 'sk-wrong-000000000000' }), M.assistantsFailed, 'unauthorized');
    expectFailure(await call('llm_assistants', { url: GEMINI_URL, llmAPIKey: GEMINI_KEY }), M.assistantsFailed, 'unsupported');
  });
});

describe('a server whose OpenAI host has no Assistants API, allowing private URLs (ALLOW_PRIVATE_URLS)', () => {
  const goneOpts: { assistantsGone?: 404 | 410 } = { assistantsGone: 404 };
  let gone: Awaited<ReturnType<typeof startFakeOpenAi>>;
  let ctx: TestContext;
  let u: User;
  beforeAll(async () => {
    gone = await startFakeOpenAi(goneOpts);
    ctx = await createTestApp({ ALLOW_PRIVATE_URLS: 'true', PROVIDER_OPENAI_URL: `${gone.origin}/v1` });
    u = await createSignedInUser(ctx.app, ctx.database);
  });
  afterAll(async () => {
    await ctx.close();
    await gone.close();
  });
  const post = (path: string, payload: Record<string, unknown>) => ctx.app.inject({ method: 'POST', url: `/api/lookups/${path}`, headers: u.headers, payload });

  it('says so when the base URL no longer offers the Assistants API (404/410)', async () => {
    for (const status of [404, 410] as const) {
      goneOpts.assistantsGone = status;
      expectFailure(await post('llm_assistants', { llmAPIKey: OPENAI_KEY }), M.assistantsGone, 'assistants-gone');
    }
  });

  it('reaches a typed base URL at a private address through the guarded fetch', async () => {
    const res = await post('llm_models', { url: `${fakes.openai.origin}/v1/`, llmAPIKey: OPENAI_KEY });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().models).toContain('gpt-4o');
    const assistants = await post('llm_assistants', { url: `${fakes.openai.origin}/v1`, llmAPIKey: OPENAI_KEY });
    expect(assistants.json().assistants).toHaveLength(2);
  });
});

describe('TTS voices', () => {
  it('Polly: DescribeVoices signed with SigV4, every page, standard and neural variants', async () => {
    const res = await call('tts_voices', { ttsProvider: 0, pollyAccessKey: POLLY_KEY.accessKeyId, pollySecretKey: POLLY_KEY.secretAccessKey, ttsRegion: 'eu-west-1' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().ttsProvider).toBe(0);
    expect(res.json().ttsVoices.map((v: { id: string }) => v.id)).toEqual(['Joanna (standard)', 'Joanna (neural)', 'Matthew (standard)', 'Matthew (neural)', 'Vicki (neural)']);
    expect(fakes.polly.regions).toEqual(['eu-west-1', 'eu-west-1']);
  });

  it('Polly: wrong keys and a bad region give the spec text', async () => {
    expectFailure(await call('tts_voices', { ttsProvider: 0, pollyAccessKey: 'AKIDWRONG', pollySecretKey: 'nope', ttsRegion: 'us-east-1' }), M.voicesFailed, 'unauthorized');
    expectFailure(await call('tts_voices', { ttsProvider: 0, pollyAccessKey: POLLY_KEY.accessKeyId, pollySecretKey: 'wrong-secret', ttsRegion: 'us-east-1' }), M.voicesFailed, 'unauthorized');
    expectFailure(await call('tts_voices', { ttsProvider: 0, pollyAccessKey: POLLY_KEY.accessKeyId, pollySecretKey: POLLY_KEY.secretAccessKey, ttsRegion: 'evil.example.com/' }), M.voicesFailed, 'invalid-region');
  });

  it('Azure: the voices list of the region, with the subscription key', async () => {
    const res = await call('tts_voices', { ttsProvider: 1, azureSubscriptionKey: AZURE_KEY, ttsRegion: 'westeurope' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().ttsVoices).toEqual([
      { id: 'en-US-JennyNeural', name: 'Jenny (English (United States))', language: 'en-US', gender: 'Female' },
      { id: 'de-DE-ConradNeural', name: 'Conrad (German (Germany))', language: 'de-DE', gender: 'Male' },
    ]);
    expect(fakes.azure.regions).toEqual(['westeurope']);
    expectFailure(await call('tts_voices', { ttsProvider: 1, azureSubscriptionKey: 'wrong', ttsRegion: 'westeurope' }), M.voicesFailed, 'unauthorized');
    expectFailure(await call('tts_voices', { ttsProvider: 1, azureSubscriptionKey: AZURE_KEY, ttsRegion: 'west-europe.evil' }), M.voicesFailed, 'invalid-region');
  });

  it('ElevenLabs: GET /v1/voices with xi-api-key', async () => {
    const res = await call('tts_voices', { ttsProvider: 2, elevenLabsAPIKey: ELEVENLABS_KEY });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().ttsVoices[0]).toEqual({ id: '21m00Tcm4TlvDq8ikWAM', name: 'Rachel', language: 'american', gender: 'female' });
    expect(fakes.elevenlabs.requests[0]!.headers['xi-api-key']).toBe(ELEVENLABS_KEY);
    expectFailure(await call('tts_voices', { ttsProvider: 2, elevenLabsAPIKey: 'sk_wrong' }), M.voicesFailed, 'unauthorized');
    expectFailure(await call('tts_voices', { ttsProvider: 2 }), M.voicesFailed, 'missing-key');
  });

  it('Cartesia: X-API-Key and Cartesia-Version, pages followed', async () => {
    const res = await call('tts_voices', { ttsProvider: 5, cartesiaAPIKey: CARTESIA_KEY });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().ttsVoices.map((v: { name: string }) => v.name)).toEqual(['Barbershop Man', 'Sarah', 'Lena']);
    expect(fakes.cartesia.requests).toHaveLength(2);
    expect(fakes.cartesia.requests[0]!.headers['cartesia-version']).toBeTruthy();
    expectFailure(await call('tts_voices', { ttsProvider: 5, cartesiaAPIKey: 'wrong' }), M.voicesFailed, 'unauthorized');
  });

  it('Neuphonic: GET /voices only for keys longer than 8 characters, filtered by language', async () => {
    const res = await call('tts_voices', { ttsProvider: 6, neuphonicAPIKey: NEUPHONIC_KEY, lang_code: 'es' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().ttsVoices).toEqual([{ id: 'f8698a9e-947a-43cd-a897-57edd4070a78', name: 'Miguel', language: 'es' }]);
    expectFailure(await call('tts_voices', { ttsProvider: 6, neuphonicAPIKey: '12345678' }), M.voicesFailed, 'missing-key');
    expect(fakes.neuphonic.requests).toHaveLength(1);
    expectFailure(await call('tts_voices', { ttsProvider: 6, neuphonicAPIKey: 'wrong-key-123456' }), M.voicesFailed, 'unauthorized');
  });

  it('Default lists the hosted voices and the offline voices every worker has; None lists none', async () => {
    const res = await call('tts_voices', { ttsProvider: 3, default_tts: 'polly' });
    expect(res.statusCode, res.body).toBe(200);
    const voices = res.json().ttsVoices as { id: string; offline?: boolean }[];
    expect(voices.some((v) => v.id === 'Joanna (neural)')).toBe(true);
    expect(voices.filter((v) => v.offline).map((v) => v.id)).toEqual(expect.arrayContaining(['slt', 'rms']));
    const none = await call('tts_voices', { ttsProvider: 4 });
    expect(none.json()).toEqual({ status: 'OK', ttsProvider: 4, ttsVoices: [] });
  });

  it('slow and oversize voice lists fail with the spec text', async () => {
    fakes.elevenlabs.knobs.hang = true;
    expectFailure(await callImpatient('tts_voices', { ttsProvider: 2, elevenLabsAPIKey: ELEVENLABS_KEY }), M.voicesFailed, 'timeout');
    fakes.elevenlabs.knobs = { oversizeBytes: 5 * 1024 * 1024 };
    expectFailure(await call('tts_voices', { ttsProvider: 2, elevenLabsAPIKey: ELEVENLABS_KEY }), M.voicesFailed, 'too-large');
    fakes.polly.knobs.hang = true;
    expectFailure(await callImpatient('tts_voices', { ttsProvider: 0, pollyAccessKey: POLLY_KEY.accessKeyId, pollySecretKey: POLLY_KEY.secretAccessKey, ttsRegion: 'us-east-1' }), M.voicesFailed, 'timeout');
  });

  it('masked keys use the stored ones of the same provider only', async () => {
    const avatar = await avatarWith({ tts: { provider: 0, api_key: POLLY_KEY.accessKeyId, secret_key: POLLY_KEY.secretAccessKey, region: 'us-east-1', voice_id: 'Joanna (neural)' } });
    const tts = avatar.pipeline.tts!;
    const res = await call('tts_voices', { avatarId: avatar.id, ttsProvider: 0, pollyAccessKey: tts.api_key, pollySecretKey: tts.secret_key, ttsRegion: 'us-east-1' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.body).not.toContain(POLLY_KEY.secretAccessKey);
    // The Polly key is not sent to ElevenLabs because the form says ElevenLabs with the mask.
    expectFailure(await call('tts_voices', { avatarId: avatar.id, ttsProvider: 2, elevenLabsAPIKey: tts.api_key }), M.voicesFailed, 'stored-key-elsewhere');
    expect(fakes.elevenlabs.requests).toHaveLength(0);
    expect((await call('tts_voices', { avatarId: avatar.id, ttsProvider: 0, pollyAccessKey: tts.api_key, pollySecretKey: tts.secret_key, ttsRegion: 'us-east-1' }, other)).statusCode).toBe(404);
  });
});

describe('STT languages and Deepgram models', () => {
  it('Google: the published table with models and locations (no key, no call)', async () => {
    const res = await call('stt_languages', { sttProvider: 'google' });
    expect(res.statusCode, res.body).toBe(200);
    const en = res.json().languages.find((l: { code: string }) => l.code === 'en-US');
    expect(en).toMatchObject({ name: 'English (United States)', models: expect.arrayContaining(['long', 'chirp_2']), locations: expect.arrayContaining(['global', 'us-central1']) });
  });

  it('Azure: the locales of the key and region, named', async () => {
    const res = await call('stt_languages', { sttProvider: 'azure', sttAPIKey: AZURE_KEY, sttRegion: 'eastus' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().languages).toContainEqual({ code: 'de-DE', name: 'German (Germany)' });
    expect(fakes.azure.requests[0]!.path).toBe('/eastus/speechtotext/v3.2/transcriptions/locales');
    expectFailure(await call('stt_languages', { sttProvider: 'azure', sttAPIKey: 'wrong', sttRegion: 'eastus' }), M.invalidSttKey, 'unauthorized');
    expectFailure(await call('stt_languages', { sttProvider: 'azure', sttAPIKey: AZURE_KEY }), M.invalidSttKey, 'invalid-region');
  });

  it('Deepgram: stt models with Token auth, one per canonical name, languages merged', async () => {
    const res = await call('deepgram_models', { sttAPIKey: DEEPGRAM_KEY });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().models).toEqual([
      { name: 'nova-3', canonical_name: 'nova-3-general', languages: ['en', 'en-US', 'es', 'multi'] },
      { name: 'nova-2', canonical_name: 'nova-2-phonecall', languages: ['en'] },
    ]);
    expect(fakes.deepgram.requests[0]!.headers.authorization).toBe(`Token ${DEEPGRAM_KEY}`);
    expectFailure(await call('deepgram_models', { sttAPIKey: 'wrong' }), M.invalidSttKey, 'unauthorized');
    fakes.deepgram.knobs.hang = true;
    expectFailure(await callImpatient('deepgram_models', { sttAPIKey: DEEPGRAM_KEY }), M.invalidSttKey, 'timeout');
  });

  it('the stored Deepgram key stands for the mask', async () => {
    const avatar = await avatarWith({ stt: { provider: 3, api_key: DEEPGRAM_KEY, languages: 'multi' } });
    const res = await call('deepgram_models', { avatarId: avatar.id, sttAPIKey: avatar.pipeline.stt!.api_key });
    expect(res.statusCode, res.body).toBe(200);
    expectFailure(await call('stt_languages', { avatarId: avatar.id, sttProvider: 'azure', sttAPIKey: avatar.pipeline.stt!.api_key, sttRegion: 'eastus' }), M.invalidSttKey, 'stored-key-elsewhere');
  });
});

describe('ElevenLabs Conversational AI agent check', () => {
  const check = (payload: Record<string, unknown>, who: User = user) => call('elevenlabs_agent', payload, who);

  it('public: the token comes without a key', async () => {
    const res = await check({ agent_id: ELEVENLABS_AGENTS.public, api_key: ELEVENLABS_KEY });
    expect(res.json()).toEqual({ status: 'OK', state: 'public' });
    expect(fakes.elevenlabs.requests).toHaveLength(1);
    expect(fakes.elevenlabs.requests[0]).toMatchObject({ path: '/v1/convai/conversation/token' });
    expect(fakes.elevenlabs.requests[0]!.headers['xi-api-key']).toBeUndefined();
    expect(res.body).not.toContain('eyJfake');
  });

  it('private: only with the key (WebSocket asks for a signed URL)', async () => {
    const res = await check({ agent_id: ELEVENLABS_AGENTS.private, api_key: ELEVENLABS_KEY, connection_type: 'websocket' });
    expect(res.json()).toEqual({ status: 'OK', state: 'private' });
    expect(fakes.elevenlabs.requests.map((r) => [r.path, r.headers['xi-api-key']])).toEqual([
      ['/v1/convai/conversation/get-signed-url', undefined],
      ['/v1/convai/conversation/get-signed-url', ELEVENLABS_KEY],
    ]);
    expect(res.body).not.toContain('signature');
  });

  it('invalid_api_key: no key or a short one asks for it; a wrong one is refused', async () => {
    expect((await check({ agent_id: ELEVENLABS_AGENTS.private })).json()).toEqual({ status: 'OK', state: 'invalid_api_key', message: M.agentKeyRequired });
    expect((await check({ agent_id: ELEVENLABS_AGENTS.private, api_key: 'short' })).json()).toEqual({ status: 'OK', state: 'invalid_api_key', message: M.agentKeyRequired });
    expect((await check({ agent_id: ELEVENLABS_AGENTS.private, api_key: 'sk_wrong_but_long_enough_000' })).json()).toEqual({ status: 'OK', state: 'invalid_api_key', message: M.agentKeyInvalid });
  });

  it('invalid_agent_id: 404, the provider’s own error text, and an unexpected failure', async () => {
    expect((await check({ agent_id: 'agent_unknown_00000001' })).json()).toEqual({ status: 'OK', state: 'invalid_agent_id', message: M.agentNotFound });
    expect((await check({ agent_id: ELEVENLABS_AGENTS.disabled })).json()).toEqual({ status: 'OK', state: 'invalid_agent_id', message: 'This agent has been disabled.' });
    fakes.elevenlabs.knobs.hang = true;
    expect((await callImpatient('elevenlabs_agent', { agent_id: ELEVENLABS_AGENTS.public })).json()).toEqual({ status: 'OK', state: 'invalid_agent_id', message: M.agentCheckFailed });
  });

  it('refuses agent ids that are too short or not ids', async () => {
    for (const agent_id of ['agent_short', 'agent_000000000/../../v1/voices', 'a'.repeat(101)]) {
      const res = await check({ agent_id });
      expect(res.statusCode).toBe(400);
    }
    expect(fakes.elevenlabs.requests).toHaveLength(0);
  });

  it('the stored key stands for the mask; another account’s avatar is a 404', async () => {
    const avatar = await avatarWith({ third_party: { agent_id: ELEVENLABS_AGENTS.private, api_key: ELEVENLABS_KEY, connection_type: 'webrtc' } });
    const masked = avatar.pipeline.third_party!.api_key;
    expect((await check({ avatarId: avatar.id, agent_id: ELEVENLABS_AGENTS.private, api_key: masked })).json()).toEqual({ status: 'OK', state: 'private' });
    expect(fakes.elevenlabs.requests.at(-1)!.headers['xi-api-key']).toBe(ELEVENLABS_KEY);
    expect((await check({ avatarId: avatar.id, agent_id: ELEVENLABS_AGENTS.private, api_key: masked }, other)).statusCode).toBe(404);
  });
});

describe('who may call, and how often', () => {
  it('needs a signed-in user', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/api/lookups/stt_languages', payload: { sttProvider: 'google' } });
    expect(res.statusCode).toBe(401);
  });

  it('limits each user per look-up and minute (others unaffected)', async () => {
    const u = await createSignedInUser(t.app, t.database);
    const statuses: number[] = [];
    for (let k = 0; k < 61; k++) {
      const res = await t.app.inject({ method: 'POST', url: '/api/lookups/stt_languages', headers: u.headers, payload: { sttProvider: 'google' }, remoteAddress: `10.0.${k >> 8}.${k & 255}` });
      statuses.push(res.statusCode);
    }
    expect(statuses.slice(0, 60).every((s) => s === 200)).toBe(true);
    expect(statuses[60]).toBe(429);
    expect((await call('stt_languages', { sttProvider: 'google' })).statusCode).toBe(200);
  });

  it('bounds its inputs', async () => {
    expect((await call('llm_models', { url: `https://example.com/${'a'.repeat(3000)}`, llmAPIKey: 'k' })).statusCode).toBe(400);
    expect((await call('tts_voices', { ttsProvider: 2, elevenLabsAPIKey: 'k'.repeat(1001) })).statusCode).toBe(400);
    expect((await call('tts_voices', { ttsProvider: 9 })).statusCode).toBe(400);
    expect((await call('stt_languages', { sttProvider: 'deepgram' })).statusCode).toBe(400);
    expect((await call('llm_models', { url: OPENAI_URL, llmAPIKey: 'sk\u0000x' })).statusCode).toBe(400);
  });
});
