/**
 * Adaptive render resolution (ADR 089, "Adaptive resolution (stop 40)"). A software rasteriser
 * (SwiftShader on a machine without a usable GPU) or a weak laptop pays for every pixel the 3D
 * avatar fills: when the frame rate stays under `lowFps`, the renderer draws fewer pixels (its
 * pixel ratio times this scale; the canvas keeps its CSS size and the browser upscales it), and
 * goes back up only with clear headroom.
 *
 * Pure: animation-frame times in, a scale out (the stage applies it). Frames are measured in
 * windows of `windowMs`; a window's rate leaves out its slowest tenth of frames (one long frame —
 * a collection, a shader compiled late — is not a slow machine). Measuring starts over, after
 * `settleMs`, at the first frame, after a pause (a hidden tab draws nothing: the gap is longer than
 * `gapMs`) and after `interrupt()` (frames skipped on purpose). Down: a window under `lowFps` goes
 * down the ladder as far as it predicts it must to reach `lowFps` × 1.1 (`pixelShare` of a frame's
 * cost taken as proportional to its pixels, the rest fixed), at least one step. Up: one step,
 * after `raiseWindows` windows in a row whose rate, predicted at the scale above, would still be
 * `lowFps` × 1.25; a step up that has to be undone within that many windows doubles the windows a
 * next one waits for.
 */
export interface RenderScaleOptions {
  /** Frames per second under which a window steps the scale down. */
  lowFps: number;
  windowMs: number;
  /** Windows of headroom in a row before a step up (doubled, up to 8×, each time a step up is undone). */
  raiseWindows: number;
  /** Not measured: the first frames after loading or a pause. */
  settleMs: number;
  /** A longer interval between frames is a pause (a hidden tab), not a slow frame. */
  gapMs: number;
  /** Each step's factor, and the lowest scale. */
  step: number;
  floor: number;
  /**
   * The share of a frame's cost at full resolution that scales with its pixels: ≈ 40–50 % for the
   * 3D avatar at 640×480 on SwiftShader (ADR 089, stop 40: the rest is compositing at CSS size and geometry).
   */
  pixelShare: number;
}

/**
 * The floor is 0.72, not lower: at 0.6 the irises lost their colour and the pupils faded (the eye
 * texture sampled at a smaller level; ADR 089 stop 40's stills) for ~1–2 ms a frame more saved.
 */
export const RENDER_SCALE_DEFAULTS: RenderScaleOptions = { lowFps: 30, windowMs: 2000, raiseWindows: 3, settleMs: 1000, gapMs: 1000, step: 0.85, floor: 0.72, pixelShare: 0.5 };

/** The scales a renderer may draw at: 1, ×step, ×step², … and the floor (a step smaller than a fifth of `step` is not taken). */
export function scaleLadder(step: number, floor: number): number[] {
  const ladder = [1];
  for (let s = step; s > floor + (1 - step) / 5; s *= step) ladder.push(Math.round(s * 100) / 100);
  ladder.push(floor);
  return ladder;
}

/** Frames per second over a window's intervals without its slowest tenth (at least one left out). */
export function windowFps(intervals: readonly number[]): number {
  if (intervals.length < 2) return Number.NaN;
  const sorted = [...intervals].sort((a, b) => a - b);
  const kept = sorted.slice(0, sorted.length - Math.max(1, Math.floor(sorted.length / 10)));
  return (kept.length * 1000) / kept.reduce((a, b) => a + b, 0);
}

/** The frame rate predicted at scale `to` from `fps` measured at `from`, when `share` of the cost at full resolution scales with pixels. */
export function predictFps(fps: number, from: number, to: number, share: number): number {
  return (fps * (1 - share + share * from * from)) / (1 - share + share * to * to);
}

export class RenderScaleController {
  private readonly opts: RenderScaleOptions;
  readonly ladder: number[];
  private level = 0;
  private pinnedTo: number | null = null;
  private last: number | null = null;
  private settleUntil = 0;
  private windowStart: number | null = null;
  private intervals: number[] = [];
  private goodWindows = 0;
  private raiseWindows: number;
  /** Windows measured since the last step up (Infinity: none yet). */
  private sinceRaise = Number.POSITIVE_INFINITY;

  constructor(options: Partial<RenderScaleOptions> = {}) {
    this.opts = { ...RENDER_SCALE_DEFAULTS, ...options };
    this.ladder = scaleLadder(this.opts.step, this.opts.floor);
    this.raiseWindows = this.opts.raiseWindows;
  }

  /** The scale to draw at now (a fraction of the renderer's own pixel ratio). */
  get scale(): number {
    return this.pinnedTo ?? this.ladder[this.level]!;
  }

  get pinned(): boolean {
    return this.pinnedTo !== null;
  }

  /** Holds the scale (stills to compare, screenshots), or with null lets it adapt again from where it was. */
  pin(scale: number | null) {
    this.pinnedTo = scale === null ? null : Math.min(1, Math.max(0.1, scale));
    this.interrupt();
  }

  /** Frames are skipped on purpose (reduced motion's slow idle drawing): measuring starts over. */
  interrupt() {
    this.last = null;
  }

  /** A frame drawn at `nowMs`; answers the scale for the frames after it. */
  frame(nowMs: number): number {
    const last = this.last;
    this.last = nowMs;
    if (this.pinnedTo !== null) return this.pinnedTo;
    if (last === null || nowMs - last > this.opts.gapMs) {
      this.settleUntil = nowMs + this.opts.settleMs;
      this.restartWindow(null);
      return this.scale;
    }
    if (nowMs < this.settleUntil) return this.scale;
    if (this.windowStart === null) {
      this.restartWindow(nowMs);
      return this.scale;
    }
    this.intervals.push(nowMs - last);
    if (nowMs - this.windowStart >= this.opts.windowMs) this.judge(windowFps(this.intervals), nowMs);
    return this.scale;
  }

  private restartWindow(at: number | null) {
    this.windowStart = at;
    this.intervals = [];
  }

  private judge(fps: number, nowMs: number) {
    this.restartWindow(nowMs);
    this.sinceRaise++;
    const { lowFps, pixelShare } = this.opts;
    const s = this.ladder[this.level]!;
    const last = this.ladder.length - 1;
    if (fps < lowFps) {
      this.goodWindows = 0;
      if (this.level === last) return;
      // A step up undone before it had held as long as it waited: wait twice as long next time.
      if (this.sinceRaise <= this.raiseWindows) this.raiseWindows = Math.min(this.opts.raiseWindows * 8, this.raiseWindows * 2);
      let to = this.level + 1;
      while (to < last && predictFps(fps, s, this.ladder[to]!, pixelShare) < lowFps * 1.1) to++;
      this.level = to;
      return;
    }
    const up = this.level > 0 ? this.ladder[this.level - 1]! : null;
    this.goodWindows = up !== null && predictFps(fps, s, up, pixelShare) >= lowFps * 1.25 ? this.goodWindows + 1 : 0;
    if (up !== null && this.goodWindows >= this.raiseWindows) {
      this.level--;
      this.goodWindows = 0;
      this.sinceRaise = 0;
    }
  }
}
