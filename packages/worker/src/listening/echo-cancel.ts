import { Resampler } from '../core/audio.js';
import { ECHO_RATE, EchoFilter, type EchoFilterOptions } from '@persona/contract/echo-filter';

export { ECHO_BLOCK, ECHO_RATE, EchoFilter, estimateDelay, type DelayEstimate, type EchoFilterOptions, type EchoStats } from '@persona/contract/echo-filter';

/**
 * Acoustic echo cancellation of the visitor's mic in the worker (ADR 103): the avatar's own voice,
 * played by the page's speakers and heard again by its mic, taken out before the denoiser and the
 * VAD. The worker knows the PCM it sent for each utterance and, from the page's `playback` reports,
 * where the page is playing it: `EchoCanceller` turns that into a far-end signal in the mic's time
 * (one sample per mic sample) and the shared `EchoFilter` (contract/echo-filter.ts) cancels it.
 */

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
