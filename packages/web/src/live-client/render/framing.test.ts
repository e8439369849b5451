import { describe, expect, it } from 'vitest';
import { frameFullBody, MEDIUM_BOTTOM, MEDIUM_WIDTH, projectedHeight } from './framing';

// A 1.7 m figure standing on the floor, its head (hair's top to chin) 0.27 m tall.
const body = { top: 1.7, floor: 0, head: [0, 1.55, 0] as [number, number, number], fovDeg: 32 };
const HEAD = 0.27;
const dist = (f: { position: number[]; target: number[] }) => f.position[2]! - f.target[2]!;
/** Where a height y lands in the frame, 0 (top) … 1 (bottom), for a camera looking (almost) level. */
const rowOf = (f: { position: number[]; target: number[] }, y: number) => 0.5 - (y - f.target[1]!) / (2 * dist(f) * Math.tan((32 * Math.PI) / 360));

describe('frameFullBody', () => {
  it('medium shot at 640×480: the head is a fifth of the frame (≥ 90 px), hair to the hips in the frame', () => {
    const f = frameFullBody({ ...body, aspect: 640 / 480, shot: 'medium' });
    expect(projectedHeight(HEAD, dist(f), 32, 480)).toBeGreaterThan(90);
    expect(rowOf(f, body.top)).toBeGreaterThan(0.02);
    expect(rowOf(f, body.top)).toBeLessThan(0.12);
    expect(rowOf(f, body.top * MEDIUM_BOTTOM)).toBeLessThan(1);
    expect(rowOf(f, body.top * MEDIUM_BOTTOM)).toBeGreaterThan(0.9);
    // The feet are out of the frame.
    expect(rowOf(f, 0)).toBeGreaterThan(1.2);
  });

  it('the whole figure when asked: the head is small again (the old framing) — the medium shot makes it half as large again and more', () => {
    const f = frameFullBody({ ...body, aspect: 640 / 480, shot: 'full' });
    const full = projectedHeight(HEAD, Math.hypot(dist(f), f.position[1]! - f.target[1]!), 32, 480);
    expect(full).toBeLessThan(75);
    const m = frameFullBody({ ...body, aspect: 640 / 480, shot: 'medium' });
    expect(projectedHeight(HEAD, dist(m), 32, 480)).toBeGreaterThan(full * 1.5);
  });

  it('a phone held upright steps back until the body fits across, keeping the hair where it was', () => {
    const wide = frameFullBody({ ...body, aspect: 640 / 480, shot: 'medium' });
    const phone = frameFullBody({ ...body, aspect: 390 / 700, shot: 'medium' });
    expect(dist(phone)).toBeGreaterThan(dist(wide));
    const across = 2 * dist(phone) * Math.tan((32 * Math.PI) / 360) * (390 / 700);
    expect(across).toBeGreaterThanOrEqual(1.7 * MEDIUM_WIDTH - 1e-9);
    const topEdge = (f: typeof wide) => f.target[1]! + dist(f) * Math.tan((32 * Math.PI) / 360);
    expect(topEdge(phone)).toBeCloseTo(topEdge(wide), 6);
    expect(rowOf(phone, body.top)).toBeGreaterThan(0);
    // The head still reads on a 700 px tall phone stage.
    expect(projectedHeight(HEAD, dist(phone), 32, 700)).toBeGreaterThan(80);
  });
});
