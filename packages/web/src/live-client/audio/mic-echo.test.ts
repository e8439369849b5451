import { describe, expect, it } from 'vitest';
import { MicEchoFrames } from './mic-echo';
import { MicFramer } from './mic-framer';

const RATE = 48_000;

/** A deterministic voice-like signal: syllables (a wandering pitch with harmonics, and breath noise, ~4 a second) and pauses. */
function voice(seconds: number, seed: number, level = 0.3): Float32Array {
  const out = new Float32Array(Math.round(seconds * RATE));
  let s = seed;
  const rand = () => ((s = (s * 1_103_515_245 + 12_345) >>> 0) / 2 ** 32);
  let phase = 0;
  let at = 0;
  while (at < out.length) {
    const syllable = Math.round((0.12 + rand() * 0.16) * RATE);
    const gap = Math.round((0.03 + rand() * 0.12) * RATE);
    const f0 = 100 + rand() * 120;
    const bright = [0.3, 0.3 + rand() * 0.7, 0.2 + rand() * 0.5, rand() * 0.4, rand() * 0.3];
    let breath = 0;
    for (let i = 0; i < syllable && at + i < out.length; i++) {
      const env = Math.sin((Math.PI * i) / syllable);
      phase += (2 * Math.PI * f0 * (1 + 0.1 * Math.sin((2 * Math.PI * i) / syllable))) / RATE;
      let v = 0;
      for (let h = 0; h < bright.length; h++) v += bright[h]! * Math.sin((h + 1) * phase);
      breath += 0.5 * (rand() - 0.5 - breath);
      out[at + i] = level * env * (v / 2.5 + breath);
    }
    at += syllable + gap;
  }
  return out;
}

/** The room: `far` heard `delayMs` later at `gainDb`, a little low-passed, with a reflection 5 ms after it. */
function room(far: Float32Array, delayMs: number, gainDb: number): Float32Array {
  const out = new Float32Array(far.length);
  const d = Math.round((delayMs * RATE) / 1000);
  const r = d + Math.round(0.005 * RATE);
  const g = 10 ** (gainDb / 20);
  let lp = 0;
  for (let i = 0; i < far.length; i++) {
    const direct = i >= d ? far[i - d]! : 0;
    lp += 0.6 * (direct - lp);
    out[i] = g * (lp + 0.3 * (i >= r ? far[i - r]! : 0));
  }
  return out;
}

const add = (a: Float32Array, b: Float32Array) => a.map((x, i) => x + (b[i] ?? 0));

/** Runs mic and far end through in 128-sample render quanta, as the worklet does; the output as one signal. */
function run(frames: MicEchoFrames, mic: Float32Array, far: Float32Array | null, farFrom = 0): Int16Array {
  const out: Int16Array[] = [];
  for (let at = 0; at < mic.length; at += 128) {
    const m = mic.subarray(at, at + 128);
    for (const f of frames.push(m, far && at >= farFrom ? far.subarray(at, at + 128) : null)) out.push(f.pcm);
  }
  const all = new Int16Array(out.reduce((n, f) => n + f.length, 0));
  let k = 0;
  for (const f of out) {
    all.set(f, k);
    k += f.length;
  }
  return all;
}

/** Energy (dB) of a 16 kHz signal over [from, to) seconds. */
function db(x: Int16Array | Float32Array, from: number, to: number, scale = 1): number {
  let sum = 0;
  const a = Math.round(from * 16_000);
  const b = Math.min(x.length, Math.round(to * 16_000));
  for (let i = a; i < b; i++) sum += (x[i]! * scale) ** 2;
  return 10 * Math.log10(sum / Math.max(1, b - a) + 1e-9);
}

describe('the page cancels its own voice in the mic when the browser does not (ADR 108)', () => {
  it('no far end given: the frames are the framer’s own, sample for sample', () => {
    const mic = voice(2, 7);
    const plain = new MicFramer(RATE);
    const expected: Int16Array[] = [];
    for (let at = 0; at < mic.length; at += 128) for (const f of plain.push(mic.subarray(at, at + 128))) expected.push(f.pcm);
    const frames = new MicEchoFrames(RATE);
    const got = run(frames, mic, null);
    expect(frames.cancelling).toBe(false);
    expect(Array.from(got)).toEqual(expected.flatMap((f) => Array.from(f)));
  });

  it('its voice back 50 ms later at −10 dB: after the first second the echo is ≥ 25 dB down, the delay found within 1 ms', () => {
    const far = voice(8, 1);
    const mic = room(far, 50, -10);
    const frames = new MicEchoFrames(RATE);
    const out = run(frames, mic, far);
    const heard = run(new MicEchoFrames(RATE), mic, null);
    const erle = db(heard, 1, 8) - db(out, 1, 8);
    expect(erle).toBeGreaterThanOrEqual(25);
    // Before the delay is found (its first 0.2–0.4 s), the far end's envelope gates the echo.
    expect(db(heard, 0, 0.5) - db(out, 0, 0.5)).toBeGreaterThanOrEqual(20);
    expect(frames.stats!.delayMs).toBeGreaterThanOrEqual(49);
    expect(frames.stats!.delayMs).toBeLessThanOrEqual(52);
  });

  it('the far end starts mid-frame (the loopback took over late): the two framers stay in step and the echo is cancelled', () => {
    const far = voice(8, 2);
    const mic = room(far, 120, -10);
    const frames = new MicEchoFrames(RATE);
    // 1.3 s in, between two 20 ms frames' boundaries.
    const out = run(frames, mic, far, 128 * 487);
    const heard = run(new MicEchoFrames(RATE), mic, null);
    expect(db(heard, 2.5, 8) - db(out, 2.5, 8)).toBeGreaterThanOrEqual(25);
    expect(Math.abs(frames.stats!.delayMs! - 120)).toBeLessThanOrEqual(2);
  });

  it('the visitor speaks over the echo: their voice goes on (within 3 dB) while the echo before it is gone', () => {
    const far = voice(8, 3);
    const visitor = voice(8, 99, 0.2).map((x, i) => (i > 4 * RATE && i < 6 * RATE ? x : 0));
    const mic = add(room(far, 50, -10), visitor);
    const fr = new MicEchoFrames(RATE);
    const out = run(fr, mic, far);
    const alone = run(new MicEchoFrames(RATE), visitor, null);
    const heard = run(new MicEchoFrames(RATE), mic, null);
    // The visitor's two seconds: what goes on carries their voice (the echo under it is the filter's to take).
    expect(Math.abs(db(out, 4.05, 6) - db(alone, 4.05, 6))).toBeLessThanOrEqual(3);
    // Block by block: ≥ 90 % of the visitor's loud 10 ms blocks go on. The envelope gate's price
    // (ADR 108): their voice and the echo out of phase can make a block look like a misfit, and the
    // 0.5 s after it gate their quieter blocks (94 % kept here; 100 % without the gate).
    let loud = 0;
    let kept = 0;
    for (let b = 405; b < 600; b++) {
      const visitorDb = db(alone, b / 100, (b + 1) / 100);
      if (visitorDb < 20 * Math.log10(0.02 * 0x8000)) continue;
      loud++;
      // The output runs 10 ms late (the gate's look-ahead).
      if (db(out, (b + 1) / 100, (b + 2) / 100) > visitorDb - 10) kept++;
    }
    expect(loud).toBeGreaterThan(60);
    expect(kept / loud).toBeGreaterThanOrEqual(0.9);
    // Before them, the echo alone: ≥ 25 dB down.
    expect(db(heard, 1, 4) - db(out, 1, 4)).toBeGreaterThanOrEqual(25);
  });

  it('headphones (a far end, no echo in the mic): after the first 1.5 s of the avatar’s voice (gated while no delay is found), the mic goes on as heard', () => {
    const far = voice(6, 4);
    const visitor = voice(6, 5, 0.2);
    const f2 = new MicEchoFrames(RATE);
    const out = run(f2, visitor, far);
    const alone = run(new MicEchoFrames(RATE), visitor, null);
    // One 10 ms block later (the gate's look-ahead), otherwise the same.
    const lag = 160;
    let diff = 0;
    let energy = 0;
    for (let i = 2.5 * 16_000; i < alone.length; i++) {
      diff += (out[i]! - alone[i - lag]!) ** 2;
      energy += alone[i - lag]! ** 2;
    }
    expect(10 * Math.log10(diff / energy + 1e-12)).toBeLessThan(-40);
  });
});
