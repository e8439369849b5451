import { describe, expect, it } from 'vitest';
import { AnimationClip, Object3D, Quaternion, QuaternionKeyframeTrack, Vector3 } from 'three';
import { createClipPlayer, createMorphOverrides, EASE_MS, FADE_S } from './model-clips';

/** A figure with a head and an arm, and a clip per node: the node turns 40° about x and back over `seconds`. */
function figure() {
  const root = new Object3D();
  const head = new Object3D();
  head.name = 'Head';
  const arm = new Object3D();
  arm.name = 'RightArm';
  root.add(head, arm);
  const turn = (node: string, name: string, seconds: number, held = false) => {
    const q = new Quaternion().setFromAxisAngle(new Vector3(1, 0, 0), (40 * Math.PI) / 180);
    const times = [0, seconds / 2, seconds];
    // `held`: turned all along (its first and last frames are far from the rest pose).
    const values = held ? [q.x, q.y, q.z, q.w, q.x, q.y, q.z, q.w, q.x, q.y, q.z, q.w] : [0, 0, 0, 1, q.x, q.y, q.z, q.w, 0, 0, 0, 1];
    return new AnimationClip(name, seconds, [new QuaternionKeyframeTrack(`${node}.quaternion`, times, values)]);
  };
  return { root, head, arm, clips: [turn('Head', 'Bow', 2), turn('RightArm', 'Raise', 2), turn('Head', 'Tilt', 1), turn('Head', 'Hold', 2, true)] };
}
const angle = (o: Object3D) => (2 * Math.acos(Math.min(1, Math.abs(o.quaternion.w))) * 180) / Math.PI;
const run = (player: ReturnType<typeof createClipPlayer>, seconds: number, step = 1 / 30) => {
  for (let t = 0; t < seconds - 1e-9; t += step) player!.update(step);
};

describe('a model’s own clips (trl-anim)', () => {
  it('is nothing for a model without clips', () => {
    expect(createClipPlayer(new Object3D(), [])).toBeNull();
  });

  it('plays a clip by its name (any case) once, moving its bones, and lets go of them when it is over', () => {
    const { root, head, clips } = figure();
    const player = createClipPlayer(root, clips)!;
    expect(player.play('Wave', 'core', false)).toBe(false);
    expect(player.play('bow', 'core', false)).toBe(true);
    run(player, 1);
    expect(angle(head)).toBeGreaterThan(30);
    expect(player.playing()).toEqual(['Bow']);
    expect(player.moving.has(head)).toBe(true);
    run(player, 1.5);
    expect(player.playing()).toEqual([]);
    expect(player.moving.size).toBe(0);
  });

  it('fades in and out: no snap at either end, even for a clip that starts and ends far from the rest pose', () => {
    const { root, head, clips } = figure();
    const player = createClipPlayer(root, clips)!;
    player.play('Hold', 'core', false);
    let last = 0;
    let largestStep = 0;
    for (let i = 0; i < 90; i++) {
      player.update(1 / 30);
      largestStep = Math.max(largestStep, Math.abs(angle(head) - last));
      last = angle(head);
    }
    // 40° faded in and out over 0.25 s is ~5° a frame at 30 fps: a snap would be 40°.
    expect(largestStep).toBeLessThan(10);
    expect(angle(head)).toBeLessThan(1);
  });

  it('a second core clip waits for the first, unless it is immediate, when the two cross-fade', () => {
    const { root, clips } = figure();
    const player = createClipPlayer(root, clips)!;
    player.play('Bow', 'core', false);
    player.play('Tilt', 'core', false);
    run(player, 1);
    expect(player.playing()).toEqual(['Bow']);
    run(player, 1);
    expect(player.playing()).toContain('Tilt');
    run(player, 1.5);
    expect(player.playing()).toEqual([]);

    player.play('Bow', 'core', false);
    run(player, 0.5);
    player.play('Tilt', 'core', true);
    player.update(1 / 30);
    expect(player.playing().sort()).toEqual(['Bow', 'Tilt']);
    run(player, FADE_S + 0.1);
    expect(player.playing()).toEqual(['Tilt']);
  });

  it('an aux clip plays beside the core one', () => {
    const { root, head, arm, clips } = figure();
    const player = createClipPlayer(root, clips)!;
    player.play('Bow', 'core', false);
    player.play('Raise', 'aux', false);
    run(player, 1);
    expect(player.playing().sort()).toEqual(['Bow', 'Raise']);
    expect(angle(head)).toBeGreaterThan(30);
    expect(angle(arm)).toBeGreaterThan(30);
    expect([...player.moving]).toEqual(expect.arrayContaining([head, arm]));
  });

  it('waits for at most four core clips', () => {
    const { root, clips } = figure();
    const player = createClipPlayer(root, clips)!;
    for (let i = 0; i < 10; i++) player.play(i % 2 ? 'Tilt' : 'Bow', 'core', false);
    let seen = 0;
    let previous = '';
    for (let t = 0; t < 20; t += 1 / 30) {
      player.update(1 / 30);
      const now = player.playing().at(-1) ?? '';
      if (now && now !== previous) seen++;
      previous = now;
    }
    expect(seen).toBe(5);
  });
});

describe('a model’s own morph targets (trl-morph)', () => {
  const has = (name: string) => name !== 'missing';

  it('eases to the value and stays there until told otherwise; 0 lets it go', () => {
    const m = createMorphOverrides();
    const at = (now: number) => {
      const t = new Map<string, number>();
      m.apply(t, has, now);
      return t.get('cheekPuff') ?? 0;
    };
    m.set('cheekPuff', 0.8, undefined, 1000);
    expect(at(1000)).toBe(0);
    expect(at(1000 + EASE_MS / 2)).toBeCloseTo(0.4, 5);
    expect(at(1000 + EASE_MS)).toBeCloseTo(0.8, 5);
    expect(at(60_000)).toBeCloseTo(0.8, 5);
    m.set('cheekPuff', 0, undefined, 60_000);
    expect(at(60_000 + EASE_MS / 2)).toBeCloseTo(0.4, 5);
    expect(at(60_000 + EASE_MS)).toBe(0);
    expect(m.size).toBe(0);
  });

  it('with a duration, holds for it and eases back', () => {
    const m = createMorphOverrides();
    m.set('browInnerUp', 1, 1000, 0);
    const at = (now: number) => {
      const t = new Map<string, number>();
      m.apply(t, has, now);
      return t.get('browInnerUp') ?? 0;
    };
    expect(at(EASE_MS + 900)).toBe(1);
    expect(at(EASE_MS + 1000 + EASE_MS / 2)).toBeCloseTo(0.5, 5);
    expect(at(2 * EASE_MS + 1001)).toBe(0);
    expect(m.size).toBe(0);
  });

  it('is laid over the face’s own weight (the larger wins) and never writes a target the model lacks', () => {
    const m = createMorphOverrides();
    m.set('mouthSmile', 0.3, undefined, 0);
    m.set('missing', 1, undefined, 0);
    const t = new Map([['mouthSmile', 0.6]]);
    m.apply(t, has, 10_000);
    expect(t.get('mouthSmile')).toBe(0.6);
    expect(t.has('missing')).toBe(false);
    const u = new Map([['mouthSmile', 0.1]]);
    m.apply(u, has, 10_000);
    expect(u.get('mouthSmile')).toBeCloseTo(0.3, 5);
  });
});
