import type { FaceState } from './face-driver';
import { buildPhotoMesh, jawDrop, poseFromVisemes, scaleLandmarks, type MeshPose, type PhotoMesh, type Pt } from './photo-mesh';
import type { PhotoLandmarks } from './stage-config';
import { VISEMES, jawOpenOf, visemeIndex } from './visemes';

/**
 * What both ways of drawing a talking photo (ADR 091: the WebGL mesh, or the 2D canvas without
 * WebGL) take from the photo once: the photo with its edges faded, the blurred copy that covers
 * the stage, the face mesh and the box it can move in, the colours sampled for the lids and the
 * mouth, the painted mouth interior, the framing and the test hooks.
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
  /** How the face is drawn: a WebGL mesh, or the 2D canvas (no WebGL). */
  drawing: 'webgl' | '2d';
}

export type PhotoWindow = { __personaPhotoHold?: PhotoHold | null; __personaPhotoLayout?: PhotoLayout };

/** Photo px → stage (CSS px): x' = x·scale + x. */
export interface Framing {
  scale: number;
  x: number;
  y: number;
}
/** A box in photo px. */
export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

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
export function frameFace(stageW: number, stageH: number, eyes: Pt, eyeToChin: number, faceWidth: number): Framing {
  const scale = Math.max(0.05, Math.min((0.24 * stageH) / eyeToChin, (0.42 * stageW) / faceWidth));
  const eyeY = stageW < stageH ? 0.38 : 0.4;
  return { scale, x: stageW / 2 - eyes[0] * scale, y: stageH * eyeY - eyes[1] * scale };
}

/** The box (photo px) holding every triangle that can move: the rest of the photo is never redrawn. */
export function movingBox(mesh: PhotoMesh): Box {
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
  if (x0 > x1) return { x: 0, y: 0, w: 1, h: 1 };
  const x = Math.max(0, Math.floor(x0) - 2);
  const y = Math.max(0, Math.floor(y0) - 2);
  return { x, y, w: Math.max(1, Math.min(mesh.width, Math.ceil(x1) + 2) - x), h: Math.max(1, Math.min(mesh.height, Math.ceil(y1) + 2) - y) };
}

/** A box in photo px on the stage, in device px (whole pixels, grown by `pad`, inside the canvas). */
export function boxOnCanvas(box: Box, t: Framing, dpr: number, canvasW: number, canvasH: number, pad = 2) {
  const x0 = Math.max(0, Math.floor((t.x + box.x * t.scale) * dpr) - pad);
  const y0 = Math.max(0, Math.floor((t.y + box.y * t.scale) * dpr) - pad);
  const x1 = Math.min(canvasW, Math.ceil((t.x + (box.x + box.w) * t.scale) * dpr) + pad);
  const y1 = Math.min(canvasH, Math.ceil((t.y + (box.y + box.h) * t.scale) * dpr) + pad);
  return { x: x0, y: y0, w: Math.max(0, x1 - x0), h: Math.max(0, y1 - y0) };
}

export type Rgb = readonly [number, number, number];

/** Everything taken from the photo once. */
export interface PhotoParts {
  width: number;
  height: number;
  /** The photo with its edges faded out (where it does not reach the stage's edge, it melts into the blurred copy). */
  faded: HTMLCanvasElement;
  /** A small blurred, darkened copy of the photo that covers the stage. */
  blurred: HTMLCanvasElement;
  mesh: PhotoMesh | null;
  /** Where the mesh can move (photo px). */
  region: Box;
  /** The skin of each upper lid (a closing lid is tinted with it); null without colour sampling. */
  lidTone: (Rgb | null)[];
  /** The framing on a stage of this size (without landmarks the whole photo, breathing). */
  frame(width: number, height: number, breath: number): Framing;
  /** The stage without the face's motion: the blurred photo covering it, the photo framed over it. */
  paintStill(c: CanvasRenderingContext2D, t: Framing, dpr: number, width: number, height: number): void;
  /** The inside of the open mouth in photo px (the context's transform maps photo px), clipped to the hole. */
  paintMouth(c: CanvasRenderingContext2D, hole: Pt[], pose: MeshPose): void;
  /** Publishes `window.__personaPhotoLayout` for this frame. */
  publishLayout(t: Framing, pos: Float32Array, width: number, height: number, drawing: PhotoLayout['drawing']): void;
}

/** Reads the photo once: faded edges, blurred cover, mesh, sampled colours. */
export function preparePhoto(img: HTMLImageElement, landmarks: PhotoLandmarks | null): PhotoParts {
  const iw = img.naturalWidth;
  const ih = img.naturalHeight;
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

  const sampleAt = (x: number, y: number) => {
    const o = (Math.min(ih - 1, Math.max(0, Math.round(y))) * iw + Math.min(iw - 1, Math.max(0, Math.round(x)))) * 4;
    return [pixels!.data[o]!, pixels!.data[o + 1]!, pixels!.data[o + 2]!] as const;
  };
  // Mean colour of the lips, for the mouth's shading.
  const lipTone = (() => {
    if (!mesh || !pixels) return [150, 70, 70] as const;
    const sum = [0, 0, 0];
    for (const i of mesh.lips) sampleAt(mesh.rest[i * 2]!, mesh.rest[i * 2 + 1]!).forEach((v, c) => (sum[c] = sum[c]! + v));
    return sum.map((v) => v / mesh.lips.length) as unknown as Rgb;
  })();
  // The skin of each upper lid, between the crease and the brow (a closed lid is tinted with it).
  const lidTone = (mesh?.eyes ?? []).map((eye): Rgb | null => {
    if (!mesh || !pixels) return null;
    const sum = [0, 0, 0];
    eye.crease.forEach((ci, j) => {
      const bi = eye.brow[Math.min(eye.brow.length - 1, Math.round((j * (eye.brow.length - 1)) / (eye.crease.length - 1)))]!;
      const x = mesh.rest[ci * 2]! * 0.6 + mesh.rest[bi * 2]! * 0.4;
      const y = mesh.rest[ci * 2 + 1]! * 0.6 + mesh.rest[bi * 2 + 1]! * 0.4;
      sampleAt(x, y).forEach((v, c) => (sum[c] = sum[c]! + v));
    });
    return sum.map((v) => v / eye.crease.length) as unknown as Rgb;
  });
  pixels = null;
  // Painted colours take the photo's saturation (a black-and-white photo gets a grey tongue).
  const saturation = Math.min(1, (Math.max(...lipTone) - Math.min(...lipTone)) / 40);
  const tint = (r: number, g: number, b: number) => {
    const grey = 0.299 * r + 0.587 * g + 0.114 * b;
    const mix = (v: number) => Math.round(grey + (v - grey) * saturation);
    return `rgb(${mix(r)},${mix(g)},${mix(b)})`;
  };

  const paintMouth = (c: CanvasRenderingContext2D, hole: Pt[], pose: MeshPose) => {
    const m = mesh!;
    const mw = m.features.mouthWidth;
    const { u, n } = m.frame;
    const upper = hole.slice(0, m.cutUpper.length);
    const lower = [hole[0]!, ...hole.slice(m.cutUpper.length).reverse(), hole[m.cutUpper.length - 1]!];
    const opening = pose.open * jawDrop(m);
    const [cx, cy] = upper.reduce<Pt>((s, p) => [s[0] + p[0] / upper.length, s[1] + p[1] / upper.length], [0, 0]);
    const path = (pts: Pt[]) => {
      c.beginPath();
      pts.forEach(([x, y], i) => (i ? c.lineTo(x, y) : c.moveTo(x, y)));
      c.closePath();
    };
    c.save();
    path(hole);
    c.clip();
    // Dark, warm inside: deeper at the back.
    const [lr, lg, lb] = lipTone;
    const dark = tint(lr * 0.22, lg * 0.12, lb * 0.13);
    const back = tint(lr * 0.4, lg * 0.2, lb * 0.22);
    const grad = c.createLinearGradient(cx, cy, cx + n[0] * opening, cy + n[1] * opening);
    grad.addColorStop(0, dark);
    grad.addColorStop(1, back);
    c.fillStyle = grad;
    c.fill();
    // Tongue: low in the mouth, seen on open vowels.
    if (opening > mw * 0.08) {
      const lowMid = lower[Math.floor(lower.length / 2)]!;
      const tx = lowMid[0] - n[0] * opening * 0.12;
      const ty = lowMid[1] - n[1] * opening * 0.12;
      const tg = c.createRadialGradient(tx, ty - opening * 0.1, 0, tx, ty, mw * 0.34);
      tg.addColorStop(0, tint(196, 104, 110));
      tg.addColorStop(0.7, tint(150, 66, 74));
      tg.addColorStop(1, tint(96, 36, 42));
      c.fillStyle = tg;
      c.beginPath();
      c.ellipse(tx, ty, mw * 0.3 * (1 - pose.round * 0.4), opening * 0.42, Math.atan2(u[1], u[0]), 0, Math.PI * 2);
      c.fill();
    }
    // Teeth: a row under the upper lip (unless the photo shows its own), a short one over the lower lip.
    const row = (edge: Pt[], height: number, light: string, shade: string) => {
      const pts = [...edge, ...[...edge].reverse().map(([x, y]) => [x + n[0] * height, y + n[1] * height] as Pt)];
      const a = edge[0]!;
      const b = edge[edge.length - 1]!;
      const g = c.createLinearGradient(a[0], a[1], b[0], b[1]);
      g.addColorStop(0, shade);
      g.addColorStop(0.28, light);
      g.addColorStop(0.72, light);
      g.addColorStop(1, shade);
      c.fillStyle = g;
      path(pts);
      c.fill();
      // Gaps between teeth.
      c.strokeStyle = 'rgba(90,70,64,0.35)';
      c.lineWidth = Math.max(0.2, mw * 0.01);
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
        const y = e[1];
        c.beginPath();
        c.moveTo(x, y);
        c.lineTo(x + n[0] * height * 0.9, y + n[1] * height * 0.9);
        c.stroke();
      }
    };
    if (!m.openAtRest) row(upper, mw * 0.12, 'rgb(236,230,218)', 'rgb(120,100,92)');
    // The lower teeth: the middle of the lower lip only, a little darker (further back).
    const lowerEdge = lower.slice(2, -2).map(([x, y]) => [x - n[0] * mw * 0.05, y - n[1] * mw * 0.05] as Pt);
    if (opening > mw * 0.05 && lowerEdge.length > 1) row(lowerEdge, mw * 0.05, 'rgb(200,190,178)', 'rgb(96,78,72)');
    // Shadow under the upper lip and in the corners.
    const sh = c.createLinearGradient(cx, cy, cx + n[0] * Math.max(1, opening), cy + n[1] * Math.max(1, opening));
    sh.addColorStop(0, 'rgba(0,0,0,0.35)');
    sh.addColorStop(0.35, 'rgba(0,0,0,0)');
    c.fillStyle = sh;
    path(hole);
    c.fill();
    const a = upper[0]!;
    const b = upper[upper.length - 1]!;
    const side = c.createLinearGradient(a[0], a[1], b[0], b[1]);
    side.addColorStop(0, 'rgba(20,5,8,0.7)');
    side.addColorStop(0.22, 'rgba(20,5,8,0)');
    side.addColorStop(0.78, 'rgba(20,5,8,0)');
    side.addColorStop(1, 'rgba(20,5,8,0.7)');
    c.fillStyle = side;
    c.fill();
    c.restore();
  };

  const win = window as unknown as PhotoWindow;
  return {
    width: iw,
    height: ih,
    faded,
    blurred,
    mesh,
    region: mesh ? movingBox(mesh) : { x: 0, y: 0, w: 1, h: 1 },
    lidTone,
    frame(width, height, breath) {
      if (mesh) return frameFace(width, height, mul2(add2(mesh.features.eyes[0], mesh.features.eyes[1]), 0.5), mesh.features.eyeToChin, mesh.features.faceWidth);
      const scale = Math.min(width / iw, (height * 0.95) / ih);
      return { scale, x: (width - iw * scale) / 2, y: (height - ih * scale) / 2 + breath };
    },
    paintStill(c, t, dpr, width, height) {
      c.setTransform(dpr, 0, 0, dpr, 0, 0);
      c.imageSmoothingEnabled = true;
      const cover = Math.max(width / iw, height / ih) * 1.1;
      c.drawImage(blurred, (width - iw * cover) / 2, (height - ih * cover) / 2, iw * cover, ih * cover);
      c.setTransform(t.scale * dpr, 0, 0, t.scale * dpr, t.x * dpr, t.y * dpr);
      c.drawImage(faded, 0, 0);
    },
    paintMouth,
    publishLayout(t, pos, width, height, drawing) {
      if (!mesh) return;
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
        drawing,
      };
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
