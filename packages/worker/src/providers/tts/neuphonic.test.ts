import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '../../core/errors.js';
import { createGuardedFetch } from '@persona/net';
import { NEUPHONIC_KEY, fakeSpeech, startFakeNeuphonic, type FakeTts } from '../../test/fake-tts.js';
import { providerError, synth } from '../../test/tts-helpers.js';
import { createNeuphonicTts, type NeuphonicSettings } from './neuphonic.js';

let fake: FakeTts;
const fetch = createGuardedFetch({ allowPrivate: true });
beforeAll(async () => {
  fake = await startFakeNeuphonic();
});
afterAll(async () => {
  fetch.close();
  await fake.close();
});
afterEach(() => {
  fake.requests.length = 0;
  fake.knobs = {};
});

const engine = (over: Partial<NeuphonicSettings> = {}) => createNeuphonicTts({ apiKey: NEUPHONIC_KEY, voiceId: 'e564ba7e-aa8d-46a2-96a8-8dffedade48f', langCode: 'en', baseUrl: fake.origin, fetch, ...over });

describe('Neuphonic TTS (SSE)', () => {
  it('posts to /sse/speak/{lang} with the key, linear PCM, the rate and the speed, and streams the audio', async () => {
    const text = 'Good morning, and welcome.';
    const out = await synth(engine({ speed: 1.3 }), text);
    const req = fake.requests[0]!;
    expect(req.path).toBe('/sse/speak/en');
    expect(req.headers['x-api-key']).toBe(NEUPHONIC_KEY);
    expect(req.json).toMatchObject({ text, voice_id: 'e564ba7e-aa8d-46a2-96a8-8dffedade48f', lang_code: 'en', encoding: 'pcm_linear', sampling_rate: 22050, speed: 1.3 });
    expect(out.sampleRate).toBe(22050);
    expect(out.samples.length).toBe(fakeSpeech(text, 22050, 1.3).samples.length);
    expect(out.visemes).toEqual([]);
  });

  it('speed is Neuphonic’s multiplier: 0 or less means its default 1, the rest is kept within 0.7–2', async () => {
    await synth(engine({ speed: 0 }), 'A.');
    await synth(engine({ speed: 5 }), 'B.');
    expect(fake.requests.map((r) => r.json!.speed)).toEqual([1, 2]);
  });

  it('the answer’s rate (<trl-config speechSpeed>) multiplies the speed, within 0.7–2', async () => {
    await synth(engine({ speed: 1.3 }), 'A.', undefined, undefined, 1.2);
    await synth(engine(), 'B.', undefined, undefined, 0.5);
    expect(fake.requests.map((r) => r.json!.speed as number)).toEqual([expect.closeTo(1.56, 6), 0.7]);
  });

  it('refuses a language code that is not one (it is a path segment)', async () => {
    const err = await providerError(synth(engine({ langCode: '../admin' }), 'Hi.'));
    expect(err.message).toContain('language code');
    expect(fake.requests).toHaveLength(0);
  });

  it('errors: a wrong key (403), an error event in the stream', async () => {
    const e1 = await providerError(synth(engine({ apiKey: 'bad' }), 'Hi.'));
    expect(e1.status).toBe(403);
    expect(e1.message).toContain('Invalid API key');
    fake.knobs = { streamErrorAfter: 2 };
    const e2 = await providerError(synth(engine(), 'One two three.'));
    expect(e2).toBeInstanceOf(ProviderError);
    expect(e2.message).toContain('fake failure mid-stream');
  });
});
