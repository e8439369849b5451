import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedFetch } from '@persona/net';
import { CARTESIA_KEY, fakeSpeech, startFakeCartesia, type FakeTts } from '../../test/fake-tts.js';
import { eventually, interruptAfterFirstAudio, loudSpans, providerError, spoken, synth } from '../../test/tts-helpers.js';
import { createCartesiaTts, type CartesiaSettings } from './cartesia.js';

let fake: FakeTts;
let noPhonemes: FakeTts;
const fetch = createGuardedFetch({ allowPrivate: true });
beforeAll(async () => {
  fake = await startFakeCartesia();
  noPhonemes = await startFakeCartesia({ phonemes: false });
});
afterAll(async () => {
  fetch.close();
  await fake.close();
  await noPhonemes.close();
});
afterEach(() => {
  fake.requests.length = 0;
  fake.knobs = {};
});

const engine = (over: Partial<CartesiaSettings> = {}) => createCartesiaTts({ apiKey: CARTESIA_KEY, voiceId: 'a0e99841-438c-4a64-b679-ae501e7d6091', baseUrl: fake.origin, fetch, ...over });

describe('Cartesia TTS (SSE with word and phoneme timestamps)', () => {
  it('asks for raw PCM with timestamps, authenticated and versioned, and streams the audio back', async () => {
    const text = 'Welcome to the museum.';
    const out = await synth(engine({ model: 'sonic-2', language: 'en', sampleRate: 16000 }), text);
    const req = fake.requests[0]!;
    expect(req.path).toBe('/tts/sse');
    expect(req.headers['cartesia-version']).toBe('2025-04-16');
    expect(req.headers.authorization).toBe(`Bearer ${CARTESIA_KEY}`);
    expect(req.json).toMatchObject({
      model_id: 'sonic-2',
      transcript: text,
      voice: { mode: 'id', id: 'a0e99841-438c-4a64-b679-ae501e7d6091' },
      output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: 16000 },
      language: 'en',
      add_timestamps: true,
      add_phoneme_timestamps: true,
    });
    expect(out.sampleRate).toBe(16000);
    expect(Array.from(out.samples)).toEqual(Array.from(fakeSpeech(text, 16000).samples));
  });

  it('maps the phoneme timestamps (IPA) to visemes on the words’ sound, and passes word times', async () => {
    const out = await synth(engine(), 'Hello big world today.');
    expect(out.words.map((w) => w.w)).toEqual(['Hello', 'big', 'world', 'today']);
    const spans = loudSpans(out.samples, out.sampleRate);
    const v = spoken(out.visemes);
    for (const item of v) expect(spans.some((s) => item.t >= s.startMs - 1 && item.t + item.d <= s.endMs + 1)).toBe(true);
    // "big": b → PP, ɪ → I, g → kk
    const big = v.filter((x) => x.t >= spans[1]!.startMs - 1 && x.t < spans[1]!.endMs).map((x) => x.v);
    expect(big).toEqual(['PP', 'I', 'kk']);
  });

  it('without phonemes, places the words’ letter visemes in their word times', async () => {
    const out = await synth(engine({ baseUrl: noPhonemes.origin }), 'Hello big world.');
    const spans = loudSpans(out.samples, out.sampleRate);
    const v = spoken(out.visemes);
    expect(v.length).toBeGreaterThan(5);
    for (const item of v) expect(spans.some((s) => item.t >= s.startMs - 1 && item.t + item.d <= s.endMs + 1)).toBe(true);
  });

  it('sends the speed as generation_config.speed (0.6–1.5)', async () => {
    await synth(engine({ speed: -1 }), 'Slow.');
    expect(fake.requests[0]!.json).toMatchObject({ generation_config: { speed: 0.6 } });
  });

  it('the answer’s rate (<trl-config speechSpeed>) multiplies the speed, within Cartesia’s range; none asked: no generation_config', async () => {
    await synth(engine(), 'Quicker.', undefined, undefined, 1.2);
    await synth(engine({ speed: -1 }), 'Slow and quicker.', undefined, undefined, 1.2);
    await synth(engine(), 'Much quicker.', undefined, undefined, 2);
    await synth(engine(), 'As it is.');
    expect(fake.requests.map((r) => (r.json!.generation_config as { speed: number } | undefined)?.speed)).toEqual([1.2, 0.6, 1.5, undefined]);
  });

  it('errors: a wrong key (401), an error event in the stream', async () => {
    const e1 = await providerError(synth(engine({ apiKey: 'nope' }), 'Hi.'));
    expect(e1.status).toBe(401);
    expect(e1.message).toContain('Invalid API key');
    fake.knobs = { streamErrorAfter: 1 };
    const e2 = await providerError(synth(engine(), 'One two three four.'));
    expect(e2.provider).toBe('cartesia');
    expect(e2.message).toContain('fake failure mid-stream');
    expect(e2.status).toBe(500);
  });

  it('an interruption closes the request', async () => {
    fake.knobs = { chunks: 6, chunkDelayMs: 150 };
    const r = await interruptAfterFirstAudio(engine(), 'One two three four five.');
    expect((r.error as Error).message).toBe('interrupted');
    // Stopped long before the rest of the stream (5 × 150–200 ms) would have come.
    expect(r.stopMs).toBeLessThan(300);
    await eventually(() => fake.aborted >= 1);
  });
});
