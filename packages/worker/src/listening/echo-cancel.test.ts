import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { resample } from '../core/audio.js';
import { ECHO_BLOCK, EchoCanceller, EchoFilter, estimateDelay, type PlayingNow } from './echo-cancel.js';

/**
 * Echo cancellation on synthetic signals (ADR 103): espeak-ng's speech as the avatar's voice, its
 * echo in the mic at −10 dB, 50 ms late, through a little low-pass filtering (a laptop's speaker
 * and room) over a quiet room's noise; the visitor (another espeak voice) talking over it.
 */
function espeak(text: string, voice = 'en-us', wpm = 160): Int16Array {
  const wav = execFileSync('espeak-ng', ['-v', voice, '-s', String(wpm), '--stdout', text]);
  const rate = wav.readUInt32LE(24);
  const at = wav.indexOf('data', 12) + 8;
  const bytes = wav.subarray(at, at + ((wav.length - at) & ~1));
  const pcm = new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  return resample(pcm, rate, 16_000);
}

const AVATAR = 'Of course. The museum opens at nine in the morning and closes at five in the evening, every day except Monday. Tickets are sold at the door.';
const VISITOR = 'Wait, what about Sundays?';

let seed = 7;
function noise(amp: number) {
  seed = (seed * 1103515245 + 12345) & 0x7fffffff;
  return ((seed / 0x7fffffff) * 2 - 1) * amp;
}

/** The mic hearing `far` through the speaker: delayed, `gainDb` down, low-passed, with a reflection, over noise. */
function echoOf(far: Int16Array, { gainDb = -10, delayMs = 50, noiseAmp = 33 } = {}): Float32Array {
  const g = 10 ** (gainDb / 20);
  const d = Math.round(delayMs * 16);
  const out = new Float32Array(far.length);
  let lp = 0;
  for (let i = 0; i < far.length; i++) {
    const x = i - d >= 0 ? far[i - d]! : 0;
    const refl = i - d - 80 >= 0 ? far[i - d - 80]! * 0.3 : 0; // a wall 5 ms further
    lp = 0.6 * lp + 0.4 * (x + refl);
    out[i] = lp * g + noise(noiseAmp);
  }
  return out;
}

const toPcm = (x: Float32Array) => Int16Array.from(x, (v) => Math.max(-32768, Math.min(32767, Math.round(v))));

function energy(x: ArrayLike<number>, from = 0, to = x.length) {
  let e = 0;
  for (let i = from; i < to; i++) e += x[i]! * x[i]!;
  return e;
}

/** Runs the filter in 20 ms frames; its output, moved back by its latency (10 ms), lines up with the mic. */
function run(filter: EchoFilter, mic: Int16Array, far: Int16Array): Int16Array {
  const out = new Int16Array(mic.length);
  for (let at = 0; at + 320 <= mic.length; at += 320) out.set(filter.process(mic.subarray(at, at + 320), far.subarray(at, at + 320)), at);
  const aligned = new Int16Array(mic.length);
  aligned.set(out.subarray(filter.latency));
  return aligned;
}

/** Sum over 10 ms blocks where `mask` says so. */
function blockEnergy(x: ArrayLike<number>, blocks: (b: number) => boolean) {
  let e = 0;
  for (let b = 0; (b + 1) * ECHO_BLOCK <= x.length; b++) if (blocks(b)) e += energy(x, b * ECHO_BLOCK, (b + 1) * ECHO_BLOCK);
  return e;
}

const farSpeech = espeak(AVATAR);

describe('the echo path delay', () => {
  it.each([0, 50, 120, 380])('is found by cross-correlation over the first speech (%i ms)', (delayMs) => {
    const mic = echoOf(farSpeech, { delayMs });
    const n = 6400;
    const maxLag = 6400;
    const start = 8000; // half a second in: speech
    const far = Float32Array.from(farSpeech.subarray(start - maxLag, start + n));
    const est = estimateDelay(mic.subarray(start, start + n), far, maxLag);
    expect(est).not.toBeNull();
    // The low-pass and the reflection put the peak within a millisecond of the direct path.
    expect(Math.abs(est!.delay - delayMs * 16)).toBeLessThanOrEqual(16);
    expect(est!.corr).toBeGreaterThan(0.5);
  });

  it("is found again when the path drifts (the page's playback re-synced)", () => {
    const filter = new EchoFilter();
    const first = echoOf(farSpeech, { delayMs: 50 });
    const half = 64_000;
    run(filter, toPcm(first).subarray(0, half), farSpeech.subarray(0, half));
    expect(filter.stats.delayMs).toBeCloseTo(50, -1);
    const moved = echoOf(farSpeech, { delayMs: 150 });
    filter.realign();
    run(filter, toPcm(moved).subarray(half), farSpeech.subarray(half, farSpeech.length - ((farSpeech.length - half) % 320)));
    expect(Math.abs(filter.stats.delayMs! - 150)).toBeLessThanOrEqual(2);
    // Found again by the search, or reached by the filter following the path in steps (ADR 108).
    expect(filter.stats.delayFound + filter.stats.delayMoved).toBeGreaterThanOrEqual(2);
    expect(filter.stats.delayMoved).toBeLessThanOrEqual(6);
    expect(filter.stats.delayLost).toBe(0);
  });
});

describe('cancellation', () => {
  it('takes the echo down (ERLE) and gates what is left', () => {
    const filter = new EchoFilter();
    const mic = toPcm(echoOf(farSpeech));
    const out = run(filter, mic, farSpeech);
    // After the first second (the delay found, the filter adapted), blocks where the avatar speaks.
    const loud = (b: number) => b >= 100 && energy(mic, b * ECHO_BLOCK, (b + 1) * ECHO_BLOCK) > ECHO_BLOCK * 300 * 300;
    const erle = 10 * Math.log10(blockEnergy(mic, loud) / blockEnergy(out, loud));
    // Linear cancellation alone, gate off.
    const linear = new EchoFilter({ gateGain: 1 });
    const lin = run(linear, mic, farSpeech);
    const erleLinear = 10 * Math.log10(blockEnergy(mic, loud) / blockEnergy(lin, loud));
    console.info(`ERLE: linear ${erleLinear.toFixed(1)} dB, with the gate ${erle.toFixed(1)} dB; echo blocks ${filter.stats.echoBlocks}/${filter.stats.activeBlocks}`);
    expect(erleLinear).toBeGreaterThan(12);
    expect(erle).toBeGreaterThan(25);
    expect(filter.stats.delayMs).toBeCloseTo(50, -1);
  });

  it('follows a path that jumps by 10 ms at once (a stream between two audio clocks drops or repeats a chunk, ADR 108): the filter moves whole, nothing is forgotten', () => {
    // 80 ms, then 70 ms from 3 s, then 80 ms again from 6 s; the control stays at 80 ms.
    const paths = [echoOf(farSpeech, { delayMs: 80 }), echoOf(farSpeech, { delayMs: 70 })];
    const steadyMic = toPcm(paths[0]!);
    const jumpingMic = toPcm(paths[0]!.map((v, i) => (i >= 48_000 && i < 96_000 ? paths[1]![i]! : v)));
    const erleOf = (filter: EchoFilter, mic: Int16Array) => {
      const out = run(filter, mic, farSpeech);
      const loud = (b: number) => b >= 100 && energy(mic, b * ECHO_BLOCK, (b + 1) * ECHO_BLOCK) > ECHO_BLOCK * 300 * 300;
      return 10 * Math.log10(blockEnergy(mic, loud) / blockEnergy(out, loud));
    };
    const steady = new EchoFilter();
    const steadyErle = erleOf(steady, steadyMic);
    const jumping = new EchoFilter();
    const jumpingErle = erleOf(jumping, jumpingMic);
    // The page's filter also gates by the far end's envelope where it may not fit.
    const gated = new EchoFilter({ envelopeGate: true });
    const gatedErle = erleOf(gated, jumpingMic);
    console.info(`path jumps: ERLE ${jumpingErle.toFixed(1)} dB, with the envelope gate ${gatedErle.toFixed(1)} dB (steady path ${steadyErle.toFixed(1)} dB); ${JSON.stringify(jumping.stats)}`);
    // Each jump followed (before: found again by the 2 s search, ERLE 9.1 dB), the filter kept.
    for (const f of [jumping, gated]) {
      expect(f.stats.delayMoved).toBe(2);
      expect(f.stats.delayLost).toBe(0);
      expect(f.stats.delayFound).toBe(1);
      expect(Math.abs(f.stats.delayMs! - 80)).toBeLessThanOrEqual(1);
    }
    expect(jumpingErle).toBeGreaterThan(18);
    expect(gatedErle).toBeGreaterThan(24);
    // A steady path is never moved (a voiced sound matching itself a pitch period or a reflection away is not a jump).
    expect(steady.stats.delayMoved).toBe(0);
    expect(steadyErle).toBeGreaterThan(25);
  });

  it('a digitally silent mic (no hiss): the quiet tail of each answer does not make the filter forget the path (ADR 108)', () => {
    // Three answers of 3 s, 1 s apart, each followed by a codec's low hiss (±3, far under −60 dBFS);
    // the mic hears only their echo, rounded to whole samples — over the hiss, almost all zeros.
    const piece = farSpeech.subarray(0, 48_000);
    const far = new Int16Array(12 * 16_000);
    for (const at of [0, 64_000, 128_000]) {
      far.set(piece, at);
      for (let i = at + 48_000; i < at + 64_000; i++) far[i] = Math.round(noise(3));
    }
    const mic = toPcm(echoOf(far, { delayMs: 60, noiseAmp: 0 }));
    const filter = new EchoFilter();
    run(filter, mic, far);
    // Before: each answer's tail (its estimate over a mic of zeros) counted as a misfit — forgotten, found again.
    expect(filter.stats.delayLost).toBe(0);
    expect(filter.stats.delayFound).toBe(1);
    expect(Math.abs(filter.stats.delayMs! - 60)).toBeLessThanOrEqual(1);
  });

  it('the path moved while the avatar was silent: the next answer’s first words are gated by the far end’s envelope until the filter has moved (ADR 108)', () => {
    // Two answers of 3 s with 1 s of silence between; the echo 80 ms late in the first, 72 ms in the second.
    const piece = farSpeech.subarray(0, 48_000);
    const far = new Int16Array(7 * 16_000);
    far.set(piece, 0);
    far.set(piece, 64_000);
    const first = echoOf(far, { delayMs: 80 });
    const second = echoOf(far, { delayMs: 72 });
    const mic = toPcm(first.map((v, i) => (i < 64_000 ? v : second[i]!)));
    /** The second answer's first half second: its loud blocks (the echo alone) left for the VAD. */
    const leaks = (filter: EchoFilter) => {
      const out = run(filter, mic, far);
      let leaked = 0;
      for (let b = 400; b < 450; b++) {
        const e = energy(mic, b * ECHO_BLOCK, (b + 1) * ECHO_BLOCK);
        if (e > ECHO_BLOCK * 300 * 300 && energy(out, b * ECHO_BLOCK, (b + 1) * ECHO_BLOCK) * 100 > e) leaked++;
      }
      return leaked;
    };
    const page = new EchoFilter({ envelopeGate: true });
    const leaked = leaks(page);
    const worker = new EchoFilter();
    const leakedWorker = leaks(worker);
    console.info(`after a silence, the path 8 ms shorter: loud blocks of the next answer's first 0.5 s less than 20 dB down — ${leaked} with the envelope gate, ${leakedWorker} without; ${JSON.stringify(page.stats)}`);
    expect(page.stats.delayMoved + page.stats.delayFound).toBeGreaterThanOrEqual(2);
    expect(leaked).toBe(0);
    expect(leakedWorker).toBeGreaterThan(0);
  });

  it('keeps the visitor talking over it (double talk)', () => {
    const filter = new EchoFilter();
    const echo = echoOf(farSpeech);
    const visitor = espeak(VISITOR, 'en-gb+f3');
    // The visitor starts 4 s in, about as loud in the mic as the echo plus 6 dB (nearer than the speaker).
    const at = 64_000;
    const mic = new Float32Array(echo);
    for (let i = 0; i < visitor.length && at + i < mic.length; i++) mic[at + i]! += visitor[i]! * 0.6;
    const pcm = toPcm(mic);
    const out = run(filter, pcm, farSpeech);
    // The visitor's blocks come through nearly whole; the echo-only ones before them do not.
    const vStart = at / ECHO_BLOCK;
    const vEnd = (at + visitor.length) / ECHO_BLOCK;
    const vLoud = (b: number) => b >= vStart && b < vEnd && energy(visitor, b * ECHO_BLOCK - at, (b + 1) * ECHO_BLOCK - at) * 0.36 > ECHO_BLOCK * 1000 * 1000;
    const kept = blockEnergy(out, vLoud) / blockEnergy(Float32Array.from(pcm), vLoud);
    const before = (b: number) => b >= 100 && b < vStart;
    const left = blockEnergy(out, before) / blockEnergy(Float32Array.from(pcm), before);
    console.info(`double talk: visitor's loud blocks kept ${(10 * Math.log10(kept)).toFixed(1)} dB, echo before ${(10 * Math.log10(left)).toFixed(1)} dB`);
    expect(10 * Math.log10(kept)).toBeGreaterThan(-3);
    expect(10 * Math.log10(left)).toBeLessThan(-20);
  });

  it("with headphones (none of the avatar's voice in the mic), the visitor talking while it speaks comes through as heard", () => {
    const filter = new EchoFilter();
    // Six seconds of the visitor's own speech (two voices, nothing of the avatar's) over its quiet room.
    const said = [espeak(VISITOR, 'en-gb+f3'), espeak('Mm-hm. Yeah. Okay, and what about the gardens?', 'en-us+m3'), espeak(VISITOR, 'en-us')];
    const mic = new Int16Array(farSpeech.length);
    let at = 8000;
    for (const v of said) {
      for (let i = 0; i < v.length && at + i < mic.length; i++) mic[at + i] = Math.round(v[i]! * 0.6 + noise(33));
      at += v.length + 4000;
    }
    const out = run(filter, mic, farSpeech);
    const end = mic.length - 320;
    // Nothing added, nothing taken: the output is the mic, 10 ms late.
    let diff = 0;
    for (let i = 0; i < end; i++) diff += (out[i]! - mic[i]!) ** 2;
    const db = 10 * Math.log10(diff / energy(mic, 0, end) + 1e-12);
    console.info(`no echo in the mic: output − mic ${db.toFixed(1)} dB, delay ${filter.stats.delayMs}, found ${filter.stats.delayFound}, forgotten ${filter.stats.delayLost}`);
    expect(db).toBeLessThan(-30);
  });

  it('leaves the mic untouched while the avatar is silent', () => {
    const filter = new EchoFilter();
    const mic = toPcm(Float32Array.from({ length: 16_000 }, () => noise(3000)));
    const out = run(filter, mic, new Int16Array(mic.length));
    expect(out.subarray(0, 15_840)).toEqual(mic.subarray(0, 15_840));
    expect(filter.stats.activeBlocks).toBe(0);
  });
});

describe('EchoCanceller: the reference the worker sent, where the page plays it', () => {
  it("lines the audio sent up with the page's position and cancels its echo", () => {
    let played = 0;
    const canceller = new EchoCanceller((): PlayingNow | null => (played > 0 && played < farSpeech.length + 16_000 ? { utt: 3, playedMs: played / 16, paused: false } : null));
    // The avatar's voice sent at 24 kHz in 100 ms pieces, ahead of the playback.
    const sent = resample(farSpeech, 16_000, 24_000);
    for (let at = 0; at < sent.length; at += 2400) canceller.reference(3, sent.subarray(at, at + 2400), 24_000);
    const echo = toPcm(echoOf(farSpeech));
    const out = new Int16Array(echo.length);
    for (let at = 0; at + 320 <= echo.length; at += 320) {
      played = at + 320;
      out.set(canceller.process(echo.subarray(at, at + 320)), at);
    }
    out.copyWithin(0, canceller.filter.latency);
    const loud = (b: number) => b >= 100 && energy(echo, b * ECHO_BLOCK, (b + 1) * ECHO_BLOCK) > ECHO_BLOCK * 300 * 300;
    const erle = 10 * Math.log10(blockEnergy(echo, loud) / blockEnergy(out, loud));
    expect(erle).toBeGreaterThan(25);
    // Its cost: µs per 10 ms of audio (the figure in ADR 103).
    const perTenMs = canceller.cost.us / (canceller.cost.audioMs / 10);
    console.info(`EchoCanceller: ERLE ${erle.toFixed(1)} dB, ${perTenMs.toFixed(0)} µs per 10 ms while the avatar speaks`);
    expect(perTenMs).toBeGreaterThan(0);
  });
});

describe("EchoCanceller: the far end placed by the page's mic frame numbers (ADR 103 amended)", () => {
  /**
   * A loaded worker gets the page's frames in bursts: frame k is processed `lag(k)` after the page
   * captured it (0 → 380 ms and back, every 20 frames), while the page plays in real time and
   * reports every 20 ms — each report stamped with the mic frames it had sent, and itself arriving
   * three frames late. Placed by the worker's clock, the far end moves with the lag; placed by the
   * frames' numbers, it does not.
   */
  function bursty(useSeq: boolean) {
    let workerPlayedMs = 0;
    const canceller = new EchoCanceller((): PlayingNow | null => ({ utt: 3, playedMs: workerPlayedMs, paused: false }));
    canceller.reference(3, farSpeech, 16_000);
    const echo = toPcm(echoOf(farSpeech));
    const out = new Int16Array(echo.length);
    let realigns = 0;
    const realign = canceller.filter.realign.bind(canceller.filter);
    canceller.filter.realign = () => {
      realigns++;
      realign();
    };
    for (let k = 0; (k + 1) * 320 <= echo.length; k++) {
      const lagMs = (k % 20) * 20;
      // What the worker's clock says the page has played when it gets to frame k.
      workerPlayedMs = ((k + 1) * 320) / 16 + lagMs;
      // The page reports every 500 ms (25 frames); each report reaches the worker three frames late.
      const report = k - 3;
      if (useSeq && report >= 0 && report % 25 === 0) canceller.anchor(3, ((report + 1) * 320) / 16, report + 1, false);
      out.set(canceller.process(echo.subarray(k * 320, (k + 1) * 320), useSeq ? k : undefined), k * 320);
    }
    out.copyWithin(0, canceller.filter.latency);
    const loud = (b: number) => b >= 100 && energy(echo, b * ECHO_BLOCK, (b + 1) * ECHO_BLOCK) > ECHO_BLOCK * 300 * 300;
    return { erle: 10 * Math.log10(blockEnergy(echo, loud) / blockEnergy(out, loud)), realigns };
  }

  it('keeps the echo cancelled when the frames arrive in bursts; by the worker’s clock it resyncs and leaks (the control)', () => {
    const bySeq = bursty(true);
    const byClock = bursty(false);
    console.info(`bursty frames: by frame number ERLE ${bySeq.erle.toFixed(1)} dB, ${bySeq.realigns} resyncs; by the worker's clock ERLE ${byClock.erle.toFixed(1)} dB, ${byClock.realigns} resyncs`);
    expect(bySeq.realigns).toBe(0);
    expect(bySeq.erle).toBeGreaterThan(25);
    expect(byClock.realigns).toBeGreaterThan(10);
    expect(byClock.erle).toBeLessThan(bySeq.erle - 10);
  });

  it('falls back to the report carried on to now without an anchor that fits (an old page, another utterance, a restarted mic)', () => {
    let played = 0;
    const canceller = new EchoCanceller((): PlayingNow | null => (played > 0 ? { utt: 3, playedMs: played / 16, paused: false } : null));
    canceller.reference(3, farSpeech, 16_000);
    // An anchor of another utterance, and one of a mic whose count restarted since: neither places the far end.
    canceller.anchor(2, 100, 0, false);
    const echo = toPcm(echoOf(farSpeech));
    const out = new Int16Array(echo.length);
    for (let k = 0; (k + 1) * 320 <= echo.length; k++) {
      played = (k + 1) * 320;
      if (k === 300) canceller.anchor(3, 0, 100_000, false);
      out.set(canceller.process(echo.subarray(k * 320, (k + 1) * 320), k), k * 320);
    }
    out.copyWithin(0, canceller.filter.latency);
    const loud = (b: number) => b >= 100 && energy(echo, b * ECHO_BLOCK, (b + 1) * ECHO_BLOCK) > ECHO_BLOCK * 300 * 300;
    expect(10 * Math.log10(blockEnergy(echo, loud) / blockEnergy(out, loud))).toBeGreaterThan(25);
  });

  it('does not count the time the voice was held: after a hold the anchor still places the far end', () => {
    let paused = false;
    let playedSamples = 0;
    // The worker's clock is off by 300 ms (a loaded worker): only the anchor can place the far end.
    const canceller = new EchoCanceller((): PlayingNow | null => ({ utt: 3, playedMs: playedSamples / 16 + 300, paused }));
    canceller.reference(3, farSpeech, 16_000);
    const echo = toPcm(echoOf(farSpeech));
    const holdFrames = 40;
    const mic = new Int16Array(echo.length + holdFrames * 320);
    // 0.8 s held from frame 150: the room is silent, then the voice goes on where it stopped.
    mic.set(echo.subarray(0, 150 * 320), 0);
    mic.set(echo.subarray(150 * 320), (150 + holdFrames) * 320);
    const out = new Int16Array(mic.length);
    let realigns = 0;
    const realign = canceller.filter.realign.bind(canceller.filter);
    canceller.filter.realign = () => {
      realigns++;
      realign();
    };
    canceller.anchor(3, 0, 0, false);
    for (let k = 0; (k + 1) * 320 <= mic.length; k++) {
      paused = k >= 150 && k < 150 + holdFrames;
      if (!paused) playedSamples += 320;
      out.set(canceller.process(mic.subarray(k * 320, (k + 1) * 320), k), k * 320);
    }
    out.copyWithin(0, canceller.filter.latency);
    const loud = (b: number) => b >= (150 + holdFrames + 20) * 2 && energy(mic, b * ECHO_BLOCK, (b + 1) * ECHO_BLOCK) > ECHO_BLOCK * 300 * 300;
    expect(realigns).toBe(0);
    expect(10 * Math.log10(blockEnergy(mic, loud) / blockEnergy(out, loud))).toBeGreaterThan(25);
  });
});
