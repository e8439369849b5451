import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedFetch } from '@persona/net';
import { ELEVENLABS_KEY, FAKE_LEAD_MS, fakeSpeech, startFakeElevenLabs, type FakeTts } from '../../test/fake-tts.js';
import { durationMs, eventually, interruptAfterFirstAudio, loudSpans, providerError, spoken, synth } from '../../test/tts-helpers.js';
import { createElevenLabsTts, type ElevenLabsSettings } from './elevenlabs.js';

let fake: FakeTts;
const fetch = createGuardedFetch({ allowPrivate: true });
beforeAll(async () => {
  fake = await startFakeElevenLabs();
});
afterAll(async () => {
  fetch.close();
  await fake.close();
});
afterEach(() => {
  fake.requests.length = 0;
  fake.knobs = {};
});

const engine = (over: Partial<ElevenLabsSettings> = {}) => createElevenLabsTts({ apiKey: ELEVENLABS_KEY, voiceId: 'voice/21m00', baseUrl: fake.origin, fetch, ...over });

describe('ElevenLabs TTS (stream with timestamps)', () => {
  it('streams PCM at the asked rate with the key, model and voice in the request', async () => {
    const text = 'Hello there, how are you today?';
    const out = await synth(engine({ sampleRate: 16000, model: 'eleven_turbo_v2_5' }), text);
    const req = fake.requests[0]!;
    expect(req.path).toBe('/v1/text-to-speech/voice%2F21m00/stream/with-timestamps');
    expect(req.query.get('output_format')).toBe('pcm_16000');
    expect(req.headers['xi-api-key']).toBe(ELEVENLABS_KEY);
    expect(req.json).toMatchObject({ text, model_id: 'eleven_turbo_v2_5' });
    expect(req.json).not.toHaveProperty('voice_settings');
    expect(out.sampleRate).toBe(16000);
    // The whole audio arrived, each sample whole although frames split them at odd bytes.
    expect(out.samples.length).toBe(fakeSpeech(text, 16000).samples.length);
    expect(Array.from(out.samples)).toEqual(Array.from(fakeSpeech(text, 16000).samples));
  });

  it('turns the character alignment into word times and visemes that sit on the sound of each word', async () => {
    const text = 'Hello there, how are you today?';
    const out = await synth(engine({ sampleRate: 24000 }), text);
    expect(out.words.map((w) => w.w)).toEqual(['Hello', 'there', 'how', 'are', 'you', 'today']);
    const spans = loudSpans(out.samples, out.sampleRate);
    expect(spans).toHaveLength(6);
    out.words.forEach((w, k) => {
      expect(Math.abs(w.t - spans[k]!.startMs)).toBeLessThan(15);
      expect(Math.abs(w.t + w.d - spans[k]!.endMs)).toBeLessThan(15);
    });
    // Every mouth shape falls inside a word, in order, and the mouth closes at the end.
    const v = spoken(out.visemes);
    expect(v.length).toBeGreaterThan(12);
    for (const item of v) expect(spans.some((s) => item.t >= s.startMs - 1 && item.t + item.d <= s.endMs + 1)).toBe(true);
    for (let k = 1; k < out.visemes.length; k++) expect(out.visemes[k]!.t).toBeGreaterThanOrEqual(out.visemes[k - 1]!.t);
    expect(out.visemes[out.visemes.length - 1]!.v).toBe('sil');
    // "Hello" → the mouth of e, l, o; "you" ends rounded.
    const hello = v.filter((x) => x.t < spans[0]!.endMs).map((x) => x.v);
    expect(hello).toEqual(['E', 'nn', 'O']);
  });

  it('keeps a word whole when the alignment splits it between two frames', async () => {
    fake.knobs = { chunks: 7 };
    const text = 'Extraordinary circumstances require unbelievable patience.';
    const out = await synth(engine(), text);
    expect(out.words.map((w) => w.w)).toEqual(['Extraordinary', 'circumstances', 'require', 'unbelievable', 'patience']);
    expect(out.words[0]!.t).toBeCloseTo(FAKE_LEAD_MS, 0);
  });

  it('streams: the first audio comes before the answer ends', async () => {
    fake.knobs = { chunks: 5, chunkDelayMs: 60 };
    const out = await synth(engine(), 'One two three four five six seven eight.');
    expect(out.firstAudioMs!).toBeLessThan(out.totalMs - 150);
  });

  it('sends the speed as voice_settings.speed within ElevenLabs’ range and the previous piece as previous_text', async () => {
    await synth(engine({ speed: 1 }), 'Fast.', undefined, 'Before this.');
    await synth(engine({ speed: -0.2 }), 'Slower.');
    expect(fake.requests[0]!.json).toMatchObject({ voice_settings: { speed: 1.2 }, previous_text: 'Before this.' });
    expect((fake.requests[1]!.json!.voice_settings as { speed: number }).speed).toBeCloseTo(Math.pow(2, -0.2), 3);
  });

  it('the answer’s rate (<trl-config speechSpeed>) multiplies the speed, within ElevenLabs’ 0.7–1.2', async () => {
    await synth(engine(), 'Quicker.', undefined, undefined, 1.1);
    await synth(engine(), 'Much quicker.', undefined, undefined, 2);
    await synth(engine({ speed: -0.2 }), 'Slower, then quicker.', undefined, undefined, 1.1);
    expect(fake.requests.map((r) => (r.json!.voice_settings as { speed: number }).speed)).toEqual([1.1, 1.2, expect.closeTo(1.1 * Math.pow(2, -0.2), 6)]);
  });

  it('a wrong key is a ProviderError with the status and ElevenLabs’ message', async () => {
    const err = await providerError(synth(engine({ apiKey: 'wrong' }), 'Hi.'));
    expect(err.provider).toBe('elevenlabs');
    expect(err.status).toBe(401);
    expect(err.message).toContain('Invalid API key');
  });

  it('a failure in the middle of the stream is a ProviderError', async () => {
    fake.knobs = { streamErrorAfter: 2 };
    const err = await providerError(synth(engine(), 'One two three four five six.'));
    expect(err.message).toContain('fake failure mid-stream');
  });

  it('a stalled stream times out as a ProviderError', async () => {
    fake.knobs = { stallAfter: 1 };
    const err = await providerError(synth(engine({ timeouts: { idleMs: 300 } }), 'One two three four five six.'));
    expect(err.message).toMatch(/timed out/);
  });

  it('an interruption closes the request at once and passes the abort through', async () => {
    fake.knobs = { chunks: 6, chunkDelayMs: 200 };
    const r = await interruptAfterFirstAudio(engine(), 'One two three four five six seven.');
    expect((r.error as Error).message).toBe('interrupted');
    // Stopped long before the rest of the stream (5 × 150–200 ms) would have come.
    expect(r.stopMs).toBeLessThan(300);
    await eventually(() => fake.aborted >= 1);
  });

  it('plays a clip of the right length for a long sentence (durations add up)', async () => {
    const text = 'The museum opens at nine and closes at five every day except Monday.';
    const out = await synth(engine(), text);
    expect(durationMs(out)).toBeCloseTo((fakeSpeech(text, 24000).samples.length * 1000) / 24000, 0);
  });
});
