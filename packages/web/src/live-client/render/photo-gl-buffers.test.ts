import { describe, expect, it } from 'vitest';
import astronaut from './fixtures/astronaut-landmarks.json';
import { COLOUR_STRIDE, TEXTURED_STRIDE, clipTransform, holeFeather, lidAlpha, lidVertices, meshDrawOrder, meshVertices, quad } from './photo-gl-buffers';
import { area2, buildPhotoMesh, deformMesh, REST_POSE, type Pt } from './photo-mesh';
import type { PhotoLandmarks } from './stage-config';

const lm = astronaut as PhotoLandmarks;
const mesh = buildPhotoMesh(lm, lm.width, lm.height, 27);
const tones = [
  [200, 150, 130],
  [190, 140, 120],
] as const;

describe('the WebGL talking photo’s buffers', () => {
  it('maps photo px through the framing to clip space (the stage’s corners to ±1, y up)', () => {
    const t = { scale: 1.5, x: 40, y: -20 };
    const [sx, sy, ox, oy] = clipTransform(t, 640, 480);
    const toClip = (x: number, y: number) => [x * sx + ox, y * sy + oy];
    // The photo point that lands on the stage's top-left corner, and the one on its bottom-right.
    expect(toClip(-40 / 1.5, 20 / 1.5)[0]).toBeCloseTo(-1);
    expect(toClip(-40 / 1.5, 20 / 1.5)[1]).toBeCloseTo(1);
    expect(toClip((640 - 40) / 1.5, (480 + 20) / 1.5)[0]).toBeCloseTo(1);
    expect(toClip((640 - 40) / 1.5, (480 + 20) / 1.5)[1]).toBeCloseTo(-1);
  });

  it('draws every triangle that can move, once, the jaw’s after the skull’s', () => {
    const order = meshDrawOrder(mesh);
    const key = (a: number, b: number, c: number) => [a, b, c].sort((x, y) => x - y).join(',');
    const movable = new Set<string>();
    const t = mesh.triangles;
    for (let k = 0; k < t.length; k += 3) {
      if ([t[k]!, t[k + 1]!, t[k + 2]!].some((i) => mesh.head[i]! > 0 || mesh.jaw[i]! > 0)) movable.add(key(t[k]!, t[k + 1]!, t[k + 2]!));
    }
    const drawn = new Set<string>();
    let firstJaw = -1;
    for (let k = 0; k < order.length; k += 3) {
      const tri = [order[k]!, order[k + 1]!, order[k + 2]!];
      drawn.add(key(tri[0]!, tri[1]!, tri[2]!));
      const isJaw = tri.some((i) => mesh.jaw[i]! > 0);
      if (isJaw && firstJaw < 0) firstJaw = k;
      // Once the jaw's begin, no skull triangle follows.
      if (firstJaw >= 0) expect(isJaw, `triangle ${k / 3}`).toBe(true);
    }
    expect(order.length / 3).toBe(drawn.size);
    expect(drawn).toEqual(movable);
    // The face is a few hundred triangles at most: one draw call.
    expect(drawn.size).toBeGreaterThan(80);
    expect(drawn.size).toBeLessThan(400);
    // The lower lip (below the cut) is among the last.
    expect(firstJaw).toBeGreaterThan(0);
    for (const i of mesh.cutLower.slice(1, -1)) expect([...order.slice(firstJaw)]).toContain(i);
  });

  it('gives each vertex its deformed place and its rest place in the photo as texture coordinate', () => {
    const pose = { ...REST_POSE, open: 1, blinkLeft: 1, yaw: 0.1 };
    const pos = deformMesh(mesh, pose);
    const v = meshVertices(mesh, pos);
    expect(v.length).toBe((mesh.rest.length / 2) * TEXTURED_STRIDE);
    for (let i = 0; i < mesh.rest.length / 2; i++) {
      const o = i * TEXTURED_STRIDE;
      expect(v[o]).toBe(pos[i * 2]);
      expect(v[o + 1]).toBe(pos[i * 2 + 1]);
      expect(v[o + 2]! * mesh.width).toBeCloseTo(mesh.rest[i * 2]!, 3);
      expect(v[o + 3]! * mesh.height).toBeCloseTo(mesh.rest[i * 2 + 1]!, 3);
      expect(v[o + 2]).toBeGreaterThanOrEqual(0);
      expect(v[o + 3]).toBeLessThanOrEqual(1);
      expect(v[o + 4]).toBe(1);
    }
    // The cut's two sides share texture coordinates and part on an open jaw: the hole.
    const upper = mesh.cutUpper[2]!;
    const lower = mesh.cutLower[2]!;
    expect(v[upper * TEXTURED_STRIDE + 2]).toBe(v[lower * TEXTURED_STRIDE + 2]);
    expect(v[lower * TEXTURED_STRIDE + 1]! - v[upper * TEXTURED_STRIDE + 1]!).toBeGreaterThan(mesh.features.mouthWidth * 0.2);
  });

  it('makes a rectangle of two triangles covering it, with its texture corners', () => {
    const q = quad(10, 20, 100, 50, 0, 0, 0.5, 0.25);
    expect(q.length).toBe(6 * TEXTURED_STRIDE);
    const pts: Pt[] = [];
    for (let k = 0; k < 6; k++) pts.push([q[k * TEXTURED_STRIDE]!, q[k * TEXTURED_STRIDE + 1]!]);
    const area = Math.abs(area2(pts[0]!, pts[1]!, pts[2]!)) / 2 + Math.abs(area2(pts[3]!, pts[4]!, pts[5]!)) / 2;
    expect(area).toBeCloseTo(100 * 50);
    const corner = pts.findIndex(([x, y]) => x === 110 && y === 70);
    expect([q[corner * TEXTURED_STRIDE + 2], q[corner * TEXTURED_STRIDE + 3]]).toEqual([0.5, 0.25]);
  });

  it('tints the lid as the 2D canvas’s gradient does: clear at the crease, strongest a third down', () => {
    expect(lidAlpha(0, 1)).toBe(0);
    expect(lidAlpha(-0.5, 1)).toBe(0);
    expect(lidAlpha(0.35, 1)).toBeCloseTo(0.55);
    expect(lidAlpha(0.8, 0.5)).toBeCloseTo(0.25);
    expect(lidAlpha(1, 1)).toBeCloseTo(0.15);
    expect(lidAlpha(2, 1)).toBeCloseTo(0.15);
    expect(lidAlpha(0.6, 1)).toBeGreaterThan(0.5);
  });

  it('draws no lid while the eyes are open, and a tinted, lashed lid over each closing eye', () => {
    expect(lidVertices(mesh, deformMesh(mesh, REST_POSE), REST_POSE, tones, 0.5).length).toBe(0);
    const pose = { ...REST_POSE, blinkLeft: 1, blinkRight: 0.1 };
    const pos = deformMesh(mesh, pose);
    const v = lidVertices(mesh, pos, pose, tones, 0.5);
    expect(v.length % (COLOUR_STRIDE * 3)).toBe(0);
    expect(v.length).toBeGreaterThan(0);
    // Only the left eye (the right is barely closing): every vertex near it.
    const eye = mesh.eyes[0];
    const cx = pos[eye.centre * 2]!;
    const cy = pos[eye.centre * 2 + 1]!;
    let maxAlpha = 0;
    for (let k = 0; k < v.length; k += COLOUR_STRIDE) {
      expect(Math.hypot(v[k]! - cx, v[k + 1]! - cy)).toBeLessThan(eye.width * 1.5);
      const a = v[k + 5]!;
      maxAlpha = Math.max(maxAlpha, a);
      // Premultiplied: no channel above its alpha.
      for (const c of [v[k + 2]!, v[k + 3]!, v[k + 4]!]) expect(c).toBeLessThanOrEqual(a + 1e-6);
    }
    expect(maxAlpha).toBeLessThanOrEqual(0.55 + 1e-6);
    expect(maxAlpha).toBeGreaterThan(0.4);
    // The tint covers the lid between the crease and the lid line (the 2D canvas's polygon).
    const polygon = [eye.corners[0], ...eye.crease, eye.corners[1], eye.upper[1], eye.upper[0]].map((i): Pt => [pos[i * 2]!, pos[i * 2 + 1]!]);
    const polyArea = Math.abs(polygon.reduce((s, p, i) => s + p[0] * polygon[(i + 1) % polygon.length]![1] - polygon[(i + 1) % polygon.length]![0] * p[1], 0)) / 2;
    let tintArea = 0;
    const tintTriangles = 3 * 4 * 2;
    for (let k = 0; k < tintTriangles; k++) {
      const o = k * 3 * COLOUR_STRIDE;
      tintArea += Math.abs(area2([v[o]!, v[o + 1]!], [v[o + COLOUR_STRIDE]!, v[o + COLOUR_STRIDE + 1]!], [v[o + 2 * COLOUR_STRIDE]!, v[o + 2 * COLOUR_STRIDE + 1]!])) / 2;
    }
    expect(tintArea).toBeCloseTo(polyArea, 1);
  });

  it('softens the lips’ edges into the open mouth by a pixel, never across it, and adds nothing to a closed one', () => {
    // (The astronaut's lips are apart at rest: a sliver of hole; a closed cut has none.)
    const shut = buildPhotoMesh({ ...lm, mouth: lm.mouth.map((p, i) => (i === 17 ? lm.mouth[15]! : i === 18 ? lm.mouth[14]! : i === 19 ? lm.mouth[13]! : p)) }, lm.width, lm.height, 27);
    expect(holeFeather(shut, deformMesh(shut, REST_POSE), 0.8).length).toBe(0);
    const pose = { ...REST_POSE, open: 1 };
    const pos = deformMesh(mesh, pose);
    const px = 0.8;
    const v = holeFeather(mesh, pos, px);
    expect(v.length % (TEXTURED_STRIDE * 3)).toBe(0);
    // Two bands (upper and lower side) of a quad per segment of the cut.
    expect(v.length / TEXTURED_STRIDE / 6).toBe(2 * (mesh.cutUpper.length - 1));
    const { n } = mesh.frame;
    const onEdge = new Set([...mesh.cutUpper, ...mesh.cutLower].map((i) => `${pos[i * 2]},${pos[i * 2 + 1]}`));
    for (let k = 0; k < v.length; k += TEXTURED_STRIDE) {
      // Each quad: two vertices on the lip's edge (opaque), two at the band's far side (clear).
      const isEdge = [0, 1, 3].includes((k / TEXTURED_STRIDE) % 6);
      if (isEdge) expect(onEdge.has(`${v[k]},${v[k + 1]}`)).toBe(true);
      expect(v[k + 4]).toBe(isEdge ? 1 : 0);
      // Texture: the lip's own edge (inside the photo, near the mouth).
      expect(Math.hypot(v[k + 2]! * mesh.width - mesh.features.mouth[0], v[k + 3]! * mesh.height - mesh.features.mouth[1])).toBeLessThan(mesh.features.mouthWidth);
    }
    // The far side is a pixel (or less) from its edge along the face's down axis.
    for (let k = 0; k < v.length; k += TEXTURED_STRIDE * 6) {
      const a = [v[k]!, v[k + 1]!];
      const c = [v[k + 2 * TEXTURED_STRIDE]!, v[k + 2 * TEXTURED_STRIDE + 1]!];
      const reach = Math.abs((c[0]! - a[0]!) * n[0] + (c[1]! - a[1]!) * n[1]);
      expect(reach).toBeLessThanOrEqual(px + 1e-6);
    }
  });
});
