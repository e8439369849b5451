import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SttEngine } from '../providers/stt/types.js';
import { lazyDenoiser, loadRnnoise, MAX_PENDING, type DenoiseModel, type Denoiser } from './denoise.js';
import { TURN_DEFAULTS } from './options.js';
import { Listener } from './turns.js';
import { VAD_WINDOW_SAMPLES, type VadStream } from './vad.js';

let model: DenoiseModel;
beforeAll(async () => {
  model = await loadRnnoise();
}, 30_000);
afterAll(async () => {
  await model?.close();
});

/** Seeded white noise (an LCG), `amp` peak. */
function noise(length: number, amp: number, seed = 7): Int16Array {
  let s = seed;
  return Int16Array.from({ length }, () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return Math.round(((s / 0x7fffffff) * 2 - 1) * amp);
  });
}
/** A voiced tone: 150 Hz and its harmonics at 1/h (RNNoise keeps what has a voice's pitch; a pure sine in noise it takes for noise). */
const voiced = (length: number, amp: number) =>
  Int16Array.from({ length }, (_, i) => {
    let v = 0;
    for (let h = 1; h <= 10; h++) v += Math.sin((2 * Math.PI * 150 * h * i) / 16_000) / h;
    return Math.round(amp * v);
  });
const tone = (length: number, hz: number, amp: number) => Int16Array.from({ length }, (_, i) => Math.round(amp * Math.sin((2 * Math.PI * hz * i) / 16_000)));
const mix = (a: Int16Array, b: Int16Array) => Int16Array.from(a, (v, i) => v + b[i]!);
const rms = (a: Int16Array, from = 0, to = a.length) => {
  let sum = 0;
  for (let i = from; i < to; i++) sum += a[i]! * a[i]!;
  return Math.sqrt(sum / Math.max(1, to - from));
};
/** Through one denoiser in pieces of `piece` samples (the page sends 20 ms: 320). */
async function through(d: Denoiser, pcm: Int16Array, piece = 320): Promise<Int16Array> {
  const parts: Int16Array[] = [];
  // Pushed without waiting, as the listener does (the answers come back in order), fewer than
  // MAX_PENDING at a time as a thread that keeps up has.
  let pending: Promise<Int16Array>[] = [];
  for (let at = 0; at < pcm.length; at += piece) {
    pending.push(d.process(pcm.subarray(at, at + piece)));
    if (pending.length === 10) {
      parts.push(...(await Promise.all(pending)));
      pending = [];
    }
  }
  parts.push(...(await Promise.all(pending)));
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

describe('RNNoise denoiser (@echogarden/rnnoise-wasm, ADR 096)', () => {
  it('gives 16 kHz out for 16 kHz in, in whole 10 ms frames, the same whatever the pieces', async () => {
    const input = mix(tone(16_050, 300, 3000), noise(16_050, 800));
    const d = model.stream();
    const out = await through(d, input);
    d.close();
    // 100 frames of 160 samples; the 50 left wait for the next piece.
    expect(out.length).toBe(16_000);
    // A single sample, odd pieces, one large piece: the same samples (the state carries across calls).
    for (const piece of [1, 333, 777, 16_000]) {
      const other = model.stream();
      expect(Array.from(await through(other, input, piece)), `pieces of ${piece}`).toEqual(Array.from(out));
      other.close();
    }
  });

  it('keeps each session its own state and gives the same output for the same input (deterministic)', async () => {
    const a = mix(tone(8000, 220, 2500), noise(8000, 1500, 1));
    const b = noise(8000, 3000, 2);
    const alone = async (pcm: Int16Array) => {
      const d = model.stream();
      const out = await through(d, pcm);
      d.close();
      return Array.from(out);
    };
    const [da, db] = [model.stream(), model.stream()];
    const fa: number[] = [];
    const fb: number[] = [];
    // Interleaved, as two sessions' frames arrive (they go to the thread in the same batches).
    for (let at = 0; at < a.length; at += 1600) {
      const pa: Promise<Int16Array>[] = [];
      const pb: Promise<Int16Array>[] = [];
      for (let k = at; k < at + 1600; k += 320) {
        pa.push(da.process(a.subarray(k, k + 320)));
        pb.push(db.process(b.subarray(k, k + 320)));
      }
      for (const o of await Promise.all(pa)) fa.push(...o);
      for (const o of await Promise.all(pb)) fb.push(...o);
    }
    da.close();
    db.close();
    expect(fa).toEqual(await alone(a));
    expect(fb).toEqual(await alone(b));
    expect(await alone(a)).toEqual(await alone(a));
  });

  it('leaves silence silent', async () => {
    const d = model.stream();
    const out = await through(d, new Int16Array(16_000));
    d.close();
    expect(out.length).toBeGreaterThan(15_000);
    expect(out.every((v) => v === 0)).toBe(true);
  });

  it('lets a frame under the VAD\'s silence peak through as it is, without RNNoise (the visitor listening); a louder one it denoises', async () => {
    const d = model.stream();
    const before = model.silentFrames!();
    // Mic hiss at −70 dBFS peak: RNNoise would take it for noise and remove most of it.
    const hiss = noise(16_000, 10);
    const out = await through(d, hiss);
    const silent = model.silentFrames!() - before;
    expect(silent).toBeGreaterThanOrEqual(95);
    // Through the resampling filters only: at its level, not suppressed.
    expect(rms(out, 1600) / rms(hiss, 1600)).toBeGreaterThan(0.8);
    // The same hiss 40 dB louder is noise to take out: RNNoise runs.
    const loud = await through(d, noise(16_000, 1000));
    expect(model.silentFrames!() - before - silent).toBeLessThanOrEqual(1);
    expect(rms(loud, 1600) / 1000).toBeLessThan(0.3);
    d.close();
  });

  it('removes steady noise (≥ 20 dB) and keeps a voiced tone in noise at its energy', async () => {
    const n = noise(32_000, 1000);
    const d = model.stream();
    const noiseOut = await through(d, n);
    d.close();
    // After the first second (the model settles).
    expect(20 * Math.log10(rms(n, 16_000) / rms(noiseOut, 16_000))).toBeGreaterThan(20);

    const t = voiced(32_000, 2000);
    const d2 = model.stream();
    const out = await through(d2, mix(t, n));
    d2.close();
    const kept = rms(out, 16_000) / rms(t, 16_000);
    expect(kept).toBeGreaterThan(0.85);
    expect(kept).toBeLessThan(1.15);
  });

  it('lets a session\'s audio through raw while the thread owes it more than MAX_PENDING pieces (a starved thread)', async () => {
    const d = model.stream();
    const piece = noise(320, 1000);
    const answers = Array.from({ length: MAX_PENDING + 5 }, () => d.process(piece));
    const outs = await Promise.all(answers);
    d.close();
    // The first MAX_PENDING went to the thread; the rest came back as they were, at once.
    expect(outs.slice(MAX_PENDING).every((o) => o === piece)).toBe(true);
    expect(outs.slice(0, MAX_PENDING).some((o) => o !== piece)).toBe(true);
  });

  it('passes audio through while the module loads, and on a module that failed', async () => {
    let resolve!: (m: DenoiseModel) => void;
    const lazy = lazyDenoiser(() => new Promise((r) => (resolve = r)));
    const raw = noise(320, 1000);
    expect(await lazy.process(raw)).toBe(raw);
    resolve(model);
    await new Promise((r) => setImmediate(r));
    expect(await lazy.process(raw)).not.toBe(raw);
    lazy.close();

    const errors: Error[] = [];
    const broken = lazyDenoiser(() => Promise.reject(new Error('no wasm')), (e) => errors.push(e));
    expect(await broken.process(raw)).toBe(raw);
    await new Promise((r) => setImmediate(r));
    expect(await broken.process(raw)).toBe(raw);
    expect(errors.map((e) => e.message)).toEqual(['no wasm']);
  });
});

describe('the listener with noise suppression (ADR 096)', () => {
  /** A VAD and a batch STT that record what they are given. */
  function rig(denoiser?: Denoiser) {
    const vadSaw: number[] = [];
    const sttSaw: number[] = [];
    const vad: VadStream = {
      probability: async (w) => {
        vadSaw.push(...Array.from(w, (x) => Math.round(x * 32768)));
        return 0.9;
      },
      reset: () => undefined,
    };
    const stt: SttEngine = {
      provider: 'fake',
      mode: 'batch',
      open: async () => ({ push: (pcm) => void sttSaw.push(...pcm), finalize: async () => undefined, close: () => undefined }),
    };
    const listener = new Listener({
      options: { ...TURN_DEFAULTS, minSpeechMs: 0, prefixPaddingMs: 0 },
      vad,
      denoiser,
      stt,
      events: { transcript: () => undefined, commit: () => undefined, pause: () => undefined, resume: () => undefined, interrupt: () => undefined },
    });
    return { listener, vadSaw, sttSaw };
  }
  const halving: Denoiser = { process: async (pcm) => Int16Array.from(pcm, (v) => v >> 1), close: () => undefined };
  const audio = Int16Array.from({ length: VAD_WINDOW_SAMPLES * 4 }, (_, i) => 1000 + (i % 50));

  it('on: the VAD and the STT get the denoised audio', async () => {
    const { listener, vadSaw, sttSaw } = rig(halving);
    await listener.push(audio);
    await new Promise((r) => setImmediate(r));
    expect(vadSaw).toEqual(Array.from(audio, (v) => v >> 1));
    expect(sttSaw).toEqual(Array.from(audio, (v) => v >> 1));
    listener.close();
  });

  it('off: they get the raw mic', async () => {
    const { listener, vadSaw, sttSaw } = rig();
    await listener.push(audio);
    await new Promise((r) => setImmediate(r));
    expect(vadSaw).toEqual(Array.from(audio));
    expect(sttSaw).toEqual(Array.from(audio));
    listener.close();
  });

  it('closes the denoiser with the listener', () => {
    let closed = 0;
    const { listener } = rig({ process: async (pcm) => pcm, close: () => void closed++ });
    listener.close();
    listener.close();
    expect(closed).toBe(1);
  });
});

