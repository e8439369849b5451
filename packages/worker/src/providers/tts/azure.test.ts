import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedFetch } from '@persona/net';
import { AZURE_KEY, fakeSpeech, startFakeAzure, type FakeTts } from '../../test/fake-tts.js';
import { providerError, synth } from '../../test/tts-helpers.js';
import { azureSsml, createAzureTts, type AzureSettings } from './azure.js';

let fake: FakeTts;
const fetch = createGuardedFetch({ allowPrivate: true });
beforeAll(async () => {
  fake = await startFakeAzure();
});
afterAll(async () => {
  fetch.close();
  await fake.close();
});
afterEach(() => {
  fake.requests.length = 0;
  fake.knobs = {};
});

const engine = (over: Partial<AzureSettings> = {}) => createAzureTts({ apiKey: AZURE_KEY, region: 'westeurope', voice: 'en-GB-SoniaNeural', baseUrl: fake.origin, fetch, ...over });

describe('Azure Speech TTS (REST)', () => {
  it('posts SSML with the voice, its locale and the escaped text, the key and a raw PCM format; streams the audio', async () => {
    const text = 'Fish & chips <cheap> at "Joe\'s".';
    const out = await synth(engine({ sampleRate: 16000 }), text);
    const req = fake.requests[0]!;
    expect(req.path).toBe('/cognitiveservices/v1');
    expect(req.headers['ocp-apim-subscription-key']).toBe(AZURE_KEY);
    expect(req.headers['x-microsoft-outputformat']).toBe('raw-16khz-16bit-mono-pcm');
    expect(req.body).toBe(azureSsml(text, 'en-GB-SoniaNeural'));
    expect(req.body).toContain('xml:lang="en-GB"');
    expect(req.body).toContain('Fish &amp; chips &lt;cheap&gt; at &quot;Joe&apos;s&quot;.');
    expect(out.sampleRate).toBe(16000);
    expect(out.samples.length).toBe(fakeSpeech(text, 16000).samples.length);
  });

  it('speed becomes a prosody rate in percent', () => {
    expect(azureSsml('Hi', 'en-US-JennyNeural', 1)).toContain('<prosody rate="+100%">Hi</prosody>');
    expect(azureSsml('Hi', 'en-US-JennyNeural', -1)).toContain('<prosody rate="-50%">Hi</prosody>');
    expect(azureSsml('Hi', 'en-US-JennyNeural', 0)).not.toContain('prosody');
    // The answer's rate (<trl-config speechSpeed>) on top, within Azure's ½× … 2× here.
    expect(azureSsml('Hi', 'en-US-JennyNeural', undefined, 1.2)).toContain('<prosody rate="+20%">Hi</prosody>');
    expect(azureSsml('Hi', 'en-US-JennyNeural', 1, 1.5)).toContain('<prosody rate="+100%">Hi</prosody>');
    expect(azureSsml('Hi', 'en-US-JennyNeural', 0, 1)).not.toContain('prosody');
  });

  it('the answer’s rate reaches the service', async () => {
    await synth(engine(), 'Quicker.', undefined, undefined, 0.75);
    expect(fake.requests[0]!.body).toContain('<prosody rate="-25%">Quicker.</prosody>');
  });

  it('puts the region into the host name only when it is a region', async () => {
    const region = engine({ baseUrl: undefined, region: 'evil.example.com/#' });
    const err = await providerError(synth(region, 'Hi.'));
    expect(err.message).toContain('region');
    const seen: string[] = [];
    const spy = createAzureTts({ apiKey: AZURE_KEY, region: 'eastus2', voice: 'en-US-JennyNeural', fetch: async (url) => (seen.push(url), new Response(new Uint8Array(64))) });
    await synth(spy, 'Hi.');
    expect(seen).toEqual(['https://eastus2.tts.speech.microsoft.com/cognitiveservices/v1']);
  });

  it('a wrong key is a ProviderError 401; a server error keeps its status', async () => {
    const e1 = await providerError(synth(engine({ apiKey: 'nope' }), 'Hi.'));
    expect(e1.provider).toBe('azure');
    expect(e1.status).toBe(401);
    expect(e1.message).toContain('invalid subscription key');
    fake.knobs = { status: 429 };
    expect((await providerError(synth(engine(), 'Hi.'))).status).toBe(429);
  });
});
