import { describe, expect, it } from 'vitest';
import { predictFps, RenderScaleController, scaleLadder, windowFps } from './render-scale';

/** A fake clock: frames at `fps` for `ms`, from `t`; the controller's scale after each, and the time reached. */
function run(c: RenderScaleController, t: number, fps: number | ((scale: number) => number), ms: number) {
  const scales: number[] = [];
  const end = t + ms;
  while (t < end) {
    t += 1000 / (typeof fps === 'number' ? fps : fps(c.scale));
    scales.push(c.frame(t));
  }
  return { t, scales, scale: c.scale };
}

/** A machine whose frame cost is `fixedMs` plus `fillMs` at scale 1, proportional to pixels (scale²); at most 60 fps. */
const machine = (fixedMs: number, fillMs: number) => (scale: number) => Math.min(60, 1000 / (fixedMs + fillMs * scale * scale));

describe('scaleLadder', () => {
  it('steps by the factor down to the floor, without a last step too small to matter', () => {
    expect(scaleLadder(0.85, 0.6)).toEqual([1, 0.85, 0.72, 0.6]);
    expect(scaleLadder(0.8, 0.5)).toEqual([1, 0.8, 0.64, 0.5]);
  });
});

describe('windowFps', () => {
  it('is the mean rate without the slowest tenth of frames', () => {
    expect(windowFps(Array(20).fill(40))).toBeCloseTo(25);
    // One 600 ms frame among 35 fps ones: still 35 fps (a hitch is not a slow machine).
    expect(windowFps([...Array(49).fill(1000 / 35), 600])).toBeCloseTo(35);
  });
});

describe('predictFps', () => {
  it('scales the share of the cost that is pixels by their number', () => {
    // Half the cost in pixels at full resolution: at 0.5 (a quarter of the pixels) 40 ms → 20 + 5 ms, and back.
    expect(predictFps(25, 1, 0.5, 0.5)).toBeCloseTo(40);
    expect(predictFps(40, 0.5, 1, 0.5)).toBeCloseTo(25);
    expect(predictFps(25, 1, 0.5, 1)).toBeCloseTo(100);
    expect(predictFps(30, 0.85, 0.85, 0.5)).toBeCloseTo(30);
  });
});

describe('RenderScaleController', () => {
  it('keeps full resolution on a machine that draws 30 fps or more', () => {
    const c = new RenderScaleController();
    const r = run(c, 0, 31, 20_000);
    expect(new Set(r.scales)).toEqual(new Set([1]));
  });

  it('does not count the first second after loading', () => {
    const c = new RenderScaleController();
    // 1 s at 5 fps (shaders compiling), then 40 fps.
    let r = run(c, 0, 5, 1000);
    r = run(c, r.t, 40, 10_000);
    expect(new Set(r.scales)).toEqual(new Set([1]));
  });

  it('steps down after a sustained window under 30 fps, not before, and not for one slow frame', () => {
    const c = new RenderScaleController();
    let r = run(c, 0, 40, 3000);
    // One 700 ms frame.
    r.t += 700;
    c.frame(r.t);
    r = run(c, r.t, 40, 5000);
    expect(r.scale).toBe(1);
    // 29 fps: a window of 2 s (from the first frame after it starts) before anything changes.
    const slow = run(c, r.t, 29, 1900);
    expect(slow.scale).toBe(1);
    const after = run(c, slow.t, 29, 2100);
    expect(after.scale).toBe(0.85);
  });

  it('goes as far down the ladder as it predicts it must at once, and no lower than the floor', () => {
    const c = new RenderScaleController();
    // 26 fps at full size, half the cost in pixels: 0.85 would give 30.2 fps, 0.72 34.3 (aiming at 33).
    const r = run(c, 0, 26, 4000);
    expect(r.scale).toBe(0.72);
    const worse = run(c, r.t, 10, 20_000);
    expect(worse.scale).toBe(0.72);
    expect(c.ladder).toEqual([1, 0.85, 0.72]);
  });

  it('on a slow machine whose cost is mostly fill, settles where it draws ≥ 30 fps and stays there', () => {
    const c = new RenderScaleController();
    // Stop 39's 3D figures: ≈ 7 ms of the renderer and ≈ 30 ms of SwiftShader a frame at scale 1 (27 fps).
    const m = machine(7, 30);
    const r = run(c, 0, m, 60_000);
    // Its model (half the cost in pixels) is pessimistic here: down to 0.72 (44 fps), then up to 0.85 (35 fps).
    expect(r.scale).toBe(0.85);
    expect(m(r.scale)).toBeGreaterThanOrEqual(30);
    // No oscillation: there it stays (1 is predicted at 30 fps: not clear headroom).
    const steady = r.scales.slice(r.scales.indexOf(0.85));
    expect(new Set(steady)).toEqual(new Set([0.85]));
  });

  it('goes back up only with clear headroom, one step after three good windows', () => {
    const c = new RenderScaleController();
    let r = run(c, 0, 15, 4000);
    expect(r.scale).toBe(0.72);
    // 40 fps at 0.72: 0.85 is predicted at 35.3 fps: not clear headroom (37.5).
    r = run(c, r.t, 40, 30_000);
    expect(r.scale).toBe(0.72);
    // The load is gone: 60 fps.
    r = run(c, r.t, 60, 4000);
    expect(r.scale).toBe(0.72);
    r = run(c, r.t, 60, 4500);
    expect(r.scale).toBe(0.85);
  });

  it('a step up that has to be undone makes the next one wait twice as long (no oscillation)', () => {
    const c = new RenderScaleController();
    // A machine at 60 fps at 0.85 (the display's cap) but 28 fps at 1 — its cost is not all in pixels.
    const fps = (scale: number) => (scale < 1 ? 60 : 28);
    let t = 0;
    /** When it went back to full resolution. */
    const tries: number[] = [];
    let slowMs = 0;
    while (t < 180_000) {
      const before = c.scale;
      t += 1000 / fps(before);
      if (c.frame(t) === 1 && before < 1) tries.push(t);
      if (t > 120_000 && before === 1) slowMs += 1000 / fps(before);
    }
    // Down (to 0.72: 28 fps, half of it pixels); up a step after 3 windows of headroom, another
    // after 3 more; down at once; then each step up waits 6, 12, then 24 windows.
    expect(tries.length).toBeGreaterThanOrEqual(2);
    expect(tries.length).toBeLessThanOrEqual(5);
    expect(tries.at(-1)! - tries.at(-2)!).toBeGreaterThanOrEqual(48_000);
    // In the last minute, at most one slow window (2 s) was drawn at the scale that is too costly.
    expect(slowMs).toBeLessThanOrEqual(2100);
  });

  it('a pause (a hidden tab draws nothing) is not a slow frame, and measuring starts over after it', () => {
    const c = new RenderScaleController();
    let r = run(c, 0, 40, 3000);
    r.t += 30_000;
    c.frame(r.t);
    // The first second after the tab comes back is not counted either.
    r = run(c, r.t, 5, 900);
    r = run(c, r.t, 40, 5000);
    expect(r.scale).toBe(1);
  });

  it('frames skipped on purpose (interrupt) do not count as slow', () => {
    const c = new RenderScaleController();
    let r = run(c, 0, 40, 3000);
    // Reduced motion: a frame every 250 ms, each after an interrupt.
    for (let i = 0; i < 40; i++) {
      c.interrupt();
      r.t += 250;
      c.frame(r.t);
    }
    r = run(c, r.t, 40, 5000);
    expect(r.scale).toBe(1);
  });

  it('a pinned scale holds whatever the frame rate, and adapts again from where it was when released', () => {
    const c = new RenderScaleController();
    let r = run(c, 0, 29, 4000);
    expect(r.scale).toBe(0.85);
    c.pin(1);
    r = run(c, r.t, 10, 10_000);
    expect(new Set(r.scales)).toEqual(new Set([1]));
    c.pin(null);
    expect(c.scale).toBe(0.85);
    r = run(c, r.t, 40, 5000);
    expect(r.scale).toBe(0.85);
  });
});
