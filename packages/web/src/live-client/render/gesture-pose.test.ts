import { describe, expect, it } from 'vitest';
import { idleArm } from './gesture-pose';

describe('idleArm', () => {
  it('hangs each arm a little out from its side and bends the elbow forward, mirrored', () => {
    for (const side of [-1, 1]) {
      const a = idleArm({ breath: 0, lean: 0 }, side);
      expect(a.upper[2] * side).toBeGreaterThan(0.04);
      expect(a.fore[0]).toBeLessThan(-0.1);
      expect(a.upper[0]).toBeLessThan(0);
    }
    const l = idleArm({ breath: 0, lean: 0 }, -1);
    const r = idleArm({ breath: 0, lean: 0 }, 1);
    expect(l.upper[2]).toBeCloseTo(-r.upper[2], 9);
  });

  it('moves with the breath and swings against a weight shift, by small angles', () => {
    const inhale = idleArm({ breath: 1, lean: 0 }, 1);
    const exhale = idleArm({ breath: -1, lean: 0 }, 1);
    expect(inhale.upper[2] - exhale.upper[2]).toBeGreaterThan(0.02);
    expect(inhale.fore[0]).not.toBeCloseTo(exhale.fore[0], 3);
    const leant = idleArm({ breath: 0, lean: 0.025 }, 1);
    expect(leant.upper[2]).toBeLessThan(idleArm({ breath: 0, lean: 0 }, 1).upper[2]);
    for (const a of [inhale, exhale, leant]) for (const v of [...a.upper, ...a.fore]) expect(Math.abs(v)).toBeLessThan(0.25);
  });
});
