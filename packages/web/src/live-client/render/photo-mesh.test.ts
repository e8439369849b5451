import { describe, expect, it } from 'vitest';
import astronaut from './fixtures/astronaut-landmarks.json';
import { area2, buildPhotoMesh, deformMesh, delaunay, mouthHole, REST_POSE, type PhotoMesh, type Pt } from './photo-mesh';
import type { PhotoLandmarks } from './stage-config';

const lm = astronaut as PhotoLandmarks;

/** A closed-mouth face (the astronaut's, lips together) placed near the photo's corner. */
function closedMouth(): PhotoLandmarks {
  const mouth = lm.mouth.map((p) => [...p] as [number, number]);
  // Lower inner lip onto the upper inner lip.
  mouth[17] = [...mouth[15]!];
  mouth[18] = [...mouth[14]!];
  mouth[19] = [...mouth[13]!];
  const shift = ([x, y]: [number, number]): [number, number] => [x - 150, y - 60];
  return { ...lm, mouth: mouth.map(shift), jaw: lm.jaw.map(shift), leftEye: lm.leftEye.map(shift), rightEye: lm.rightEye.map(shift) };
}

const at = (pos: Float32Array, i: number): Pt => [pos[i * 2]!, pos[i * 2 + 1]!];
const polyArea = (pts: Pt[]) => Math.abs(pts.reduce((s, p, i) => s + p[0] * pts[(i + 1) % pts.length]![1] - pts[(i + 1) % pts.length]![0] * p[1], 0)) / 2;
const inTriangle = (p: Pt, a: Pt, b: Pt, c: Pt) => {
  const s1 = area2(a, b, p);
  const s2 = area2(b, c, p);
  const s3 = area2(c, a, p);
  return (s1 >= -1e-6 && s2 >= -1e-6 && s3 >= -1e-6) || (s1 <= 1e-6 && s2 <= 1e-6 && s3 <= 1e-6);
};
const covered = (mesh: PhotoMesh, pos: Float32Array, p: Pt) => {
  const t = mesh.triangles;
  for (let k = 0; k < t.length; k += 3) if (inTriangle(p, at(pos, t[k]!), at(pos, t[k + 1]!), at(pos, t[k + 2]!))) return true;
  return false;
};
const flipped = (mesh: PhotoMesh, pos: Float32Array) => {
  let n = 0;
  const t = mesh.triangles;
  for (let k = 0; k < t.length; k += 3) {
    const before = area2(at(mesh.rest, t[k]!), at(mesh.rest, t[k + 1]!), at(mesh.rest, t[k + 2]!));
    const after = area2(at(pos, t[k]!), at(pos, t[k + 1]!), at(pos, t[k + 2]!));
    if (Math.sign(before) !== Math.sign(after) && Math.abs(after) > 1e-3) n++;
  }
  return n;
};

describe('delaunay', () => {
  it('triangulates a square with a centre into four triangles', () => {
    const tris = delaunay([
      [0, 0],
      [10, 0],
      [10, 10],
      [0, 10],
      [5, 5],
    ]);
    expect(tris).toHaveLength(4);
  });
});

it('keeps every point but the corners inside an inset (the faded edge of the photo is never redrawn)', () => {
  const mesh = buildPhotoMesh(lm, 512, 512, 26);
  for (let i = 0; i < mesh.rest.length / 2; i++) {
    const [x, y] = at(mesh.rest, i);
    const corner = false;
    if (corner) continue;
    expect(Math.min(x, y, 512 - x, 512 - y)).toBeGreaterThanOrEqual(26);
  }
});

describe.each([
  ['astronaut (open smile, 512×512)', lm, 512, 512],
  ['a closed mouth near the corner of a small photo', closedMouth(), 300, 260],
])('photo mesh: %s', (_name, landmarks, w, h) => {
  const mesh = buildPhotoMesh(landmarks, w, h);

  it('has no degenerate triangles and keeps every point inside the image', () => {
    const t = mesh.triangles;
    expect(t.length / 3).toBeGreaterThan(80);
    for (let k = 0; k < t.length; k += 3) {
      const a = at(mesh.rest, t[k]!);
      const b = at(mesh.rest, t[k + 1]!);
      const c = at(mesh.rest, t[k + 2]!);
      const cutSide = [t[k]!, t[k + 1]!, t[k + 2]!].some((i) => mesh.cutLower.includes(i));
      // Twice the area, at least half a square pixel (the cut's copies share their places at rest).
      if (!cutSide) expect(Math.abs(area2(a, b, c))).toBeGreaterThan(0.5);
    }
    for (let i = 0; i < mesh.rest.length / 2; i++) {
      const [x, y] = at(mesh.rest, i);
      expect(x).toBeGreaterThanOrEqual(0);
      expect(y).toBeGreaterThanOrEqual(0);
      expect(x).toBeLessThanOrEqual(w);
      expect(y).toBeLessThanOrEqual(h);
    }
  });

  it('covers the face, forehead and neck', () => {
    const pts: Pt[] = [...landmarks.jaw, ...landmarks.mouth, ...landmarks.leftEye, ...landmarks.rightEye, [mesh.features.top[0], Math.max(1, mesh.features.top[1])], [mesh.features.chin[0], Math.min(h - 1, mesh.features.chin[1] + 10)]];
    for (const p of pts) expect(covered(mesh, mesh.rest, p), `${p.join(',')}`).toBe(true);
  });

  it('keeps the outer boundary fixed on every viseme, blink and head motion, and folds no triangle', () => {
    const poses = [
      { ...REST_POSE, open: 1, wide: 0.3 },
      { ...REST_POSE, open: 0.4, round: 1 },
      { ...REST_POSE, teeth: 1, open: 0.1, wide: 1 },
      { ...REST_POSE, press: 1 },
      { ...REST_POSE, blinkLeft: 1, blinkRight: 1, eyeYaw: 0.2 },
      { ...REST_POSE, yaw: 0.1, pitch: -0.08, roll: 0.05, open: 0.7 },
    ];
    for (const pose of poses) {
      const pos = deformMesh(mesh, pose);
      for (const i of mesh.boundary) expect(at(pos, i)).toEqual(at(mesh.rest, i));
      expect(mesh.boundary.length).toBeGreaterThan(8);
      expect(flipped(mesh, pos), JSON.stringify(pose)).toBe(0);
    }
  });

  it('opens a hole along the cut for an open vowel, closed at rest', () => {
    const rest = deformMesh(mesh, REST_POSE);
    const open = deformMesh(mesh, { ...REST_POSE, open: 0.75 });
    const mw = mesh.features.mouthWidth;
    expect(polyArea(mouthHole(mesh, rest))).toBeLessThan(1e-3);
    expect(polyArea(mouthHole(mesh, open))).toBeGreaterThan(mw * mw * 0.08);
    // The upper side of the cut (upper lip, real teeth) stays put; the lower lip drops.
    for (const i of mesh.cutUpper.slice(1, -1)) expect(Math.abs(at(open, i)[1] - at(rest, i)[1])).toBeLessThan(mw * 0.05);
    for (const i of mesh.cutLower.slice(1, -1)) expect(at(open, i)[1] - at(rest, i)[1]).toBeGreaterThan(mw * 0.2);
  });

  it('closes the lips on PP (over the teeth when the photo shows them)', () => {
    const pressed = deformMesh(mesh, { ...REST_POSE, press: 1 });
    const rise = mesh.openAtRest ? mesh.gap * 0.9 : mesh.features.mouthWidth * 0.02;
    for (const i of mesh.cutLower.slice(1, -1)) expect(at(mesh.rest, i)[1] - at(pressed, i)[1]).toBeGreaterThan(rise);
  });

  it('closes the lids on a blink', () => {
    const closed = deformMesh(mesh, { ...REST_POSE, blinkLeft: 1, blinkRight: 1 });
    for (const eye of mesh.eyes) {
      for (const k of [0, 1] as const) {
        const openGap = at(mesh.rest, eye.lower[k])[1] - at(mesh.rest, eye.upper[k])[1];
        const closedGap = at(closed, eye.lower[k])[1] - at(closed, eye.upper[k])[1];
        expect(openGap).toBeGreaterThan(1);
        expect(closedGap).toBeLessThan(openGap * 0.2);
      }
    }
  });
});
