import { VISEME_COUNT, normalizeViseme, visemeIndex, type Viseme } from './visemes';

export interface VisemeCue {
  /** ms from the utterance's first sample. */
  t: number;
  v: Viseme;
  /** ms. */
  d: number;
}

export interface VisemeTimelineOptions {
  /** The mouth starts shaping a viseme this long before its sound (anticipation). */
  attackMs?: number;
  /** …and lets go of it over this long after it. */
  releaseMs?: number;
  /** Duration of a cue that says none and has no next cue. */
  lastCueMs?: number;
  /** Longest a cue without a duration is held before the mouth relaxes. */
  maxHoldMs?: number;
}

const smooth = (x: number) => (x <= 0 ? 0 : x >= 1 ? 1 : x * x * (3 - 2 * x));

/**
 * One utterance's visemes on its own clock (ms from its first audio sample): cues from the
 * worker (`visemes` frames, possibly several per utterance), blended with their neighbours —
 * each cue fades in before its sound and out after it, overlapping cues share the mouth — so the
 * mouth moves the way speech does instead of switching shapes. The renderer asks for the weights
 * at the time the audio clock says is being heard.
 */
export class VisemeTimeline {
  private cues: VisemeCue[] = [];
  /** Cues as sent (their `d` may be missing): durations are derived again after every add. */
  private raw: { t: number; v: Viseme; d?: number }[] = [];
  private readonly attack: number;
  private readonly release: number;
  private readonly lastCue: number;
  private readonly maxHold: number;
  /** After an interruption, nothing plays past this time. */
  private cutAt = Infinity;
  /** Longest cue duration (ms), for the search window. */
  private longest = 0;

  constructor(opts: VisemeTimelineOptions = {}) {
    this.attack = opts.attackMs ?? 60;
    this.release = opts.releaseMs ?? 90;
    this.lastCue = opts.lastCueMs ?? 120;
    this.maxHold = opts.maxHoldMs ?? 350;
  }

  get size(): number {
    return this.cues.length;
  }

  /** End of the last cue (ms). */
  get endMs(): number {
    const last = this.cues[this.cues.length - 1];
    return last ? Math.min(last.t + last.d, this.cutAt) : 0;
  }

  /** Adds cues from a `visemes` frame; unknown names and bad numbers are skipped. */
  add(items: readonly { t: number; v: string; d?: number }[]): void {
    for (const item of items) {
      const v = normalizeViseme(String(item.v));
      if (!v || !Number.isFinite(item.t) || item.t < 0 || item.t > 3_600_000) continue;
      const d = item.d !== undefined && Number.isFinite(item.d) && item.d > 0 ? Math.min(item.d, 10_000) : undefined;
      this.raw.push(d === undefined ? { t: item.t, v } : { t: item.t, v, d });
    }
    this.rebuild();
  }

  private rebuild() {
    this.raw.sort((a, b) => a.t - b.t);
    this.cues = this.raw.map((c, i) => {
      const next = this.raw[i + 1];
      const d = c.d ?? (next ? Math.min(Math.max(next.t - c.t, 1), this.maxHold) : this.lastCue);
      return { t: c.t, v: c.v, d };
    });
    this.longest = this.cues.reduce((m, c) => Math.max(m, c.d), 0);
  }

  /**
   * Stretches the cues to the audio that was really played: a timeline estimated from text
   * (or from marks of another speed) that ends more than `tolerance` away from the audio's end
   * is scaled to end with it. Returns the factor applied (1 when none).
   */
  fitToDuration(audioMs: number, tolerance = 0.1): number {
    const end = this.endMs;
    if (!(audioMs > 0) || end <= 0) return 1;
    const factor = audioMs / end;
    if (Math.abs(factor - 1) <= tolerance) return 1;
    this.scale(factor);
    return factor;
  }

  /** Multiplies every time and duration by `factor` (speech speed). */
  scale(factor: number): void {
    if (!(factor > 0) || !Number.isFinite(factor)) return;
    this.raw = this.raw.map((c) => ({ ...c, t: c.t * factor, ...(c.d !== undefined ? { d: c.d * factor } : {}) }));
    this.rebuild();
  }

  /** The visitor interrupted at `atMs` (what was heard): the mouth closes from there. */
  interrupt(atMs: number): void {
    this.cutAt = Math.max(0, atMs);
    this.raw = this.raw.filter((c) => c.t < this.cutAt);
    this.rebuild();
    this.cues = this.cues.map((c) => (c.t + c.d > this.cutAt ? { ...c, d: this.cutAt - c.t } : c));
  }

  private firstIndexFrom(t: number): number {
    let lo = 0;
    let hi = this.cues.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.cues[mid]!.t < t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /**
   * The weight of each viseme (indexed as VISEMES) at `tMs`. Each cue's envelope rises over the
   * attack before it, holds for its duration and falls over the release after it; a viseme takes
   * the strongest of its cues, and when neighbours overlap the weights are shared so they never
   * add up to more than 1. What remains up to 1 is `sil` (the mouth at rest).
   */
  weightsAt(tMs: number, out: Float32Array = new Float32Array(VISEME_COUNT)): Float32Array {
    out.fill(0);
    if (!this.cues.length || tMs >= this.cutAt + this.release) {
      out[visemeIndex.sil] = 1;
      return out;
    }
    const from = this.firstIndexFrom(tMs - this.longest - this.release);
    const to = this.firstIndexFrom(tMs + this.attack + 1);
    for (let i = from; i < to; i++) {
      const c = this.cues[i]!;
      const end = Math.min(c.t + c.d, this.cutAt);
      let w: number;
      if (tMs < c.t) w = smooth((tMs - (c.t - this.attack)) / this.attack);
      else if (tMs <= end) w = 1;
      else w = 1 - smooth((tMs - end) / this.release);
      if (w <= 0) continue;
      const k = visemeIndex[c.v];
      if (w > out[k]!) out[k] = w;
    }
    let sum = 0;
    for (let k = 0; k < VISEME_COUNT; k++) if (k !== visemeIndex.sil) sum += out[k]!;
    if (sum > 1) {
      for (let k = 0; k < VISEME_COUNT; k++) out[k] = out[k]! / sum;
      out[visemeIndex.sil] = 0;
    } else {
      out[visemeIndex.sil] = Math.max(out[visemeIndex.sil]!, 1 - sum);
    }
    return out;
  }
}
