// A skinned rig's arms (uploaded GLB, Ready-Player-Me, VRM): let down from a T or A pose, and
// moved by the gestures as the catalogue's toon people move theirs (gesture-pose.ts).
import { Euler, Quaternion, Vector3, type Object3D } from 'three';
import type { FaceState } from './face-driver';
import { armPoseOf } from './gesture-pose';

/** Turns an arm held out (T or A pose) down to the side, whatever the rig's local axes. */
export function relaxArm(upper: Object3D | null, lower: Object3D | null, side: 1 | -1) {
  if (!upper || !lower || !upper.parent) return;
  upper.updateWorldMatrix(true, true);
  const a = upper.getWorldPosition(new Vector3());
  const b = lower.getWorldPosition(new Vector3());
  const dir = b.sub(a).normalize();
  if (dir.y < -0.6) return; // already down
  const want = new Vector3(side * 0.3, -0.95, 0.05).normalize();
  const qWorld = new Quaternion().setFromUnitVectors(dir, want);
  const parentQ = upper.parent.getWorldQuaternion(new Quaternion());
  const local = parentQ.clone().invert().multiply(qWorld).multiply(parentQ);
  upper.quaternion.premultiply(local);
}

/**
 * A rig's arm driven by the gestures (gesture-pose.ts: angles for a figure facing +z with its arms
 * down, as the catalogue's toon people). The pose's shoulder turn is a rotation in the figure's
 * (world) frame about the shoulder, its elbow turn one in the upper arm's frame: each is carried
 * into the bone's own axes through the rest pose, whatever the rig's bone orientations; the
 * shrug's lift moves the shoulder (or, without one, the upper arm) up in world units.
 */
export function rigArm(upper: Object3D, lower: Object3D, shoulder: Object3D | null, side: 1 | -1) {
  const restUpper = upper.quaternion.clone();
  const restLower = lower.quaternion.clone();
  const parentWorld = upper.parent!.getWorldQuaternion(new Quaternion());
  const parentInv = parentWorld.clone().invert();
  const upperWorld = upper.getWorldQuaternion(new Quaternion());
  const upperInv = upperWorld.clone().invert();
  const lifted = shoulder?.parent ? shoulder : upper;
  const restPos = lifted.position.clone();
  const at = lifted.getWorldPosition(new Vector3());
  const liftDir = lifted.parent!.worldToLocal(at.clone().add(new Vector3(0, 1, 0))).sub(lifted.parent!.worldToLocal(at.clone()));
  const e = new Euler();
  const r = new Quaternion();
  return {
    pose(face: FaceState) {
      const p = armPoseOf(face, side);
      r.setFromEuler(e.set(...p.upper));
      upper.quaternion.copy(parentInv).multiply(r).multiply(parentWorld).multiply(restUpper);
      r.setFromEuler(e.set(...p.fore));
      lower.quaternion.copy(upperInv).multiply(r).multiply(upperWorld).multiply(restLower);
      lifted.position.copy(restPos).addScaledVector(liftDir, p.lift);
    },
  };
}
