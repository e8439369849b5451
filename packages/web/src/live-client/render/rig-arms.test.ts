import { Euler, Object3D, Quaternion, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { FaceDriver, type FaceState } from './face-driver';
import { relaxArm, rigArm } from './rig-arms';

/**
 * A rig as exporters write them: an armature scaled to centimetres, bones whose local axes are
 * anything (here: a different turn per bone), the arms in a T pose. World positions are in metres.
 */
function rig(turns: [number, number, number][], armature = 0.01) {
  const root = new Object3D();
  const arm = new Object3D();
  arm.scale.setScalar(armature);
  root.add(arm);
  const chain = (parent: Object3D, worldAt: Vector3, turn: [number, number, number], name: string) => {
    const bone = new Object3D();
    bone.name = name;
    parent.add(bone);
    parent.updateWorldMatrix(true, false);
    bone.position.copy(parent.worldToLocal(worldAt.clone()));
    const parentQ = parent.getWorldQuaternion(new Quaternion());
    bone.quaternion.copy(parentQ.invert().multiply(new Quaternion().setFromEuler(new Euler(...turn))));
    bone.updateWorldMatrix(true, false);
    return bone;
  };
  const chest = chain(arm, new Vector3(0, 1.3, 0), turns[0]!, 'chest');
  const sides = ([1, -1] as const).map((s) => {
    const shoulder = chain(chest, new Vector3(s * 0.06, 1.42, 0), turns[1]!, 'shoulder');
    const upper = chain(shoulder, new Vector3(s * 0.18, 1.42, 0), turns[2]!, 'upper');
    // T pose: the arm straight out to the side.
    const lower = chain(upper, new Vector3(s * 0.46, 1.42, 0), turns[3]!, 'lower');
    const hand = chain(lower, new Vector3(s * 0.72, 1.42, 0), turns[4]!, 'hand');
    return { s, shoulder, upper, lower, hand };
  });
  return { root, sides };
}

const world = (o: Object3D) => {
  o.updateWorldMatrix(true, false);
  return o.getWorldPosition(new Vector3());
};

function faceAt(gesture: FaceState['gesture'], progress: number): FaceState {
  const f = new FaceDriver(2).update(0, null, 'idle');
  return { ...f, gesture, gestureProgress: progress, gestureIntensity: gesture ? 1 : 0 };
}

describe('a rig’s arms (uploaded GLB / VRM)', () => {
  const orientations: [number, number, number][][] = [
    [[0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]],
    // Ready-Player-Me-like: every bone's own axes turned differently.
    [[0.1, 0, 0], [1.2, -0.4, 1.57], [-0.3, 2.1, 0.7], [0.9, 0.2, -1.1], [2.5, -1, 0.3]],
    [[0, Math.PI, 0], [-1.57, 0, 0.4], [0.6, 0.6, -2.2], [-0.4, 1.4, 0.2], [0, 0, 0]],
  ];

  for (const [n, turns] of orientations.entries()) {
    it(`are let down from a T pose and wave, point and shrug whatever the bones' axes (rig ${n + 1})`, () => {
      const { root, sides } = rig(turns);
      for (const a of sides) relaxArm(a.upper, a.lower, a.s);
      root.updateWorldMatrix(true, true);
      const rest = sides.map((a) => ({ hand: world(a.hand), elbow: world(a.lower), shoulder: world(a.upper) }));
      // Down at the sides, on their own side.
      for (const [i, a] of sides.entries()) {
        expect(rest[i]!.hand.y).toBeLessThan(rest[i]!.shoulder.y - 0.4);
        expect(Math.sign(rest[i]!.hand.x)).toBe(a.s);
      }
      const arms = sides.map((a) => rigArm(a.upper, a.lower, a.shoulder, a.s));
      const pose = (f: FaceState) => arms.forEach((arm) => arm.pose(f));
      const right = sides[1]!;
      const restRight = rest[1]!;
      const restLeft = rest[0]!;

      // The figure's right hand goes up above the shoulder and swings; the left stays.
      pose(faceAt('wave', 0.5));
      const waving = world(right.hand);
      expect(waving.y).toBeGreaterThan(restRight.shoulder.y + 0.1);
      expect(world(sides[0]!.hand).distanceTo(restLeft.hand)).toBeLessThan(1e-6);
      pose(faceAt('wave', 0.56));
      expect(world(right.hand).distanceTo(waving)).toBeGreaterThan(0.03);

      // Point: the hand reaches towards the visitor (+z).
      pose(faceAt('point', 0.5));
      expect(world(right.hand).z).toBeGreaterThan(restRight.hand.z + 0.2);

      // Shrug: both shoulders up by the pose's lift (metres, whatever the armature's scale), forearms out.
      pose(faceAt('shrug', 0.5));
      for (const [i, a] of sides.entries()) {
        expect(world(a.upper).y - rest[i]!.shoulder.y).toBeCloseTo(0.022, 3);
        expect(world(a.hand).z).toBeGreaterThan(rest[i]!.hand.z + 0.1);
      }

      // And back to rest exactly.
      pose(faceAt(null, 0));
      for (const [i, a] of sides.entries()) expect(world(a.hand).distanceTo(rest[i]!.hand)).toBeLessThan(1e-6);
    });
  }
});
