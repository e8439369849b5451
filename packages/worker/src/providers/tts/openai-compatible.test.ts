import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedFetch } from '@persona/net';
import { OPENAI_TTS_KEY, fakeSpeech, startFakeOpenAiSpeech, type FakeTts } from '../../test/fake-tts.js';
import { providerError, synth } from '../../test/tts-helpers.js';
import { createOpenAiTts, speechUrl, type OpenAiTtsSettings } from './openai-compatible.js';

let fake: FakeTts;
let wav: FakeTts;
const fetch = createGuardedFetch({ allowPrivate: true });
beforeAll(async () => {
  fake = await startFakeOpenAiSpeech();
  wav = await startFakeOpenAiSpeech({ answerWav: true, wavRate: 22050 });
});
afterAll(async () => {
  fetch.close();
  await fake.close();
  await wav.close();
});
afterEach(() => {
  fake.requests.length = 0;
  fake.knobs = {};
});

const engine = (over: Partial<OpenAiTtsSettings> = {}) => createOpenAiTts({ baseUrl: `${fake.origin}/v1`, apiKey: OPENAI_TTS_KEY, fetch, ...over });

describe('OpenAI-compatible /audio/speech', () => {
  it('asks for pcm with the model, voice and speed, and reads 24 kHz raw audio as it streams', async () => {
    const text = 'The gallery is on the second floor.';
    const out = await synth(engine({ model: 'gpt-4o-mini-tts', voice: 'coral', speed: 0.5 }), text);
    const req = fake.requests[0]!;
    expect(req.path).toBe('/v1/audio/speech');
    expect(req.headers.authorization).toBe(`Bearer ${OPENAI_TTS_KEY}`);
    expect(req.json).toMatchObject({ model: 'gpt-4o-mini-tts', input: text, voice: 'coral', response_format: 'pcm' });
    expect(req.json!.speed as number).toBeCloseTo(Math.SQRT2, 3);
    expect(out.sampleRate).toBe(24000);
    expect(out.samples.length).toBe(fakeSpeech(text, 24000, Math.SQRT2).samples.length);
  });

  it('the answer’s rate (<trl-config speechSpeed>) is the speed, times the configured one; none asked: no speed', async () => {
    const text = 'Quicker now.';
    const out = await synth(engine(), text, undefined, undefined, 1.2);
    await synth(engine({ speed: 1 }), text, undefined, undefined, 1.5);
    await synth(engine(), text);
    expect(fake.requests.map((r) => r.json!.speed)).toEqual([1.2, 3, undefined]);
    expect(out.samples.length).toBe(fakeSpeech(text, 24000, 1.2).samples.length);
  });

  it('defaults to tts-1 and alloy; accepts the full endpoint as base URL', async () => {
    await synth(engine({ baseUrl: `${fake.origin}/v1/audio/speech` }), 'Hi.');
    expect(fake.requests[0]!.json).toMatchObject({ model: 'tts-1', voice: 'alloy' });
    expect(speechUrl('https://api.openai.com/v1/')).toBe('https://api.openai.com/v1/audio/speech');
  });

  it('reads a WAV answer by its header (rate and data offset)', async () => {
    const text = 'A server that answers WAV.';
    const out = await synth(engine({ baseUrl: `${wav.origin}/v1` }), text);
    expect(out.sampleRate).toBe(22050);
    expect(Array.from(out.samples)).toEqual(Array.from(fakeSpeech(text, 22050).samples));
  });

  it('errors carry the status and the server’s message', async () => {
    const e = await providerError(synth(engine({ apiKey: 'bad' }), 'Hi.'));
    expect(e.status).toBe(401);
    expect(e.message).toContain('Incorrect API key');
  });

  it('goes through the guarded fetch: a private address is refused unless allowed', async () => {
    const guarded = createGuardedFetch({ allowPrivate: false });
    try {
      const e = await providerError(synth(engine({ fetch: guarded }), 'Hi.'));
      expect(e.message).toMatch(/not a public address/);
      expect(fake.requests).toHaveLength(0);
    } finally {
      guarded.close();
    }
  });
});
