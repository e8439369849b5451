import type { TAvatarGesture } from '@persona/contract';
import type { FaceState } from './face-driver';

/** Euler angles (radians, x y z) for one side's upper arm at the shoulder and forearm at the elbow. */
export interface ArmPose {
  upper: [number, number, number];
  fore: [number, number, number];
  /** How far the shoulder rises (metres). */
  lift: number;
  /** The hand at the wrist (Euler x y z; y turns it about the forearm), where a figure has one; none: in line with the forearm. */
  hand?: [number, number, number];
  /** How far the index finger is straightened (0–1), where a figure can (the point). */
  index?: number;
}

const REST: ArmPose = { upper: [0, 0, 0], fore: [0, 0, 0], lift: 0 };
const smooth = (x: number) => {
  const t = Math.min(1, Math.max(0, x));
  return t * t * (3 - 2 * t);
};
/** In over the first quarter, held, out over the last quarter. */
const envelope = (u: number) => Math.min(smooth(u / 0.25), smooth((1 - u) / 0.25));

/**
 * Where a gesture puts each arm at `u` (0–1 through it), for a figure whose arms hang down at rest
 * (+x is the side `side` = 1, +z faces the visitor). The arm that waves and points is the
 * figure's right (side −1, on the visitor's left); a shrug lifts both shoulders and turns the
 * forearms out, palms up. Nod and shake move only the head (face driver).
 */
export function armPose(gesture: TAvatarGesture | null, u: number, side: number): ArmPose {
  if (!gesture || u <= 0 || u >= 1) return REST;
  const e = envelope(u);
  const right = side < 0;
  switch (gesture) {
    case 'wave': {
      if (!right) return REST;
      // The arm out, the forearm up, the hand by the head (inside a medium shot's frame, not over
      // it); the hand swings from the elbow, three times.
      const swing = Math.sin(Math.min(1, Math.max(0, (u - 0.2) / 0.6)) * Math.PI * 6) * 0.35 * smooth((u - 0.15) / 0.1);
      // The palm to the visitor, the hand tipped back a little at the wrist.
      return { upper: [-0.25 * e, 0, side * 0.95 * e], fore: [0, 0, side * (1.65 * e + swing)], lift: 0.008 * e, hand: [-0.15 * e, side * 1.1 * e, 0] };
    }
    case 'point': {
      if (!right) return REST;
      // The arm forward and a little across, the forearm almost straight.
      // The hand in line with the forearm, turned about it, the index finger straight.
      return { upper: [-1.25 * e, 0, side * 0.2 * e], fore: [-0.15 * e, 0, 0], lift: 0.004 * e, hand: [0, side * -1.2 * e, 0], index: e };
    }
    case 'shrug': {
      const s = Math.sin(Math.PI * u);
      // Palms up: each hand turned out about its forearm.
      return { upper: [0, 0, side * 0.12 * s], fore: [-0.9 * s, 0, side * 0.35 * s], lift: 0.022 * s, hand: [0, side * 1.3 * s, 0] };
    }
    default:
      return REST;
  }
}

const mix = (a: [number, number, number], b: [number, number, number], t: number): [number, number, number] => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t];
const NO_TURN: [number, number, number] = [0, 0, 0];
const scaled = (p: ArmPose, k: number): ArmPose => (k === 1 ? p : { upper: mix(REST.upper, p.upper, k), fore: mix(REST.fore, p.fore, k), lift: p.lift * k, hand: mix(NO_TURN, p.hand ?? NO_TURN, k), index: (p.index ?? 0) * k });

/**
 * One arm's pose for a frame: the gesture playing at its intensity, and while it takes over from one
 * it cut short, a smooth blend from where that one was held (no snap to rest in between).
 */
export function armPoseOf(face: Pick<FaceState, 'gesture' | 'gestureProgress' | 'gestureIntensity' | 'gestureFrom' | 'gestureBlend'>, side: number): ArmPose {
  const now = scaled(armPose(face.gesture, face.gestureProgress, side), face.gesture ? face.gestureIntensity : 1);
  const from = face.gestureFrom;
  if (!from || face.gestureBlend >= 1) return now;
  const held = scaled(armPose(from.gesture, from.progress, side), from.intensity);
  const t = smooth(face.gestureBlend);
  return { upper: mix(held.upper, now.upper, t), fore: mix(held.fore, now.fore, t), lift: held.lift + (now.lift - held.lift) * t, hand: mix(held.hand ?? NO_TURN, now.hand ?? NO_TURN, t), index: (held.index ?? 0) + ((now.index ?? 0) - (held.index ?? 0)) * t };
}

/**
 * The arms' life at rest (added to whatever pose `armPoseOf` gives): hanging a little away from
 * the body and bent a little at the elbow, they swing back as the body shifts its weight (a
 * pendulum lagging the lean) and open a touch as the chest breathes — so a full body standing
 * and listening is not a mannequin with its arms glued to its sides.
 */
export function idleArm(face: Pick<FaceState, 'breath' | 'lean'>, side: number): ArmPose {
  const breath = Math.max(-1, Math.min(1, face.breath));
  return {
    upper: [-0.05 - 0.015 * breath, 0, side * (0.07 + 0.02 * breath) - face.lean * 0.35],
    fore: [-0.16 - 0.03 * breath, 0, side * 0.03],
    lift: 0.002 * breath,
  };
}

/**
 * A full body's arms at rest as a presenter holds them: the hands loosely together in front of
 * the waist (elbows by the sides, forearms forward and in), breathing with the chest. Faded out
 * by `weight` while a gesture moves the arms.
 */
export function presenterArm(face: Pick<FaceState, 'breath' | 'lean'>, side: number, weight: number): ArmPose {
  const breath = Math.max(-1, Math.min(1, face.breath));
  const k = Math.max(0, Math.min(1, weight));
  return {
    upper: [k * (-0.12 - 0.012 * breath), 0, k * side * 0.06 - face.lean * 0.35],
    fore: [k * (-0.68 - 0.02 * breath), 0, -k * side * 0.68],
    lift: 0.002 * breath,
  };
}

/** How far a gesture has the arm away from rest (0 at rest … 1 well into a gesture): what fades a rest pose out. */
export const armAway = (p: ArmPose) => Math.min(1, (Math.abs(p.upper[0]) + Math.abs(p.upper[2]) + Math.abs(p.fore[0]) + Math.abs(p.fore[2])) / 0.5);
