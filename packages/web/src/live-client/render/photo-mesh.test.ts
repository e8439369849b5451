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
  return { ...lm, mouth: mouth.map(shift), jaw: lm.jaw.map(shift), leftEye: lm.leftEye.map(shift), rightEye: lm.rightEye.map(shift), leftBrow: lm.leftBrow!.map(shift), rightBrow: lm.rightBrow!.map(shift), nose: lm.nose!.map(shift) };
}

/** The astronaut as stored before brows and nose were kept (photos attached earlier). */
function withoutBrowsAndNose(): PhotoLandmarks {
  const { leftBrow: _l, rightBrow: _r, nose: _n, ...rest } = lm;
  return rest;
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
  ['astronaut without stored brows and nose', withoutBrowsAndNose(), 512, 512],
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
      { ...REST_POSE, brow: 1, open: 1, smile: 0.4 },
      { ...REST_POSE, brow: 1, blinkLeft: 1, blinkRight: 1, yaw: -0.2, pitch: 0.1, teeth: 1 },
      { ...REST_POSE, brow: 1, smile: 0.5, yaw: 0.3, pitch: -0.3, roll: -0.1, open: 1, wide: 1 },
      { ...REST_POSE, browInner: 1, brow: 0.5, round: 1, open: 0.5 },
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

describe('brows and nose', () => {
  const d = (m: PhotoMesh) => m.frame.d;
  const meanY = (pos: Float32Array, idx: number[]) => idx.reduce((s, i) => s + at(pos, i)[1], 0) / idx.length;
  const meanX = (pos: Float32Array, idx: number[]) => idx.reduce((s, i) => s + at(pos, i)[0], 0) / idx.length;

  it("uses the photo's own brows and nose when they are stored, and places them from proportions when not", () => {
    const own = buildPhotoMesh(lm, 512, 512);
    expect(own.fromLandmarks).toEqual({ brows: true, nose: true });
    // The brow vertices are the landmarks (inner end last), the nose's tip is dlib's 30.
    const left = own.eyes[0].brow.map((i) => at(own.rest, i));
    expect(left).toHaveLength(5);
    for (const p of lm.leftBrow!) expect(left.some((q) => Math.hypot(q[0] - p[0], q[1] - p[1]) < 1e-3)).toBe(true);
    expect(Math.abs(at(own.rest, own.eyes[0].brow[4]!)[0] - 225)).toBeLessThan(Math.abs(at(own.rest, own.eyes[0].brow[0]!)[0] - 225));
    expect(at(own.rest, own.nose.tip[0]!)[0]).toBeCloseTo(lm.nose![3]![0], 3);
    expect(at(own.rest, own.nose.tip[0]!)[1]).toBeCloseTo(lm.nose![3]![1], 3);
    const old = buildPhotoMesh(withoutBrowsAndNose(), 512, 512);
    expect(old.fromLandmarks).toEqual({ brows: false, nose: false });
    expect(old.eyes[0].brow).toHaveLength(3);
    // A stored brow lying in the eye (a bad detection) is not used.
    const bad = buildPhotoMesh({ ...lm, leftBrow: lm.leftEye.slice(0, 5) }, 512, 512);
    expect(bad.fromLandmarks.brows).toBe(false);
  });

  it.each([
    ['stored', lm],
    ['placed', withoutBrowsAndNose()],
  ])('raised brows (%s) lift the brow, less the skin above and the crease, and leave the eyes open', (_n, landmarks) => {
    const mesh = buildPhotoMesh(landmarks, 512, 512);
    const up = deformMesh(mesh, { ...REST_POSE, brow: 1 });
    for (const eye of mesh.eyes) {
      const browRise = meanY(mesh.rest, eye.brow) - meanY(up, eye.brow);
      expect(browRise).toBeGreaterThan(d(mesh) * 0.08);
      const aboveRise = meanY(mesh.rest, eye.aboveBrow) - meanY(up, eye.aboveBrow);
      expect(aboveRise).toBeGreaterThan(browRise * 0.3);
      expect(aboveRise).toBeLessThan(browRise * 0.7);
      // The inner end rises more than the outer (surprise, concern).
      const rise = (i: number) => at(mesh.rest, i)[1] - at(up, i)[1];
      expect(rise(eye.brow[eye.brow.length - 1]!)).toBeGreaterThan(rise(eye.brow[0]!));
      // The lids stay where they were (the eye is not opened or shut by a brow).
      for (const i of [...eye.upper, ...eye.lower]) expect(at(up, i)).toEqual(at(mesh.rest, i));
    }
    expect(flipped(mesh, up)).toBe(0);
    // Sad: the inner ends up, the outer ends a little down.
    const sad = deformMesh(mesh, { ...REST_POSE, browInner: 1 });
    for (const eye of mesh.eyes) {
      const inner = eye.brow[eye.brow.length - 1]!;
      expect(at(mesh.rest, inner)[1] - at(sad, inner)[1]).toBeGreaterThan(d(mesh) * 0.08);
      expect(at(sad, eye.brow[0]!)[1]).toBeGreaterThan(at(mesh.rest, eye.brow[0]!)[1]);
    }
    expect(flipped(mesh, sad)).toBe(0);
  });

  it('the nose: its base rises with the upper lip and widens with a smile, its tip leads a turn; the bridge stays between the eyes', () => {
    const mesh = buildPhotoMesh(lm, 512, 512);
    const base = mesh.nose.base;
    const teeth = deformMesh(mesh, { ...REST_POSE, teeth: 1 });
    expect(meanY(mesh.rest, base) - meanY(teeth, base)).toBeGreaterThan(0.3);
    const smile = deformMesh(mesh, { ...REST_POSE, smile: 1 });
    const [wl, wr] = mesh.nose.wings;
    expect(at(smile, wr)[0] - at(smile, wl)[0]).toBeGreaterThan(at(mesh.rest, wr)[0] - at(mesh.rest, wl)[0] + d(mesh) * 0.03);
    // An open jaw moves nothing of the nose but the lip's share.
    const open = deformMesh(mesh, { ...REST_POSE, open: 1 });
    for (const i of [...mesh.nose.tip, ...mesh.nose.bridge]) expect(at(open, i)).toEqual(at(mesh.rest, i));
    // Turned: the tip moves further than the face around it (the bridge's top barely more).
    const pose = { ...REST_POSE, yaw: 0.2 };
    const turned = deformMesh(mesh, pose);
    const faceShift = meanX(turned, mesh.eyes.map((e) => e.corners[0])) - meanX(mesh.rest, mesh.eyes.map((e) => e.corners[0]));
    const tipShift = meanX(turned, mesh.nose.tip) - meanX(mesh.rest, mesh.nose.tip);
    expect(tipShift - faceShift).toBeGreaterThan(d(mesh) * 0.05);
    expect(flipped(mesh, turned)).toBe(0);
  });
});
