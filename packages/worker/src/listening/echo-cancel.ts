import { Resampler } from '../core/audio.js';

/**
 * Acoustic echo cancellation of the visitor's mic (ADR 103): the avatar's own voice, played by the
 * page's speakers and heard again by its mic, taken out before the denoiser and the VAD.
 *
 * The worker knows the PCM it sent for each utterance and, from the page's `playback` reports,
 * where the page is playing it: `EchoCanceller` turns that into a far-end signal in the mic's time
 * (`far`, one sample per mic sample), and `EchoFilter` cancels it:
 * - the echo path's bulk delay is found by cross-correlating the mic with the far end over the
 *   first speech (0–400 ms, on a 4 kHz copy, refined at 16 kHz), and found again when it drifts;
 * - an NLMS filter (10 ms of taps around that delay) learns the path's shape and level and
 *   subtracts its estimate of the echo;
 * - a residual-echo gate: a 10 ms block whose energy the far end explains (the residual well below
 *   the echo estimate, or the mic no louder than the echo the path's gain predicts) is no one
 *   speaking — it goes on 60 dB down, below what the listener asks the VAD about.
 * While the avatar is silent (no far end for 400 ms + the filter's span) the mic passes untouched
 * and the cost is a copy.
 */

export const ECHO_RATE = 16_000;
/** The gate's and the double-talk detector's block: 10 ms. */
export const ECHO_BLOCK = 160;

export interface EchoFilterOptions {
  /** Longest echo path delay searched (ms). */
  maxDelayMs?: number;
  /** Taps of the adaptive filter (samples) and how many of them lie before the bulk delay. */
  taps?: number;
  preTaps?: number;
  /** NLMS step (0–1). */
  mu?: number;
  /** Residual this far under the echo estimate (dB): the block is echo. */
  residualDb?: number;
  /** Mic energy at most this far over the echo the path's gain predicts (dB): the block is echo. */
  explainedDb?: number;
  /** Mic energy this far over the predicted echo (dB), and not explained: double talk, the filter does not learn. */
  doubleTalkDb?: number;
  /** Gain of an echo block (linear). */
  gateGain?: number;
}

const DEFAULTS: Required<EchoFilterOptions> = {
  maxDelayMs: 400,
  taps: 160,
  preTaps: 16,
  mu: 2,
  residualDb: 15,
  explainedDb: 1,
  doubleTalkDb: 6,
  gateGain: 0.001,
};

/** Far-end samples under this magnitude are silence (−60 dBFS). */
const FAR_QUIET = 33;
/** The correlation window (samples): 0.4 s. */
const XCORR_WINDOW = 6400;
/** Delay search: every this many samples of far-end activity until found, then to track drift. */
const SEARCH_EVERY = 1280;
const RECHECK_EVERY = 32_000;
/** Normalised correlation a delay must reach to be believed. */
const MIN_CORR = 0.4;
/** …and one at least this clear at once (unrelated speech does not correlate so well). */
const SURE_CORR = 0.6;
/** Blocks in a row the filter's estimate made the mic louder: it is wrong (not this room's echo), forgotten. */
const WRONG_BLOCKS = 25;
/** Blocks the gate stays open after it heard the visitor (30 ms: their syllables are not chopped). */
const HANGOVER_BLOCKS = 3;
const RING = 1 << 15; // 2 s at 16 kHz
const MASK = RING - 1;

export interface DelayEstimate {
  /** Samples the mic lags the far end by. */
  delay: number;
  /** Normalised correlation at that delay (0–1). */
  corr: number;
  /** Least-squares gain of the far end at that delay onto the mic. */
  gain: number;
}

/**
 * The lag (0 … maxLag samples) at which `mic[i]` best matches `far[i - lag]`: normalised
 * cross-correlation on 4×-decimated copies, refined ±4 samples at full rate. `far` holds `maxLag`
 * samples more than `mic`, before it: far[j + maxLag] is the far end at mic time j.
 */
export function estimateDelay(mic: Float32Array, far: Float32Array, maxLag: number): DelayEstimate | null {
  const n = mic.length;
  if (far.length < n + maxLag) throw new Error('far must hold maxLag more samples than mic');
  const D = 4;
  const nd = Math.floor(n / D);
  const ld = Math.floor(maxLag / D);
  const md = new Float32Array(nd);
  const fd = new Float32Array(nd + ld);
  const off = far.length - n - ld * D; // far index of fd[0]
  for (let i = 0; i < nd; i++) md[i] = mic[i * D]! + mic[i * D + 1]! + mic[i * D + 2]! + mic[i * D + 3]!;
  for (let i = 0; i < nd + ld; i++) {
    const j = off + i * D;
    fd[i] = far[j]! + far[j + 1]! + far[j + 2]! + far[j + 3]!;
  }
  let mm = 0;
  for (let i = 0; i < nd; i++) mm += md[i]! * md[i]!;
  if (mm <= 0) return null;
  // Energy of the far window for lag l: fd[ld - l … ld - l + nd), kept by sliding.
  let ff = 0;
  for (let i = 0; i < nd; i++) ff += fd[ld + i]! * fd[ld + i]!;
  let best = -1;
  let bestLag = -1;
  for (let l = 0; l <= ld; l++) {
    if (l > 0) {
      const inn = fd[ld - l]!;
      const out = fd[ld - l + nd]!;
      ff += inn * inn - out * out;
    }
    if (ff <= 1e-9) continue;
    const base = ld - l;
    let c = 0;
    for (let i = 0; i < nd; i++) c += md[i]! * fd[base + i]!;
    const r = c / Math.sqrt(mm * ff);
    if (r > best) {
      best = r;
      bestLag = l;
    }
  }
  if (bestLag < 0) return null;
  // Full rate, around it.
  let m2 = 0;
  for (let i = 0; i < n; i++) m2 += mic[i]! * mic[i]!;
  const farAt = far.length - n; // far index of mic time 0
  let fine = { delay: bestLag * D, corr: -1, gain: 0 };
  for (let lag = Math.max(0, bestLag * D - 4); lag <= Math.min(maxLag, bestLag * D + 4); lag++) {
    let c = 0;
    let f2 = 0;
    for (let i = 0; i < n; i++) {
      const f = far[farAt + i - lag]!;
      c += mic[i]! * f;
      f2 += f * f;
    }
    if (f2 <= 0) continue;
    const r = c / Math.sqrt(m2 * f2);
    if (r > fine.corr) fine = { delay: lag, corr: r, gain: c / f2 };
  }
  return fine.corr < 0 ? null : fine;
}

/** Figures of one filter (tests, the bench, the ADR). */
export interface EchoStats {
  /** 10 ms blocks processed, with the far end active, and gated as echo. */
  blocks: number;
  activeBlocks: number;
  echoBlocks: number;
  /** The delay in use (ms), null until found; how often it was found (first and after drift). */
  delayMs: number | null;
  delayFound: number;
  /** Filters forgotten because their estimate made the mic louder (a wrong delay). */
  delayLost: number;
}

/** The DSP: mic + far end (same length, same time) → the mic without the echo. */
export class EchoFilter {
  private readonly o: Required<EchoFilterOptions>;
  private readonly maxLag: number;
  private readonly far = new Float32Array(RING);
  private readonly mic = new Float32Array(RING);
  private t = 0;
  private lastFarAt = -Infinity;
  private readonly h: Float32Array;
  /** Bulk delay (samples) and the path's gain at it; null until found. */
  private delay: number | null = null;
  private gain = 0;
  private activeSince = 0;
  private nextSearchAt = 0;
  /** Energy of the filter's input vector, kept as samples enter and leave it. */
  private xNorm = 0;
  private hangover = 0;
  /** Blocks the filter still does not learn after double talk. */
  private frozen = 0;
  /** The residual by time; it leaves `ECHO_BLOCK` samples late (the gate's look-ahead). */
  private readonly res = new Float32Array(RING);
  private lastEcho = false;
  private lastStart = 0;
  private xStale = true;
  /** A delay found once, waiting to be found again in a window that does not overlap. */
  private candidate: { delay: number; at: number } | null = null;
  /** Looking for the delay at the fast pace (after a resync). */
  private searching = false;
  /** Blocks in a row the estimate made the mic louder. */
  private wrong = 0;
  /** How far the filter takes the echo down (dB, smoothed over blocks without double talk). */
  private erleDb = 0;
  /** Samples the output lags the input by. */
  readonly latency = ECHO_BLOCK;
  readonly stats: EchoStats = { blocks: 0, activeBlocks: 0, echoBlocks: 0, delayMs: null, delayFound: 0, delayLost: 0 };

  constructor(opts: EchoFilterOptions = {}) {
    this.o = { ...DEFAULTS, ...opts };
    this.maxLag = Math.round((this.o.maxDelayMs * ECHO_RATE) / 1000);
    if (this.maxLag + this.o.taps + XCORR_WINDOW >= RING) throw new Error('echo delay search too long');
    this.h = new Float32Array(this.o.taps);
  }

  /** The far end was moved (a resync of playback): the delay is looked for again soon. */
  realign() {
    this.searching = true;
    this.nextSearchAt = Math.min(this.nextSearchAt, this.t + SEARCH_EVERY);
    this.activeSince = this.t;
  }

  /** Cancels the echo of `far` in `mic` (16 kHz PCM16, equal lengths): a new array. */
  process(mic: Int16Array, far: Int16Array): Int16Array {
    if (far.length !== mic.length) throw new Error('mic and far must be the same length');
    const out = new Int16Array(mic.length);
    for (let at = 0; at < mic.length; at += ECHO_BLOCK) {
      const end = Math.min(mic.length, at + ECHO_BLOCK);
      this.block(mic, far, at, end, out);
    }
    return out;
  }

  private block(mic: Int16Array, far: Int16Array, from: number, to: number, out: Int16Array) {
    const t0 = this.t;
    for (let i = from; i < to; i++) {
      const k = (t0 + i - from) & MASK;
      const f = far[i]!;
      this.far[k] = f;
      this.mic[k] = mic[i]!;
      if (f > FAR_QUIET || f < -FAR_QUIET) this.lastFarAt = t0 + i - from;
    }
    const n = to - from;
    this.t += n;
    this.stats.blocks++;
    const span = this.maxLag + this.o.taps + ECHO_BLOCK;
    let echo = false;
    if (this.t - this.lastFarAt > span) {
      // Nothing the mic can hear: untouched.
      for (let i = 0; i < n; i++) this.res[(t0 + i) & MASK] = this.mic[(t0 + i) & MASK]!;
      this.activeSince = this.t;
      this.hangover = 0;
      this.frozen = 0;
      this.xStale = true;
    } else {
      this.stats.activeBlocks++;
      if (this.t >= this.nextSearchAt && this.t - this.activeSince >= XCORR_WINDOW / 2) this.search();
      if (this.delay === null) for (let i = 0; i < n; i++) this.res[(t0 + i) & MASK] = this.mic[(t0 + i) & MASK]!;
      else echo = this.cancel(t0, n);
    }
    if (echo) this.stats.echoBlocks++;
    // The block before is gated only if this one is echo too (10 ms of look-ahead: a word's onset is kept).
    const gain = this.lastEcho && echo ? this.o.gateGain : 1;
    for (let t = this.lastStart; t < t0; t++) this.res[t & MASK]! *= gain;
    this.lastEcho = echo;
    this.lastStart = t0;
    for (let i = 0; i < n; i++) {
      const v = this.res[(t0 + i - ECHO_BLOCK) & MASK]!;
      out[from + i] = v > 32767 ? 32767 : v < -32768 ? -32768 : Math.round(v);
    }
  }

  /** The filter over one block (residual into `res`): whether the block is the avatar's echo alone. */
  private cancel(t0: number, n: number): boolean {
    const h = this.h;
    const taps = this.o.taps;
    const lead = this.o.preTaps - this.delay!;
    if (this.xStale) {
      this.xStale = false;
      this.xNorm = 0;
      for (let k = 0; k < taps; k++) {
        const x = this.far[(t0 - 1 + lead - k) & MASK]!;
        this.xNorm += x * x;
      }
    }
    // The filter's estimate of the echo, with the filter as it is (x[k] = far[t − delay + preTaps − k]).
    let em = 0;
    let ee = 0;
    let ey = 0;
    let ex = 0;
    for (let i = 0; i < n; i++) {
      const t = t0 + i;
      const newest = this.far[(t + lead) & MASK]!;
      const oldest = this.far[(t + lead - taps) & MASK]!;
      this.xNorm += newest * newest - oldest * oldest;
      if (this.xNorm < 0) this.xNorm = 0;
      let y = 0;
      for (let k = 0; k < taps; k++) y += h[k]! * this.far[(t + lead - k) & MASK]!;
      const m = this.mic[t & MASK]!;
      const e = m - y;
      this.res[t & MASK] = e;
      em += m * m;
      ee += e * e;
      ey += y * y;
      ex += this.xNorm;
    }
    // The estimate makes the mic louder: not this mic's echo (a delay found in someone's speech, a
    // path changed). The block goes on as heard; a filter wrong for long is forgotten.
    if (ee > em) {
      for (let i = 0; i < n; i++) this.res[(t0 + i) & MASK] = this.mic[(t0 + i) & MASK]!;
      if (++this.wrong >= WRONG_BLOCKS) this.forget();
      this.hangover = HANGOVER_BLOCKS;
      return false;
    }
    this.wrong = 0;
    // The echo the path's gain predicts for this block (mean far power over the filter's span).
    const expected = this.gain * this.gain * (ex / taps);
    const residualLow = ee * 10 ** (this.o.residualDb / 10) <= ey;
    // The block is echo when the far end explains it: what is left is far under the filter's
    // estimate, or — while the filter is still learning — the mic is no louder than the path's
    // gain predicts.
    const explained = residualLow || (this.erleDb < this.o.residualDb && em <= expected * 10 ** (this.o.explainedDb / 10));
    // Someone speaking over it (louder than the echo can be): the filter does not learn from it.
    const doubleTalk = !residualLow && em > expected * 10 ** (this.o.doubleTalkDb / 10);
    if (explained) {
      if (this.hangover > 0) this.hangover--;
    } else this.hangover = HANGOVER_BLOCKS;
    if (doubleTalk) this.frozen = HANGOVER_BLOCKS;
    else if (this.frozen > 0) this.frozen--;
    if (this.frozen === 0 && ex > n * taps * FAR_QUIET * FAR_QUIET) {
      // How far the filter takes the echo down, while no one speaks over it.
      if (ey > 0 && ee > 0) this.erleDb += 0.1 * (Math.max(-10, Math.min(40, 10 * Math.log10(em / ee))) - this.erleDb);
      // Block NLMS: one step per block along Σ e·x, normalised by the far end's power.
      const step = this.o.mu / (ex + 1);
      for (let k = 0; k < taps; k++) {
        let c = 0;
        for (let i = 0; i < n; i++) c += this.res[(t0 + i) & MASK]! * this.far[(t0 + i + lead - k) & MASK]!;
        h[k]! += step * c;
      }
    }
    return explained && this.hangover === 0;
  }

  /** The delay and the filter are wrong: looked for again from scratch. */
  private forget() {
    this.delay = null;
    this.candidate = null;
    this.wrong = 0;
    this.h.fill(0);
    this.stats.delayMs = null;
    this.stats.delayLost++;
    this.nextSearchAt = this.t + SEARCH_EVERY;
  }

  /**
   * Looks for the bulk delay over the last 0.4 s. A new one (first, or drifted) is believed at once
   * when its correlation is clear (≥ 0.6), else when a later window that does not overlap finds it
   * again (a peak in unrelated speech does not come back at the same lag); then the filter is reset
   * around it.
   */
  private search() {
    this.nextSearchAt = this.t + (this.delay === null || this.searching || this.candidate !== null ? SEARCH_EVERY : RECHECK_EVERY);
    const n = XCORR_WINDOW;
    const mic = new Float32Array(n);
    const far = new Float32Array(n + this.maxLag);
    let farE = 0;
    for (let i = 0; i < n; i++) mic[i] = this.mic[(this.t - n + i) & MASK]!;
    for (let i = 0; i < far.length; i++) {
      const f = this.far[(this.t - far.length + i) & MASK]!;
      far[i] = f;
      farE += f * f;
    }
    // Too little of the avatar's voice in the window to tell.
    if (farE < far.length * 300 * 300 * 0.1) return;
    const est = estimateDelay(mic, far, this.maxLag);
    if (!est || est.corr < MIN_CORR || est.gain <= 0) return;
    if (this.delay !== null && Math.abs(est.delay - this.delay) <= 2) {
      this.gain = Math.min(4, est.gain);
      this.candidate = null;
      this.searching = false;
      return;
    }
    // A clear peak is the echo at once; a weaker one must come back in a window of its own.
    if (est.corr < SURE_CORR) {
      if (this.candidate === null || Math.abs(est.delay - this.candidate.delay) > 2) {
        this.candidate = { delay: est.delay, at: this.t };
        return;
      }
      if (this.t - this.candidate.at < XCORR_WINDOW) return;
    }
    this.candidate = null;
    this.searching = false;
    this.delay = est.delay;
    this.gain = Math.min(4, est.gain);
    this.h.fill(0);
    this.h[this.o.preTaps] = this.gain;
    this.xStale = true;
    this.erleDb = 0;
    this.stats.delayMs = (this.delay * 1000) / ECHO_RATE;
    this.stats.delayFound++;
  }
}

/** Where the page plays an utterance now (its report carried on to now), or null: nothing plays. */
export interface PlayingNow {
  utt: number;
  playedMs: number;
  /** Held by the listener (the page stops it). */
  paused: boolean;
}

/** A jump between the far end's own count and the page's position larger than this resyncs it (ms). */
export const RESYNC_MS = 120;
/** Samples of one page mic frame (`seq` counts them): 20 ms at 16 kHz. */
const MIC_FRAME_SAMPLES = 320;
/**
 * How far from its report (mic samples) an anchor places the far end. The page reports every
 * ~500 ms, and its playback and its mic run on the same audio clock, so mic samples carry the
 * position on exactly between reports (time the worker held the voice is not counted): 10 s
 * covers reports lost or late; a mic frame a second older than the report is of a mic that
 * restarted its count.
 */
const ANCHOR_BEFORE = ECHO_RATE;
const ANCHOR_AFTER = ECHO_RATE * 10;

/**
 * One session's canceller: the avatar's audio as sent (`reference`), the page's playback position
 * (`position`, asked once per mic frame) and the filter. `process` is the listener's first step.
 */
export class EchoCanceller {
  readonly filter: EchoFilter;
  private readonly sent = new Map<number, { chunks: Int16Array[]; at: number[]; length: number; resampler: Resampler | null; rate: number }>();
  private cur: { utt: number; cursor: number } | null = null;
  /** The page's latest playback report stamped with its mic frames (ADR 103 amended): the far end in mic time. */
  private anchored: { utt: number; playedSamples: number; micSample: number; ended: boolean } | null = null;
  /** Processing time (µs) and audio (ms) processed, for the cost figure. */
  readonly cost = { us: 0, audioMs: 0 };

  constructor(
    private readonly position: () => PlayingNow | null,
    opts: EchoFilterOptions = {},
  ) {
    this.filter = new EchoFilter(opts);
  }

  /** Audio of utterance `utt` on its way to the page (PCM16 at `rate`). */
  reference(utt: number, pcm: Int16Array, rate: number) {
    let s = this.sent.get(utt);
    if (!s) {
      s = { chunks: [], at: [], length: 0, resampler: rate === ECHO_RATE ? null : new Resampler(rate, ECHO_RATE, 8), rate };
      this.sent.set(utt, s);
      // The two latest utterances are kept (one heard, one on its way).
      for (const k of this.sent.keys()) if (this.sent.size > 2 && k !== utt) this.sent.delete(k);
    }
    const x = s.resampler ? s.resampler.push(pcm) : pcm.slice();
    if (x.length === 0) return;
    s.chunks.push(x);
    s.at.push(s.length);
    s.length += x.length;
    // Minutes of an utterance are not kept: what was played more than 2 s ago, or sent more than a minute ago, is dropped.
    const keepFrom = Math.max(this.cur?.utt === utt ? this.cur.cursor - 2 * ECHO_RATE : -Infinity, s.length - 60 * ECHO_RATE);
    while (s.chunks.length > 1 && s.at[1]! <= keepFrom) {
      s.chunks.shift();
      s.at.shift();
    }
  }

  /**
   * A playback report made when the page had sent `micSeq` mic frames: `playedMs` of `utt` had
   * played by the mic's sample `micSeq × 320`. Mic frames then place the far end by their own
   * number, not by when the worker gets to them — a loaded worker (or network) delivers them in
   * bursts, and placing them by the worker's clock moved the far end by hundreds of ms, each move
   * a resync that cost the filter what it had learnt (an e2e on speakers heard the avatar's words).
   */
  anchor(utt: number, playedMs: number, micSeq: number, ended: boolean) {
    if (!Number.isFinite(playedMs) || playedMs < 0) return;
    this.anchored = { utt, playedSamples: Math.round((playedMs * ECHO_RATE) / 1000), micSample: micSeq * MIC_FRAME_SAMPLES, ended };
  }

  /** Where the page is in `p.utt` at the end of this mic audio (samples): by the mic's frame number when an anchor allows, else by the report carried on to now. */
  private targetOf(p: PlayingNow, length: number, seq: number | undefined): number {
    const a = this.anchored;
    if (seq !== undefined && a && a.utt === p.utt) {
      const since = seq * MIC_FRAME_SAMPLES + length - a.micSample;
      if (since >= -ANCHOR_BEFORE && since <= ANCHOR_AFTER) return Math.max(0, a.ended ? a.playedSamples : a.playedSamples + since);
    }
    return Math.round((p.playedMs * ECHO_RATE) / 1000);
  }

  /** Mic audio (16 kHz PCM16; `seq`: the page's frame number) → the same without the avatar's echo. */
  process(mic: Int16Array, seq?: number): Int16Array {
    const started = performance.now();
    const far = new Int16Array(mic.length);
    const p = this.position();
    // Held by the listener: the page's playback does not move while the mic goes on.
    if (p?.paused && this.anchored?.utt === p.utt) this.anchored.micSample += mic.length;
    if (p && !p.paused) {
      const target = this.targetOf(p, mic.length, seq);
      if (this.cur?.utt !== p.utt) this.cur = { utt: p.utt, cursor: Math.max(0, target - mic.length) };
      else if (Math.abs(this.cur.cursor + mic.length - target) > (RESYNC_MS * ECHO_RATE) / 1000) {
        this.cur.cursor = Math.max(0, target - mic.length);
        this.filter.realign();
      }
      this.copy(p.utt, this.cur.cursor, far);
      this.cur.cursor += mic.length;
    }
    const out = this.filter.process(mic, far);
    this.cost.us += (performance.now() - started) * 1000;
    this.cost.audioMs += (mic.length * 1000) / ECHO_RATE;
    return out;
  }

  private copy(utt: number, from: number, into: Int16Array) {
    const s = this.sent.get(utt);
    if (!s) return;
    const to = from + into.length;
    for (let c = 0; c < s.chunks.length; c++) {
      const start = s.at[c]!;
      const chunk = s.chunks[c]!;
      const end = start + chunk.length;
      if (end <= from || start >= to) continue;
      const a = Math.max(from, start);
      const b = Math.min(to, end);
      into.set(chunk.subarray(a - start, b - start), a - from);
    }
  }
}
