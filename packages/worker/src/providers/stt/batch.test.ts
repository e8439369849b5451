import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '../../core/errors.js';
import { createGuardedFetch } from '@persona/net';
import { parseWavHeader, wavFile } from '../../core/audio.js';
import { OPENAI_STT_KEY, parseMultipart, startFakeOpenAiStt, type FakeHttpStt } from '../../test/fake-stt.js';
import { batchSession, MAX_BATCH_SECONDS, MAX_STT_ANSWER_BYTES, type TranscribeFn } from './batch.js';
import { createOpenAiStt, transcriptionsUrl } from './openai-compatible.js';
import type { SttEngine, SttOptions, SttResult } from './types.js';

const fetch = createGuardedFetch({ allowPrivate: true });
let openai: FakeHttpStt;
beforeAll(async () => {
  openai = await startFakeOpenAiStt();
});
afterAll(async () => {
  fetch.close();
  await openai.close();
});
afterEach(() => {
  for (const f of [openai]) {
    f.requests.length = 0;
    f.knobs = {};
  }
});

/** 20 ms frames of a tone, as the page sends them. */
const frames = (ms: number) => Array.from({ length: ms / 20 }, (_, i) => Int16Array.from({ length: 320 }, (_x, j) => Math.round(8000 * Math.sin(((i * 320 + j) * 2 * Math.PI * 220) / 16000))));

async function run(engine: SttEngine, utterances: number[], over: Partial<SttOptions> = {}) {
  const results: SttResult[] = [];
  const errors: Error[] = [];
  const ctl = new AbortController();
  const session = await engine.open({ languages: ['en-US'], interim: false, sampleRate: 16_000, signal: ctl.signal, ...over }, { onResult: (r) => results.push(r), onError: (e) => errors.push(e) });
  for (const ms of utterances) {
    for (const f of frames(ms)) session.push(f);
    await session.finalize();
  }
  session.close();
  return { results, errors };
}

describe('batch STT helpers', () => {
  it('writes a WAV the reader understands', () => {
    const wav = wavFile(Int16Array.from([1, -2, 3]), 16000);
    expect(parseWavHeader(wav)).toMatchObject({ sampleRate: 16000, channels: 1, dataOffset: 44 });
    expect(wav.byteLength).toBe(44 + 6);
  });
});

describe('batch session', () => {
  /** A transcriber the test answers by hand, recording the sample count of each request. */
  function manual() {
    const calls: { samples: number; answer: (text: string) => void }[] = [];
    const transcribe: TranscribeFn = (pcm) => new Promise((resolve) => calls.push({ samples: pcm.length, answer: (text) => resolve({ text }) }));
    return { calls, transcribe };
  }
  const open = (transcribe: TranscribeFn) => {
    const results: SttResult[] = [];
    const session = batchSession({ languages: ['en-US'], interim: false, sampleRate: 16_000, signal: new AbortController().signal }, { onResult: (r) => results.push(r), onError: (e) => { throw e; } }, transcribe);
    return { session, results };
  };
  const tick = () => new Promise((r) => setTimeout(r, 0));

  it(`keeps the last ${MAX_BATCH_SECONDS} s of an utterance (the oldest audio beyond is dropped, the times say so)`, async () => {
    const t = manual();
    const { session, results } = open(t.transcribe);
    for (let s = 0; s < MAX_BATCH_SECONDS + 2; s++) session.push(new Int16Array(16_000).fill(s));
    const done = session.finalize();
    await tick();
    expect(t.calls.map((c) => c.samples)).toEqual([MAX_BATCH_SECONDS * 16_000]);
    t.calls[0]!.answer('long');
    await done;
    expect(results).toEqual([{ text: 'long', final: true, endOfTurn: true, startMs: 2000, endMs: (MAX_BATCH_SECONDS + 2) * 1000 }]);
    session.close();
  });

  it('reset() drops the buffered audio: the next finalize sends only what came after', async () => {
    const seen: Int16Array[] = [];
    const { session, results } = open(async (pcm) => {
      seen.push(pcm);
      return { text: 'after' };
    });
    session.push(new Int16Array(16_000).fill(1));
    session.reset!();
    session.push(new Int16Array(8000).fill(2));
    await session.finalize();
    expect(seen).toHaveLength(1);
    expect(seen[0]!.length).toBe(8000);
    expect(seen[0]!.every((v) => v === 2)).toBe(true);
    expect(results).toEqual([{ text: 'after', final: true, endOfTurn: true, startMs: 1000, endMs: 1500 }]);
    session.reset!();
    await session.finalize();
    expect(seen).toHaveLength(1);
    session.close();
  });

  it('one transcription in flight and one queued: further utterances merge into the queued one', async () => {
    const t = manual();
    const { session, results } = open(t.transcribe);
    const utter = (samples: number) => {
      session.push(new Int16Array(samples).fill(100));
      return session.finalize();
    };
    const first = utter(1600);
    await tick();
    const second = utter(3200);
    const third = utter(4800);
    const fourth = utter(800);
    await tick();
    expect(t.calls.map((c) => c.samples)).toEqual([1600]);
    t.calls[0]!.answer('one');
    await first;
    await tick();
    // The queued request carries utterances 2, 3 and 4 together.
    expect(t.calls.map((c) => c.samples)).toEqual([1600, 3200 + 4800 + 800]);
    t.calls[1]!.answer('two three four');
    await Promise.all([second, third, fourth]);
    expect(t.calls).toHaveLength(2);
    expect(results).toEqual([
      { text: 'one', final: true, endOfTurn: true, startMs: 0, endMs: 100 },
      { text: 'two three four', final: true, endOfTurn: true, startMs: 100, endMs: 650 },
    ]);
    // Idle again: the next utterance goes out at once.
    const fifth = utter(160);
    await tick();
    expect(t.calls.map((c) => c.samples)).toEqual([1600, 8800, 160]);
    t.calls[2]!.answer('five');
    await fifth;
    session.close();
  });
});

describe('OpenAI-compatible STT (/audio/transcriptions)', () => {
  const engine = (over: Partial<Parameters<typeof createOpenAiStt>[0]> = {}) => createOpenAiStt({ baseUrl: `${openai.origin}/v1`, apiKey: OPENAI_STT_KEY, fetch, ...over });

  it('posts multipart with the WAV, the model, the language and the phrases as prompt', async () => {
    const { results, errors } = await run(engine(), [200], { languages: ['pt-BR'], model: 'whisper-large-v3', phrases: ['Nova', 'Persona'] });
    expect(errors).toEqual([]);
    const req = openai.requests[0]!;
    expect(req.path).toBe('/v1/audio/transcriptions');
    expect(req.headers.authorization).toBe(`Bearer ${OPENAI_STT_KEY}`);
    const fields = parseMultipart(req.body, /boundary=(.+)$/.exec(String(req.headers['content-type']))![1]!);
    expect(fields.model?.toString()).toBe('whisper-large-v3');
    expect(fields.language?.toString()).toBe('pt');
    expect(fields.prompt?.toString()).toBe('Nova, Persona');
    expect(fields.response_format?.toString()).toBe('json');
    expect(parseWavHeader(new Uint8Array(fields.file!))).toMatchObject({ sampleRate: 16000 });
    expect(results).toEqual([{ text: 'heard 3200 samples with whisper-large-v3', final: true, endOfTurn: true, startMs: 0, endMs: 200 }]);
  });

  it("'multi' sends no language and the default model is whisper-1", async () => {
    await run(engine(), [100], { languages: ['multi'] });
    const fields = parseMultipart(openai.requests[0]!.body, /boundary=(.+)$/.exec(String(openai.requests[0]!.headers['content-type']))![1]!);
    expect(fields.language).toBeUndefined();
    expect(fields.model?.toString()).toBe('whisper-1');
  });

  it('accepts the full endpoint as base', () => {
    expect(transcriptionsUrl('https://api.groq.com/openai/v1/audio/transcriptions')).toBe('https://api.groq.com/openai/v1/audio/transcriptions');
    expect(transcriptionsUrl('https://api.openai.com/v1/')).toBe('https://api.openai.com/v1/audio/transcriptions');
  });

  it(`an answer larger than MAX_STT_ANSWER_BYTES (${MAX_STT_ANSWER_BYTES}) is refused`, async () => {
    openai.knobs.answer = { text: 'a'.repeat(MAX_STT_ANSWER_BYTES + 10) };
    const big = await run(engine(), [100]);
    expect(big.results).toEqual([]);
    expect(big.errors[0]).toBeInstanceOf(ProviderError);
    expect(big.errors[0]!.message).toMatch(/larger than 1048576 bytes/);
    openai.knobs.answer = { text: 'a'.repeat(MAX_STT_ANSWER_BYTES - 100) };
    const fits = await run(engine(), [100]);
    expect(fits.errors).toEqual([]);
    expect(fits.results[0]!.text).toHaveLength(MAX_STT_ANSWER_BYTES - 100);
  });

  it('a wrong key is a ProviderError 401; a slow answer times out', async () => {
    const bad = await run(engine({ apiKey: 'nope' }), [100]);
    expect(bad.errors[0]).toMatchObject({ provider: 'openai-compatible', status: 401 });
    openai.knobs.delayMs = 400;
    const slow = await run(engine({ timeouts: { requestMs: 100 } }), [100]);
    expect(slow.errors[0]!.message).toMatch(/timed out/);
  });

  it('the base URL goes through the outbound guard: a private address is refused', async () => {
    const guarded = createGuardedFetch({ allowPrivate: false });
    const { errors } = await run(engine({ fetch: guarded }), [100]);
    guarded.close();
    expect(errors[0]).toBeInstanceOf(ProviderError);
    expect(errors[0]!.message).toMatch(/not a public address/);
    expect(openai.requests).toHaveLength(0);
  });

  it('close aborts a transcription in flight and reports nothing', async () => {
    openai.knobs.delayMs = 300;
    const results: SttResult[] = [];
    const errors: Error[] = [];
    const session = await engine().open({ languages: ['en'], interim: false, sampleRate: 16_000, signal: new AbortController().signal }, { onResult: (r) => results.push(r), onError: (e) => errors.push(e) });
    for (const f of frames(100)) session.push(f);
    const done = session.finalize();
    await new Promise((r) => setTimeout(r, 50));
    const closedAt = Date.now();
    session.close();
    await done;
    // The fake saw the request dropped well before its 300 ms answer.
    const end = Date.now() + 1000;
    while (openai.requests[0]?.abortedAt === undefined && Date.now() < end) await new Promise((r) => setTimeout(r, 5));
    expect(openai.requests).toHaveLength(1);
    expect(openai.requests[0]!.abortedAt).toBeDefined();
    expect(openai.requests[0]!.abortedAt! - closedAt).toBeLessThan(150);
    expect(results).toEqual([]);
    expect(errors).toEqual([]);
  });
});
