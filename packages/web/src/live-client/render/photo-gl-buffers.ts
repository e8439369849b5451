import type { MeshPose, PhotoMesh, Pt } from './photo-mesh';

/**
 * The vertex data the WebGL talking photo draws (ADR 091, "WebGL, stop 39"): pure, so it is unit
 * tested. Positions are photo px (a framing uniform maps them to the stage); texture coordinates
 * are 0–1 over the photo; colours are premultiplied (blended with ONE, ONE_MINUS_SRC_ALPHA).
 */

/** Floats per vertex of the textured program: x, y (photo px), u, v (0–1), alpha. */
export const TEXTURED_STRIDE = 5;
/** Floats per vertex of the colour program: x, y (photo px), r, g, b, a (premultiplied, 0–1). */
export const COLOUR_STRIDE = 6;

/** Photo px → clip space for a framing `x' = p·scale + offset` on a stage of width × height CSS px: [sx, sy, ox, oy]. */
export function clipTransform(t: { scale: number; x: number; y: number }, width: number, height: number): [number, number, number, number] {
  return [(2 * t.scale) / width, (-2 * t.scale) / height, (2 * t.x) / width - 1, 1 - (2 * t.y) / height];
}

/**
 * The triangles drawn each frame: every one that can move (a vertex that follows the head or the
 * jaw; the others are the photo drawn underneath). The skull's come first and the jaw's last, so a
 * lower lip that rises over the teeth (PP on a photo whose lips were apart) covers them, as the
 * 2D canvas, which draws moved triangles over still ones, shows it.
 */
export function meshDrawOrder(mesh: PhotoMesh): Uint16Array {
  const t = mesh.triangles;
  const still: number[] = [];
  const jaw: number[] = [];
  for (let k = 0; k < t.length; k += 3) {
    const tri = [t[k]!, t[k + 1]!, t[k + 2]!];
    if (!tri.some((i) => mesh.head[i]! > 0 || mesh.jaw[i]! > 0)) continue;
    (tri.some((i) => mesh.jaw[i]! > 0) ? jaw : still).push(...tri);
  }
  return Uint16Array.from([...still, ...jaw]);
}

/** The mesh's vertices for one frame: the deformed position, the rest position as the texture coordinate, opaque. */
export function meshVertices(mesh: PhotoMesh, pos: Float32Array, out = new Float32Array((mesh.rest.length / 2) * TEXTURED_STRIDE)): Float32Array {
  const count = mesh.rest.length / 2;
  for (let i = 0; i < count; i++) {
    const o = i * TEXTURED_STRIDE;
    out[o] = pos[i * 2]!;
    out[o + 1] = pos[i * 2 + 1]!;
    out[o + 2] = mesh.rest[i * 2]! / mesh.width;
    out[o + 3] = mesh.rest[i * 2 + 1]! / mesh.height;
    out[o + 4] = 1;
  }
  return out;
}

/** A rectangle (x, y, w, h in photo px) showing the texture's (u0, v0)–(u1, v1), as two triangles. */
export function quad(x: number, y: number, w: number, h: number, u0 = 0, v0 = 0, u1 = 1, v1 = 1): Float32Array {
  const a = [x, y, u0, v0, 1];
  const b = [x + w, y, u1, v0, 1];
  const c = [x, y + h, u0, v1, 1];
  const d = [x + w, y + h, u1, v1, 1];
  return Float32Array.from([...a, ...b, ...c, ...b, ...d, ...c]);
}

/** The lid's tint along its top → bottom axis (0 at the crease, 1 on the lid line): the 2D canvas's gradient stops. */
export function lidAlpha(t: number, a: number): number {
  const stops: [number, number][] = [
    [0, 0],
    [0.35, 0.55],
    [0.8, 0.5],
    [1, 0.15],
  ];
  if (t <= 0) return 0;
  if (t >= 1) return 0.15 * a;
  for (let k = 1; k < stops.length; k++) {
    const [t1, v1] = stops[k]!;
    const [t0, v0] = stops[k - 1]!;
    if (t <= t1) return (v0 + ((v1 - v0) * (t - t0)) / (t1 - t0)) * a;
  }
  return 0;
}

/** Rows of the lid's tint between the crease (0) and the lid line (1). */
const LID_ROWS = [0, 0.35, 0.6, 0.8, 1];

/**
 * A closing lid (blink ≥ 0.15): the stretched lid tinted with its own skin (`tones`, sampled
 * between crease and brow), fading in from the crease; then a soft lash line along the lid's edge,
 * `px` (one device pixel in photo px) of feathering each side. Triangles of the colour program.
 */
export function lidVertices(mesh: PhotoMesh, pos: Float32Array, pose: MeshPose, tones: readonly (readonly [number, number, number] | null)[], px: number): Float32Array {
  const out: number[] = [];
  const at = (i: number): Pt => [pos[i * 2]!, pos[i * 2 + 1]!];
  const push = (p: Pt, rgb: readonly [number, number, number], alpha: number) => out.push(p[0], p[1], (rgb[0] / 255) * alpha, (rgb[1] / 255) * alpha, (rgb[2] / 255) * alpha, alpha);
  const tri = (a: [Pt, number], b: [Pt, number], c: [Pt, number], rgb: readonly [number, number, number]) => {
    push(a[0], rgb, a[1]);
    push(b[0], rgb, b[1]);
    push(c[0], rgb, c[1]);
  };
  mesh.eyes.forEach((eye, side) => {
    const blink = side === 0 ? pose.blinkLeft : pose.blinkRight;
    const tone = tones[side];
    if (blink < 0.15 || !tone) return;
    const a = Math.min(1, (blink - 0.15) / 0.6);
    const lidLine = [eye.corners[0], eye.upper[0], eye.upper[1], eye.corners[1]].map(at);
    const crease = eye.crease.map(at);
    const mean = (pts: Pt[]): Pt => [pts.reduce((s, p) => s + p[0], 0) / pts.length, pts.reduce((s, p) => s + p[1], 0) / pts.length];
    const top = mean(crease);
    const bottom = mean(lidLine);
    const axis: Pt = [bottom[0] - top[0], bottom[1] - top[1]];
    const axis2 = Math.max(1e-9, axis[0] * axis[0] + axis[1] * axis[1]);
    const along = (p: Pt) => ((p[0] - top[0]) * axis[0] + (p[1] - top[1]) * axis[1]) / axis2;
    // The tint: a grid between each crease point and the lid line point under it.
    const grid = crease.map((c, k) => LID_ROWS.map((f): [Pt, number] => {
      const p: Pt = [c[0] + (lidLine[k]![0] - c[0]) * f, c[1] + (lidLine[k]![1] - c[1]) * f];
      return [p, lidAlpha(along(p), a)];
    }));
    for (let k = 0; k + 1 < grid.length; k++) {
      for (let j = 0; j + 1 < LID_ROWS.length; j++) {
        tri(grid[k]![j]!, grid[k + 1]![j]!, grid[k]![j + 1]!, tone);
        tri(grid[k + 1]![j]!, grid[k + 1]![j + 1]!, grid[k]![j + 1]!, tone);
      }
    }
    // The lash line: a band of the lid's width × 0.06, its edges feathered over a pixel.
    const lash = [tone[0] * 0.3, tone[1] * 0.22, tone[2] * 0.2] as const;
    const lw = Math.max(0.4, eye.width * 0.06);
    const inner = Math.max(0, lw / 2 - px / 2);
    const outer = lw / 2 + px / 2;
    const ink = 0.55 * a * Math.min(1, lw / px);
    const normals = lidLine.map((_, k) => {
      const p0 = lidLine[Math.max(0, k - 1)]!;
      const p1 = lidLine[Math.min(lidLine.length - 1, k + 1)]!;
      const dx = p1[0] - p0[0];
      const dy = p1[1] - p0[1];
      const l = Math.hypot(dx, dy) || 1;
      return [-dy / l, dx / l] as Pt;
    });
    const rows = [
      [-outer, 0],
      [-inner, ink],
      [inner, ink],
      [outer, 0],
    ] as const;
    const band = lidLine.map((p, k) => rows.map(([o, alpha]): [Pt, number] => [[p[0] + normals[k]![0] * o, p[1] + normals[k]![1] * o], alpha]));
    for (let k = 0; k + 1 < band.length; k++) {
      for (let j = 0; j + 1 < rows.length; j++) {
        tri(band[k]![j]!, band[k + 1]![j]!, band[k]![j + 1]!, lash);
        tri(band[k + 1]![j]!, band[k + 1]![j + 1]!, band[k]![j + 1]!, lash);
      }
    }
  });
  return Float32Array.from(out);
}

/**
 * The lips' edge over the open mouth, softened: WebGL draws the mesh without antialiasing, so
 * its hole would have stair-stepped lips over the dark inside. Along each side of the cut a band
 * `px` wide (a device pixel in photo px; at most half the opening there) reaches into the hole,
 * textured with the lip's own edge (sampled half a photo pixel inside its side) and fading from
 * opaque to clear — as the 2D canvas's antialiased clip does. Triangles of the textured program.
 */
export function holeFeather(mesh: PhotoMesh, pos: Float32Array, px: number): Float32Array {
  const { n } = mesh.frame;
  const out: number[] = [];
  const sides = [
    [mesh.cutUpper, 1],
    [mesh.cutLower, -1],
  ] as const;
  for (const [side, dir] of sides) {
    const other = dir > 0 ? mesh.cutLower : mesh.cutUpper;
    const edge = side.map((i, k): [Pt, Pt, number] => {
      const p: Pt = [pos[i * 2]!, pos[i * 2 + 1]!];
      const q: Pt = [pos[other[k]! * 2]!, pos[other[k]! * 2 + 1]!];
      // Into the hole, no further than half way across it.
      const w = Math.min(px, 0.5 * Math.max(0, ((q[0] - p[0]) * n[0] + (q[1] - p[1]) * n[1]) * dir));
      const uv: Pt = [(mesh.rest[i * 2]! - n[0] * dir * 0.5) / mesh.width, (mesh.rest[i * 2 + 1]! - n[1] * dir * 0.5) / mesh.height];
      return [p, uv, w];
    });
    for (let k = 0; k + 1 < edge.length; k++) {
      const [p0, uv0, w0] = edge[k]!;
      const [p1, uv1, w1] = edge[k + 1]!;
      if (w0 <= 0 && w1 <= 0) continue;
      const a = [p0[0], p0[1], uv0[0], uv0[1], 1];
      const b = [p1[0], p1[1], uv1[0], uv1[1], 1];
      const c = [p0[0] + n[0] * dir * w0, p0[1] + n[1] * dir * w0, uv0[0], uv0[1], 0];
      const d = [p1[0] + n[0] * dir * w1, p1[1] + n[1] * dir * w1, uv1[0], uv1[1], 0];
      out.push(...a, ...b, ...c, ...b, ...d, ...c);
    }
  }
  return Float32Array.from(out);
}
