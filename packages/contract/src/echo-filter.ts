/**
 * Acoustic echo cancellation, the DSP (ADR 103): a signal heard by a microphone and the far end
 * that made its echo (16 kHz PCM16, sample for sample in the mic's time) → the mic without the
 * echo. Pure, with no dependency, so that both sides that hear the visitor run the same filter:
 * the worker (its `EchoCanceller` places the audio it sent by the page's playback reports) and the
 * page's microphone worklet (its far end is what the page itself makes audible — ADR 108).
 *
 * - the echo path's bulk delay is found by cross-correlating the mic with the far end over the
 *   first speech (0–400 ms, on a 4 kHz copy, refined at 16 kHz), and found again when it drifts;
 * - an NLMS filter (10 ms of taps around that delay) learns the path's shape and level and
 *   subtracts its estimate of the echo;
 * - a residual-echo gate: a 10 ms block whose energy the far end explains (the residual well below
 *   the echo estimate, or the mic no louder than the echo the path's gain predicts) is no one
 *   speaking — it goes on 60 dB down, below what the listener asks the VAD about.
 * While the far end is silent (for 400 ms + the filter's span) the mic passes untouched and the
 * cost is a copy.
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
  /**
   * With no delay found yet, gate by the far end's envelope for this much of the avatar's voice
   * (ms; 0: not at all) — see `beforeFound`. The page's canceller, which runs only where the browser
   * cancels no echo (speakers, most likely), uses it; the worker's, which runs behind every browser
   * (headphones too, where no delay is ever found), does not.
   */
  priorGateMs?: number;
  /**
   * Gate by the far end's envelope where the filter may not fit: in a block that does not fit, for
   * 0.5 s after one or after the filter moved, and over the first 0.5 s of each stretch of the far
   * end after a silence (ADR 108). The page's canceller sets it; the worker's, behind every browser,
   * keeps ADR 103's rule (a block that does not fit goes on as heard).
   */
  envelopeGate?: boolean;
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
  priorGateMs: 0,
  envelopeGate: false,
};

/** Far-end samples under this magnitude are silence (−60 dBFS). */
const FAR_QUIET = 33;
/** Far-end power (per sample) of speech a delay search can go by: ~−30 dBFS and up. */
const FAR_SPEECH = 300 * 300 * 0.1;
/** The correlation window (samples): 0.4 s. */
const XCORR_WINDOW = 6400;
/** Delay search: every this many samples of far-end activity until found, then to track drift. */
const SEARCH_EVERY = 1280;
const RECHECK_EVERY = 32_000;
/** Fast searches (80 ms apart: 4 s of the far end) that found nothing before the slow pace. */
const GIVE_UP_SEARCHES = 50;
/** Normalised correlation a delay must reach to be believed. */
const MIN_CORR = 0.4;
/** …and one at least this clear at once (unrelated speech does not correlate so well). */
const SURE_CORR = 0.6;
/** Blocks in a row the filter's estimate made the mic louder: it is wrong (not this room's echo), forgotten. */
const WRONG_BLOCKS = 25;
/**
 * A path that jumped (ADR 108: a stream between two audio clocks drops or repeats a 10 ms chunk):
 * the filter's estimate no longer fits, and the delay is looked for again around where it was —
 * ± this many samples (40 ms), over the last `RELOCATE_WINDOW` (40 ms; every 2nd lag on a 4 kHz
 * copy, then refined at 16 kHz) — on each block that does not fit, and moved there when the match
 * is this clear (and this much clearer than where the filter looks).
 */
const RELOCATE_SPAN = 640;
const RELOCATE_WINDOW = 640;
const RELOCATE_CORR = 0.7;
const RELOCATE_MARGIN = 0.2;
/**
 * While the filter does not fit, a block is the echo alone when the mic is no louder than the far
 * end's loudest 10 ms within ± `ENVELOPE_BLOCKS` blocks of the delay (the path may have moved that
 * far) times the path's gain, plus `ENVELOPE_DB`: what the room can have brought back.
 */
const ENVELOPE_BLOCKS = 4;
const ENVELOPE_DB = 3;
/** …and for this many blocks after the last one that did not fit, after the filter moved, and at the start of each stretch of the avatar's voice (0.5 s). */
const UNSETTLED_BLOCKS = 50;
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
  /** Jumps of the path followed at once, the filter kept (its taps moved with the delay). */
  delayMoved: number;
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
  /** Blocks left in which the envelope still gates after the path moved (`UNSETTLED_BLOCKS`). */
  private unsettled = 0;
  /** Far-end speech (samples) met with no delay known since the last one was found (`beforeFound`). */
  private unfoundSamples = 0;
  /** Searches in a row that found no delay while none is known (`GIVE_UP_SEARCHES`). */
  private unfoundSearches = 0;
  /** The search's windows, kept (it runs on an audio thread in the page: no garbage per search). */
  private readonly scratchMic = new Float32Array(XCORR_WINDOW);
  private readonly scratchFar: Float32Array;
  /** Where the last block that did not fit put the delay (`relocate`), not yet confirmed. */
  private move: { lag: number; t: number } | null = null;
  /** How far the filter takes the echo down (dB, smoothed over blocks without double talk). */
  private erleDb = 0;
  /** Samples the output lags the input by. */
  readonly latency = ECHO_BLOCK;
  readonly stats: EchoStats = { blocks: 0, activeBlocks: 0, echoBlocks: 0, delayMs: null, delayFound: 0, delayLost: 0, delayMoved: 0 };

  constructor(opts: EchoFilterOptions = {}) {
    this.o = { ...DEFAULTS, ...opts };
    this.maxLag = Math.round((this.o.maxDelayMs * ECHO_RATE) / 1000);
    if (this.maxLag + this.o.taps + XCORR_WINDOW >= RING) throw new Error('echo delay search too long');
    this.h = new Float32Array(this.o.taps);
    this.scratchFar = new Float32Array(XCORR_WINDOW + this.maxLag);
  }

  /** The far end was moved (a resync of playback): the delay is looked for again soon. */
  realign() {
    this.move = null;
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
      this.wrong = 0;
      this.move = null;
      this.xStale = true;
      // The path may have moved while the avatar was silent (nothing to follow it by): its next
      // words start unsettled.
      this.unsettled = UNSETTLED_BLOCKS;
    } else {
      this.stats.activeBlocks++;
      if (this.t >= this.nextSearchAt && this.t - this.activeSince >= XCORR_WINDOW / 2) this.search();
      if (this.delay === null) {
        for (let i = 0; i < n; i++) this.res[(t0 + i) & MASK] = this.mic[(t0 + i) & MASK]!;
        echo = this.beforeFound(t0, n);
      } else echo = this.cancel(t0, n);
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
    // path changed). The block goes on as heard; a filter wrong for long is forgotten. Not so when
    // the estimate is under the noise floor (the tail of the avatar's voice over a silent mic —
    // a digital one is silent to the sample): nothing there says the filter is wrong.
    if (ee > em && ey > n * FAR_QUIET * FAR_QUIET) {
      this.unsettled = UNSETTLED_BLOCKS;
      for (let i = 0; i < n; i++) this.res[(t0 + i) & MASK] = this.mic[(t0 + i) & MASK]!;
      const envelope = this.o.envelopeGate ? this.farEnvelope(t0, n) : 0;
      if (this.relocate()) this.wrong = 0;
      else if (++this.wrong >= WRONG_BLOCKS) this.forget();
      // Until it fits again, the far end's envelope tells the echo alone from the visitor.
      if (this.o.envelopeGate && em <= this.gain * this.gain * envelope * 10 ** (ENVELOPE_DB / 10)) {
        if (this.hangover > 0) this.hangover--;
        return this.hangover === 0;
      }
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
    // Just after the path moved (a misfit block, the filter moved or reset: `unsettled`), the
    // filter may fit only in part; the far end's envelope gates as in a misfit block.
    if (this.unsettled > 0) this.unsettled--;
    const explained =
      residualLow ||
      (this.erleDb < this.o.residualDb && em <= expected * 10 ** (this.o.explainedDb / 10)) ||
      (this.o.envelopeGate && this.unsettled > 0 && em <= this.gain * this.gain * this.farEnvelope(t0, n) * 10 ** (ENVELOPE_DB / 10));
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

  /**
   * No delay yet (the session's first speech, or after a filter was forgotten): the first 0.2–0.4 s
   * of the avatar's voice would reach the VAD whole. A block is taken for the echo when the mic is
   * no louder than the far end's loudest 10 ms anywhere in the searched span, at the path's gain
   * once measured (else 0 dB: a speaker's echo is quieter than what it plays) — for the first
   * `priorGateMs` of far-end speech only (none by default): with headphones no delay is ever found,
   * and a visitor quieter than the avatar's voice must not stay gated.
   */
  private beforeFound(t0: number, n: number): boolean {
    if (this.unfoundSamples >= (this.o.priorGateMs * ECHO_RATE) / 1000) return false;
    this.unfoundSamples += n;
    let em = 0;
    for (let i = 0; i < n; i++) em += this.mic[(t0 + i) & MASK]! ** 2;
    let most = 0;
    for (let from = t0 - this.maxLag - ECHO_BLOCK; from <= t0; from += ECHO_BLOCK / 2) {
      let e = 0;
      for (let i = from; i < from + n; i++) e += this.far[i & MASK]! ** 2;
      if (e > most) most = e;
    }
    const gain = this.gain > 0 ? this.gain : 1;
    const explained = em <= gain * gain * most * 10 ** (ENVELOPE_DB / 10);
    if (explained) {
      if (this.hangover > 0) this.hangover--;
      return this.hangover === 0;
    }
    this.hangover = HANGOVER_BLOCKS;
    return false;
  }

  /** The far end's largest energy over one block's length within ± `ENVELOPE_BLOCKS` blocks of where the delay puts this block. */
  private farEnvelope(t0: number, n: number): number {
    let most = 0;
    const from = t0 - this.delay! - ENVELOPE_BLOCKS * ECHO_BLOCK;
    for (let b = 0; b <= 2 * ENVELOPE_BLOCKS; b++) {
      let e = 0;
      const start = from + b * ECHO_BLOCK;
      // Only what has been written (a short delay puts the later blocks in the future).
      if (start + n > this.t) break;
      for (let i = start; i < start + n; i++) e += this.far[i & MASK]! ** 2;
      if (e > most) most = e;
    }
    return most;
  }

  /**
   * The path jumped by a few ms (the filter's estimate stopped fitting at once): the delay is looked
   * for within ±40 ms of where it was, over the last 40 ms (normalised correlation, coarse on a 4 kHz
   * copy, refined at 16 kHz), and when it is clearly elsewhere — and the next misfit block agrees —
   * the filter moves there whole: its taps are the path's shape relative to the bulk delay, so moving
   * the delay moves them. Whether it moved.
   */
  private relocate(): boolean {
    const d = this.delay;
    if (d === null) return false;
    const n = RELOCATE_WINDOW;
    const end = this.t;
    let mm = 0;
    for (let i = end - n; i < end; i++) mm += this.mic[i & MASK]! ** 2;
    if (mm <= 0) return false;
    /** Normalised correlation of the window with the far end `lag` samples earlier, at full rate. */
    const at = (lag: number) => {
      let c = 0;
      let ff = 0;
      for (let i = end - n; i < end; i++) {
        const f = this.far[(i - lag) & MASK]!;
        c += this.mic[i & MASK]! * f;
        ff += f * f;
      }
      return { lag, ff, corr: ff < n * FAR_QUIET * FAR_QUIET ? 0 : c / Math.sqrt(mm * ff), gain: ff > 0 ? c / ff : 0 };
    };
    // Where the filter looks, the avatar must be speaking: a misfit over its silence is no jump.
    const current = at(d);
    if (current.ff < n * FAR_SPEECH) return false;
    // Coarse, on sums of 4 samples (a 4 kHz copy: 1/16 of the work), then refined at full rate.
    // Not under the taps that lie before the bulk delay: they would read the far end ahead of now.
    const lo = Math.max(this.o.preTaps, d - RELOCATE_SPAN);
    const hi = Math.min(this.maxLag, d + RELOCATE_SPAN);
    const nd = n >> 2;
    const md = new Float32Array(nd);
    for (let j = 0; j < nd; j++) {
      const i = end - n + 4 * j;
      md[j] = this.mic[i & MASK]! + this.mic[(i + 1) & MASK]! + this.mic[(i + 2) & MASK]! + this.mic[(i + 3) & MASK]!;
    }
    // far4[x] = the far end's 4 samples from end − n − hi + x.
    const base = end - n - hi;
    const far4 = new Float32Array(n + hi - lo + 1);
    for (let x = 0; x < far4.length; x++) {
      const i = base + x;
      far4[x] = this.far[i & MASK]! + this.far[(i + 1) & MASK]! + this.far[(i + 2) & MASK]! + this.far[(i + 3) & MASK]!;
    }
    let coarse = { lag: -1, corr: 0 };
    let mmd = 0;
    for (let j = 0; j < nd; j++) mmd += md[j]! * md[j]!;
    for (let lag = lo; lag <= hi; lag += 2) {
      let c = 0;
      let ff = 0;
      const off = hi - lag;
      for (let j = 0; j < nd; j++) {
        const f = far4[off + 4 * j]!;
        c += md[j]! * f;
        ff += f * f;
      }
      if (ff <= 0) continue;
      const r = c / Math.sqrt(mmd * ff);
      if (r > coarse.corr) coarse = { lag, corr: r };
    }
    if (coarse.lag < 0) return false;
    let best = { lag: -1, corr: 0, gain: 0 };
    for (let lag = Math.max(lo, coarse.lag - 3); lag <= Math.min(hi, coarse.lag + 3); lag++) {
      const r = at(lag);
      if (r.corr > best.corr) best = r;
    }
    let here = current.corr;
    for (const lag of [d - 2, d - 1, d + 1, d + 2]) here = Math.max(here, at(lag).corr);
    // Clearly elsewhere: a voiced sound also matches itself a pitch period away, and a quiet block's
    // misfit is no jump — the delay in use must match markedly worse.
    if (best.corr < RELOCATE_CORR || best.corr - here < RELOCATE_MARGIN || Math.abs(best.lag - d) <= 2 || best.gain <= 0) return false;
    // Speech also matches other speech a few tens of ms away now and then: the next block that does
    // not fit must find the same place (within 3 blocks) before the filter moves.
    const pending = this.move;
    this.move = { lag: best.lag, t: this.t };
    if (!pending || this.t - pending.t > 3 * ECHO_BLOCK || Math.abs(pending.lag - best.lag) > 2) return false;
    this.move = null;
    this.delay = best.lag;
    this.xStale = true;
    this.stats.delayMs = (best.lag * 1000) / ECHO_RATE;
    this.stats.delayMoved++;
    // A search over a window mostly from before the jump would find the old delay again.
    this.nextSearchAt = Math.max(this.nextSearchAt, this.t + XCORR_WINDOW);
    return true;
  }


  /** The delay and the filter are wrong: looked for again from scratch. */
  private forget() {
    this.delay = null;
    this.move = null;
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
    // Looked for at the fast pace while none is known — unless many seconds of the far end have
    // found none (headphones: there is no echo to find), then at the slow one.
    const fast = (this.delay === null && this.unfoundSearches < GIVE_UP_SEARCHES) || this.searching || this.candidate !== null;
    this.nextSearchAt = this.t + (fast ? SEARCH_EVERY : RECHECK_EVERY);
    if (this.delay === null) this.unfoundSearches++;
    const n = XCORR_WINDOW;
    const mic = this.scratchMic;
    const far = this.scratchFar;
    let farE = 0;
    for (let i = 0; i < n; i++) mic[i] = this.mic[(this.t - n + i) & MASK]!;
    for (let i = 0; i < far.length; i++) {
      const f = this.far[(this.t - far.length + i) & MASK]!;
      far[i] = f;
      farE += f * f;
    }
    // Too little of the avatar's voice in the window to tell.
    if (farE < far.length * FAR_SPEECH) return;
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
    this.unfoundSamples = 0;
    this.unfoundSearches = 0;
    this.move = null;
    this.unsettled = UNSETTLED_BLOCKS;
  }
}

