// The catalogue's people, made here in code (called by make-catalog.mjs):
//  - stylized 3D personas (upper body and full body) as GLB files with the 15 Oculus viseme
//    morph targets (viseme_sil … viseme_U), blinks (eyeBlinkLeft/Right) and a few expressions
//    (mouthSmile, mouthFrown, browInnerUp, browDown), sparse morph targets (only the vertices a
//    target moves are stored), written with @gltf-transform/core;
//  - their thumbnails, rendered from the same meshes by a small software rasteriser (so a
//    thumbnail is the model, from the page's camera), as PNG;
//  - layered 2D portraits for the image avatars (SVG layers: base, eyes open/closed, one mouth
//    per mouth shape) with a manifest the avatar page composes, and a thumbnail made of the
//    same layers.
// Budget per model (checked when writing): ≤ 9,000 vertices, ≤ 12,000 triangles, ≤ 320 KB.
import zlib from 'node:zlib';
import { Accessor, Document, NodeIO } from '@gltf-transform/core';

export const BUDGET = { vertices: 9000, triangles: 12000, bytes: 320 * 1024 };

export const VISEMES = ['sil', 'PP', 'FF', 'TH', 'DD', 'kk', 'CH', 'SS', 'nn', 'RR', 'aa', 'E', 'I', 'O', 'U'];
export const EXPRESSIONS = ['eyeBlinkLeft', 'eyeBlinkRight', 'mouthSmile', 'mouthFrown', 'browInnerUp', 'browDown'];

// Mouth parameters per viseme: open (jaw/lips apart), width (×), round (narrow + forward),
// lowerIn (lower lip tucked under the teeth: f/v), press (lips pressed: p/b/m).
const MOUTH = {
  sil: {},
  PP: { press: 1 },
  FF: { open: 0.1, lowerIn: 1 },
  TH: { open: 0.22, width: 1.02 },
  DD: { open: 0.28, width: 1.04 },
  kk: { open: 0.34 },
  CH: { open: 0.22, round: 0.45 },
  SS: { open: 0.1, width: 1.12 },
  nn: { open: 0.2 },
  RR: { open: 0.26, round: 0.55 },
  aa: { open: 0.9 },
  E: { open: 0.48, width: 1.16 },
  I: { open: 0.32, width: 1.22 },
  O: { open: 0.62, round: 0.75 },
  U: { open: 0.3, round: 1 },
};

const hex = (h) => {
  const n = Number.parseInt(h.slice(1), 16);
  return [((n >> 16) & 255) / 255, ((n >> 8) & 255) / 255, (n & 255) / 255];
};
const mix = (a, b, t) => a.map((x, i) => x + (b[i] - x) * t);
const smooth = (x) => (x <= 0 ? 0 : x >= 1 ? 1 : x * x * (3 - 2 * x));

/** A mesh under construction: positions, colours, triangles; `part` tags vertices for morphs. */
class Mesh {
  constructor(name) {
    this.name = name;
    this.pos = [];
    this.col = [];
    this.idx = [];
    this.tags = [];
  }
  get count() {
    return this.pos.length / 3;
  }
  vertex(p, c, tag = null) {
    this.pos.push(p[0], p[1], p[2]);
    this.col.push(c[0], c[1], c[2]);
    this.tags.push(tag);
    return this.count - 1;
  }
  tri(a, b, c) {
    this.idx.push(a, b, c);
  }
  /** A grid of rows×cols vertices from f(u, v) → {p, c, tag}; closedU wraps u. */
  grid(rows, cols, f, { closedU = false, flip = false } = {}) {
    const base = this.count;
    for (let r = 0; r <= rows; r++) for (let c = 0; c <= cols; c++) {
      const { p, c: col, tag } = f(c / cols, r / rows);
      this.vertex(p, col, tag);
    }
    const w = cols + 1;
    for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) {
      const a = base + r * w + c;
      const b = a + 1;
      const d = a + w;
      const e = d + 1;
      if (flip) {
        this.tri(a, b, d);
        this.tri(b, e, d);
      } else {
        this.tri(a, d, b);
        this.tri(b, d, e);
      }
    }
    void closedU;
    return base;
  }
  /** An ellipsoid (centre, radii), coloured by colour(nx, ny, nz). */
  ellipsoid(center, radii, colour, { rows = 12, cols = 16, tag = null, theta0 = 0, theta1 = Math.PI } = {}) {
    return this.grid(rows, cols, (u, v) => {
      const phi = (u + 0.5) * Math.PI * 2;
      const th = theta0 + (theta1 - theta0) * v;
      const n = [Math.sin(th) * Math.sin(phi), Math.cos(th), Math.sin(th) * Math.cos(phi)];
      return { p: [center[0] + radii[0] * n[0], center[1] + radii[1] * n[1], center[2] + radii[2] * n[2]], c: typeof colour === 'function' ? colour(...n) : colour, tag: typeof tag === 'function' ? tag(...n) : tag };
    });
  }
  /** A surface of revolution around the y axis: profile [[y, rx, rz]], from bottom to top. */
  lathe(profile, colour, { cols = 24, center = [0, 0, 0] } = {}) {
    return this.grid(profile.length - 1, cols, (u, v) => {
      const f = v * (profile.length - 1);
      const i = Math.min(profile.length - 2, Math.floor(f));
      const t = f - i;
      const [y0, rx0, rz0] = profile[i];
      const [y1, rx1, rz1] = profile[i + 1];
      const y = y0 + (y1 - y0) * t;
      const rx = rx0 + (rx1 - rx0) * t;
      const rz = rz0 + (rz1 - rz0) * t;
      const phi = (u + 0.5) * Math.PI * 2;
      return { p: [center[0] + rx * Math.sin(phi), center[1] + y, center[2] + rz * Math.cos(phi)], c: typeof colour === 'function' ? colour(y, phi) : colour };
    }, { flip: true });
  }
  /** A tube along a path of [x,y,z,r] points. */
  tube(points, colour, { cols = 12 } = {}) {
    return this.grid(points.length - 1, cols, (u, v) => {
      const f = v * (points.length - 1);
      const i = Math.min(points.length - 2, Math.floor(f));
      const t = f - i;
      const a = points[i];
      const b = points[i + 1];
      const p = a.map((x, k) => x + (b[k] - x) * t);
      const dir = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
      const len = Math.hypot(...dir) || 1;
      const d = dir.map((x) => x / len);
      // Two axes perpendicular to the tube.
      const ref = Math.abs(d[2]) < 0.9 ? [0, 0, 1] : [1, 0, 0];
      let e1 = [d[1] * ref[2] - d[2] * ref[1], d[2] * ref[0] - d[0] * ref[2], d[0] * ref[1] - d[1] * ref[0]];
      const l1 = Math.hypot(...e1);
      e1 = e1.map((x) => x / l1);
      const e2 = [d[1] * e1[2] - d[2] * e1[1], d[2] * e1[0] - d[0] * e1[2], d[0] * e1[1] - d[1] * e1[0]];
      const phi = u * Math.PI * 2;
      const r = p[3];
      // Cap the ends by shrinking the radius at the first and last ring.
      const cap = v === 0 || v === 1 ? 0.35 : 1;
      return { p: [0, 1, 2].map((k) => p[k] + r * cap * (Math.cos(phi) * e1[k] + Math.sin(phi) * e2[k])), c: colour };
    });
  }
}

function normals(pos, idx) {
  const n = new Float32Array(pos.length);
  for (let i = 0; i < idx.length; i += 3) {
    const [a, b, c] = [idx[i] * 3, idx[i + 1] * 3, idx[i + 2] * 3];
    const u = [pos[b] - pos[a], pos[b + 1] - pos[a + 1], pos[b + 2] - pos[a + 2]];
    const v = [pos[c] - pos[a], pos[c + 1] - pos[a + 1], pos[c + 2] - pos[a + 2]];
    const f = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
    for (const k of [a, b, c]) for (let j = 0; j < 3; j++) n[k + j] += f[j];
  }
  for (let i = 0; i < n.length; i += 3) {
    const l = Math.hypot(n[i], n[i + 1], n[i + 2]) || 1;
    n[i] /= l;
    n[i + 1] /= l;
    n[i + 2] /= l;
  }
  return n;
}

/**
 * One person. Units are metres, y up, facing +z; the head is built around the origin of the
 * Head node (its neck pivot), the body in the root's space.
 */
export function buildPerson(p, { fullBody }) {
  const skin = hex(p.skin);
  const skinDark = mix(skin, [0.35, 0.15, 0.1], 0.25);
  const hair = hex(p.hair);
  const shirt = hex(p.shirt);
  const pants = hex('#334155');
  const shoes = hex('#1f2937');
  const lip = mix(skin, [0.62, 0.2, 0.22], 0.45);
  const mouthIn = [0.3, 0.06, 0.08];
  const teeth = [0.96, 0.95, 0.92];
  const brow = mix(hair, [0, 0, 0], 0.2);
  const f = p.build === 'f';

  // ── Head (in Head-node space: the neck pivot at 0, the head centre 0.11 above it) ──
  const head = new Mesh('Face');
  const H = { c: [0, 0.115, 0.005], r: [f ? 0.079 : 0.083, 0.105, 0.092] };
  const mouthY = H.c[1] - 0.052;
  const eyeY = H.c[1] + 0.012;
  const eyeX = 0.031;
  // The head's front surface z at (x, y).
  const surfaceZ = (x, y) => {
    const q = 1 - (x / H.r[0]) ** 2 - ((y - H.c[1]) / H.r[1]) ** 2;
    return H.c[2] + H.r[2] * Math.sqrt(Math.max(0, q));
  };
  // Skin: an ellipsoid with a nose, cheek and chin shaped in; chin vertices drop with the jaw.
  head.grid(36, 44, (u, v) => {
    const phi = (u + 0.5) * Math.PI * 2;
    const th = v * Math.PI;
    let n = [Math.sin(th) * Math.sin(phi), Math.cos(th), Math.sin(th) * Math.cos(phi)];
    let x = H.r[0] * n[0];
    let y = H.c[1] + H.r[1] * n[1];
    let z = H.c[2] + H.r[2] * n[2];
    // Narrower jaw and chin.
    const below = smooth((H.c[1] - y) / H.r[1]);
    x *= 1 - 0.22 * below;
    z -= 0.012 * below * (n[2] < 0 ? 1 : 0);
    // Nose.
    const dn = Math.hypot(x / 0.014, (y - (H.c[1] - 0.018)) / 0.024);
    if (n[2] > 0) z += 0.018 * Math.exp(-dn * dn);
    // Eye sockets, slightly in.
    for (const s of [-1, 1]) {
      const de = Math.hypot((x - s * eyeX) / 0.018, (y - eyeY) / 0.012);
      if (n[2] > 0) z -= 0.004 * Math.exp(-de * de);
    }
    const dm = Math.hypot(x / 0.03, (y - mouthY) / 0.02);
    const tag = n[2] > 0.2 && y < mouthY + 0.002 ? { chin: smooth((mouthY + 0.002 - y) / 0.012) * smooth((n[2] - 0.2) / 0.3), cheek: 0 } : { cheek: n[2] > 0.3 && dm < 2.2 ? Math.exp(-((dm - 1.3) ** 2)) : 0 };
    const blush = Math.max(0, 1 - Math.hypot((Math.abs(x) - 0.045) / 0.02, (y - (mouthY + 0.025)) / 0.015));
    return { p: [x, y, z], c: n[2] > 0 ? mix(skin, mix(skin, [0.9, 0.45, 0.45], 0.35), blush * 0.6) : skin, tag };
  });
  // Ears.
  for (const s of [-1, 1]) head.ellipsoid([s * (H.r[0] * 0.96), H.c[1] + 0.004, H.c[2] - 0.01], [0.012, 0.022, 0.014], skinDark, { rows: 6, cols: 10 });

  // Lips: three rows (inner edge, crown, outer edge) around the mouth, 36 around.
  const LIPS = 36;
  function mouthPoint(u, row, P) {
    const open = P.open ?? 0;
    const width = (P.width ?? 1) * (1 - 0.38 * (P.round ?? 0)) * (1 - 0.04 * (P.press ?? 0));
    const smile = P.smile ?? 0;
    const frown = P.frown ?? 0;
    const phi = u * Math.PI * 2;
    const c = Math.cos(phi);
    const s = Math.sin(phi);
    const upper = s >= 0;
    const aIn = 0.02;
    const aOut = 0.026;
    const a = row === 0 ? aIn : row === 1 ? (aIn + aOut) / 2 : aOut;
    // Inner edge opens mostly downwards (the jaw), a little upwards.
    const upIn = open * 0.004;
    const lowIn = open * 0.017;
    const upOut = 0.0085 + open * 0.003 + (P.press ?? 0) * -0.002;
    const lowOut = 0.0095 + open * 0.016 + (P.press ?? 0) * -0.002;
    let y;
    if (row === 0) y = upper ? s * upIn : s * lowIn;
    else if (row === 2) y = upper ? s * upOut : s * lowOut;
    else y = upper ? s * (upIn + upOut) / 2 : s * (lowIn + lowOut) / 2;
    // Lower lip tucked under the upper teeth (f, v).
    if (!upper && (P.lowerIn ?? 0) > 0) y += (P.lowerIn ?? 0) * 0.004 * -s;
    // Rounded lips: more circular, pushed out.
    y *= 1 + 0.25 * (P.round ?? 0);
    const x = c * a * width;
    const corner = c * c;
    y += (smile * 0.0045 - frown * 0.004) * corner;
    const xs = x * (1 + smile * 0.08);
    const crown = row === 1 ? 0.0035 + (P.press ?? 0) * -0.0012 + (P.round ?? 0) * 0.002 : 0;
    const z = surfaceZ(xs, mouthY + y) + 0.0015 + crown + (P.round ?? 0) * 0.007 - ((P.lowerIn ?? 0) > 0 && !upper ? 0.003 * (P.lowerIn ?? 0) : 0);
    return [xs, mouthY + y, z];
  }
  const mouthParts = [];
  const lipBase = head.count;
  for (let row = 0; row < 3; row++) {
    for (let i = 0; i < LIPS; i++) {
      const u = i / LIPS;
      const id = head.vertex(mouthPoint(u, row, {}), lip, { mouth: ['lip', u, row] });
      mouthParts.push(id);
    }
  }
  for (let row = 0; row < 2; row++) for (let i = 0; i < LIPS; i++) {
    const a = lipBase + row * LIPS + i;
    const b = lipBase + row * LIPS + ((i + 1) % LIPS);
    const d = a + LIPS;
    const e = b + LIPS;
    head.tri(a, b, d);
    head.tri(b, e, d);
  }
  // Mouth interior: a fan inside the inner edge, a little behind it.
  const interiorPoint = (u, P) => {
    const [x, y, z] = mouthPoint(u, 0, P);
    return [x * 0.98, y, z - 0.003];
  };
  const centrePoint = (P) => {
    const a = mouthPoint(0.25, 0, P);
    const b = mouthPoint(0.75, 0, P);
    return [0, (a[1] + b[1]) / 2, Math.min(a[2], b[2]) - 0.006];
  };
  const centre = head.vertex(centrePoint({}), mouthIn, { mouth: ['centre'] });
  const ringBase = head.count;
  for (let i = 0; i < LIPS; i++) head.vertex(interiorPoint(i / LIPS, {}), mouthIn, { mouth: ['interior', i / LIPS] });
  for (let i = 0; i < LIPS; i++) head.tri(centre, ringBase + ((i + 1) % LIPS), ringBase + i);
  // Upper teeth: a strip under the upper inner lip.
  const teethPoint = (t, row, P) => {
    const u = 0.25 + (t - 0.5) * 0.32; // around the top of the inner edge
    const [x, y, z] = mouthPoint(u, 0, P);
    return [x * 0.92, y - row * (0.0045 + (P.open ?? 0) * 0.0015), z - 0.0022];
  };
  const teethBase = head.count;
  for (let row = 0; row < 2; row++) for (let i = 0; i <= 8; i++) head.vertex(teethPoint(i / 8, row, {}), teeth, { mouth: ['teeth', i / 8, row] });
  for (let i = 0; i < 8; i++) {
    const a = teethBase + i;
    head.tri(a, a + 1, a + 9);
    head.tri(a + 1, a + 10, a + 9);
  }

  // Upper eyelids: skin shells over each eye that close downwards (eyeBlinkLeft/Right).
  const EYE_R = 0.0125;
  const eyeZ = (s) => surfaceZ(s * eyeX, eyeY) - 0.006;
  const lidPoint = (s, u, v, closed) => {
    const th = v * (closed ? 1.95 : 0.85); // polar angle from the top
    const phi = -Math.PI / 2 + u * Math.PI; // the front half
    const r = EYE_R * 1.18;
    return [s * eyeX + r * Math.sin(th) * Math.sin(phi), eyeY + r * Math.cos(th), eyeZ(s) + r * Math.sin(th) * Math.cos(phi)];
  };
  for (const s of [-1, 1]) {
    head.grid(5, 10, (u, v) => ({ p: lidPoint(s, u, v, false), c: mix(skin, skinDark, 0.15), tag: { lid: [s, u, v] } }));
    // The lash line.
    head.tube(
      Array.from({ length: 7 }, (_, i) => {
        const pt = lidPoint(s, i / 6, 1, false);
        return [pt[0], pt[1], pt[2] + 0.0008, 0.0012];
      }),
      [0.08, 0.06, 0.06],
      { cols: 4 },
    );
  }
  const lashStart = new Set();
  // Tag lash tubes afterwards: every vertex after the lids of each eye that is untagged near the lid edge.
  for (let i = 0; i < head.count; i++) if (head.tags[i] === null && Math.abs(head.pos[i * 3 + 1] - eyeY) < EYE_R * 1.6 && Math.abs(Math.abs(head.pos[i * 3]) - eyeX) < EYE_R * 1.6) lashStart.add(i);
  // Brows.
  for (const s of [-1, 1]) {
    head.tube(
      Array.from({ length: 6 }, (_, i) => {
        const t = i / 5;
        const x = s * (eyeX - 0.014 + t * 0.03);
        const y = eyeY + 0.02 + Math.sin(t * Math.PI) * 0.004 - t * 0.002;
        return [x, y, surfaceZ(x, y) + 0.0015, 0.0022 - t * 0.0006];
      }),
      brow,
      { cols: 5 },
    );
  }
  for (let i = 0; i < head.count; i++) {
    if (head.tags[i] !== null) continue;
    const x = head.pos[i * 3];
    const y = head.pos[i * 3 + 1];
    if (y > eyeY + 0.012 && y < eyeY + 0.03 && Math.abs(x) > 0.012 && Math.abs(x) < 0.05) head.tags[i] = { brow: [Math.sign(x), (Math.abs(x) - (eyeX - 0.014)) / 0.03] };
  }
  for (const i of lashStart) head.tags[i] = { lash: [Math.sign(head.pos[i * 3])] };

  // Hair.
  const hairMesh = new Mesh('Hair');
  const hr = [H.r[0] * 1.08, H.r[1] * 1.07, H.r[2] * 1.08];
  const hc = [0, H.c[1] + 0.004, H.c[2] - 0.006];
  hairMesh.grid(18, 36, (u, v) => {
    const phi = (u + 0.5) * Math.PI * 2;
    // Longer at the back and sides than over the forehead.
    const front = Math.max(0, Math.cos(phi));
    const limit = (p.hairStyle === 'long' ? 1.7 : 1.45) - front * (p.hairStyle === 'long' ? 0.95 : 0.8);
    const th = v * limit;
    const n = [Math.sin(th) * Math.sin(phi), Math.cos(th), Math.sin(th) * Math.cos(phi)];
    return { p: [hc[0] + hr[0] * n[0], hc[1] + hr[1] * n[1], hc[2] + hr[2] * n[2]], c: mix(hair, [1, 1, 1], 0.06 * n[1]) };
  });
  if (p.hairStyle === 'long') {
    // Falling hair behind the shoulders.
    hairMesh.grid(8, 18, (u, v) => {
      const phi = Math.PI * 0.45 + u * Math.PI * 1.1;
      const y = hc[1] - 0.02 - v * 0.2;
      const spread = 1 + v * 0.35;
      return { p: [Math.sin(phi) * hr[0] * spread, y, hc[2] + Math.cos(phi) * hr[2] * 0.9 - v * 0.015], c: mix(hair, [0, 0, 0], v * 0.15) };
    }, { flip: true });
  } else if (p.hairStyle === 'bun') {
    hairMesh.ellipsoid([0, hc[1] + hr[1] * 0.92, hc[2] - 0.04], [0.04, 0.036, 0.04], hair, { rows: 8, cols: 12 });
  }

  // Eyes: separate nodes so they can look around; white with an iris and a pupil facing +z.
  const iris = hex(p.eyes ?? '#4b3621');
  const eye = new Mesh('Eye');
  eye.ellipsoid([0, 0, 0], [EYE_R, EYE_R, EYE_R * 0.9], (nx, ny, nz) => {
    const a = Math.acos(Math.max(-1, Math.min(1, nz)));
    if (a < 0.28) return [0.04, 0.03, 0.03];
    if (a < 0.62) return mix(iris, [0, 0, 0], (0.62 - a) * 0.8);
    return [0.95, 0.94, 0.92];
  }, { rows: 10, cols: 14 });

  // ── Body (root space; the neck pivot is at neckY) ──
  const body = new Mesh('Body');
  const hip = fullBody ? 0.95 : 1.05;
  const neckY = 1.5;
  const sh = f ? 0.17 : 0.2; // half shoulder width
  const chest = f ? 0.13 : 0.145;
  body.lathe(
    [
      [hip - 0.02, chest * 0.86, 0.095],
      [hip + 0.12, chest * 0.9, 0.1],
      [hip + 0.3, chest * 0.95, 0.11],
      [neckY - 0.13, sh * 0.95, 0.12],
      [neckY - 0.07, sh, 0.105],
      [neckY - 0.03, sh * 0.6, 0.08],
      [neckY - 0.015, 0.06, 0.055],
    ],
    (y) => (y > neckY - 0.03 ? mix(shirt, skin, 0) : shirt),
    { cols: 28 },
  );
  // Collar opening (skin) and neck.
  body.lathe(
    [
      [neckY - 0.035, 0.048, 0.044],
      [neckY + 0.02, 0.042, 0.04],
      [neckY + 0.07, 0.04, 0.038],
    ],
    skin,
    { cols: 16, center: [0, 0, -0.005] },
  );
  // Arms: relaxed at the sides.
  for (const s of [-1, 1]) {
    const top = [s * (sh - 0.02), neckY - 0.085, -0.005];
    const elbow = [s * (sh + 0.025), neckY - 0.36, -0.02];
    const wrist = [s * (sh + 0.035), fullBody ? neckY - 0.6 : neckY - 0.5, 0.03];
    body.tube([[...top, 0.048], [...mix(top, elbow, 0.5), 0.045], [...elbow, 0.04]], shirt, { cols: 12 });
    body.tube([[...elbow, 0.039], [...mix(elbow, wrist, 0.5), 0.035], [...wrist, 0.029]], f ? skin : shirt, { cols: 12 });
    if (fullBody) body.ellipsoid([wrist[0], wrist[1] - 0.06, wrist[2]], [0.026, 0.055, 0.036], skin, { rows: 6, cols: 10 });
  }
  if (fullBody) {
    // Hips and legs.
    body.lathe(
      [
        [hip - 0.1, chest * 0.9, 0.1],
        [hip - 0.02, chest * 0.88, 0.098],
        [hip + 0.02, chest * 0.86, 0.096],
      ],
      pants,
      { cols: 24 },
    );
    for (const s of [-1, 1]) {
      const x = s * 0.07;
      body.tube(
        [
          [x, hip - 0.06, 0, 0.078],
          [x, hip - 0.45, 0.01, 0.062],
          [x * 1.05, 0.1, -0.005, 0.046],
          [x * 1.05, 0.06, -0.005, 0.044],
        ],
        pants,
        { cols: 14 },
      );
      body.ellipsoid([x * 1.05, 0.04, 0.035], [0.045, 0.04, 0.11], shoes, { rows: 6, cols: 12 });
    }
  }

  return { head, hair: hairMesh, eye, body, neckY, headScale: 1.14, headLift: 0.015, mouthPoint, interiorPoint, centrePoint, teethPoint, lidPoint, eyeX, eyeY, eyeZ, EYE_R, H };
}

/** The morph targets of the Face mesh: name → Float32Array of position deltas. */
function faceTargets(person, params = {}) {
  const { head, mouthPoint, interiorPoint, centrePoint, teethPoint, lidPoint } = person;
  const n = head.count;
  const rest = head.pos;
  const target = (P, { blink = [0, 0], brow = 0, browDown = 0 } = {}) => {
    const out = new Float32Array(n * 3);
    const open = P.open ?? 0;
    for (let i = 0; i < n; i++) {
      const tag = head.tags[i];
      if (!tag) continue;
      let q = null;
      if (tag.mouth) {
        const [kind, u, row] = tag.mouth;
        q = kind === 'lip' ? mouthPoint(u, row, P) : kind === 'interior' ? interiorPoint(u, P) : kind === 'centre' ? centrePoint(P) : teethPoint(u, row, P);
      } else if (tag.chin !== undefined && open > 0) {
        q = [rest[i * 3], rest[i * 3 + 1] - open * 0.016 * tag.chin, rest[i * 3 + 2] - open * 0.004 * tag.chin];
      } else if (tag.cheek && (P.smile || P.width)) {
        const lift = ((P.smile ?? 0) * 0.003 + Math.max(0, (P.width ?? 1) - 1) * 0.004) * tag.cheek;
        q = [rest[i * 3] * (1 + lift * 2), rest[i * 3 + 1] + lift, rest[i * 3 + 2] + lift * 0.5];
      } else if (tag.lid) {
        const [s, u, v] = tag.lid;
        const amount = s < 0 ? blink[0] : blink[1];
        if (amount > 0) q = lidPoint(s, u, v, true);
      } else if (tag.lash) {
        const amount = tag.lash[0] < 0 ? blink[0] : blink[1];
        if (amount > 0) q = [rest[i * 3], rest[i * 3 + 1] - person.EYE_R * 1.95, rest[i * 3 + 2] + 0.002];
      } else if (tag.brow && (brow || browDown)) {
        const [, t] = tag.brow;
        const inner = 1 - Math.max(0, Math.min(1, t));
        q = [rest[i * 3], rest[i * 3 + 1] + brow * 0.006 * (0.4 + inner * 0.6) - browDown * 0.004 * (0.3 + inner * 0.7), rest[i * 3 + 2]];
      }
      if (q) for (let k = 0; k < 3; k++) out[i * 3 + k] = q[k] - rest[i * 3 + k];
    }
    return out;
  };
  const targets = {};
  for (const v of VISEMES) targets[`viseme_${v}`] = target(MOUTH[v]);
  targets.eyeBlinkLeft = target({}, { blink: [1, 0] });
  targets.eyeBlinkRight = target({}, { blink: [0, 1] });
  targets.mouthSmile = target({ smile: 1 });
  targets.mouthFrown = target({ frown: 1 });
  targets.browInnerUp = target({}, { brow: 1 });
  targets.browDown = target({}, { browDown: 1 });
  void params;
  return targets;
}

/**
 * Writes a persona GLB; returns its bytes and figures. `rename` maps our target names to
 * another rig's (null drops one: tests make ARKit-only models this way); `vrm` adds a VRM 1.0
 * humanoid and expressions bound to the renamed targets; `clips` ({name: {node, pitchDeg,
 * seconds}}) adds animation clips that hold a node turned.
 */
export async function personaGlb(p, { fullBody, rename = null, vrm = false, clips = {} }) {
  const person = buildPerson(p, { fullBody });
  const doc = new Document();
  const buffer = doc.createBuffer();
  const material = doc.createMaterial('Skin').setBaseColorFactor([1, 1, 1, 1]).setRoughnessFactor(0.72).setMetallicFactor(0);
  const glossy = doc.createMaterial('Eyes').setBaseColorFactor([1, 1, 1, 1]).setRoughnessFactor(0.25).setMetallicFactor(0);
  let vertices = 0;
  let triangles = 0;
  const meshOf = (m, mat, targets) => {
    const prim = doc.createPrimitive();
    const pos = new Float32Array(m.pos);
    prim.setAttribute('POSITION', doc.createAccessor().setType(Accessor.Type.VEC3).setArray(pos).setBuffer(buffer));
    prim.setAttribute('NORMAL', doc.createAccessor().setType(Accessor.Type.VEC3).setArray(normals(m.pos, m.idx)).setBuffer(buffer));
    // Colours: glTF vertex colours are linear; normalised 16-bit keeps the darks.
    const col = new Uint16Array(m.count * 4);
    const linear = (c) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    for (let i = 0; i < m.count; i++) {
      for (let k = 0; k < 3; k++) col[i * 4 + k] = Math.round(linear(Math.max(0, Math.min(1, m.col[i * 3 + k]))) * 65535);
      col[i * 4 + 3] = 65535;
    }
    prim.setAttribute('COLOR_0', doc.createAccessor().setType(Accessor.Type.VEC4).setArray(col).setNormalized(true).setBuffer(buffer));
    prim.setIndices(doc.createAccessor().setType(Accessor.Type.SCALAR).setArray(m.count > 65535 ? new Uint32Array(m.idx) : new Uint16Array(m.idx)).setBuffer(buffer));
    prim.setMaterial(mat);
    const mesh = doc.createMesh(m.name).addPrimitive(prim);
    if (targets) {
      const names = Object.keys(targets);
      for (const name of names) {
        const t = doc.createPrimitiveTarget(name);
        // Sparse: only the vertices the target moves are stored.
        t.setAttribute('POSITION', doc.createAccessor(name).setType(Accessor.Type.VEC3).setArray(targets[name]).setSparse(true).setBuffer(buffer));
        prim.addTarget(t);
      }
      mesh.setWeights(names.map(() => 0));
      mesh.setExtras({ targetNames: names });
    }
    vertices += m.count;
    triangles += m.idx.length / 3;
    return mesh;
  };
  const root = doc.createNode(`${p.id}-${fullBody ? 'full' : 'upper'}`);
  const body = doc.createNode('Torso').setMesh(meshOf(person.body, material));
  const headNode = doc.createNode('Head').setTranslation([0, person.neckY + person.headLift, 0]).setScale([person.headScale, person.headScale, person.headScale]);
  let targets = faceTargets(person);
  if (rename) targets = Object.fromEntries(Object.entries(targets).flatMap(([name, t]) => (rename[name] === null ? [] : [[rename[name] ?? name, t]])));
  const targetNames = Object.keys(targets);
  headNode.setMesh(meshOf(person.head, material, targets));
  headNode.addChild(doc.createNode('HairNode').setMesh(meshOf(person.hair, material)));
  const eyeMesh = meshOf(person.eye, glossy);
  vertices += person.eye.count; // the second eye shares the mesh but is drawn too
  triangles += person.eye.idx.length / 3;
  for (const [name, s] of [['EyeLeft', 1], ['EyeRight', -1]]) {
    // "Left" is the persona's own left (+x as it faces +z).
    headNode.addChild(doc.createNode(name).setTranslation([s * person.eyeX, person.eyeY, person.eyeZ(s) - 0.004]).setMesh(eyeMesh));
  }
  root.addChild(body).addChild(headNode);
  const humanoid = {};
  if (vrm) {
    // A VRM humanoid needs its bones: a chain down to the head and empty limbs.
    const hips = doc.createNode('Hips').setTranslation([0, fullBody ? 0.95 : 1.05, 0]);
    const spine = doc.createNode('Spine').setTranslation([0, 0.15, 0]);
    const chest = doc.createNode('Chest').setTranslation([0, 0.2, 0]);
    const neck = doc.createNode('Neck').setTranslation([0, person.neckY - (fullBody ? 0.95 : 1.05) - 0.35, 0]);
    root.addChild(hips);
    hips.addChild(spine);
    spine.addChild(chest);
    chest.addChild(neck);
    humanoid.hips = hips;
    humanoid.spine = spine;
    humanoid.chest = chest;
    humanoid.neck = neck;
    for (const [side, s] of [['left', 1], ['right', -1]]) {
      const upperArm = doc.createNode(`${side}UpperArm`).setTranslation([s * 0.18, 0.12, 0]);
      const lowerArm = doc.createNode(`${side}LowerArm`).setTranslation([s * 0.03, -0.28, 0]);
      const hand = doc.createNode(`${side}Hand`).setTranslation([0, -0.25, 0]);
      chest.addChild(upperArm);
      upperArm.addChild(lowerArm);
      lowerArm.addChild(hand);
      const upperLeg = doc.createNode(`${side}UpperLeg`).setTranslation([s * 0.07, -0.06, 0]);
      const lowerLeg = doc.createNode(`${side}LowerLeg`).setTranslation([0, -0.42, 0]);
      const foot = doc.createNode(`${side}Foot`).setTranslation([0, -0.42, 0]);
      hips.addChild(upperLeg);
      upperLeg.addChild(lowerLeg);
      lowerLeg.addChild(foot);
      Object.assign(humanoid, { [`${side}UpperArm`]: upperArm, [`${side}LowerArm`]: lowerArm, [`${side}Hand`]: hand, [`${side}UpperLeg`]: upperLeg, [`${side}LowerLeg`]: lowerLeg, [`${side}Foot`]: foot });
    }
  }
  // Animation clips (tests of `<trl-anim>`): each holds one node turned about x for its length.
  for (const [name, c] of Object.entries(clips)) {
    const node = doc.getRoot().listNodes().find((n) => n.getName() === c.node);
    if (!node) throw new Error(`clip ${name}: no node ${c.node}`);
    const half = (c.pitchDeg * Math.PI) / 360;
    const quat = [Math.sin(half), 0, 0, Math.cos(half)];
    const sampler = doc
      .createAnimationSampler()
      .setInput(doc.createAccessor().setType(Accessor.Type.SCALAR).setArray(new Float32Array([0, c.seconds])).setBuffer(buffer))
      .setOutput(doc.createAccessor().setType(Accessor.Type.VEC4).setArray(new Float32Array([...quat, ...quat])).setBuffer(buffer))
      .setInterpolation('LINEAR');
    doc.createAnimation(name).addSampler(sampler).addChannel(doc.createAnimationChannel().setTargetNode(node).setTargetPath('rotation').setSampler(sampler));
  }
  doc.createScene(p.id).addChild(root);
  doc.getRoot().getAsset().generator = 'persona-studio make-personas';
  let bytes = Buffer.from(await new NodeIO().writeBinary(doc));
  if (vrm) bytes = addVrmExtension(bytes, { humanoid: Object.fromEntries(Object.entries(humanoid).map(([k, n]) => [k, n.getName()])), head: 'Head', targetNames });
  const figures = { vertices, triangles, bytes: bytes.length, morphTargets: VISEMES.length + EXPRESSIONS.length };
  if (vertices > BUDGET.vertices || triangles > BUDGET.triangles || bytes.length > BUDGET.bytes) {
    throw new Error(`${p.id} ${fullBody ? 'full' : 'upper'} is over budget: ${JSON.stringify(figures)} > ${JSON.stringify(BUDGET)}`);
  }
  return { bytes, figures, person };
}

/** Re-packs a GLB with a VRMC_vrm (1.0) extension: humanoid bones by node name, expressions by target name. */
function addVrmExtension(glb, { humanoid, head, targetNames }) {
  const jsonLen = glb.readUInt32LE(12);
  const json = JSON.parse(glb.subarray(20, 20 + jsonLen).toString('utf8'));
  const bin = glb.subarray(20 + jsonLen);
  const nodeIndex = (name) => json.nodes.findIndex((n) => n.name === name);
  const headIndex = nodeIndex(head);
  const humanBones = { head: { node: headIndex } };
  for (const [bone, name] of Object.entries(humanoid)) humanBones[bone] = { node: nodeIndex(name) };
  const bind = (name) => (targetNames.includes(name) ? { morphTargetBinds: [{ node: headIndex, index: targetNames.indexOf(name), weight: 1 }] } : undefined);
  const preset = {};
  for (const name of ['aa', 'ih', 'ou', 'ee', 'oh', 'blink', 'blinkLeft', 'blinkRight', 'happy']) {
    const b = bind(name);
    if (b) preset[name] = b;
  }
  json.extensionsUsed = [...new Set([...(json.extensionsUsed ?? []), 'VRMC_vrm'])];
  json.extensions = {
    ...(json.extensions ?? {}),
    VRMC_vrm: {
      specVersion: '1.0',
      meta: { name: 'test persona', version: '1', authors: ['Persona Studio tests'], licenseUrl: 'https://vrm.dev/licenses/1.0/', avatarPermission: 'onlyAuthor', commercialUsage: 'personalNonProfit', allowExcessivelyViolentUsage: false, allowExcessivelySexualUsage: false, allowPoliticalOrReligiousUsage: false, allowAntisocialOrHateUsage: false, creditNotation: 'required', allowRedistribution: false, modification: 'prohibited' },
      humanoid: { humanBones },
      expressions: { preset },
    },
  };
  let text = Buffer.from(JSON.stringify(json));
  text = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
  const header = Buffer.alloc(20);
  header.write('glTF', 0);
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(20 + text.length + bin.length, 8);
  header.writeUInt32LE(text.length, 12);
  header.write('JSON', 16);
  return Buffer.concat([header, text, bin]);
}

// ─── Thumbnails: the same meshes through a small z-buffer rasteriser ──────────────────────

/** Camera framings shared with the avatar page (render/three-avatar.ts reads the same numbers). */
export const FRAMING = {
  upper: { target: [0, 1.58, 0], distance: 1.05, fov: 30, height: 1.62 },
  full: { target: [0, 0.9, 0], distance: 3.5, fov: 32, height: 1.15 },
};

function crc32(buf) {
  let c;
  const table = (crc32.table ??= Array.from({ length: 256 }, (_, n) => {
    c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  }));
  let crc = 0xffffffff;
  for (const b of buf) crc = table[(crc ^ b) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

export function encodePng(width, height, rgb) {
  const raw = Buffer.alloc((width * 3 + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width * 3 + 1)] = 0;
    rgb.copy(raw, y * (width * 3 + 1) + 1, y * width * 3, (y + 1) * width * 3);
  }
  const chunk = (type, data) => {
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(td));
    return Buffer.concat([len, td, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', zlib.deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

/** Renders a persona to a PNG (width × height), framed as the page frames it. */
export function renderThumbnail(person, { fullBody, width = 240, height = 288, background }) {
  const S = 2; // supersampling
  const W = width * S;
  const Hh = height * S;
  const frame = fullBody ? FRAMING.full : FRAMING.upper;
  const eye = [frame.target[0], frame.height, frame.target[2] + frame.distance];
  const f = 1 / Math.tan((frame.fov * Math.PI) / 360);
  const aspect = W / Hh;
  // Look-at basis.
  const fwd = frame.target.map((t, i) => t - eye[i]);
  const fl = Math.hypot(...fwd);
  const zAxis = fwd.map((x) => -x / fl);
  const xAxis = [zAxis[2], 0, -zAxis[0]].map((x, _i, a) => x / Math.hypot(...a));
  const yAxis = [zAxis[1] * xAxis[2] - zAxis[2] * xAxis[1], zAxis[2] * xAxis[0] - zAxis[0] * xAxis[2], zAxis[0] * xAxis[1] - zAxis[1] * xAxis[0]];
  const color = Buffer.alloc(W * Hh * 3);
  const bgc = hex(background);
  for (let i = 0; i < W * Hh; i++) {
    const y = Math.floor(i / W) / Hh;
    const c = mix(bgc, [1, 1, 1], 0.25 * (1 - y));
    color[i * 3] = c[0] * 255;
    color[i * 3 + 1] = c[1] * 255;
    color[i * 3 + 2] = c[2] * 255;
  }
  const depth = new Float32Array(W * Hh).fill(Infinity);
  const light = (() => {
    const l = [-0.45, 0.6, 0.75];
    const n = Math.hypot(...l);
    return l.map((x) => x / n);
  })();
  const draw = (mesh, offset, scale = 1) => {
    const pos = mesh.pos;
    const nrm = normals(pos, mesh.idx);
    const sx = [];
    const shade = [];
    for (let i = 0; i < mesh.count; i++) {
      const w = [pos[i * 3] * scale + offset[0], pos[i * 3 + 1] * scale + offset[1], pos[i * 3 + 2] * scale + offset[2]];
      const d = w.map((x, k) => x - eye[k]);
      const cx = d[0] * xAxis[0] + d[1] * xAxis[1] + d[2] * xAxis[2];
      const cy = d[0] * yAxis[0] + d[1] * yAxis[1] + d[2] * yAxis[2];
      const cz = d[0] * zAxis[0] + d[1] * zAxis[1] + d[2] * zAxis[2];
      const zc = -cz;
      sx.push([((cx * f) / aspect / zc + 1) * 0.5 * W, (1 - (cy * f) / zc) * 0.5 * Hh, zc]);
      const nl = Math.max(0, nrm[i * 3] * light[0] + nrm[i * 3 + 1] * light[1] + nrm[i * 3 + 2] * light[2]);
      const rim = Math.max(0, nrm[i * 3 + 1]) * 0.12;
      const k = 0.42 + 0.62 * nl + rim;
      shade.push([mesh.col[i * 3] * k, mesh.col[i * 3 + 1] * k, mesh.col[i * 3 + 2] * k]);
    }
    for (let t = 0; t < mesh.idx.length; t += 3) {
      const [a, b, c] = [mesh.idx[t], mesh.idx[t + 1], mesh.idx[t + 2]];
      const A = sx[a];
      const B = sx[b];
      const C = sx[c];
      const area = (B[0] - A[0]) * (C[1] - A[1]) - (B[1] - A[1]) * (C[0] - A[0]);
      if (Math.abs(area) < 1e-9) continue;
      const minX = Math.max(0, Math.floor(Math.min(A[0], B[0], C[0])));
      const maxX = Math.min(W - 1, Math.ceil(Math.max(A[0], B[0], C[0])));
      const minY = Math.max(0, Math.floor(Math.min(A[1], B[1], C[1])));
      const maxY = Math.min(Hh - 1, Math.ceil(Math.max(A[1], B[1], C[1])));
      for (let y = minY; y <= maxY; y++) for (let x = minX; x <= maxX; x++) {
        const px = x + 0.5;
        const py = y + 0.5;
        const w0 = ((B[0] - px) * (C[1] - py) - (B[1] - py) * (C[0] - px)) / area;
        const w1 = ((C[0] - px) * (A[1] - py) - (C[1] - py) * (A[0] - px)) / area;
        const w2 = 1 - w0 - w1;
        if (w0 < 0 || w1 < 0 || w2 < 0) continue;
        const z = w0 * A[2] + w1 * B[2] + w2 * C[2];
        const k = y * W + x;
        if (z >= depth[k]) continue;
        depth[k] = z;
        for (let ch = 0; ch < 3; ch++) color[k * 3 + ch] = Math.max(0, Math.min(255, (w0 * shade[a][ch] + w1 * shade[b][ch] + w2 * shade[c][ch]) * 255));
      }
    }
  };
  const k = person.headScale;
  const headOffset = [0, person.neckY + person.headLift, 0];
  draw(person.body, [0, 0, 0]);
  draw(person.head, headOffset, k);
  draw(person.hair, headOffset, k);
  for (const s of [1, -1]) draw(person.eye, [s * person.eyeX * k, headOffset[1] + person.eyeY * k, (person.eyeZ(s) - 0.004) * k], k);
  // Downsample.
  const out = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) for (let ch = 0; ch < 3; ch++) {
    let sum = 0;
    for (let dy = 0; dy < S; dy++) for (let dx = 0; dx < S; dx++) sum += color[((y * S + dy) * W + x * S + dx) * 3 + ch];
    out[(y * width + x) * 3 + ch] = Math.round(sum / (S * S));
  }
  return encodePng(width, height, out);
}

// ─── 2D portraits: SVG layers ──────────────────────────────────────────────────────────────

export const MOUTH_SHAPES = ['rest', 'closed', 'open', 'wide', 'round', 'teeth', 'narrow'];

/** The layered portrait of a person: SVG strings by layer, all 400 × 480 on the same canvas. */
export function portraitLayers(p) {
  const W = 400;
  const Hh = 480;
  const svg = (body, bg = false) => `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${W} ${Hh}" width="${W}" height="${Hh}">${bg ? `<defs><linearGradient id="bg" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#ffffff" stop-opacity=".55"/><stop offset="1" stop-color="#ffffff" stop-opacity="0"/></linearGradient></defs>` : ''}${body}</svg>`;
  const skinShade = `color-mix(in srgb, ${p.skin} 82%, #5b2a1a)`;
  void skinShade;
  const cx = 200;
  const hairBack =
    p.hairStyle === 'long'
      ? `<path d="M112 190c-8-90 30-138 88-138s96 48 88 138l14 170c-40 20-60 10-70-20l-6-90h-52l-6 90c-10 30-30 40-70 20z" fill="${p.hair}"/>`
      : p.hairStyle === 'bun'
        ? `<circle cx="${cx}" cy="58" r="34" fill="${p.hair}"/>`
        : '';
  const hairFront =
    p.hairStyle === 'long'
      ? `<path d="M118 200c-6-86 30-128 82-128s88 42 82 128c-8-40-30-70-82-74-52 4-74 34-82 74z" fill="${p.hair}"/>`
      : p.hairStyle === 'bun'
        ? `<path d="M120 186c-2-76 30-112 80-112s82 36 80 112c-10-36-34-58-80-58s-70 22-80 58z" fill="${p.hair}"/>`
        : `<path d="M118 184c-4-80 28-116 82-116s86 36 82 116c-6-34-30-52-82-54-52 2-76 20-82 54z" fill="${p.hair}"/>`;
  const backdrop = svg(`<rect width="${W}" height="${Hh}" fill="${p.bg}"/><rect width="${W}" height="${Hh}" fill="url(#bg)"/>`, true);
  const base = svg(
    `${hairBack}` +
      `<path d="M70 480c6-92 58-138 130-138s124 46 130 138z" fill="${p.shirt}"/>` +
      `<path d="M172 300h56v52c-10 14-46 14-56 0z" fill="${p.skin}"/><path d="M172 318c18 10 38 10 56 0v10c-18 8-38 8-56 0z" fill="#000" opacity=".08"/>` +
      `<ellipse cx="${cx - 84}" cy="212" rx="12" ry="20" fill="${p.skin}"/><ellipse cx="${cx + 84}" cy="212" rx="12" ry="20" fill="${p.skin}"/>` +
      `<path d="M200 96c48 0 86 36 86 104 0 70-38 124-86 124s-86-54-86-124c0-68 38-104 86-104z" fill="${p.skin}"/>` +
      `<ellipse cx="${cx - 46}" cy="246" rx="16" ry="9" fill="#f87171" opacity=".18"/><ellipse cx="${cx + 46}" cy="246" rx="16" ry="9" fill="#f87171" opacity=".18"/>` +
      `<path d="M196 214c-4 14-8 24-4 30 4 4 12 4 16 0" stroke="#000" stroke-opacity=".22" stroke-width="3" fill="none" stroke-linecap="round"/>` +
      `<path d="M146 178c10-8 26-10 38-4M216 174c12-6 28-4 38 4" stroke="${p.hair}" stroke-width="6" fill="none" stroke-linecap="round"/>` +
      hairFront,
  );
  const eyeWhite = (x) => `<ellipse cx="${x}" cy="204" rx="15" ry="10" fill="#fff"/><circle cx="${x}" cy="204" r="7.5" fill="${p.eyes ?? '#4b3621'}"/><circle cx="${x}" cy="204" r="3.6" fill="#111"/><circle cx="${x + 2.5}" cy="201.5" r="1.8" fill="#fff"/><path d="M${x - 16} 201c8-9 24-9 32 0" stroke="#1f1a17" stroke-width="3" fill="none" stroke-linecap="round"/>`;
  const eyesOpen = svg(eyeWhite(cx - 34) + eyeWhite(cx + 34));
  const eyeClosed = (x) => `<ellipse cx="${x}" cy="204" rx="17" ry="12" fill="${p.skin}"/><path d="M${x - 15} 205c8 6 22 6 30 0" stroke="#1f1a17" stroke-width="3" fill="none" stroke-linecap="round"/>`;
  const eyesClosed = svg(eyeClosed(cx - 34) + eyeClosed(cx + 34));
  // Mouths drawn over a skin patch, so crossfading one into another leaves no ghost.
  const patch = `<ellipse cx="${cx}" cy="276" rx="40" ry="26" fill="${p.skin}"/>`;
  const lip = p.lip ?? '#b4544f';
  const mouths = {
    rest: `<path d="M178 274c12 6 32 6 44 0" stroke="${lip}" stroke-width="5" fill="none" stroke-linecap="round"/>`,
    closed: `<path d="M176 275c14 3 34 3 48 0" stroke="${lip}" stroke-width="7" fill="none" stroke-linecap="round"/>`,
    open: `<path d="M176 268c14-4 34-4 48 0 0 16-10 30-24 30s-24-14-24-30z" fill="#5a1a1f" stroke="${lip}" stroke-width="4" stroke-linejoin="round"/><path d="M182 269c10-2 26-2 36 0v5c-10 2-26 2-36 0z" fill="#fff"/><ellipse cx="200" cy="290" rx="11" ry="5" fill="#c2525b"/>`,
    wide: `<path d="M170 270c18-3 42-3 60 0 -4 12-14 18-30 18s-26-6-30-18z" fill="#5a1a1f" stroke="${lip}" stroke-width="4" stroke-linejoin="round"/><path d="M176 271c14-2 34-2 48 0v5c-14 2-34 2-48 0z" fill="#fff"/>`,
    round: `<ellipse cx="200" cy="278" rx="13" ry="15" fill="#5a1a1f" stroke="${lip}" stroke-width="6"/>`,
    teeth: `<path d="M174 270c16-3 36-3 52 0-3 9-12 13-26 13s-23-4-26-13z" fill="#fff" stroke="${lip}" stroke-width="4" stroke-linejoin="round"/><path d="M176 276h48" stroke="#d6d3d1" stroke-width="1.5"/>`,
    narrow: `<path d="M180 270c12-3 28-3 40 0 0 9-8 15-20 15s-20-6-20-15z" fill="#5a1a1f" stroke="${lip}" stroke-width="4" stroke-linejoin="round"/>`,
  };
  const mouthLayers = Object.fromEntries(MOUTH_SHAPES.map((shape) => [shape, svg(patch + mouths[shape])]));
  // The composite, for thumbnails: the layers as the page draws them at rest.
  const inner = (s) => s.replace(/^<svg[^>]*>/, '').replace(/<\/svg>$/, '');
  const composite = svg(inner(backdrop) + inner(base) + inner(eyesOpen) + inner(mouthLayers.rest));
  return { width: W, height: Hh, backdrop, base, eyesOpen, eyesClosed, mouths: mouthLayers, composite, anchors: { neck: [cx, 340], eyes: [cx, 204], mouth: [cx, 276] } };
}
