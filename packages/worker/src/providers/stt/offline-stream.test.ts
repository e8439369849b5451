import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { bytesToSamples, parseWavHeader, resample } from '../../core/audio.js';
import { findPocketsphinx, withDither, type OfflineRecognizer } from './offline.js';
import { pocketsphinxEnv } from '../../config.js';
import { createAvatarRecognizers } from './avatar-models.js';
import { createSttEngine } from './choose.js';
import { createDitherer, createOfflineStreamStt, createStreamingRecognizer, createWorkerOfflineRecognizer, encodeFrame, findStreamingPocketsphinx, isStreamingRecognizer, withBatchFallback, type StreamingRecognizer } from './offline-stream.js';
import { buildLanguageModel } from './language-model.js';
import type { SttResult } from './types.js';

const FAKE = path.join(path.dirname(fileURLToPath(import.meta.url)), '../../test/fake-stream-decoder.mjs');
const open: StreamingRecognizer[] = [];
/** A streaming recogniser over the fake decoder (no dither: the fake reports the samples it got). */
function fake(flags: string[] = [], opts: Parameters<typeof createStreamingRecognizer>[0] = {}) {
  const r = createStreamingRecognizer({ command: { file: process.execPath, args: [FAKE, ...flags] }, ditherDbfs: null, ...opts });
  open.push(r);
  return r;
}
const tone = (value: number, samples: number) => new Int16Array(samples).fill(value);
afterEach(async () => {
  await Promise.all(open.splice(0).map((r) => r.close()));
});

describe('streaming offline recogniser: framing and dither', () => {
  it('frames a message as type, id, length, payload', () => {
    const f = encodeFrame('A', 7, new Uint8Array([1, 2, 3, 4]));
    expect([...f]).toEqual([65, 7, 0, 0, 0, 4, 0, 0, 0, 1, 2, 3, 4]);
    expect([...encodeFrame('E', 0x01020304)]).toEqual([69, 4, 3, 2, 1, 0, 0, 0, 0]);
  });

  it('dithers chunk by chunk exactly as offline.ts dithers the whole utterance (the same audio reaches the decoder)', () => {
    const pcm = Int16Array.from({ length: 5000 }, (_, i) => Math.round(3000 * Math.sin(i / 7)));
    const d = createDitherer(-66);
    const parts = [d(pcm.subarray(0, 512)), d(pcm.subarray(512, 1999)), d(pcm.subarray(1999))];
    const joined = new Int16Array(pcm.length);
    let at = 0;
    for (const p of parts) {
      joined.set(p, at);
      at += p.length;
    }
    expect(joined).toEqual(withDither(pcm, -66));
  });
});

describe('streaming offline recogniser: a pool of decoder processes (fake decoder)', () => {
  it('decodes an utterance pushed in chunks and answers at its end; partial hypotheses when asked', async () => {
    const r = fake();
    const partials: string[] = [];
    const u = r.begin({ onPartial: (t) => partials.push(t) });
    for (let i = 0; i < 10; i++) u.push(tone(5 + i, 512));
    expect(await u.end()).toEqual({ text: 'heard 5120 from 5', score: -5120 });
    expect(partials.at(-1)).toBe('heard 5120');
    // An utterance with no audio needs no process.
    expect(await r.begin().end()).toEqual({ text: '', score: 0 });
    expect(r.stats()).toMatchObject({ processes: 1, busy: 0, waiting: 0, queuedSamples: 0 });
  });

  it('passes a per-utterance language model to the decoder', async () => {
    const r = fake();
    const u = r.begin({ lm: '/models/avatar-7.lm' });
    u.push(tone(1, 100));
    expect((await u.end()).text).toBe('heard 100 from 1 with /models/avatar-7.lm');
  });

  it('loads a model asked for ahead into every idle process, once, and into each one started later (ADR 107)', async () => {
    const r = fake([], { size: 2 });
    r.preload!('/models/over-avatar.lm');
    r.preload!('/models/over-avatar.lm');
    await r.warm();
    const a = r.begin();
    const b = r.begin();
    a.push(tone(1, 100));
    b.push(tone(2, 100));
    const [ha, hb] = await Promise.all([a.end(), b.end()]);
    expect(ha.text).toBe('heard 100 from 1 (loaded /models/over-avatar.lm)');
    // The second process started while both utterances were waiting: it loads the model when it is idle again.
    expect(hb.text).toMatch(/^heard 100 from 2/);
    await vi.waitFor(() => expect(r.stats().preloaded).toBe(2), { interval: 5 });
    const c = r.begin();
    const d = r.begin();
    c.push(tone(3, 100));
    d.push(tone(4, 100));
    const both = await Promise.all([c.end(), d.end()]);
    expect(both.map((h) => h.text)).toEqual(['heard 100 from 3 (loaded /models/over-avatar.lm)', 'heard 100 from 4 (loaded /models/over-avatar.lm)']);
    expect(r.stats()).toMatchObject({ processes: 2, preloaded: 2 });

  });

  it('keeps utterances apart: overlapping ones go to separate processes, up to the pool size', async () => {
    const r = fake([], { size: 2 });
    const a = r.begin();
    const b = r.begin();
    // Interleaved pushes: each process hears only its own utterance.
    for (let i = 0; i < 5; i++) {
      a.push(tone(100, 320));
      b.push(tone(200, 640));
    }
    const [ha, hb] = await Promise.all([a.end(), b.end()]);
    expect(ha.text).toBe('heard 1600 from 100');
    expect(hb.text).toBe('heard 3200 from 200');
    expect(r.stats().processes).toBe(2);
  });

  it("sends a session's next utterance to the process that decoded its last one (its cepstral mean), when idle", async () => {
    const r = fake(['--say-pid'], { size: 2 });
    const [alice, bob] = [{}, {}];
    const said = async (who: object) => {
      const u = r.begin({ affinity: who });
      u.push(tone(1, 320));
      return (await u.end()).text.split(' on ')[1];
    };
    const a1 = r.begin({ affinity: alice });
    a1.push(tone(1, 320));
    const b1 = r.begin({ affinity: bob });
    b1.push(tone(1, 320));
    // Alice still speaking while Bob's is decoded: a second process.
    const pb = (await b1.end()).text.split(' on ')[1];
    const pa = (await a1.end()).text.split(' on ')[1];
    expect(pa).not.toBe(pb);
    // Both idle now: each goes back to its own.
    expect(await said(bob)).toBe(pb);
    expect(await said(alice)).toBe(pa);
  });

  it('queues an utterance while every process is busy, and decodes it when one is free', async () => {
    const r = fake([], { size: 1 });
    await r.warm();
    const a = r.begin();
    a.push(tone(1, 320));
    const b = r.begin();
    b.push(tone(2, 320));
    b.push(tone(3, 320));
    expect(r.stats()).toMatchObject({ processes: 1, busy: 1, waiting: 1, queuedSamples: 640 });
    const hb = b.end();
    expect((await a.end()).text).toBe('heard 320 from 1');
    expect((await hb).text).toBe('heard 640 from 2');
    expect(r.stats()).toMatchObject({ processes: 1, waiting: 0 });
  });

  it('fails only the utterance whose process crashed; a new process takes the next', async () => {
    const r = fake(['--crash-on', '666'], { size: 2 });
    const ok = r.begin();
    ok.push(tone(1, 320));
    const bad = r.begin();
    bad.push(tone(666, 320));
    await expect(bad.end()).rejects.toThrow('stopped');
    // Audio pushed after the failure goes nowhere, and nothing is held for it.
    bad.push(tone(1, 320));
    expect(r.stats().queuedSamples).toBe(0);
    expect((await ok.end()).text).toBe('heard 320 from 1');
    const next = r.begin();
    next.push(tone(9, 160));
    expect((await next.end()).text).toBe('heard 160 from 9');
  });

  it('kills a process that does not answer an ended utterance, fails it, and goes on', async () => {
    const r = fake(['--hang-on', '42'], { timeoutMs: 300 });
    const stuck = r.begin();
    stuck.push(tone(42, 320));
    await expect(stuck.end()).rejects.toThrow('timed out');
    const next = r.begin();
    next.push(tone(1, 320));
    expect((await next.end()).text).toBe('heard 320 from 1');
  });

  it('times out an ended utterance whose process stopped reading its audio', async () => {
    const r = fake(['--stall-ms', '60000'], { timeoutMs: 300 });
    const u = r.begin();
    // Far more than the pipe holds: the end frame cannot even be written.
    for (let i = 0; i < 100; i++) u.push(tone(1, 16_000));
    expect(r.stats().queuedSamples).toBeGreaterThan(0);
    await expect(u.end()).rejects.toThrow('timed out');
    expect(r.stats().queuedSamples).toBe(0);
  });

  it('a process still starting is not a stuck one: the wait for the answer starts once a running process has the utterance', async () => {
    // (Before: the 300 ms ran from the end while python and the model were still loading.)
    const r = fake(['--ready-delay', '700'], { timeoutMs: 300 });
    const u = r.begin();
    u.push(tone(3, 320));
    expect((await u.end()).text).toBe('heard 320 from 3');
  });

  it('a slow process that keeps reading and answering is waited for; one that never becomes ready is killed as a failed start', async () => {
    // 30 frames, each holding the pipe 40 ms: ~1.2 s of decoding after the end, progress all along.
    const slow = fake(['--slow-ms', '40'], { timeoutMs: 300 });
    await slow.warm();
    const u = slow.begin({ onPartial: () => undefined });
    for (let i = 0; i < 30; i++) u.push(tone(4, 16_000));
    expect((await u.end()).text).toBe('heard 480000 from 4');
    const never = fake(['--ready-delay', '60000'], { startTimeoutMs: 200, maxStartFailures: 1 });
    const w = never.begin();
    w.push(tone(1, 320));
    await expect(w.end()).rejects.toThrow('could not start');
  });

  it('with a spare, a busy pool starts the next process before it is needed', async () => {
    const r = fake(['--say-pid'], { size: 3, spare: true });
    await r.warm();
    const a = r.begin();
    a.push(tone(1, 320));
    // The only running process has an utterance: a second one starts now, not at the next utterance.
    expect(r.stats()).toMatchObject({ processes: 2, busy: 1 });
    await expect.poll(() => r.stats().ready).toBe(2);
    const b = r.begin();
    b.push(tone(2, 320));
    const [ha, hb] = await Promise.all([a.end(), b.end()]);
    expect(ha.text.split(' on ')[1]).not.toBe(hb.text.split(' on ')[1]);
    // Without one, the pool grows only when an utterance waits.
    const plain = fake([], { size: 3 });
    await plain.warm();
    const c = plain.begin();
    c.push(tone(1, 320));
    expect(plain.stats()).toMatchObject({ processes: 1, busy: 1 });
    await c.end();
  });

  it('holds back audio while a process is behind (its pipe full), bounded by maxSeconds', async () => {
    const r = fake(['--stall-ms', '1500'], { maxSeconds: 10 });
    await r.warm();
    const u = r.begin();
    // 20 s of audio in 32 ms windows as fast as they come, to a process that stopped reading.
    for (let i = 0; i < 10_000; i++) u.push(tone(i === 0 ? 7 : 1, 32));
    u.push(tone(1, 16_000 * 10));
    const queued = r.stats().queuedSamples;
    // Most of it waits here (the pipe took what it could), never more than the utterance's limit.
    expect(queued).toBeGreaterThan(0);
    expect(queued).toBeLessThanOrEqual(160_000);
    const h = await u.end();
    expect(h.text).toBe('heard 160000 from 7');
    expect(r.stats().queuedSamples).toBe(0);
  });

  it('a cancelled utterance reports nothing and frees its process for the next', async () => {
    const r = fake([], { size: 1 });
    const a = r.begin();
    a.push(tone(1, 320));
    const b = r.begin();
    b.push(tone(2, 320));
    a.cancel();
    await expect(a.end()).rejects.toThrow('cancelled');
    expect((await b.end()).text).toBe('heard 320 from 2');
  });

  it('gives up after its processes fail to start in a row, and says so', async () => {
    const r = fake(['--no-ready'], { maxStartFailures: 2 });
    const u = r.begin();
    u.push(tone(1, 320));
    await expect(u.end()).rejects.toThrow('could not start');
    await expect(r.warm()).rejects.toThrow('could not start');
    await expect(r.transcribe(tone(1, 320))).rejects.toThrow('could not start');
  });

  it('falls back to the batch recogniser once its processes will not start (the worker keeps listening)', async () => {
    const heard: number[] = [];
    const batch: OfflineRecognizer = { transcribe: async (pcm) => (heard.push(pcm.length), `batch heard ${pcm.length}`), warm: async () => undefined, close: async () => undefined };
    const r = withBatchFallback(fake(['--no-ready'], { maxStartFailures: 1 }), () => batch);
    await r.warm();
    expect(r.stats().broken).toBe(true);
    const u = r.begin();
    u.push(tone(1, 320));
    u.push(tone(2, 480));
    expect(await u.end()).toEqual({ text: 'batch heard 800', score: 0 });
    expect(await r.transcribe(tone(1, 160))).toBe('batch heard 160');
    expect(heard).toEqual([800, 160]);
    // A working streaming recogniser is used as it is.
    const ok = withBatchFallback(fake(), () => batch);
    expect(await ok.transcribe(tone(3, 320))).toBe('heard 320 from 3');
    await ok.close();
  });

  it('refuses after close, and close fails what was in flight', async () => {
    const r = fake();
    const u = r.begin();
    u.push(tone(1, 320));
    const ended = u.end();
    await r.close();
    await expect(ended).rejects.toThrow('closed');
    await expect(r.transcribe(tone(1, 320))).rejects.toThrow('closed');
  });
});

describe('streaming offline recogniser as an STT engine', () => {
  it('is a batch engine to the listener: one final result per finalize, reset drops the segment', async () => {
    const r = fake();
    const engine = createOfflineStreamStt(r);
    expect(engine).toMatchObject({ provider: 'offline', mode: 'batch' });
    const results: SttResult[] = [];
    const errors: Error[] = [];
    const ctl = new AbortController();
    const session = await engine.open({ languages: ['en-US'], interim: true, sampleRate: 16_000, signal: ctl.signal }, { onResult: (x) => results.push(x), onError: (e) => errors.push(e) });
    session.push(tone(3, 8000));
    session.push(tone(4, 8000));
    await session.finalize();
    expect(results).toEqual([{ text: 'heard 16000 from 3', final: true, endOfTurn: true, language: 'en-US', startMs: 0, endMs: 1000 }]);
    // Noise: dropped, its time still counts.
    session.push(tone(5, 8000));
    session.reset!();
    session.push(tone(6, 1600));
    await session.finalize();
    expect(results[1]).toMatchObject({ text: 'heard 1600 from 6', startMs: 1500, endMs: 1600 });
    // Nothing pushed: nothing to say.
    await session.finalize();
    expect(results).toHaveLength(2);
    expect(errors).toEqual([]);
    session.close();
  });

  it('decodes a segment said over the avatar with the over-the-avatar model once it is there, the others with the generic one (ADR 107)', async () => {
    const r = fake();
    let model: string | null = null;
    const results: string[] = [];
    const session = await createOfflineStreamStt(r, {}, () => model).open({ languages: ['en-US'], interim: false, sampleRate: 16_000, signal: new AbortController().signal }, { onResult: (x) => results.push(x.text), onError: () => undefined });
    const segment = async (over: boolean, value: number) => {
      session.overAvatar!(over);
      session.push(tone(value, 320));
      await session.finalize();
    };
    await segment(true, 1); // not built yet: the generic model
    model = '/models/over-avatar.lm';
    await segment(true, 2);
    await segment(false, 3);
    // Said while an utterance is open: it applies to the next one.
    session.push(tone(4, 320));
    session.overAvatar!(true);
    session.push(tone(4, 320));
    await session.finalize();
    expect(results).toEqual(['heard 320 from 1', 'heard 320 from 2 with /models/over-avatar.lm', 'heard 320 from 3', 'heard 640 from 4']);
    session.close();
  });

  it('reports a crashed decode as an error of that request', async () => {
    const r = fake(['--crash-on', '666']);
    const errors: Error[] = [];
    const session = await createOfflineStreamStt(r).open({ languages: ['en-US'], interim: true, sampleRate: 16_000, signal: new AbortController().signal }, { onResult: () => undefined, onError: (e) => errors.push(e) });
    session.push(tone(666, 320));
    await session.finalize();
    expect(errors.map((e) => e.message)).toEqual(['the offline recogniser stopped']);
  });
});

describe("the worker's choice of offline recogniser", () => {
  it('listens through the streaming engine when the recogniser streams', async () => {
    const r = fake();
    const engine = createSttEngine({ kind: 'offline', reason: '', settings: { languages: ['en-US'] } }, { offline: r, fetch: (() => Promise.reject(new Error('no network'))) as never })!;
    const results: SttResult[] = [];
    const session = await engine.open({ languages: ['en-US'], interim: true, sampleRate: 16_000, signal: new AbortController().signal }, { onResult: (x) => results.push(x), onError: () => undefined });
    session.push(tone(8, 320));
    await session.finalize();
    expect(results[0]?.text).toBe('heard 320 from 8');
  });

  it('is the streaming recogniser where its python can import pocketsphinx, unless turned off; else the batch pool', async () => {
    const env = { PATH: process.env.PATH };
    const installed = findPocketsphinx(env) !== null;
    for (const off of [{ ...env, WORKER_STT_STREAMING: 'off' }, { ...env, WORKER_STT_STREAMING: 'false' }, { ...env, POCKETSPHINX_PYTHON: '/nonexistent/python3' }]) {
      const r = createWorkerOfflineRecognizer(1, off);
      expect(r === null ? null : isStreamingRecognizer(r)).toBe(installed ? false : null);
      await r?.close();
    }
    // By default, where python3-pocketsphinx imports (CI installs it): the streaming one.
    const streams = findStreamingPocketsphinx(env) !== null;
    const byDefault = createWorkerOfflineRecognizer(1, env);
    expect(byDefault === null ? null : isStreamingRecognizer(byDefault)).toBe(installed ? streams : null);
    await byDefault?.close();
    expect(findStreamingPocketsphinx({ PATH: '/nonexistent', POCKETSPHINX_MODEL_DIR: '/nonexistent' })).toBeNull();
  });
});

describe("streaming with each avatar's own language model (ADR 105)", () => {
  it("an avatar's view streams: the generic recogniser until its model's is loaded, then that one", async () => {
    const generic = fake(['--say-pid']);
    let avatar: StreamingRecognizer | null = null;
    const models = createAvatarRecognizers({
      generic,
      cache: { get: async () => '/models/avatar.lm.bin' },
      make: () => (avatar = fake(['--say-pid'])),
    });
    const view = models.forAvatar({ name: 'Maya', wakeUpMessage: 'Hello, I am Maya from the harbour museum.' });
    expect(isStreamingRecognizer(view)).toBe(true);
    const say = async () => {
      const u = (view as unknown as StreamingRecognizer).begin();
      u.push(tone(1, 320));
      return (await u.end()).text.split(' on ')[1];
    };
    const genericPid = await say();
    await view.warm();
    await view.model;
    await avatar!.warm();
    // Loaded (its warm resolved): the avatar's own recogniser takes the next utterances.
    await new Promise((r) => setImmediate(r));
    const avatarPid = await say();
    expect(avatarPid).not.toBe(genericPid);
    expect(await say()).toBe(avatarPid);
    await models.close();
  });
});

const real = findStreamingPocketsphinx({ ...pocketsphinxEnv(), WORKER_STT_STREAMING: 'on' });
if (!real) console.warn("SKIPPED: python3-pocketsphinx is not importable here (apt-get install -y python3-pocketsphinx pocketsphinx-en-us); .ci/run installs it.");
const espeak = spawnSync('espeak-ng', ['--version']).status === 0;

describe.skipIf(!real || !espeak)('streaming offline recogniser: the real decoder (python3-pocketsphinx)', () => {
  it('decodes a spoken sentence fed in 32 ms windows to words close to what was said', async () => {
    const r = createStreamingRecognizer({ install: real! });
    open.push(r);
    const wav = new Uint8Array(spawnSync('espeak-ng', ['-v', 'en-us', '-s', '160', '--stdout', 'where is my order']).stdout);
    const info = parseWavHeader(wav)!;
    const speech = resample(bytesToSamples(wav.subarray(info.dataOffset, info.dataOffset + info.dataBytes)), info.sampleRate, 16_000);
    // 0.3 s either side over a faint microphone floor (pocketsphinx misreads exact-zero gaps).
    const pcm = new Int16Array(speech.length + 9600);
    pcm.set(speech, 4800);
    for (let i = 0; i < pcm.length; i++) pcm[i] = pcm[i]! + ((i * 7919) % 41) - 20;
    const u = r.begin();
    for (let at = 0; at < pcm.length; at += 512) u.push(pcm.subarray(at, at + 512));
    const { text } = await u.end();
    const words = text.split(' ');
    expect(['where', 'is', 'my', 'order'].filter((w) => words.includes(w)).length).toBeGreaterThanOrEqual(3);
  }, 60_000);

  it('loads a model ahead and decodes an utterance with it, then the next with the generic one; a model that cannot be loaded leaves the generic one (ADR 107)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'persona-over-'));
    const words = ['hold', 'on', 'wait', 'a', 'second', 'stop', 'please', 'where', 'is', 'my', 'order'];
    // A dictionary of these words only (with the whole one, pocketsphinx takes seconds to load a small model).
    const dict = path.join(dir, 'small.dict');
    writeFileSync(dict, readFileSync(real!.dict, 'utf8').split('\n').filter((l) => words.includes(l.split(' ')[0]!.replace(/\(\d+\)$/, ''))).join('\n') + '\n');
    const r = createStreamingRecognizer({ install: { ...real!, dict } });
    open.push(r);
    const lm = path.join(dir, 'phrases.lm');
    // A model of three phrases only: whatever is said, its hypothesis is made of their words.
    writeFileSync(lm, buildLanguageModel({ texts: [{ text: 'Hold on. Wait a second. Stop please.' }], dictionary: new Set(words) }).arpa);
    r.preload!(lm);
    await r.warm();
    await vi.waitFor(() => expect(r.stats().preloaded).toBe(1), { timeout: 30_000, interval: 20 });
    const said = async (text: string, opts?: { lm: string }) => {
      const pcm = spoken(text);
      const u = r.begin(opts);
      for (let at = 0; at < pcm.length; at += 512) u.push(pcm.subarray(at, at + 512));
      return (await u.end()).text;
    };
    const phrases = ['hold', 'on', 'wait', 'a', 'second', 'stop', 'please'];
    // "where is my order" through the phrases' model: only its words can come out.
    const biased = await said('where is my order', { lm });
    expect(biased.split(' ').filter(Boolean).every((w) => phrases.includes(w))).toBe(true);
    expect(await said('hold on', { lm })).toContain('on');
    // The next utterance without a model is the generic one's again: words the phrases do not have.
    const generic = (await said('where is my order')).split(' ');
    expect(['where', 'is', 'my', 'order'].filter((w) => generic.includes(w)).length).toBeGreaterThanOrEqual(2);
    // A model that cannot be loaded (removed from the disk): the generic model hears the utterance, no error.
    const missing = (await said('where is my order', { lm: path.join(dir, 'gone.lm.bin') })).split(' ');
    expect(['where', 'is', 'my', 'order'].filter((w) => missing.includes(w)).length).toBeGreaterThanOrEqual(2);
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
});

/** espeak-ng's words at 16 kHz, 0.3 s either side over a faint floor (pocketsphinx misreads exact-zero gaps). */
function spoken(text: string): Int16Array {
  const wav = new Uint8Array(spawnSync('espeak-ng', ['-v', 'en-us', '-s', '160', '--stdout', text]).stdout);
  const info = parseWavHeader(wav)!;
  const speech = resample(bytesToSamples(wav.subarray(info.dataOffset, info.dataOffset + info.dataBytes)), info.sampleRate, 16_000);
  const pcm = new Int16Array(speech.length + 9600);
  pcm.set(speech, 4800);
  for (let i = 0; i < pcm.length; i++) pcm[i] = pcm[i]! + ((i * 7919) % 41) - 20;
  return pcm;
}
