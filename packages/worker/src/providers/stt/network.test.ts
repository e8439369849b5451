import { describe, expect, it } from 'vitest';
import { platformSpeechFromEnv, readLiveSpeech, SetupMode } from '@persona/contract';
import type { GuardedFetch } from '../../core/types.js';
import { DEEPGRAM_KEY } from '../../test/fake-stt.js';
import { startFakeDeepgram } from '../../test/fake-stt-ws.js';
import { until } from '../../test/until.js';
import { chooseNetworkStt, createNetworkSttEngine, operatorSttOf, sttSettingsOf, type NetworkSttChoice } from './network.js';

/** The stored agent_pipeline_config as the portal reads it for a session that runs the avatar's own STT. */
const stored = (input: { setupMode: number; pipeline: unknown }) => ({ setupMode: input.setupMode, stt: readLiveSpeech(input.pipeline, { keys: true }).stt });
const composite = (stt: Record<string, unknown>) => stored({ setupMode: SetupMode.Composite, pipeline: { stt } });
const fetch = async () => new Response('{}');

describe('network STT registry (from the stored agent_pipeline_config.stt)', () => {
  it('reads languages (first is main), context phrases (one per line), the model and an endpointing hint', () => {
    expect(sttSettingsOf(stored({ setupMode: SetupMode.Composite, pipeline: { stt: { languages: 'fr-FR, en-US,bad lang,de-DE', context_phrases: 'Nova\n\n Persona Studio \r\nacme', model: 'nova-2-general', endpointing: '300' } } }).stt)).toEqual({
      languages: ['fr-FR', 'en-US', 'de-DE'],
      phrases: ['Nova', 'Persona Studio', 'acme'],
      model: 'nova-2-general',
      endpointingMs: 300,
    });
    expect(sttSettingsOf(stored({ setupMode: SetupMode.Composite, pipeline: {} }).stt)).toEqual({ languages: ['en-US'] });
  });

  it("picks the avatar's own provider by number or name, with its key", () => {
    expect(chooseNetworkStt(composite({ provider: 3, api_key: 'dg', languages: 'multi' }))).toMatchObject({ choice: { kind: 'deepgram', apiKey: 'dg', operator: false }, settings: { languages: ['multi'] } });
    expect(chooseNetworkStt(composite({ provider: '2', api_key: 'az', region: 'westeurope' })).choice).toEqual({ kind: 'azure', apiKey: 'az', region: 'westeurope', operator: false });
    expect(chooseNetworkStt(composite({ provider: 'google', api_key: 'g', region: 'europe-west4' })).choice).toEqual({ kind: 'google', apiKey: 'g', region: 'europe-west4', operator: false });
    expect(chooseNetworkStt(composite({ provider: 'openai', api_key: 'k', base_url: 'https://api.groq.com/openai/v1', model: 'whisper-large-v3' })).choice).toEqual({
      kind: 'openai',
      baseUrl: 'https://api.groq.com/openai/v1',
      apiKey: 'k',
      model: 'whisper-large-v3',
      operator: false,
    });
  });

  it('says why there is no network STT: missing keys, None, speech-to-speech, unknown provider', () => {
    expect(chooseNetworkStt(composite({ provider: 3 }))).toMatchObject({ choice: null, reason: "the avatar's Deepgram key is missing" });
    expect(chooseNetworkStt(composite({ provider: 2, api_key: 'x' })).reason).toContain('region');
    expect(chooseNetworkStt(composite({ provider: 4, api_key: 'x' })).reason).toContain('None');
    expect(chooseNetworkStt(stored({ setupMode: SetupMode.SpeechToSpeech, pipeline: { stt: { provider: 3, api_key: 'x' } } })).choice).toBeNull();
    expect(chooseNetworkStt(composite({ provider: 'whisperx', api_key: 'x' })).reason).toContain('unknown');
  });

  it("Simple mode and Default use the operator's hosted STT that default_stt names, else any configured", () => {
    const op = { azure: { apiKey: 'op-az', region: 'eastus' }, deepgram: { apiKey: 'op-dg' } };
    expect(chooseNetworkStt(stored({ setupMode: SetupMode.Simple, pipeline: { stt: { provider: 3, api_key: 'mine' } } }), op).choice).toEqual({ kind: 'azure', apiKey: 'op-az', region: 'eastus', operator: true });
    expect(chooseNetworkStt(composite({ provider: 0, default_stt: 'deepgram' }), op).choice).toEqual({ kind: 'deepgram', apiKey: 'op-dg', operator: true });
    expect(chooseNetworkStt(composite({ provider: 0 }), {})).toMatchObject({ choice: null, reason: expect.stringContaining('no hosted speech to text') });
  });

  it("PLATFORM_STT_*: Simple mode listens with the operator's provider, at its gateway, with its model; the avatar's own keys never go there", async () => {
    const fake = await startFakeDeepgram();
    try {
      const op = operatorSttOf(platformSpeechFromEnv({ PLATFORM_STT_PROVIDER: 'deepgram', PLATFORM_STT_API_KEY: DEEPGRAM_KEY, PLATFORM_STT_URL: fake.origin, PLATFORM_STT_MODEL: 'nova-2-meeting' }).stt);
      const pick = chooseNetworkStt(stored({ setupMode: SetupMode.Simple, pipeline: { stt: { languages: 'en-US' } } }), op);
      expect(pick).toEqual({ choice: { kind: 'deepgram', apiKey: DEEPGRAM_KEY, baseUrl: fake.origin, operator: true }, reason: '', settings: { languages: ['en-US'], model: 'nova-2-meeting' } });
      const session = await createNetworkSttEngine(pick.choice!, { fetch }).open(
        { ...pick.settings, interim: false, sampleRate: 16_000, signal: new AbortController().signal },
        { onResult: () => undefined, onError: () => undefined },
      );
      await until(() => fake.connections.length === 1);
      expect(fake.connections[0]!.headers.authorization).toBe(`Token ${DEEPGRAM_KEY}`);
      expect(fake.connections[0]!.query.get('model')).toBe('nova-2-meeting');
      session.close();
      expect(chooseNetworkStt(composite({ provider: 3, api_key: 'mine' }), op).choice).toEqual({ kind: 'deepgram', apiKey: 'mine', operator: false });
      const azure = operatorSttOf(platformSpeechFromEnv({ PLATFORM_STT_PROVIDER: 'azure', PLATFORM_STT_API_KEY: 'k', PLATFORM_STT_REGION: 'eastus' }).stt);
      expect(chooseNetworkStt(stored({ setupMode: SetupMode.Simple, pipeline: {} }), azure).choice).toEqual({ kind: 'azure', apiKey: 'k', region: 'eastus', operator: true });
    } finally {
      await fake.close();
    }
  });

  it('makes the engine for each choice', () => {
    const deps = { fetch };
    expect(createNetworkSttEngine({ kind: 'deepgram', apiKey: 'k', operator: false }, deps)).toMatchObject({ provider: 'deepgram', mode: 'stream' });
    expect(createNetworkSttEngine({ kind: 'azure', apiKey: 'k', region: 'eastus', operator: false }, deps)).toMatchObject({ provider: 'azure', mode: 'stream' });
    expect(createNetworkSttEngine({ kind: 'google', apiKey: 'k', operator: false }, deps)).toMatchObject({ provider: 'google', mode: 'stream' });
    expect(createNetworkSttEngine({ kind: 'openai', baseUrl: 'https://x.example/v1', apiKey: 'k', operator: false }, deps)).toMatchObject({ provider: 'openai-compatible', mode: 'batch' });
  });

  it("an avatar's own endpoint never goes through the operator's fetch (which may reach private addresses); the operator's does", async () => {
    const calls: { via: 'fetch' | 'operatorFetch'; url: string }[] = [];
    const spy =
      (via: 'fetch' | 'operatorFetch'): GuardedFetch =>
      async (url) => {
        calls.push({ via, url });
        return new Response('{"error":"spy"}', { status: 500, headers: { 'content-type': 'application/json' } });
      };
    const deps = { fetch: spy('fetch'), operatorFetch: spy('operatorFetch') };
    // (Deepgram, Azure and Google stream to their own hosts — the operator's base URL or the
    // provider's, the avatar's region checked as a host label — not through a fetch; Google's
    // service-account token exchange does go through the fetch chosen the same way.)
    const choices: Omit<NetworkSttChoice, 'operator'>[] = [
      { kind: 'openai', baseUrl: 'http://10.0.0.5/v1', apiKey: 'k' } as Omit<NetworkSttChoice, 'operator'>,
    ];
    const transcribeOnce = async (choice: NetworkSttChoice) => {
      const errors: Error[] = [];
      const session = await createNetworkSttEngine(choice, deps).open(
        { languages: ['en-US'], interim: false, sampleRate: 16_000, signal: new AbortController().signal },
        { onResult() {}, onError: (e) => errors.push(e) },
      );
      session.push(new Int16Array(3200).fill(1000));
      await session.finalize();
      session.close();
      expect(errors).toHaveLength(1); // the spy's 500
    };
    for (const c of choices) {
      calls.length = 0;
      await transcribeOnce({ ...c, operator: false } as NetworkSttChoice);
      expect(calls.length, c.kind).toBeGreaterThan(0);
      expect(calls.every((x) => x.via === 'fetch'), `${c.kind}: ${JSON.stringify(calls)}`).toBe(true);
      calls.length = 0;
      await transcribeOnce({ ...c, operator: true } as NetworkSttChoice);
      expect(calls.length, c.kind).toBeGreaterThan(0);
      expect(calls.every((x) => x.via === 'operatorFetch'), `${c.kind}: ${JSON.stringify(calls)}`).toBe(true);
    }
  });
});
