import type { FaceState } from './face-driver';
import { buildPhotoMesh, deformMesh, headMatrix, jawDrop, mouthHole, poseFromVisemes, scaleLandmarks, type MeshPose, type PhotoMesh, type Pt } from './photo-mesh';
import { loadImage, sizeCanvas, type AvatarRenderer } from './renderer';
import type { PhotoLandmarks } from './stage-config';
import { VISEMES, jawOpenOf, visemeIndex } from './visemes';

/**
 * A talking photo (custom image avatars completed from a photo request), drawn on a 2D canvas
 * (ADR 091): the photo framed head-and-shoulders at any stage size over a blurred copy of itself,
 * and its face as a triangle mesh (photo-mesh.ts) warped each frame — the jaw drops over a
 * painted mouth interior (teeth, tongue, shading), the real lids close, the eyes and head move a
 * little — each triangle drawn as an affine piece of the photo. Without landmarks the photo is
 * only framed (centred, upper third) and breathes.
 */

/** Held pose for tests and screenshots: `window.__personaPhotoHold` (null: live). */
export interface PhotoHold {
  visemes?: Record<string, number>;
  blink?: number;
  eyeYaw?: number;
  eyePitch?: number;
  headYaw?: number;
  headPitch?: number;
  headRoll?: number;
  /** Brows raised (0–1), their inner ends up (0–1) and smile (0–1): 0 unless given. */
  brow?: number;
  browInner?: number;
  smile?: number;
}
/** Where the face is on the canvas (CSS px), published each frame as `window.__personaPhotoLayout`. */
export interface PhotoLayout {
  stage: { width: number; height: number };
  eyes: [Pt, Pt];
  chin: Pt;
  top: Pt;
  mouth: { x: number; y: number; width: number };
  eyeWidth: number;
  faceWidth: number;
  /** The middle of each brow and the nose's tip as drawn this frame (they move). */
  brows: [Pt, Pt];
  nose: Pt;
}

type Win = { __personaPhotoHold?: PhotoHold | null; __personaPhotoLayout?: PhotoLayout };

/** The face as the mesh wants it, from the driver's state (or a held pose). */
export function meshPose(face: FaceState, hold: PhotoHold | null = null): MeshPose {
  let visemes: ArrayLike<number> = face.visemes;
  let jaw = face.jaw;
  if (hold?.visemes) {
    const v = new Float32Array(VISEMES.length);
    for (const [name, w] of Object.entries(hold.visemes)) {
      const i = visemeIndex[name as keyof typeof visemeIndex];
      if (i !== undefined) v[i] = w;
    }
    visemes = v;
    jaw = Math.min(1, VISEMES.reduce((s, name, i) => s + v[i]! * jawOpenOf[name], 0));
  }
  const blink = hold?.blink ?? null;
  return {
    ...poseFromVisemes(visemes, jaw),
    blinkLeft: blink ?? face.blinkLeft,
    blinkRight: blink ?? face.blinkRight,
    eyeYaw: hold?.eyeYaw ?? face.eyeYaw,
    eyePitch: hold?.eyePitch ?? face.eyePitch,
    yaw: hold?.headYaw ?? face.headYaw,
    pitch: hold?.headPitch ?? face.headPitch,
    roll: (hold?.headRoll ?? face.headRoll) * 0.6,
    brow: hold ? (hold.brow ?? 0) : face.browUp,
    // Sad and concerned lift the brows' inner ends (as the toon people's brows do).
    browInner: hold ? (hold.browInner ?? 0) : (face.mood === 'sad' ? 1 : face.mood === 'concerned' ? 0.7 : 0) * face.moodWeight,
    smile: Math.max(0, (hold ? (hold.smile ?? 0) : face.smile) - 0.2) * 0.5,
  };
}

/**
 * The scale and offset that put the photo's face head-and-shoulders on a stage: eyes on the
 * centre line a little above the middle, eye-to-chin about a quarter of the height (less when the stage
 * is narrow, so the face fits its width).
 */
export function frameFace(stageW: number, stageH: number, eyes: Pt, eyeToChin: number, faceWidth: number): { scale: number; x: number; y: number } {
  const scale = Math.max(0.05, Math.min((0.24 * stageH) / eyeToChin, (0.42 * stageW) / faceWidth));
  const eyeY = stageW < stageH ? 0.38 : 0.4;
  return { scale, x: stageW / 2 - eyes[0] * scale, y: stageH * eyeY - eyes[1] * scale };
}

export async function createPhotoRenderer(url: string, landmarks: PhotoLandmarks | null): Promise<AvatarRenderer> {
  const img = await loadImage(url);
  const canvas = document.createElement('canvas');
  canvas.className = 'ps-canvas';
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('no 2D canvas');
  const iw = img.naturalWidth;
  const ih = img.naturalHeight;

  // The photo with its edges faded out (where it does not reach the stage's edge, it melts into
  // the blurred copy behind it), and that blurred copy.
  const faded = document.createElement('canvas');
  faded.width = iw;
  faded.height = ih;
  const fctx = faded.getContext('2d', { willReadFrequently: true })!;
  fctx.drawImage(img, 0, 0);
  let pixels: ImageData | null = null;
  try {
    pixels = fctx.getImageData(0, 0, iw, ih);
  } catch {
    // A cross-origin photo without CORS: no colour sampling.
  }
  const margin = Math.max(4, Math.round(Math.min(iw, ih) * 0.05));
  // The mesh keeps inside the opaque part: a moving triangle never redraws the faded edge.
  const mesh: PhotoMesh | null = landmarks ? buildPhotoMesh(scaleLandmarks(landmarks, iw, ih), iw, ih, margin + 1) : null;
  fctx.globalCompositeOperation = 'destination-in';
  for (const [x0, y0, x1, y1] of [
    [0, 0, margin, 0],
    [iw, 0, iw - margin, 0],
    [0, 0, 0, margin],
    [0, ih, 0, ih - margin],
  ] as const) {
    const g = fctx.createLinearGradient(x0, y0, x1, y1);
    g.addColorStop(0, 'rgba(0,0,0,0)');
    g.addColorStop(1, 'rgba(0,0,0,1)');
    fctx.fillStyle = g;
    fctx.fillRect(0, 0, iw, ih);
  }
  fctx.globalCompositeOperation = 'source-over';
  const blurred = document.createElement('canvas');
  blurred.width = 48;
  blurred.height = Math.max(8, Math.round((48 * ih) / iw));
  const bctx = blurred.getContext('2d')!;
  bctx.filter = 'blur(3px) saturate(0.55) brightness(0.85)';
  bctx.drawImage(img, -4, -4, blurred.width + 8, blurred.height + 8);
  bctx.filter = 'none';
  bctx.fillStyle = 'rgba(20,24,32,0.18)';
  bctx.fillRect(0, 0, blurred.width, blurred.height);

  // Mean colour of the lips, for the mouth's shading.
  const lipTone = (() => {
    if (!mesh || !pixels) return [150, 70, 70];
    let r = 0;
    let g = 0;
    let b = 0;
    let k = 0;
    for (const i of mesh.lips) {
      const x = Math.round(mesh.rest[i * 2]!);
      const y = Math.round(mesh.rest[i * 2 + 1]!);
      const o = (Math.min(ih - 1, Math.max(0, y)) * iw + Math.min(iw - 1, Math.max(0, x))) * 4;
      r += pixels.data[o]!;
      g += pixels.data[o + 1]!;
      b += pixels.data[o + 2]!;
      k++;
    }
    return [r / k, g / k, b / k];
  })();
  // The skin of each upper lid, between the crease and the brow (a closed lid is tinted with it).
  const lidTone = (mesh?.eyes ?? []).map((eye) => {
    if (!mesh || !pixels) return null;
    let r = 0;
    let g = 0;
    let b = 0;
    let k = 0;
    eye.crease.forEach((ci, j) => {
      const bi = eye.brow[Math.min(eye.brow.length - 1, Math.round((j * (eye.brow.length - 1)) / (eye.crease.length - 1)))]!;
      const x = Math.round(mesh.rest[ci * 2]! * 0.6 + mesh.rest[bi * 2]! * 0.4);
      const y = Math.round(mesh.rest[ci * 2 + 1]! * 0.6 + mesh.rest[bi * 2 + 1]! * 0.4);
      const o = (Math.min(ih - 1, Math.max(0, y)) * iw + Math.min(iw - 1, Math.max(0, x))) * 4;
      r += pixels!.data[o]!;
      g += pixels!.data[o + 1]!;
      b += pixels!.data[o + 2]!;
      k++;
    });
    return [r / k, g / k, b / k] as const;
  });
  pixels = null;
  // Painted colours take the photo's saturation (a black-and-white photo gets a grey tongue).
  const saturation = Math.min(1, (Math.max(...lipTone) - Math.min(...lipTone)) / 40);
  const tint = (r: number, g: number, b: number) => {
    const grey = 0.299 * r + 0.587 * g + 0.114 * b;
    const mix = (v: number) => Math.round(grey + (v - grey) * saturation);
    return `rgb(${mix(r)},${mix(g)},${mix(b)})`;
  };

  // The moving part of the mesh is composed each frame on a small layer at (up to twice) the
  // photo's resolution, then drawn scaled: clipping a hundred triangles on the stage's own canvas
  // cost several times more at full-screen sizes. The region holds every triangle that can move
  // (it lies inside the photo's opaque part: the mesh is inset from the faded edge).
  const region = (() => {
    if (!mesh) return { x: 0, y: 0, w: 1, h: 1 };
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    const t = mesh.triangles;
    for (let k = 0; k < t.length; k += 3) {
      const tri = [t[k]!, t[k + 1]!, t[k + 2]!];
      if (!tri.some((i) => mesh.head[i]! > 0 || mesh.jaw[i]! > 0)) continue;
      for (const i of tri) {
        x0 = Math.min(x0, mesh.rest[i * 2]!);
        y0 = Math.min(y0, mesh.rest[i * 2 + 1]!);
        x1 = Math.max(x1, mesh.rest[i * 2]!);
        y1 = Math.max(y1, mesh.rest[i * 2 + 1]!);
      }
    }
    const x = Math.max(0, Math.floor(x0) - 2);
    const y = Math.max(0, Math.floor(y0) - 2);
    return { x, y, w: Math.max(1, Math.min(iw, Math.ceil(x1) + 2) - x), h: Math.max(1, Math.min(ih, Math.ceil(y1) + 2) - y) };
  })();
  const layer = document.createElement('canvas');
  const lctx = layer.getContext('2d')!;
  let layerK = 0;

  /** A closing lid: the stretched lid tinted with its own skin, a soft lash line at its edge. */
  const paintLids = (pose: MeshPose) => {
    const m = mesh!;
    const p = pos!;
    const at = (i: number): Pt => [p[i * 2]!, p[i * 2 + 1]!];
    m.eyes.forEach((eye, side) => {
      const blink = side === 0 ? pose.blinkLeft : pose.blinkRight;
      const tone = lidTone[side];
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

  let dpr = 1;
  let width = 1;
  let height = 1;
  const targets = new Map<string, number>();
  const pos = mesh ? new Float32Array(mesh.rest.length) : null;
  const moved = new Uint8Array(mesh ? mesh.rest.length / 2 : 0);
  const rigid = new Uint8Array(mesh ? mesh.rest.length / 2 : 0);
  const win = window as unknown as Win;

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
    if (maxX > minX && maxY > minY) lctx.drawImage(faded, minX, minY, maxX - minX, maxY - minY, minX, minY, maxX - minX, maxY - minY);
    lctx.restore();
  };

  /** The inside of the open mouth, in photo px (the framing transform is set). */
  const paintMouth = (hole: Pt[], pose: MeshPose) => {
    const m = mesh!;
    const mw = m.features.mouthWidth;
    const { u, n } = m.frame;
    const upper = hole.slice(0, m.cutUpper.length);
    const lower = [hole[0]!, ...hole.slice(m.cutUpper.length).reverse(), hole[m.cutUpper.length - 1]!];
    const opening = pose.open * jawDrop(m);
    const [cx, cy] = upper.reduce<Pt>((s, p) => [s[0] + p[0] / upper.length, s[1] + p[1] / upper.length], [0, 0]);
    const path = (pts: Pt[]) => {
      lctx.beginPath();
      pts.forEach(([x, y], i) => (i ? lctx.lineTo(x, y) : lctx.moveTo(x, y)));
      lctx.closePath();
    };
    lctx.save();
    path(hole);
    lctx.clip();
    // Dark, warm inside: deeper at the back.
    const [lr, lg, lb] = lipTone;
    const dark = tint(lr! * 0.22, lg! * 0.12, lb! * 0.13);
    const back = tint(lr! * 0.4, lg! * 0.2, lb! * 0.22);
    const grad = lctx.createLinearGradient(cx, cy, cx + n[0] * opening, cy + n[1] * opening);
    grad.addColorStop(0, dark);
    grad.addColorStop(1, back);
    lctx.fillStyle = grad;
    lctx.fill();
    // Tongue: low in the mouth, seen on open vowels.
    if (opening > mw * 0.08) {
      const lowMid = lower[Math.floor(lower.length / 2)]!;
      const tx = lowMid[0] - n[0] * opening * 0.12;
      const ty = lowMid[1] - n[1] * opening * 0.12;
      const tg = lctx.createRadialGradient(tx, ty - opening * 0.1, 0, tx, ty, mw * 0.34);
      tg.addColorStop(0, tint(196, 104, 110));
      tg.addColorStop(0.7, tint(150, 66, 74));
      tg.addColorStop(1, tint(96, 36, 42));
      lctx.fillStyle = tg;
      lctx.beginPath();
      lctx.ellipse(tx, ty, mw * 0.3 * (1 - pose.round * 0.4), opening * 0.42, Math.atan2(u[1], u[0]), 0, Math.PI * 2);
      lctx.fill();
    }
    // Teeth: a row under the upper lip (unless the photo shows its own), a short one over the lower lip.
    const row = (edge: Pt[], height: number, light: string, shade: string) => {
      const pts = [...edge, ...[...edge].reverse().map(([x, y]) => [x + n[0] * height, y + n[1] * height] as Pt)];
      const a = edge[0]!;
      const b = edge[edge.length - 1]!;
      const g = lctx.createLinearGradient(a[0], a[1], b[0], b[1]);
      g.addColorStop(0, shade);
      g.addColorStop(0.28, light);
      g.addColorStop(0.72, light);
      g.addColorStop(1, shade);
      lctx.fillStyle = g;
      path(pts);
      lctx.fill();
      // Gaps between teeth.
      lctx.strokeStyle = 'rgba(90,70,64,0.35)';
      lctx.lineWidth = Math.max(0.2, mw * 0.01);
      const span = Math.hypot(b[0] - a[0], b[1] - a[1]);
      const mid: Pt = [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2];
      const edgeAt = (x: number) => {
        let best = edge[0]!;
        for (const p of edge) if (Math.abs((p[0] - mid[0]) * u[0] + (p[1] - mid[1]) * u[1] - x) < Math.abs((best[0] - mid[0]) * u[0] + (best[1] - mid[1]) * u[1] - x)) best = p;
        return best;
      };
      for (const f of [-0.3, -0.17, -0.06, 0.06, 0.17, 0.3]) {
        const e = edgeAt(f * span);
        const x = mid[0] + u[0] * f * span;
        const y = e[1] + (x - e[0]) * 0;
        lctx.beginPath();
        lctx.moveTo(x, y);
        lctx.lineTo(x + n[0] * height * 0.9, y + n[1] * height * 0.9);
        lctx.stroke();
      }
    };
    if (!m.openAtRest) row(upper, mw * 0.12, 'rgb(236,230,218)', 'rgb(120,100,92)');
    // The lower teeth: the middle of the lower lip only, a little darker (further back).
    const lowerEdge = lower.slice(2, -2).map(([x, y]) => [x - n[0] * mw * 0.05, y - n[1] * mw * 0.05] as Pt);
    if (opening > mw * 0.05 && lowerEdge.length > 1) row(lowerEdge, mw * 0.05, 'rgb(200,190,178)', 'rgb(96,78,72)');
    // Shadow under the upper lip and in the corners.
    const sh = lctx.createLinearGradient(cx, cy, cx + n[0] * Math.max(1, opening), cy + n[1] * Math.max(1, opening));
    sh.addColorStop(0, 'rgba(0,0,0,0.35)');
    sh.addColorStop(0.35, 'rgba(0,0,0,0)');
    lctx.fillStyle = sh;
    path(hole);
    lctx.fill();
    const a = upper[0]!;
    const b = upper[upper.length - 1]!;
    const side = lctx.createLinearGradient(a[0], a[1], b[0], b[1]);
    side.addColorStop(0, 'rgba(20,5,8,0.7)');
    side.addColorStop(0.22, 'rgba(20,5,8,0)');
    side.addColorStop(0.78, 'rgba(20,5,8,0)');
    side.addColorStop(1, 'rgba(20,5,8,0.7)');
    lctx.fillStyle = side;
    lctx.fill();
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
    },
    render(face: FaceState) {
      const hold = win.__personaPhotoHold ?? null;
      const t = mesh
        ? frameFace(width, height, mul2(add2(mesh.features.eyes[0], mesh.features.eyes[1]), 0.5), mesh.features.eyeToChin, mesh.features.faceWidth)
        : (() => {
            const scale = Math.min(width / iw, (height * 0.95) / ih);
            return { scale, x: (width - iw * scale) / 2, y: (height - ih * scale) / 2 + face.breath };
          })();
      /** The stage without the face's motion: the blurred photo covering it, the photo framed over it. */
      const paintStill = (c: CanvasRenderingContext2D) => {
        c.setTransform(dpr, 0, 0, dpr, 0, 0);
        c.imageSmoothingEnabled = true;
        const cover = Math.max(width / iw, height / ih) * 1.1;
        c.drawImage(blurred, (width - iw * cover) / 2, (height - ih * cover) / 2, iw * cover, ih * cover);
        c.setTransform(t.scale * dpr, 0, 0, t.scale * dpr, t.x * dpr, t.y * dpr);
        c.drawImage(faded, 0, 0);
      };
      targets.clear();
      if (!mesh || !pos) {
        // Without landmarks the whole photo breathes: every frame is painted whole.
        paintStill(ctx);
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
        paintStill(still.getContext('2d')!);
        ctx.setTransform(1, 0, 0, 1, 0, 0);
        ctx.drawImage(still, 0, 0);
      } else {
        const x0 = Math.max(0, Math.floor((t.x + region.x * t.scale) * dpr) - 2);
        const y0 = Math.max(0, Math.floor((t.y + region.y * t.scale) * dpr) - 2);
        const x1 = Math.min(canvas.width, Math.ceil((t.x + (region.x + region.w) * t.scale) * dpr) + 2);
        const y1 = Math.min(canvas.height, Math.ceil((t.y + (region.y + region.h) * t.scale) * dpr) + 2);
        ctx.setTransform(1, 0, 0, 1, 0, 0);
        if (x1 > x0 && y1 > y0) ctx.drawImage(still, x0, y0, x1 - x0, y1 - y0, x0, y0, x1 - x0, y1 - y0);
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
      lctx.drawImage(faded, region.x, region.y, region.w, region.h, region.x, region.y, region.w, region.h);
      if (pose.open * jawDrop(mesh) > 0.2) paintMouth(mouthHole(mesh, pos), pose);
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
        lctx.drawImage(faded, region.x, region.y, region.w, region.h, region.x, region.y, region.w, region.h);
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
      const toStage = (p: Pt): Pt => [t.x + p[0] * t.scale, t.y + p[1] * t.scale];
      win.__personaPhotoLayout = {
        stage: { width, height },
        eyes: [toStage(mesh.features.eyes[0]), toStage(mesh.features.eyes[1])],
        chin: toStage(mesh.features.chin),
        top: toStage(mesh.features.top),
        mouth: { x: toStage(mesh.features.mouth)[0], y: toStage(mesh.features.mouth)[1], width: mesh.features.mouthWidth * t.scale },
        eyeWidth: mesh.eyes[0].width * t.scale,
        faceWidth: mesh.features.faceWidth * t.scale,
        brows: mesh.eyes.map((eye) => toStage(meanAt(pos, eye.brow))) as [Pt, Pt],
        nose: toStage(meanAt(pos, mesh.nose.tip)),
      };
    },
    dispose() {
      canvas.remove();
    },
  };
}

const add2 = (a: Pt, b: Pt): Pt => [a[0] + b[0], a[1] + b[1]];
const mul2 = (a: Pt, k: number): Pt => [a[0] * k, a[1] * k];
/** The mean of some vertices' positions. */
const meanAt = (pos: Float32Array, idx: number[]): Pt => {
  let x = 0;
  let y = 0;
  for (const i of idx) {
    x += pos[i * 2]!;
    y += pos[i * 2 + 1]!;
  }
  return [x / Math.max(1, idx.length), y / Math.max(1, idx.length)];
};
