import { afterAll, describe, expect, it } from 'vitest';
import { readLiveSpeech, SetupMode, TtsProvider, TtsProviders } from '@persona/contract';
import { createGuardedFetch } from '@persona/net';
import { createOfflineVoice } from './offline-voice.js';
import { platformSpeechFromEnv } from '@persona/contract';
import type { GuardedFetch } from '../core/types.js';
import { AZURE_KEY, startFakeAzure } from '../test/fake-tts.js';
import { chooseTts, createTtsEngine, operatorTtsOf, type OperatorTts } from './tts-choice.js';

/** The stored agent_pipeline_config as the portal reads it for a session that runs the avatar's own voice. */
const stored = (input: { setupMode: number; pipeline: unknown }) => ({ setupMode: input.setupMode, tts: readLiveSpeech(input.pipeline, { keys: true }).tts });
const composite = (tts: Record<string, unknown>) => stored({ setupMode: SetupMode.Composite, pipeline: { tts } });
const operator: OperatorTts = { azure: { apiKey: 'op-azure', region: 'westeurope' }, polly: { accessKeyId: 'AKID', secretAccessKey: 'secret', region: 'us-east-1' } };

describe('which voice an avatar speaks with', () => {
  it('Simple mode and the Default provider with nothing configured on the server: the offline voice', () => {
    expect(chooseTts(stored({ setupMode: SetupMode.Simple, pipeline: {} }))).toMatchObject({ kind: 'offline', voice: 'slt', rate: 1 });
    expect(chooseTts(composite({ provider: TtsProvider.Default, default_tts: 'azure', voice_id: 'en-US-GuyNeural' }))).toMatchObject({ kind: 'offline', voice: 'rms' });
    expect(chooseTts(stored({ setupMode: SetupMode.Composite, pipeline: null }))).toMatchObject({ kind: 'offline' });
  });

  it('Simple mode and Default use the operator’s hosted voice named by default_tts when there is one', () => {
    expect(chooseTts(composite({ provider: 3, default_tts: 'azure', voice_id: 'en-GB-SoniaNeural', speed: 0.5 }), operator)).toEqual({ kind: 'azure', apiKey: 'op-azure', region: 'westeurope', voice: 'en-GB-SoniaNeural', speed: 0.5, operator: true });
    expect(chooseTts(stored({ setupMode: SetupMode.Simple, pipeline: { tts: { default_tts: 'polly', voice_id: 'Amy (neural)' } } }), operator)).toMatchObject({ kind: 'polly', voice: 'Amy (neural)', accessKeyId: 'AKID' });
    expect(chooseTts(stored({ setupMode: SetupMode.Simple, pipeline: {} }), { openai: { baseUrl: 'http://tts.internal/v1', apiKey: 'k' } })).toMatchObject({ kind: 'openai', operator: true });
    expect(chooseTts(stored({ setupMode: SetupMode.Simple, pipeline: { tts: { default_tts: 'offline', voice_id: 'awb' } } }), operator)).toMatchObject({ kind: 'offline', voice: 'awb' });
  });

  it("PLATFORM_TTS_*: the operator's provider, its default voice for avatars whose voice is not one of its own, its gateway", () => {
    const fromEnv = (env: Record<string, string>) => operatorTtsOf(platformSpeechFromEnv(env).tts);
    const azure = fromEnv({ PLATFORM_TTS_PROVIDER: 'azure', PLATFORM_TTS_API_KEY: 'op', PLATFORM_TTS_REGION: 'westeurope', PLATFORM_TTS_VOICE: 'en-GB-RyanNeural', PLATFORM_TTS_URL: 'http://10.1.2.3:8080' });
    expect(chooseTts(stored({ setupMode: SetupMode.Simple, pipeline: { tts: { default_tts: 'azure', voice_id: 'en-US-JennyNeural' } } }), azure)).toEqual({
      kind: 'azure',
      apiKey: 'op',
      region: 'westeurope',
      voice: 'en-US-JennyNeural',
      speed: undefined,
      baseUrl: 'http://10.1.2.3:8080',
      operator: true,
    });
    expect(chooseTts(stored({ setupMode: SetupMode.Simple, pipeline: { tts: { default_tts: 'polly', voice_id: 'Amy (neural)' } } }), azure)).toMatchObject({ kind: 'azure', voice: 'en-GB-RyanNeural' });
    expect(chooseTts(stored({ setupMode: SetupMode.Simple, pipeline: {} }), azure)).toMatchObject({ kind: 'azure', voice: 'en-GB-RyanNeural' });
    const polly = fromEnv({ PLATFORM_TTS_PROVIDER: 'polly', PLATFORM_TTS_API_KEY: 'AKID', PLATFORM_TTS_SECRET_KEY: 's', PLATFORM_TTS_REGION: 'eu-west-1' });
    expect(chooseTts(stored({ setupMode: SetupMode.Simple, pipeline: { tts: { voice_id: 'en-US-JennyNeural' } } }), polly)).toEqual({ kind: 'polly', accessKeyId: 'AKID', secretAccessKey: 's', region: 'eu-west-1', voice: 'Joanna (neural)', speed: undefined, operator: true });
    const openai = fromEnv({ PLATFORM_TTS_PROVIDER: 'openai', PLATFORM_TTS_URL: 'http://tts.internal/v1', PLATFORM_TTS_VOICE: 'coral', PLATFORM_TTS_MODEL: 'kokoro' });
    expect(chooseTts(stored({ setupMode: SetupMode.Simple, pipeline: {} }), openai)).toMatchObject({ kind: 'openai', baseUrl: 'http://tts.internal/v1', voice: 'coral', model: 'kokoro', operator: true });
    // The avatar's own Azure keys never go to the operator's gateway.
    expect(chooseTts(composite({ provider: TtsProvider.Azure, api_key: 'mine', region: 'eastus', voice_id: 'en-US-AriaNeural' }), azure)).toEqual({ kind: 'azure', apiKey: 'mine', region: 'eastus', voice: 'en-US-AriaNeural', speed: undefined });
  });

  it('the avatar’s own providers with their keys, voice, model, region, speed and language', () => {
    expect(chooseTts(composite({ provider: 0, api_key: 'AK', secret_key: 'SK', region: 'eu-west-1', voice_id: 'Joanna', model: 'neural', speed: '0.2' }))).toEqual({
      kind: 'polly',
      accessKeyId: 'AK',
      secretAccessKey: 'SK',
      region: 'eu-west-1',
      voice: 'Joanna',
      engine: 'neural',
      speed: 0.2,
    });
    expect(chooseTts(composite({ provider: 1, api_key: 'k', region: 'eastus', voice_id: 'en-US-AriaNeural' }))).toMatchObject({ kind: 'azure', region: 'eastus', voice: 'en-US-AriaNeural' });
    expect(chooseTts(composite({ provider: 2, api_key: 'xi', voice_id: 'v1', model: 'eleven_flash_v2_5' }))).toMatchObject({ kind: 'elevenlabs', voiceId: 'v1', model: 'eleven_flash_v2_5' });
    expect(chooseTts(composite({ provider: '5', api_key: 'c', voice_id: 'cv' }))).toMatchObject({ kind: 'cartesia', voiceId: 'cv' });
    expect(chooseTts(composite({ provider: 6, api_key: 'n', lang_code: 'de', speed: 1.2 }))).toMatchObject({ kind: 'neuphonic', langCode: 'de', speed: 1.2 });
    expect(chooseTts(composite({ provider: 'openai', base_url: 'https://api.openai.com/v1', api_key: 'sk', voice_id: 'coral' }))).toMatchObject({ kind: 'openai', voice: 'coral', operator: false });
  });

  it('a provider without its keys falls back to the offline voice and says why', () => {
    const c = chooseTts(composite({ provider: TtsProvider.Polly, api_key: 'AK', voice_id: 'Matthew (neural)' }));
    expect(c).toMatchObject({ kind: 'offline', voice: 'rms' });
    expect((c as { reason: string }).reason).toContain('Polly keys');
    expect(chooseTts(composite({ provider: 42 }))).toMatchObject({ kind: 'offline' });
  });

  it('no voice: provider None, Speech to Speech and third-party modes', () => {
    expect(chooseTts(composite({ provider: TtsProvider.None }))).toMatchObject({ kind: 'none' });
    expect(chooseTts(stored({ setupMode: SetupMode.SpeechToSpeech, pipeline: { tts: { provider: 2, api_key: 'x', voice_id: 'v' } } }))).toMatchObject({ kind: 'none' });
    expect(chooseTts(stored({ setupMode: SetupMode.None, pipeline: {} }))).toMatchObject({ kind: 'none' });
  });
});

describe('engines for the choices', () => {
  const offline = createOfflineVoice({ threads: 1 });
  const fetch = createGuardedFetch({ allowPrivate: false });
  afterAll(async () => {
    fetch.close();
    await offline.close();
  });

  it("the operator's Azure speaks through its gateway with the operator's fetch (which may reach a private address)", async () => {
    const fake = await startFakeAzure();
    try {
      const op = operatorTtsOf(platformSpeechFromEnv({ PLATFORM_TTS_PROVIDER: 'azure', PLATFORM_TTS_API_KEY: AZURE_KEY, PLATFORM_TTS_REGION: 'westeurope', PLATFORM_TTS_URL: fake.origin }).tts);
      const used: string[] = [];
      const operatorFetch = createGuardedFetch({ allowPrivate: true });
      const spy: GuardedFetch = (url, init) => {
        used.push(String(url));
        return operatorFetch(url, init);
      };
      const engine = createTtsEngine(chooseTts(stored({ setupMode: SetupMode.Simple, pipeline: {} }), op), { fetch, operatorFetch: spy, offline })!;
      let samples = 0;
      for await (const chunk of engine.synthesize('Hello there.', { signal: new AbortController().signal })) samples += chunk.pcm.length;
      operatorFetch.close();
      expect(engine.provider).toBe('azure');
      expect(samples).toBeGreaterThan(1000);
      expect(used).toEqual([`${fake.origin}/cognitiveservices/v1`]);
      expect(fake.requests[0]!.body).toContain('<voice name="en-US-JennyNeural">');
    } finally {
      await fake.close();
    }
  });

  it('each choice gives its engine (and its sample rate) or none', () => {
    const deps = { fetch, offline };
    expect(createTtsEngine({ kind: 'none', reason: '' }, deps)).toBeNull();
    expect(createTtsEngine(chooseTts(stored({ setupMode: SetupMode.Simple, pipeline: {} })), deps)).toMatchObject({ provider: 'offline', sampleRate: 16000 });
    expect(createTtsEngine(chooseTts(composite({ provider: 0, api_key: 'a', secret_key: 'b' })), deps)).toMatchObject({ provider: 'polly', sampleRate: 16000, marks: 'visemes' });
    expect(createTtsEngine(chooseTts(composite({ provider: 1, api_key: 'a', region: 'eastus' })), deps)).toMatchObject({ provider: 'azure', sampleRate: 24000, marks: 'none' });
    expect(createTtsEngine(chooseTts(composite({ provider: 2, api_key: 'a', voice_id: 'v' })), { ...deps, sampleRate: 16000 })).toMatchObject({ provider: 'elevenlabs', sampleRate: 16000 });
    expect(createTtsEngine(chooseTts(composite({ provider: 5, api_key: 'a', voice_id: 'v' })), deps)).toMatchObject({ provider: 'cartesia', marks: 'visemes' });
    expect(createTtsEngine(chooseTts(composite({ provider: 6, api_key: 'a' })), deps)).toMatchObject({ provider: 'neuphonic', sampleRate: 22050 });
    expect(createTtsEngine(chooseTts(composite({ provider: 'openai', base_url: 'https://x/v1' })), deps)).toMatchObject({ provider: 'openai-compatible', sampleRate: 24000 });
  });

  it("each own provider's engine is its row's: the same id, and visemes from the provider's marks exactly where the row says so", () => {
    const deps = { fetch, offline };
    for (const row of TtsProviders) {
      if (row.role !== 'own') continue;
      const engine = createTtsEngine(chooseTts(composite({ provider: row.number, api_key: 'a', secret_key: 'b', region: 'eastus', voice_id: 'v' })), deps)!;
      expect(engine.provider).toBe(row.id);
      expect(engine.marks).toBe(row.capabilities.visemes === 'provider' ? 'visemes' : 'none');
    }
  });
});
