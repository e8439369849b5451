import type { PhotoLandmarks } from './stage-config';

/**
 * The face mesh of a talking photo (ADR 091): the 68-point landmarks found when the admin
 * attached the photo (jaw, eyes, lips), extended over the forehead, cheeks, nose, neck, hair and
 * a fixed outer ring, triangulated (Delaunay) once per photo, and deformed per frame:
 *
 * - the lower jaw (lower lip, chin, jaw line) moves down as the mouth opens; the mesh is cut
 *   along the lower inner lip, so an opening is a hole whose inside the renderer paints (teeth,
 *   tongue, shading) while everything above the cut — the upper lip and any real teeth the
 *   photo shows — stays with the skull and is never stretched;
 * - the upper lids slide down onto the lower lids (a blink closes the real lids), the eye's
 *   inside shifts with the gaze (saccades);
 * - the head turns, tilts and nods a little over a fixed neck, shoulders and background: the
 *   outer ring never moves, so the mesh cannot tear at its boundary.
 *
 * Pure geometry in photo pixels: no DOM, so it is unit tested.
 */
export type Pt = [number, number];

/** What the mouth, eyes and head do in one frame (from the face driver's state). */
export interface MeshPose {
  /** Jaw opening, 0–1. */
  open: number;
  /** Lips spread (E, I), 0–1. */
  wide: number;
  /** Lips rounded (O, U, RR), 0–1. */
  round: number;
  /** Upper lip raised to show teeth (FF, TH, SS, CH), 0–1. */
  teeth: number;
  /** Lips pressed (PP), 0–1. */
  press: number;
  blinkLeft: number;
  blinkRight: number;
  /** Gaze, radians (small). */
  eyeYaw: number;
  eyePitch: number;
  /** Head, radians (small). */
  yaw: number;
  pitch: number;
  roll: number;
  /** Brows raised, 0–1. */
  brow: number;
  /** Inner ends of the brows up, outer ends a little down (sad, concerned), 0–1. */
  browInner: number;
  /** Smile, 0–1 (mouth corners up and out a little). */
  smile: number;
}

export const REST_POSE: MeshPose = { open: 0, wide: 0, round: 0, teeth: 0, press: 0, blinkLeft: 0, blinkRight: 0, eyeYaw: 0, eyePitch: 0, yaw: 0, pitch: 0, roll: 0, brow: 0, browInner: 0, smile: 0 };

interface Eye {
  /** Upper lid contour (2 vertices), lower lid under each (2 vertices), the corners, the centre. */
  upper: [number, number];
  lower: [number, number];
  corners: [number, number];
  centre: number;
  /** Skin above the lid (folds down a little as the lid closes). */
  crease: number[];
  /** The brow (the photo's own 5 points when stored, else 3 placed from the eye), inner end last. */
  brow: number[];
  /** Forehead skin just above the brow (follows the brow half way). */
  aboveBrow: number[];
  width: number;
}

export interface PhotoMesh {
  /** Image size the mesh lives in. */
  width: number;
  height: number;
  /** Rest positions (x, y per vertex) — also the texture coordinates. */
  rest: Float32Array;
  /** Triangles (vertex indices, three per triangle). */
  triangles: Uint16Array;
  /** How far each vertex follows the head (1 face and hair … 0 the fixed outer ring). */
  head: Float32Array;
  /** How far each vertex follows the jaw as it drops (0 above the mouth … 1 lower lip and chin). */
  jaw: Float32Array;
  /** Depth (nose 1 … face edge 0): kept for a parallax; the head moves rigidly today (ADR 091). */
  depth: Float32Array;
  /** Vertices of the fixed outer ring (never move). */
  boundary: number[];
  /** The cut: its upper side (stays with the skull) and lower side (moves with the jaw), left corner to right corner. */
  cutUpper: number[];
  cutLower: number[];
  /** Outer lip contour (12 vertices, dlib 48–59): corners are 0 and 6. */
  lips: number[];
  eyes: [Eye, Eye];
  /** The nose: bridge (follows the turn a little), tip, and base (nostrils: lift with the upper lip, widen with a smile). */
  nose: { bridge: number[]; tip: number[]; base: number[]; wings: [number, number] };
  /** The brows and the nose come from the photo's landmarks (else from the face's proportions). */
  fromLandmarks: { brows: boolean; nose: boolean };
  /** Face frame: eye midpoint, unit vectors right (u) and down (n), interocular distance. */
  frame: { origin: Pt; u: Pt; n: Pt; d: number };
  /** Eyes, chin, mouth centre and width, face width (photo px), for framing and painting. */
  features: { eyes: [Pt, Pt]; chin: Pt; mouth: Pt; mouthWidth: number; faceWidth: number; eyeToChin: number; top: Pt };
  /** The photo's mouth was open at rest (real teeth show between the lips). */
  openAtRest: boolean;
  /** Mean gap between the inner lips at rest (photo px). */
  gap: number;
}

const sub = (a: Pt, b: Pt): Pt => [a[0] - b[0], a[1] - b[1]];
const add = (a: Pt, b: Pt): Pt => [a[0] + b[0], a[1] + b[1]];
const mul = (a: Pt, k: number): Pt => [a[0] * k, a[1] * k];
const lerp = (a: Pt, b: Pt, t: number): Pt => [a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t];
const dot = (a: Pt, b: Pt) => a[0] * b[0] + a[1] * b[1];
const len = (a: Pt) => Math.hypot(a[0], a[1]);
const mean = (pts: Pt[]): Pt => mul(pts.reduce((s, p) => add(s, p), [0, 0] as Pt), 1 / pts.length);
const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));
const smoothstep = (a: number, b: number, v: number) => {
  const t = clamp((v - a) / (b - a), 0, 1);
  return t * t * (3 - 2 * t);
};

/** Signed area ×2 of a triangle (positive: counter-clockwise in y-down image space is negative). */
export const area2 = (a: Pt, b: Pt, c: Pt) => (b[0] - a[0]) * (c[1] - a[1]) - (c[0] - a[0]) * (b[1] - a[1]);

/** Delaunay triangulation (Bowyer–Watson; a hundred or so points, once per photo). */
export function delaunay(points: Pt[]): [number, number, number][] {
  const n = points.length;
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const [x, y] of points) {
    minX = Math.min(minX, x);
    minY = Math.min(minY, y);
    maxX = Math.max(maxX, x);
    maxY = Math.max(maxY, y);
  }
  const span = Math.max(maxX - minX, maxY - minY) * 20 + 10;
  const cx = (minX + maxX) / 2;
  const cy = (minY + maxY) / 2;
  const pts: Pt[] = [...points, [cx - span, cy - span], [cx + span, cy - span], [cx, cy + span]];
  type Tri = { a: number; b: number; c: number; x: number; y: number; r2: number };
  const circum = (a: number, b: number, c: number): Tri => {
    const [ax, ay] = pts[a]!;
    const [bx, by] = pts[b]!;
    const [qx, qy] = pts[c]!;
    const d = 2 * (ax * (by - qy) + bx * (qy - ay) + qx * (ay - by));
    if (Math.abs(d) < 1e-12) return { a, b, c, x: 0, y: 0, r2: Infinity };
    const a2 = ax * ax + ay * ay;
    const b2 = bx * bx + by * by;
    const c2 = qx * qx + qy * qy;
    const x = (a2 * (by - qy) + b2 * (qy - ay) + c2 * (ay - by)) / d;
    const y = (a2 * (qx - bx) + b2 * (ax - qx) + c2 * (bx - ax)) / d;
    return { a, b, c, x, y, r2: (ax - x) ** 2 + (ay - y) ** 2 };
  };
  let tris: Tri[] = [circum(n, n + 1, n + 2)];
  for (let i = 0; i < n; i++) {
    const [px, py] = pts[i]!;
    const bad: Tri[] = [];
    const keep: Tri[] = [];
    for (const t of tris) ((px - t.x) ** 2 + (py - t.y) ** 2 < t.r2 * (1 - 1e-9) ? bad : keep).push(t);
    const edges = new Map<string, [number, number]>();
    for (const t of bad) {
      for (const [u, v] of [
        [t.a, t.b],
        [t.b, t.c],
        [t.c, t.a],
      ] as [number, number][]) {
        const key = u < v ? `${u},${v}` : `${v},${u}`;
        if (edges.has(key)) edges.delete(key);
        else edges.set(key, [u, v]);
      }
    }
    for (const [u, v] of edges.values()) keep.push(circum(u, v, i));
    tris = keep;
  }
  return tris.filter((t) => t.a < n && t.b < n && t.c < n).map((t) => [t.a, t.b, t.c]);
}

/** Landmarks scaled to an image of this size. */
export function scaleLandmarks(lm: PhotoLandmarks, width: number, height: number): PhotoLandmarks {
  const sx = width / lm.width;
  const sy = height / lm.height;
  const s = (pts: [number, number][]) => pts.map(([x, y]) => [x * sx, y * sy] as [number, number]);
  const out: PhotoLandmarks = { width, height, mouth: s(lm.mouth), jaw: s(lm.jaw), leftEye: s(lm.leftEye), rightEye: s(lm.rightEye) };
  if (lm.leftBrow && lm.rightBrow) Object.assign(out, { leftBrow: s(lm.leftBrow), rightBrow: s(lm.rightBrow) });
  if (lm.nose) out.nose = s(lm.nose);
  return out;
}

/**
 * Builds the mesh of a face (landmarks in the image's own pixels, `width` × `height`); every
 * point but the image's corners keeps `inset` px inside the image's edge.
 */
export function buildPhotoMesh(lm: PhotoLandmarks, width: number, height: number, inset = 0): PhotoMesh {
  const verts: Pt[] = [];
  const head: number[] = [];
  const jawW: number[] = [];
  const depth: number[] = [];
  const m = Math.min(inset, width / 4, height / 4);
  const inside = (p: Pt): Pt => [clamp(p[0], m, width - m), clamp(p[1], m, height - m)];
  const addV = (p: Pt, h: number, j: number, z: number, minGap = 0) => {
    const q = inside(p);
    if (minGap > 0) {
      for (let i = 0; i < verts.length; i++) if (Math.hypot(verts[i]![0] - q[0], verts[i]![1] - q[1]) < minGap) return i;
    }
    verts.push(q);
    head.push(h);
    jawW.push(j);
    depth.push(z);
    return verts.length - 1;
  };

  const eyeL = mean(lm.leftEye);
  const eyeR = mean(lm.rightEye);
  const origin = mul(add(eyeL, eyeR), 0.5);
  const d = Math.max(1, len(sub(eyeR, eyeL)));
  const u: Pt = mul(sub(eyeR, eyeL), 1 / d);
  const n: Pt = [-u[1], u[0]];
  const down = (p: Pt) => dot(sub(p, origin), n);
  const across = (p: Pt) => dot(sub(p, origin), u);
  const at = (x: number, y: number): Pt => add(origin, add(mul(u, x), mul(n, y)));
  const chin = lm.jaw[8]!;
  const eyeToChin = Math.max(d * 0.8, down(chin));
  const mouth = lm.mouth;
  const mouthWidth = Math.max(2, len(sub(mouth[6]!, mouth[0]!)));
  const mouthLine = (down(mouth[0]!) + down(mouth[6]!)) / 2;
  const chinDown = down(chin);
  // The jaw field below the mouth: 0 a little above the mouth line, 1 from half way to the chin.
  const jawField = (p: Pt) => smoothstep(mouthLine - 0.25 * (chinDown - mouthLine), mouthLine + 0.55 * (chinDown - mouthLine), down(p));
  const faceWidth = Math.max(d * 1.5, len(sub(lm.jaw[16]!, lm.jaw[0]!)));

  // Lips. Corners follow the jaw a third of the way; the lower lip all the way.
  const lips: number[] = [];
  mouth.slice(0, 12).forEach((p, i) => {
    const lower = i > 6;
    const corner = i === 0 || i === 6;
    lips.push(addV(p, 1, corner ? 0.3 : lower ? 1 : 0, 0.5));
  });
  const innerL = mouth[12]!;
  const innerR = mouth[16]!;
  const upperInner = [mouth[13]!, mouth[14]!, mouth[15]!];
  const lowerInner = [mouth[19]!, mouth[18]!, mouth[17]!];
  const gap = upperInner.reduce((s, p, i) => s + Math.max(0, down(lowerInner[i]!) - down(p)), 0) / 3;
  const openAtRest = gap > 0.06 * mouthWidth;
  // The cut along the lower inner lip, corner to corner, densified so Delaunay keeps its edges.
  const cutLine: Pt[] = [innerL, ...lowerInner, innerR];
  const cutPts: Pt[] = [];
  cutLine.forEach((p, i) => {
    if (i > 0) cutPts.push(lerp(cutLine[i - 1]!, p, 0.5));
    cutPts.push(p);
  });
  const cornerL = addV(innerL, 1, 0.3, 0.5);
  const cutUpper: number[] = [cornerL];
  for (let i = 1; i < cutPts.length - 1; i++) cutUpper.push(addV(cutPts[i]!, 1, 0, 0.5));
  const cornerR = addV(innerR, 1, 0.3, 0.5);
  cutUpper.push(cornerR);
  // The upper inner lip, when it is apart from the lower (an open mouth: the teeth between stay up).
  if (openAtRest) for (const p of upperInner) addV(p, 1, 0, 0.5, 1.5);
  else for (const p of upperInner) addV(p, 1, 0, 0.5, Math.max(1.5, gap + 1));

  // Eyes: contour, centre, the lid's crease above, the brow above that (the photo's own brow
  // when its landmarks are stored: dlib 17–21 over the image-left eye, 22–26 over the other).
  const browLm = lm.leftBrow && lm.rightBrow ? [lm.leftBrow, lm.rightBrow] : null;
  const eyes = [lm.leftEye, lm.rightEye].map((e, side) => {
    const c = mean(e);
    const w = Math.max(2, len(sub(e[3]!, e[0]!)));
    const h = Math.max(1, (down(e[5]!) + down(e[4]!) - down(e[1]!) - down(e[2]!)) / 2);
    const idx = e.map((p) => addV(p, 1, 0, 0.3));
    const centre = addV(c, 1, 0, 0.35);
    const crease = [
      addV(add(lerp(e[0]!, e[1]!, 0.5), mul(n, -h * 0.9)), 1, 0, 0.3),
      addV(add(e[1]!, mul(n, -h * 1.1)), 1, 0, 0.3),
      addV(add(e[2]!, mul(n, -h * 1.1)), 1, 0, 0.3),
      addV(add(lerp(e[2]!, e[3]!, 0.5), mul(n, -h * 0.9)), 1, 0, 0.3),
    ];
    const bc = add(c, mul(n, -d * 0.42));
    let browPts: Pt[] = [add(bc, mul(u, -w * 0.75)), bc, add(bc, mul(u, w * 0.75))];
    const own = browLm?.[side];
    // A stored brow is used when it lies where a brow can be: above the eye's crease, under the forehead.
    if (own && own.every((p) => down(p) < down(c) - h * 1.6 && down(p) > down(c) - d * 0.9)) browPts = own;
    // Inner end last (towards the nose).
    if (Math.abs(across(browPts[0]!)) < Math.abs(across(browPts[browPts.length - 1]!))) browPts = [...browPts].reverse();
    const brow = browPts.map((p, k) => addV(p, 1, 0, k === 0 || k === browPts.length - 1 ? 0.3 : 0.35, d * 0.05));
    // The forehead just above: a lifted brow folds the skin over it a little, it does not tear it.
    const browGap = Math.max(h * 1.5, down(c) - down(mean(browPts)));
    const aboveBrow = browPts.filter((_, k) => k % 2 === 0).map((p) => addV(add(p, mul(n, -browGap * 0.55)), 1, 0, 0.25, d * 0.1));
    // Below the eye.
    addV(add(c, mul(n, h * 1.9 + d * 0.08)), 1, 0, 0.4);
    return { upper: [idx[1]!, idx[2]!], lower: [idx[5]!, idx[4]!], corners: [idx[0]!, idx[3]!], centre, crease, brow, aboveBrow, width: w } as Eye;
  }) as [Eye, Eye];

  // Nose: bridge, tip and base — the photo's own (dlib 27–35) when stored and plausible, else
  // placed from the eyes and mouth.
  const mouthTop = down(mouth[3]!);
  const ownNose = lm.nose && lm.nose.every((p) => down(p) > -d * 0.6 && down(p) < mouthTop && Math.abs(across(p)) < d * 0.8) ? lm.nose : null;
  const tipDown = ownNose ? down(ownNose[3]!) : mouthTop * 0.72;
  const nose: PhotoMesh['nose'] = ownNose
    ? {
        bridge: [addV(ownNose[1]!, 1, 0, 0.7, d * 0.05), addV(ownNose[2]!, 1, 0, 0.85, d * 0.05)],
        tip: [addV(ownNose[3]!, 1, 0, 1, d * 0.03)],
        base: ownNose.slice(4).map((p, k) => addV(p, 1, 0, k === 2 ? 0.9 : 0.75, d * 0.03)),
        wings: [0, 0],
      }
    : {
        bridge: [addV(at(0, tipDown * 0.35), 1, 0, 0.7), addV(at(0, tipDown * 0.7), 1, 0, 0.9)],
        tip: [addV(at(0, tipDown), 1, 0, 1)],
        base: [addV(at(-d * 0.24, tipDown * 0.97), 1, 0, 0.75), addV(at(d * 0.24, tipDown * 0.97), 1, 0, 0.75)],
        wings: [0, 0],
      };
  nose.wings = [nose.base[0]!, nose.base[nose.base.length - 1]!];
  // Beside the wings (the fold where the cheek starts): keeps the nose's triangles small, so a
  // widening wing stretches only the skin next to it.
  for (const s of [-1, 1]) {
    const wing = verts[nose.wings[s < 0 ? 0 : 1]]!;
    addV(add(wing, add(mul(u, s * d * 0.14), mul(n, -d * 0.1))), 1, 0, 0.5, d * 0.06);
  }
  // Cheeks.
  for (const s of [-1, 1]) {
    const outer = s < 0 ? lm.leftEye[0]! : lm.rightEye[3]!;
    const jawSide = s < 0 ? lm.jaw[3]! : lm.jaw[13]!;
    const corner = s < 0 ? mouth[0]! : mouth[6]!;
    const jawLow = s < 0 ? lm.jaw[5]! : lm.jaw[11]!;
    const p1 = lerp(outer, jawSide, 0.5);
    const p2 = lerp(corner, jawLow, 0.5);
    const p3 = lerp(at(s * d * 0.3, tipDown), corner, 0.5);
    const p4 = lerp(lerp(outer, corner, 0.5), p1, 0.5);
    addV(p1, 1, jawField(p1) * 0.6, 0.2);
    addV(p2, 1, jawField(p2), 0.3);
    addV(p3, 1, jawField(p3) * 0.5, 0.5);
    addV(p4, 1, 0, 0.35);
  }
  // Chin: between the lower lip and the chin point.
  const lipBottom = mouth[9]!;
  addV(lerp(lipBottom, chin, 0.5), 1, 1, 0.5);
  addV(lerp(mouth[8]!, lm.jaw[7]!, 0.5), 1, 1, 0.4);
  addV(lerp(mouth[10]!, lm.jaw[9]!, 0.5), 1, 1, 0.4);

  // The face outline: the jaw, then the forehead as an arc over the top.
  lm.jaw.forEach((p, i) => addV(p, 1, i <= 1 || i >= 15 ? 0 : jawField(p), 0));
  const half = faceWidth / 2;
  const jawMid = mul(add(lm.jaw[0]!, lm.jaw[16]!), 0.5);
  const foreheadH = d * 1.35 + Math.max(0, -down(jawMid));
  const arc: Pt[] = [];
  for (let k = 1; k <= 7; k++) {
    const th = Math.PI - (k * Math.PI) / 8;
    arc.push(add(jawMid, add(mul(u, half * Math.cos(th)), mul(n, -foreheadH * Math.sin(th)))));
  }
  arc.forEach((p) => addV(p, 1, 0, 0));
  // A ring inside the forehead (hairline side of the brows).
  for (let k = 1; k <= 5; k++) {
    const th = Math.PI - (k * Math.PI) / 6;
    // (Not on a brow: a point that stays while the brow beside it lifts would dent it.)
    addV(add(jawMid, add(mul(u, half * 0.62 * Math.cos(th)), mul(n, -foreheadH * 0.62 * Math.sin(th)))), 1, 0, 0.25, d * 0.15);
  }
  const top = add(jawMid, mul(n, -foreheadH));
  // Hair and ears: around the face, following the head most of the way.
  const centre = add(origin, mul(n, eyeToChin * 0.25));
  const outline: Pt[] = [...lm.jaw, ...[...arc].reverse()];
  for (let i = 0; i < outline.length; i += 2) {
    const p = outline[i]!;
    const v = sub(p, centre);
    // Below the mouth the ring is the neck: further out, it barely follows the head and
    // stretches as the chin drops.
    const low = down(p) > mouthLine;
    const q = add(centre, mul(v, low ? 1.5 : 1.28));
    addV(q, low ? 0.3 : 1, low ? 0.45 * jawField(p) : 0, 0, d * 0.2);
  }
  // Neck.
  for (const t of [-0.55, 0, 0.55]) addV(at(t * faceWidth * 0.5, chinDown + eyeToChin * 0.7), 0.15, 0.2, 0, d * 0.2);
  // The fixed outer ring: an ellipse well outside the head, and the image corners.
  const boundary: number[] = [];
  const ra = faceWidth * 1.45;
  const rb = (foreheadH + eyeToChin) * 1.05;
  const ringC = add(origin, mul(n, (eyeToChin - foreheadH) / 2));
  for (let k = 0; k < 20; k++) {
    const th = (k / 20) * Math.PI * 2;
    const p = add(ringC, add(mul(u, ra * Math.cos(th)), mul(n, rb * Math.sin(th))));
    const i = addV(p, 0, 0, 0, d * 0.3);
    if (head[i] === 0 && !boundary.includes(i)) boundary.push(i);
  }
  // The inset rectangle's edge, fixed: the mesh ends there (the photo under it shows beyond).
  for (let k = 0; k < 8; k++) {
    const f = k / 8;
    for (const p of [
      [m + (width - 2 * m) * f, m],
      [width - m, m + (height - 2 * m) * f],
      [width - m - (width - 2 * m) * f, height - m],
      [m, height - m - (height - 2 * m) * f],
    ] as Pt[]) {
      verts.push(p);
      head.push(0);
      jawW.push(0);
      depth.push(0);
      boundary.push(verts.length - 1);
    }
  }

  // Triangulate without the lower side of the cut, then give the triangles below the cut its own copies.
  let tris = delaunay(verts);
  const cutSet = new Set(cutUpper.slice(1, -1));
  const lowerCopy = new Map<number, number>();
  for (const i of cutUpper.slice(1, -1)) {
    verts.push([...verts[i]!] as Pt);
    head.push(1);
    jawW.push(1);
    depth.push(0.5);
    lowerCopy.set(i, verts.length - 1);
  }
  const cutDownAt = (x: number) => {
    // The cut's depth at this distance across (piecewise linear between its points).
    const pts = cutUpper.map((i) => [across(verts[i]!), down(verts[i]!)] as Pt);
    if (x <= pts[0]![0]) return pts[0]![1];
    for (let k = 1; k < pts.length; k++) {
      const [x0, y0] = pts[k - 1]!;
      const [x1, y1] = pts[k]!;
      if (x <= x1) return y0 + ((y1 - y0) * (x - x0)) / Math.max(1e-6, x1 - x0);
    }
    return pts[pts.length - 1]![1];
  };
  tris = tris.map((t) => {
    if (!t.some((i) => cutSet.has(i))) return t;
    const others = t.filter((i) => !cutSet.has(i) && !cutUpper.includes(i));
    const probe = others.length ? mean(others.map((i) => verts[i]!)) : mean(t.map((i) => verts[i]!));
    const below = down(probe) > cutDownAt(across(probe)) + 1e-6;
    return below ? (t.map((i) => lowerCopy.get(i) ?? i) as [number, number, number]) : t;
  });
  const cutLower = [cutUpper[0]!, ...cutUpper.slice(1, -1).map((i) => lowerCopy.get(i)!), cutUpper[cutUpper.length - 1]!];
  // Drop slivers (the fixed ring's corners can make some; the photo under the mesh fills them).
  const kept = tris.filter(([a, b, c]) => Math.abs(area2(verts[a]!, verts[b]!, verts[c]!)) > 0.5);
  // Consistent winding.
  const triangles = new Uint16Array(kept.length * 3);
  kept.forEach(([a, b, c], k) => {
    const ccw = area2(verts[a]!, verts[b]!, verts[c]!) > 0;
    triangles.set(ccw ? [a, b, c] : [a, c, b], k * 3);
  });
  // Nothing moves at the edge of the photo (or of its inset): motion fades out over half the
  // distance between the eyes, so a face near the edge folds no triangle.
  verts.forEach(([x, y], i) => {
    const edge = smoothstep(0, d * 0.6, Math.min(x - m, y - m, width - m - x, height - m - y));
    head[i] = head[i]! * edge;
    jawW[i] = jawW[i]! * edge;
  });
  const rest = new Float32Array(verts.length * 2);
  verts.forEach(([x, y], i) => {
    rest[i * 2] = x;
    rest[i * 2 + 1] = y;
  });
  return {
    width,
    height,
    rest,
    triangles,
    head: Float32Array.from(head),
    jaw: Float32Array.from(jawW),
    depth: Float32Array.from(depth),
    boundary,
    cutUpper,
    cutLower,
    lips,
    eyes,
    nose,
    fromLandmarks: { brows: eyes.every((e) => e.brow.length === 5), nose: ownNose !== null },
    frame: { origin, u, n, d },
    features: { eyes: [eyeL, eyeR], chin, mouth: mean(mouth.slice(0, 12)), mouthWidth, faceWidth, eyeToChin, top },
    openAtRest,
    gap,
  };
}

/** The mouth's shape for a viseme weight vector (Oculus order, as VISEMES). */
export function poseFromVisemes(visemes: ArrayLike<number>, jaw: number): Pick<MeshPose, 'open' | 'wide' | 'round' | 'teeth' | 'press'> {
  const w = (i: number) => visemes[i] ?? 0;
  // sil PP FF TH DD kk CH SS nn RR aa E I O U
  return {
    open: clamp(jaw, 0, 1),
    wide: clamp(w(11) + w(12) + 0.5 * w(7) + 0.3 * w(6), 0, 1),
    round: clamp(w(13) + w(14) + 0.6 * w(9) + 0.3 * w(6), 0, 1),
    teeth: clamp(w(2) + w(3) + w(7) + w(6) * 0.8, 0, 1),
    press: clamp(w(1), 0, 1),
  };
}

/** How far the brows rise at `brow` = 1, in interocular distances. */
export const BROW_LIFT = 0.15;
/** How far the nose's tip leads the head's turn, in interocular distances per radian. */
export const NOSE_LEAD = 0.35;

/** How far the jaw drops at `open` = 1, in photo px. */
/** (A face turned aside has a narrow mouth on the photo: the drop follows the face's height then.) */
export const jawDrop = (mesh: PhotoMesh) => Math.max(mesh.features.mouthWidth, mesh.features.eyeToChin * 0.5) * 0.42;

/**
 * Deformed vertex positions for a pose (photo px) into `out` (length = rest). The outer ring
 * stays where it is whatever the pose.
 */
export function deformMesh(mesh: PhotoMesh, pose: MeshPose, out: Float32Array = new Float32Array(mesh.rest.length)): Float32Array {
  const { rest, head, jaw } = mesh;
  const { u, n, d } = mesh.frame;
  out.set(rest);
  const mw = mesh.features.mouthWidth;
  const vert = (i: number): Pt => [out[i * 2]!, out[i * 2 + 1]!];
  const move = (i: number, delta: Pt) => {
    out[i * 2] = out[i * 2]! + delta[0];
    out[i * 2 + 1] = out[i * 2 + 1]! + delta[1];
  };

  // Mouth: the jaw drops (the lower side of the cut, the lower lip, the chin).
  const drop = clamp(pose.open, 0, 1) * jawDrop(mesh);
  const count = rest.length / 2;
  if (drop > 0) for (let i = 0; i < count; i++) if (jaw[i]! > 0) move(i, mul(n, drop * jaw[i]!));
  // The upper lip rises a little on open vowels and to show the teeth.
  const lift = drop * 0.1 + pose.teeth * mw * 0.045;
  const upperLip = [...mesh.lips.slice(1, 6), ...mesh.cutUpper.slice(1, -1)];
  for (const i of upperLip) move(i, mul(n, -lift));
  // Pressed lips (PP) meet: the lower lip rises a touch — over the teeth of a photo whose lips
  // were apart (it is drawn after them), so "m", "b" and "p" close the mouth.
  if (pose.press > 0) {
    const rise = mesh.openAtRest ? mesh.gap * 0.95 : mw * 0.03;
    for (const i of [...mesh.lips.slice(7), ...mesh.cutLower.slice(1, -1)]) move(i, mul(n, -pose.press * rise));
  }
  // Corners: out for a wide mouth and a smile, in for a round one.
  const spread = (pose.wide * 0.08 + pose.smile * 0.04 - pose.round * 0.1) * mw;
  const corners: [number, number][] = [
    [mesh.lips[0]!, -1],
    [mesh.cutUpper[0]!, -1],
    [mesh.lips[6]!, 1],
    [mesh.cutUpper[mesh.cutUpper.length - 1]!, 1],
  ];
  for (const [i, s] of corners) move(i, add(mul(u, s * spread), mul(n, -pose.smile * mw * 0.03)));
  // Round lips: the lips in between come in too, proportionally to how far across they are.
  if (pose.round > 0 || pose.wide > 0) {
    const cx = mesh.features.mouth;
    for (const i of [...mesh.lips.filter((_, k) => k !== 0 && k !== 6), ...mesh.cutUpper.slice(1, -1), ...mesh.cutLower.slice(1, -1)]) {
      const a = dot(sub(vert(i), cx), u) / (mw / 2);
      move(i, mul(u, a * spread * 0.6));
    }
  }

  // Nose: the base (nostrils) rises with the upper lip — a third of its lift — and the wings
  // widen and rise a touch with a smile; the tip and lower bridge lead a turn of the head a
  // little (they stand out from the face), so the nose is not a sticker on a sliding face.
  const baseLift = lift * 0.3 + pose.smile * d * 0.02;
  for (const i of mesh.nose.base) move(i, mul(n, -baseLift));
  mesh.nose.wings.forEach((i, k) => move(i, mul(u, (k === 0 ? -1 : 1) * pose.smile * d * 0.025)));
  const lead = add(mul(u, clamp(pose.yaw, -0.3, 0.3) * d * NOSE_LEAD), mul(n, clamp(pose.pitch, -0.3, 0.3) * d * NOSE_LEAD * 0.6));
  mesh.nose.tip.forEach((i) => move(i, lead));
  move(mesh.nose.bridge[1]!, mul(lead, 0.6));
  move(mesh.nose.bridge[0]!, mul(lead, 0.25));
  for (const i of mesh.nose.base) move(i, mul(lead, 0.7));

  // Eyes: the upper lid slides down onto the lower, the crease follows a little; the inside shifts with the gaze.
  mesh.eyes.forEach((eye, side) => {
    const blink = clamp(side === 0 ? pose.blinkLeft : pose.blinkRight, 0, 1);
    const closeTo = (k: number) => {
      const up = eye.upper[k]!;
      const lo = eye.lower[k]!;
      const target = lerp([rest[lo * 2]!, rest[lo * 2 + 1]!], [rest[up * 2]!, rest[up * 2 + 1]!], 0.03);
      const delta = sub(target, [rest[up * 2]!, rest[up * 2 + 1]!]);
      return delta;
    };
    const d0 = closeTo(0);
    const d1 = closeTo(1);
    move(eye.upper[0], mul(d0, blink));
    move(eye.upper[1], mul(d1, blink));
    const avg = mul(add(d0, d1), 0.5);
    eye.crease.forEach((i, k) => move(i, mul(k === 1 ? d0 : k === 2 ? d1 : avg, blink * (k === 0 || k === 3 ? 0.3 : 0.5))));
    const gaze = add(mul(u, clamp(pose.eyeYaw, -0.3, 0.3) * eye.width * 1.1), mul(n, clamp(pose.eyePitch, -0.3, 0.3) * eye.width * 0.5));
    // The centre goes where the closed lid lies (between the lower lid points, a little up).
    const r = (i: number): Pt => [rest[i * 2]!, rest[i * 2 + 1]!];
    const lowMid = lerp(mul(add(r(eye.lower[0]), r(eye.lower[1])), 0.5), mul(add(r(eye.upper[0]), r(eye.upper[1])), 0.5), 0.03);
    move(eye.centre, add(mul(gaze, 1 - blink), mul(sub(lowMid, r(eye.centre)), blink)));
    // Brows lift (the inner end a little more: surprise and concern read from it), the skin
    // above follows half way, the crease under a third.
    const browLift = pose.brow * d * BROW_LIFT;
    const inner = pose.browInner * d * BROW_LIFT * 0.8;
    eye.brow.forEach((i, k) => {
      const f = k / Math.max(1, eye.brow.length - 1);
      move(i, mul(n, -browLift * (0.8 + 0.25 * f) - inner * (1.3 * f * f - 0.3)));
    });
    for (const i of eye.aboveBrow) move(i, mul(n, -browLift * 0.5));
    for (const i of eye.crease) move(i, mul(n, -browLift * 0.35));
  });

  // Head: turn, nod and tilt about the neck, rigidly where the weight is 1 (the face is drawn
  // in one piece then), fading out over hair and neck; the outer ring never moves.
  const [a, b, c, dd, e, f] = headMatrix(mesh, pose);
  for (let i = 0; i < count; i++) {
    const h = head[i]!;
    if (h <= 0) continue;
    const [x, y] = vert(i);
    out[i * 2] = x + h * (a * x + c * y + e - x);
    out[i * 2 + 1] = y + h * (b * x + dd * y + f - y);
  }
  for (const i of mesh.boundary) {
    out[i * 2] = rest[i * 2]!;
    out[i * 2 + 1] = rest[i * 2 + 1]!;
  }
  return out;
}

/**
 * The head's motion as a 2D affine matrix [a, b, c, d, e, f] (canvas order: x' = a·x + c·y + e,
 * y' = b·x + d·y + f): a turn and nod shift it, a tilt rotates it about a point below the chin.
 */
export function headMatrix(mesh: PhotoMesh, pose: MeshPose): [number, number, number, number, number, number] {
  const { u, n, d, origin } = mesh.frame;
  const pivot = add(origin, mul(n, mesh.features.eyeToChin * 1.5));
  const cos = Math.cos(pose.roll);
  const sin = Math.sin(pose.roll);
  const shift = add(mul(u, pose.yaw * d * 0.8), mul(n, pose.pitch * d * 0.8));
  return [cos, sin, -sin, cos, pivot[0] - cos * pivot[0] + sin * pivot[1] + shift[0], pivot[1] - sin * pivot[0] - cos * pivot[1] + shift[1]];
}

/** The mouth's hole for deformed positions: upper side left → right, then the lower side back. */
export function mouthHole(mesh: PhotoMesh, pos: Float32Array): Pt[] {
  const p = (i: number): Pt => [pos[i * 2]!, pos[i * 2 + 1]!];
  return [...mesh.cutUpper.map(p), ...mesh.cutLower.slice(1, -1).reverse().map(p)];
}
