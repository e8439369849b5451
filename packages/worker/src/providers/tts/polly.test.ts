import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { POLLY_KEY, fakeSpeech, startFakePolly, type FakeTts } from '../../test/fake-tts.js';
import { eventually, interruptAfterFirstAudio, loudSpans, providerError, spoken, synth } from '../../test/tts-helpers.js';
import { createPollyTts, parsePollyVoice, type PollySettings } from './polly.js';

let fake: FakeTts & { lastRegion: string | null };
beforeAll(async () => {
  fake = await startFakePolly();
});
afterAll(() => fake.close());
afterEach(() => {
  fake.requests.length = 0;
  fake.knobs = {};
});

const engine = (over: Partial<PollySettings> = {}) => createPollyTts({ ...POLLY_KEY, region: 'eu-west-1', voice: 'Joanna (neural)', endpoint: fake.origin, ...over });

describe('Amazon Polly (@aws-sdk/client-polly against a SigV4-checking fake)', () => {
  it('signs both calls, asks for 16 kHz PCM and for viseme and word marks, and streams the audio', async () => {
    const text = 'Hello from Polly.';
    const out = await synth(engine(), text);
    expect(fake.requests).toHaveLength(2);
    expect(fake.lastRegion).toBe('eu-west-1');
    const audio = fake.requests.find((r) => r.json?.OutputFormat === 'pcm')!;
    const marks = fake.requests.find((r) => r.json?.OutputFormat === 'json')!;
    expect(audio.path).toBe('/v1/speech');
    expect(audio.json).toMatchObject({ Engine: 'neural', VoiceId: 'Joanna', SampleRate: '16000', Text: text, TextType: 'text' });
    expect(marks.json).toMatchObject({ SpeechMarkTypes: ['viseme', 'word'], VoiceId: 'Joanna', Text: text });
    expect(out.sampleRate).toBe(16000);
    expect(Array.from(out.samples)).toEqual(Array.from(fakeSpeech(text, 16000).samples));
    // Polly's visemes, mapped to Oculus, fall on the words' sound.
    const spans = loudSpans(out.samples, 16000);
    const v = spoken(out.visemes);
    expect(v.length).toBeGreaterThan(8);
    for (const item of v) expect(spans.some((s) => item.t >= s.startMs - 2 && item.t < s.endMs)).toBe(true);
    expect(v.filter((x) => x.t < spans[0]!.endMs).map((x) => x.v)).toEqual(['kk', 'E', 'DD', 'O']);
    expect(out.words.map((w) => w.w)).toEqual(['Hello', 'from', 'Polly']);
    expect(out.words[0]!.t).toBeCloseTo(spans[0]!.startMs, -1);
  });

  it('speed becomes SSML prosody (text escaped)', async () => {
    const out = await synth(engine({ speed: 1 }), 'Tom & Jerry.');
    const audio = fake.requests.find((r) => r.json?.OutputFormat === 'pcm')!;
    expect(audio.json).toMatchObject({ TextType: 'ssml', Text: '<speak><prosody rate="200%">Tom &amp; Jerry.</prosody></speak>' });
    expect(out.samples.length).toBe(fakeSpeech('Tom & Jerry.', 16000, 2).samples.length);
  });

  it('the answer’s rate (<trl-config speechSpeed>) becomes SSML prosody too, times the speed', async () => {
    const out = await synth(engine(), 'Quicker.', undefined, undefined, 1.5);
    await synth(engine({ speed: -1 }), 'Slow, then quicker.', undefined, undefined, 1.5);
    const texts = fake.requests.filter((r) => r.json?.OutputFormat === 'pcm').map((r) => r.json!.Text);
    expect(texts).toEqual(['<speak><prosody rate="150%">Quicker.</prosody></speak>', '<speak><prosody rate="75%">Slow, then quicker.</prosody></speak>']);
    expect(out.samples.length).toBe(fakeSpeech('Quicker.', 16000, 1.5).samples.length);
  });

  it('voices: "Name (engine)", the model field, or standard', () => {
    expect(parsePollyVoice('Matthew (generative)')).toEqual({ voiceId: 'Matthew', engine: 'generative' });
    expect(parsePollyVoice('Amy', 'neural')).toEqual({ voiceId: 'Amy', engine: 'neural' });
    expect(parsePollyVoice('Brian')).toEqual({ voiceId: 'Brian', engine: 'standard' });
  });

  it('a wrong secret is the provider’s InvalidSignatureException as a ProviderError 403', async () => {
    const err = await providerError(synth(engine({ secretAccessKey: 'wrong-secret-wrong-secret-wrong-secret00' }), 'Hi.'));
    expect(err.provider).toBe('polly');
    expect(err.status).toBe(403);
    expect(err.message).toContain('InvalidSignatureException');
  });

  it('a service error keeps its type and status; a region that is not one is refused before any request', async () => {
    fake.knobs = { status: 400 };
    const e1 = await providerError(synth(engine(), 'Hi.'));
    expect(e1.status).toBe(400);
    expect(e1.message).toContain('ValidationException');
    const e2 = await providerError(synth(engine({ region: 'x.evil.com' }), 'Hi.'));
    expect(e2.message).toContain('region');
  });

  it('an interruption closes the streaming audio at once', async () => {
    fake.knobs = { chunks: 6, chunkDelayMs: 150 };
    const r = await interruptAfterFirstAudio(engine(), 'One two three four five six.');
    expect((r.error as Error).message).toBe('interrupted');
    // Stopped long before the rest of the stream (5 × 150–200 ms) would have come.
    expect(r.stopMs).toBeLessThan(300);
    await eventually(() => fake.aborted >= 1);
  });
});
