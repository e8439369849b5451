import { describe, expect, it } from 'vitest';
import { armAway, armPose, armPoseOf, idleArm, presenterArm } from './gesture-pose';

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

describe('presenterArm', () => {
  it('brings the forearms forward and in (hands together in front), mirrored, elbows by the sides', () => {
    const l = presenterArm({ breath: 0, lean: 0 }, -1, 1);
    const r = presenterArm({ breath: 0, lean: 0 }, 1, 1);
    for (const [a, side] of [
      [l, -1],
      [r, 1],
    ] as const) {
      expect(a.fore[0]).toBeLessThan(-0.5);
      expect(a.fore[2] * side).toBeLessThan(-0.4);
      expect(Math.abs(a.upper[2])).toBeLessThan(0.15);
    }
    expect(l.fore[2]).toBeCloseTo(-r.fore[2], 9);
  });

  it('fades out while a gesture moves the arm (no pose added to a wave), and is whole at rest', () => {
    expect(armAway(armPose(null, 0, 1))).toBe(0);
    const wave = armPose('wave', 0.5, -1);
    expect(armAway(wave)).toBe(1);
    const faded = presenterArm({ breath: 0, lean: 0 }, -1, 1 - armAway(wave));
    for (const v of [...faded.upper, ...faded.fore]) expect(Math.abs(v)).toBeLessThan(1e-9);
    // Half-way into a gesture's envelope, half of it.
    const half = presenterArm({ breath: 0, lean: 0 }, -1, 0.5);
    expect(half.fore[0]).toBeCloseTo(presenterArm({ breath: 0, lean: 0 }, -1, 1).fore[0] / 2, 3);
  });
});

describe('the hand in a gesture', () => {
  it('turns the waving hand about the forearm, straightens the index to point, turns both palms up in a shrug, mirrored; none at rest', () => {
    expect(armPose(null, 0, -1).hand).toBeUndefined();
    expect(Math.abs(armPose('wave', 0.5, -1).hand![1])).toBeGreaterThan(0.8);
    expect(armPose('wave', 0.5, 1).hand).toBeUndefined();
    expect(armPose('point', 0.5, -1).index).toBe(1);
    expect(armPose('point', 0.5, 1).index).toBeUndefined();
    const [r, l] = [armPose('shrug', 0.5, -1).hand!, armPose('shrug', 0.5, 1).hand!];
    expect(Math.abs(r[1])).toBeGreaterThan(0.8);
    expect(r[1]).toBeCloseTo(-l[1], 9);
  });

  it('blends the turn and the index from a gesture cut short into the next, and scales them with the intensity', () => {
    const from = { gesture: 'point' as const, progress: 0.5, intensity: 1 };
    const half = armPoseOf({ gesture: 'wave', gestureProgress: 0.5, gestureIntensity: 1, gestureFrom: from, gestureBlend: 0.5 }, -1);
    expect(half.index).toBeCloseTo(0.5, 6);
    const point = armPose('point', 0.5, -1).hand![1];
    const wave = armPose('wave', 0.5, -1).hand![1];
    expect(half.hand![1]).toBeCloseTo((point + wave) / 2, 6);
    const soft = armPoseOf({ gesture: 'point', gestureProgress: 0.5, gestureIntensity: 0.4, gestureFrom: null, gestureBlend: 1 }, -1);
    expect(soft.index).toBeCloseTo(0.4, 6);
  });
});
