import type { FaceState } from './face-driver';
import { deformMesh, headMatrix, jawDrop, mouthHole, type MeshPose, type Pt } from './photo-mesh';
import { boxOnCanvas, meshPose, type PhotoParts, type PhotoWindow, preparePhoto } from './photo-parts';
import { createPhotoWebGl, startPhotoWebGl } from './photo-webgl';
import { loadImage, sizeCanvas, type AvatarRenderer } from './renderer';
import type { PhotoLandmarks } from './stage-config';

export { frameFace, meshPose, type PhotoHold, type PhotoLayout } from './photo-parts';

/**
 * A talking photo (custom image avatars completed from a photo request; ADR 091): the photo
 * framed head-and-shoulders at any stage size over a blurred copy of itself, and its face as a
 * triangle mesh (photo-mesh.ts) warped each frame — the jaw drops over a painted mouth interior
 * (teeth, tongue, shading), the real lids close, the eyes and head move a little. Drawn with
 * WebGL (photo-webgl.ts: the mesh in one textured draw); where WebGL is missing, on the 2D canvas
 * below, each moving triangle an affine piece of the photo. Without landmarks the photo is only
 * framed (centred, upper third) and breathes.
 */
export async function createPhotoRenderer(url: string, landmarks: PhotoLandmarks | null): Promise<AvatarRenderer> {
  const stageCanvas = () => {
    const c = document.createElement('canvas');
    c.className = 'ps-canvas';
    return c;
  };
  const loading = loadImage(url);
  // WebGL's context and shaders are made while the photo arrives and its mesh is built.
  const started = startPhotoWebGl(stageCanvas());
  const img = await loading;
  const parts = preparePhoto(img, landmarks);
  const webgl = started && createPhotoWebGl(started, parts);
  if (webgl) return webgl;
  // (A canvas of its own: one that gave a WebGL context gives no 2D one.)
  const canvas = stageCanvas();
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('no 2D canvas');
  return createPhoto2d(canvas, ctx, parts);
}

/**
 * The 2D canvas way: the photo is drawn whole first; the moving part is composed each frame on
 * a small layer at (up to twice) the photo's resolution, then drawn scaled — triangles that only
 * follow the head in one piece (one clip), the others one by one, each clipped to itself.
 */
function createPhoto2d(canvas: HTMLCanvasElement, ctx: CanvasRenderingContext2D, parts: PhotoParts): AvatarRenderer {
  const { mesh, region, width: iw, height: ih } = parts;
  // Clipping a hundred triangles on the stage's own canvas cost several times more at
  // full-screen sizes than on this layer.
  const layer = document.createElement('canvas');
  const lctx = layer.getContext('2d')!;
  let layerK = 0;
  let dpr = 1;
  let width = 1;
  let height = 1;
  const targets = new Map<string, number>();
  const pos = mesh ? new Float32Array(mesh.rest.length) : null;
  const moved = new Uint8Array(mesh ? mesh.rest.length / 2 : 0);
  const rigid = new Uint8Array(mesh ? mesh.rest.length / 2 : 0);
  const win = window as unknown as PhotoWindow;

  /** A closing lid: the stretched lid tinted with its own skin, a soft lash line at its edge. */
  const paintLids = (pose: MeshPose) => {
    const m = mesh!;
    const p = pos!;
    const at = (i: number): Pt => [p[i * 2]!, p[i * 2 + 1]!];
    m.eyes.forEach((eye, side) => {
      const blink = side === 0 ? pose.blinkLeft : pose.blinkRight;
      const tone = parts.lidTone[side];
      if (blink < 0.15 || !tone) return;
      const lidLine = [eye.corners[0], eye.upper[0], eye.upper[1], eye.corners[1]].map(at);
      const crease = eye.crease.map(at);
      const top = crease.reduce<Pt>((s, q) => [s[0] + q[0] / crease.length, s[1] + q[1] / crease.length], [0, 0]);
      const bottom = lidLine.reduce<Pt>((s, q) => [s[0] + q[0] / lidLine.length, s[1] + q[1] / lidLine.length], [0, 0]);
      const a = Math.min(1, (blink - 0.15) / 0.6);
      const [r, g, b] = tone;
      const skin = (alpha: number) => `rgba(${Math.round(r)},${Math.round(g)},${Math.round(b)},${alpha})`;
      const grad = lctx.createLinearGradient(top[0], top[1], bottom[0], bottom[1]);
      grad.addColorStop(0, skin(0));
      grad.addColorStop(0.35, skin(0.55 * a));
      grad.addColorStop(0.8, skin(0.5 * a));
      grad.addColorStop(1, skin(0.15 * a));
      lctx.fillStyle = grad;
      lctx.beginPath();
      [lidLine[0]!, ...crease, lidLine[3]!, lidLine[2]!, lidLine[1]!].forEach(([x, y], i) => (i ? lctx.lineTo(x, y) : lctx.moveTo(x, y)));
      lctx.closePath();
      lctx.fill();
      lctx.strokeStyle = `rgba(${Math.round(r * 0.3)},${Math.round(g * 0.22)},${Math.round(b * 0.2)},${0.55 * a})`;
      lctx.lineWidth = Math.max(0.4, eye.width * 0.06);
      lctx.lineCap = 'round';
      lctx.beginPath();
      lidLine.forEach(([x, y], i) => (i ? lctx.lineTo(x, y) : lctx.moveTo(x, y)));
      lctx.stroke();
    });
  };

  /** One triangle of the photo, mapped from its rest place to its deformed place. */
  const drawTriangle = (a: number, b: number, c: number) => {
    const r = mesh!.rest;
    const p = pos!;
    const s0x = r[a * 2]!;
    const s0y = r[a * 2 + 1]!;
    const s1x = r[b * 2]!;
    const s1y = r[b * 2 + 1]!;
    const s2x = r[c * 2]!;
    const s2y = r[c * 2 + 1]!;
    const d0x = p[a * 2]!;
    const d0y = p[a * 2 + 1]!;
    const d1x = p[b * 2]!;
    const d1y = p[b * 2 + 1]!;
    const d2x = p[c * 2]!;
    const d2y = p[c * 2 + 1]!;
    const den = (s1x - s0x) * (s2y - s0y) - (s2x - s0x) * (s1y - s0y);
    if (Math.abs(den) < 1e-6) return;
    // Affine map source → destination (photo px), then the framing.
    const m11 = ((d1x - d0x) * (s2y - s0y) - (d2x - d0x) * (s1y - s0y)) / den;
    const m12 = ((d1y - d0y) * (s2y - s0y) - (d2y - d0y) * (s1y - s0y)) / den;
    const m21 = ((d2x - d0x) * (s1x - s0x) - (d1x - d0x) * (s2x - s0x)) / den;
    const m22 = ((d2y - d0y) * (s1x - s0x) - (d1y - d0y) * (s2x - s0x)) / den;
    const dx = d0x - m11 * s0x - m21 * s0y;
    const dy = d0y - m12 * s0x - m22 * s0y;
    // The clip grows by about half a layer pixel around the centroid: no hairline seams.
    const cx = (d0x + d1x + d2x) / 3;
    const cy = (d0y + d1y + d2y) / 3;
    const grow = (x: number, y: number): Pt => {
      const l = Math.hypot(x - cx, y - cy) || 1;
      const k = 0.6 / layerK / l;
      return [x + (x - cx) * k, y + (y - cy) * k];
    };
    lctx.setTransform(layerK, 0, 0, layerK, -region.x * layerK, -region.y * layerK);
    lctx.beginPath();
    const g0 = grow(d0x, d0y);
    const g1 = grow(d1x, d1y);
    const g2 = grow(d2x, d2y);
    lctx.moveTo(g0[0], g0[1]);
    lctx.lineTo(g1[0], g1[1]);
    lctx.lineTo(g2[0], g2[1]);
    lctx.closePath();
    lctx.save();
    lctx.clip();
    lctx.transform(m11, m12, m21, m22, dx, dy);
    const minX = Math.max(0, Math.floor(Math.min(s0x, s1x, s2x)) - 2);
    const minY = Math.max(0, Math.floor(Math.min(s0y, s1y, s2y)) - 2);
    const maxX = Math.min(iw, Math.ceil(Math.max(s0x, s1x, s2x)) + 2);
    const maxY = Math.min(ih, Math.ceil(Math.max(s0y, s1y, s2y)) + 2);
    if (maxX > minX && maxY > minY) lctx.drawImage(parts.faded, minX, minY, maxX - minX, maxY - minY, minX, minY, maxX - minX, maxY - minY);
    lctx.restore();
  };

  const still = document.createElement('canvas');
  let stillKey = '';

  return {
    name: 'photo',
    canvas,
    targets,
    resize(w, h) {
      width = w;
      height = h;
      dpr = sizeCanvas(canvas, w, h);
      // Setting a canvas's size clears it, even to the same size (the stage's ResizeObserver
      // reports the size it was just given): the still stage is painted again.
      stillKey = '';
    },
    render(face: FaceState) {
      const hold = win.__personaPhotoHold ?? null;
      const t = parts.frame(width, height, face.breath);
      targets.clear();
      if (!mesh || !pos) {
        // Without landmarks the whole photo breathes: every frame is painted whole.
        parts.paintStill(ctx, t, dpr, width, height);
        return;
      }
      // With a mesh only the face's region moves: the still stage is painted once per size (kept
      // in a canvas of its own), and each frame repaints only the face's region from it — a
      // full-stage repaint at a large size cost a software renderer half its frame rate.
      const key = `${canvas.width}x${canvas.height}@${dpr}`;
      if (key !== stillKey) {
        stillKey = key;
        still.width = canvas.width;
        still.height = canvas.height;
        parts.paintStill(still.getContext('2d')!, t, dpr, width, height);
        ctx.setTransform(1, 0, 0, 1, 0, 0);
        ctx.drawImage(still, 0, 0);
      } else {
        const b = boxOnCanvas(region, t, dpr, canvas.width, canvas.height);
        ctx.setTransform(1, 0, 0, 1, 0, 0);
        if (b.w > 0 && b.h > 0) ctx.drawImage(still, b.x, b.y, b.w, b.h, b.x, b.y, b.w, b.h);
      }
      ctx.setTransform(t.scale * dpr, 0, 0, t.scale * dpr, t.x * dpr, t.y * dpr);
      const pose = meshPose(face, hold);
      deformMesh(mesh, pose, pos);
      targets.set('jawOpen', pose.open);
      targets.set('blink', Math.max(pose.blinkLeft, pose.blinkRight));
      const want = Math.min(2, Math.max(1, Math.round(t.scale * dpr * 4) / 4));
      if (want !== layerK) {
        layerK = want;
        layer.width = Math.ceil(region.w * want);
        layer.height = Math.ceil(region.h * want);
      }
      lctx.setTransform(layerK, 0, 0, layerK, -region.x * layerK, -region.y * layerK);
      lctx.drawImage(parts.faded, region.x, region.y, region.w, region.h, region.x, region.y, region.w, region.h);
      if (pose.open * jawDrop(mesh) > 0.2) parts.paintMouth(lctx, mouthHole(mesh, pos), pose);
      // Triangles that only follow the head rigidly are drawn in one piece (one clip, one image);
      // the others (jaw, lids, gaze, the hair and neck between head and background) one by one.
      // Triangles that did not move at all are already there (the photo underneath).
      const [ma, mb, mc, md, me, mf] = headMatrix(mesh, pose);
      const r = mesh.rest;
      const count = r.length / 2;
      for (let i = 0; i < count; i++) {
        const x = r[i * 2]!;
        const y = r[i * 2 + 1]!;
        const dx = pos[i * 2]! - x;
        const dy = pos[i * 2 + 1]! - y;
        moved[i] = Math.abs(dx) + Math.abs(dy) > 0.02 ? 1 : 0;
        rigid[i] = Math.abs(pos[i * 2]! - (ma * x + mc * y + me)) + Math.abs(pos[i * 2 + 1]! - (mb * x + md * y + mf)) < 0.02 ? 1 : 0;
      }
      const tri = mesh.triangles;
      let rigidPath = false;
      lctx.setTransform(layerK, 0, 0, layerK, -region.x * layerK, -region.y * layerK);
      lctx.beginPath();
      for (let k = 0; k < tri.length; k += 3) {
        const a = tri[k]!;
        const b = tri[k + 1]!;
        const c = tri[k + 2]!;
        if (!(moved[a]! | moved[b]! | moved[c]!) || !(rigid[a]! & rigid[b]! & rigid[c]!)) continue;
        lctx.moveTo(pos[a * 2]!, pos[a * 2 + 1]!);
        lctx.lineTo(pos[b * 2]!, pos[b * 2 + 1]!);
        lctx.lineTo(pos[c * 2]!, pos[c * 2 + 1]!);
        lctx.closePath();
        rigidPath = true;
      }
      if (rigidPath) {
        lctx.save();
        lctx.clip();
        lctx.transform(ma, mb, mc, md, me, mf);
        lctx.drawImage(parts.faded, region.x, region.y, region.w, region.h, region.x, region.y, region.w, region.h);
        lctx.restore();
      }
      for (let k = 0; k < tri.length; k += 3) {
        const a = tri[k]!;
        const b = tri[k + 1]!;
        const c = tri[k + 2]!;
        if (!(moved[a]! | moved[b]! | moved[c]!) || rigid[a]! & rigid[b]! & rigid[c]!) continue;
        drawTriangle(a, b, c);
      }
      lctx.setTransform(layerK, 0, 0, layerK, -region.x * layerK, -region.y * layerK);
      paintLids(pose);
      ctx.drawImage(layer, 0, 0, layer.width, layer.height, region.x, region.y, layer.width / layerK, layer.height / layerK);
      parts.publishLayout(t, pos, width, height, '2d');
    },
    dispose() {
      canvas.remove();
    },
  };
}
