/**
 * Where the camera stands for a full-body persona (ADR 089, "Framing per kind"). Pure geometry in
 * the model's metres (y up, the person facing +z), so it is unit tested.
 *
 * - `medium` (the default): a medium shot like HeyGen's and Tavus's presenters — from just over the
 *   hair to the hips (the page's control bar lies over the bottom of the frame), so the face reads
 *   (its head ≈ a quarter of the frame's height: 115 px at 640×480, against 64 px for the whole figure).
 * - `full`: the whole figure, floor to hair (asked for with `Camera.shot: "full"` in the avatar config).
 *
 * A frame narrower than the body (a phone held upright) steps the camera back until the
 * shoulders and hands fit across, the hair's top kept where it was; more of the legs shows below.
 */
export type Shot = 'medium' | 'full';

export interface FullBodyFrame {
  position: [number, number, number];
  target: [number, number, number];
}

/** Medium shot: the frame's bottom edge at this share of the height from the floor (the hips). */
export const MEDIUM_BOTTOM = 0.44;
/** Space over the hair, as a share of the frame's height. */
export const HEADROOM = 0.07;
/** What must fit across a medium shot (shoulders and arms at rest), metres per metre of height. */
export const MEDIUM_WIDTH = 0.4;

export function frameFullBody(o: { top: number; floor: number; head: [number, number, number]; fovDeg: number; aspect: number; shot: Shot }): FullBodyFrame {
  const h = Math.max(0.1, o.top - o.floor);
  const [hx, , hz] = o.head;
  if (o.shot === 'full') {
    // The whole figure (the framing the page had for every full body before).
    return { position: [hx, o.floor + h * 0.64, hz + h * 1.95], target: [hx, o.floor + h * 0.5, hz] };
  }
  const halfTan = Math.tan((o.fovDeg * Math.PI) / 360);
  const aspect = Math.max(0.2, o.aspect);
  const bottom = o.floor + h * MEDIUM_BOTTOM;
  // The frame's height: hair to hips, with headroom above and a little below.
  const span = (o.top - bottom) / (1 - HEADROOM - 0.02);
  let dist = span / (2 * halfTan);
  dist = Math.max(dist, (h * MEDIUM_WIDTH) / (2 * halfTan * aspect));
  const topEdge = o.top + span * HEADROOM;
  const centre = topEdge - dist * halfTan;
  // A little above the centre, looking slightly down (as a presenter is filmed).
  return { position: [hx, centre + h * 0.03, hz + dist], target: [hx, centre, hz] };
}

/** The projected height (px) of a vertical segment `height` metres tall at distance `dist`, in a frame `frameH` px tall. */
export const projectedHeight = (height: number, dist: number, fovDeg: number, frameH: number) => (height / (2 * dist * Math.tan((fovDeg * Math.PI) / 360))) * frameH;
