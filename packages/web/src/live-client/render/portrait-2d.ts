import { AvatarMoods, type TAvatarMood } from '@persona/contract';
import type { FaceState } from './face-driver';
import { loadImage, sizeCanvas, type AvatarRenderer } from './renderer';
import { safeUrl } from './stage-config';
import { MOUTH_SHAPES, VISEMES, mouthShapeOf, type MouthShape } from './visemes';

interface Manifest {
  size: [number, number];
  backdrop: HTMLImageElement | null;
  base: HTMLImageElement;
  eyesOpen: HTMLImageElement;
  eyesClosed: HTMLImageElement;
  mouth: Record<MouthShape, HTMLImageElement>;
  /** Each mood's face above the mouth and its mouth at rest (portraits made before moods have none). */
  moods: Partial<Record<TAvatarMood, { face: HTMLImageElement; mouth: HTMLImageElement }>>;
  neck: [number, number];
}

async function loadManifest(url: string): Promise<Manifest> {
  const res = await fetch(url, { credentials: 'omit' });
  if (!res.ok) throw new Error(`portrait ${url}: HTTP ${res.status}`);
  const doc = (await res.json()) as Record<string, unknown>;
  const rel = (v: unknown) => {
    const u = safeUrl(v, url);
    if (!u) throw new Error('portrait: a layer URL is missing or not http(s)');
    return u;
  };
  const pair = (v: unknown, fallback: [number, number]): [number, number] => {
    const a = Array.isArray(v) ? v.map(Number) : [];
    return a.length === 2 && a.every((n) => Number.isFinite(n) && n > 0 && n < 10_000) ? [a[0]!, a[1]!] : fallback;
  };
  const size = pair(doc.size, [400, 480]);
  const eyes = (doc.eyes ?? {}) as Record<string, unknown>;
  const mouth = (doc.mouth ?? {}) as Record<string, unknown>;
  const anchors = (doc.anchors ?? {}) as Record<string, unknown>;
  const neck = pair(anchors.neck, [size[0] / 2, size[1] * 0.7]);
  const [backdrop, base, eyesOpen, eyesClosed, ...mouths] = await Promise.all([
    doc.backdrop ? loadImage(rel(doc.backdrop)) : Promise.resolve(null),
    loadImage(rel(doc.base)),
    loadImage(rel(eyes.open)),
    loadImage(rel(eyes.closed)),
    ...MOUTH_SHAPES.map((shape) => loadImage(rel(mouth[shape] ?? mouth.rest))),
  ]);
  const moodDoc = (doc.moods ?? {}) as Record<string, { face?: unknown; mouth?: unknown } | undefined>;
  const moodNames = AvatarMoods.filter((mood) => mood !== 'neutral' && moodDoc[mood]?.face && moodDoc[mood]?.mouth);
  const moodLayers = await Promise.all(moodNames.map((mood) => Promise.all([loadImage(rel(moodDoc[mood]!.face)), loadImage(rel(moodDoc[mood]!.mouth))])));
  const moods = Object.fromEntries(moodNames.map((mood, i) => [mood, { face: moodLayers[i]![0]!, mouth: moodLayers[i]![1]! }]));
  return { size, backdrop, base: base!, eyesOpen: eyesOpen!, eyesClosed: eyesClosed!, mouth: Object.fromEntries(MOUTH_SHAPES.map((s, i) => [s, mouths[i]!])) as Record<MouthShape, HTMLImageElement>, moods, neck };
}

type Box = readonly [x: number, y: number, w: number, h: number];

/**
 * Where a layer is not transparent. Every layer is the portrait's whole size (400×480) and most
 * are a small patch (a mouth, the eyes) in a transparent sheet, yet drawing one blends all of
 * it: on a software rasteriser (SwiftShader) the four to eight layers of a frame were most of
 * its cost. Found once per layer, when it is first drawn (a read-back of its alpha).
 */
export function opaqueBox(img: CanvasImageSource & { width: number; height: number }): Box | null {
  const w = img.width;
  const h = img.height;
  const c = document.createElement('canvas');
  c.width = w;
  c.height = h;
  const g = c.getContext('2d', { willReadFrequently: true });
  if (!g || w === 0 || h === 0) return [0, 0, w, h];
  g.drawImage(img, 0, 0);
  let data: Uint8ClampedArray;
  try {
    data = g.getImageData(0, 0, w, h).data;
  } catch {
    return [0, 0, w, h];
  }
  const box = alphaBox(data, w, h);
  if (!box) return null;
  // A pixel of margin: smoothing at the box's edge samples transparent pixels, as it did before.
  const x = Math.max(0, box[0] - 1);
  const y = Math.max(0, box[1] - 1);
  return [x, y, Math.min(w, box[0] + box[2] + 1) - x, Math.min(h, box[1] + box[3] + 1) - y];
}

/** The bounding box of the pixels with some alpha in RGBA `data` (null: none). */
export function alphaBox(data: ArrayLike<number>, w: number, h: number): Box | null {
  let x0 = w;
  let y0 = h;
  let x1 = -1;
  let y1 = -1;
  for (let y = 0; y < h; y++) {
    const row = y * w * 4;
    for (let x = 0; x < w; x++) {
      if (data[row + x * 4 + 3] === 0) continue;
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      y1 = y;
    }
  }
  return x1 < 0 ? null : [x0, y0, x1 - x0 + 1, y1 - y0 + 1];
}

/**
 * A layered 2D portrait (catalogue image avatars): base, eyes open/closed, one mouth per mouth
 * shape, and per mood its face (brows, lids, cheeks) and its mouth at rest. Visemes become
 * mouth-shape weights that cross-fade (each mouth layer carries its own skin patch, so no ghost
 * shows); a mood fades in with its weight (its mouth only while the mouth rests); blinks fade the
 * closed eyes in; the head sways and breathes.
 */
export async function createPortraitRenderer(url: string, opts: { showBackdrop: boolean }): Promise<AvatarRenderer> {
  const m = await loadManifest(url);
  const canvas = document.createElement('canvas');
  canvas.className = 'ps-canvas';
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('no 2D canvas');
  let dpr = 1;
  let width = 1;
  let height = 1;
  const targets = new Map<string, number>();
  const shapeWeights = new Map<MouthShape, number>();
  const boxes = new Map<HTMLImageElement, Box | null>();
  /** Draws a layer's opaque part only (in the layer's own coordinates). */
  const layer = (img: HTMLImageElement) => {
    let box = boxes.get(img);
    if (box === undefined) {
      box = opaqueBox(img);
      boxes.set(img, box);
    }
    if (box) ctx.drawImage(img, box[0], box[1], box[2], box[3], box[0], box[1], box[2], box[3]);
  };
  return {
    name: 'portrait',
    canvas,
    targets,
    resize(w, h) {
      width = w;
      height = h;
      dpr = sizeCanvas(canvas, w, h);
    },
    render(face: FaceState) {
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, width, height);
      // The backdrop covers the stage; the portrait fits it (contain, anchored to the bottom).
      if (opts.showBackdrop && m.backdrop) ctx.drawImage(m.backdrop, 0, 0, width, height);
      const scale = Math.min(width / m.size[0], height / m.size[1]);
      const ox = (width - m.size[0] * scale) / 2;
      const oy = height - m.size[1] * scale;
      ctx.translate(ox, oy);
      ctx.scale(scale, scale);
      // The body shifts its weight (a slight lean about the bottom of the picture)…
      const [bw, bh] = m.size;
      ctx.translate(bw / 2, bh);
      ctx.rotate(face.lean * 0.5);
      ctx.translate(-bw / 2, -bh);
      // …head and shoulders sway around the neck, and breathe.
      const [nx, ny] = m.neck;
      ctx.translate(nx + face.headYaw * 60, ny + face.headPitch * 50 + face.breath * 1.2);
      ctx.rotate(face.headRoll * 0.8);
      ctx.translate(-nx, -ny);
      ctx.drawImage(m.base, 0, 0);
      // A mood: its brows, lids and cheeks over the base, as strong as it is shown.
      const mood = face.mood !== 'neutral' && face.moodWeight > 0.02 ? m.moods[face.mood] : undefined;
      const moodAlpha = mood ? Math.min(1, face.moodWeight / 0.7) : 0;
      if (mood) {
        ctx.globalAlpha = moodAlpha;
        layer(mood.face);
        ctx.globalAlpha = 1;
      }
      // Eyes: a little gaze, blinks fade the closed eyes in.
      ctx.save();
      ctx.translate(face.eyeYaw * 18, face.eyePitch * 14);
      layer(m.eyesOpen);
      ctx.restore();
      const blink = Math.max(face.blinkLeft, face.blinkRight);
      if (blink > 0.02) {
        ctx.globalAlpha = Math.min(1, blink * 1.3);
        layer(m.eyesClosed);
        ctx.globalAlpha = 1;
      }
      // Mouth: shapes weighted by the visemes, lightest first.
      shapeWeights.clear();
      for (let k = 0; k < VISEMES.length; k++) {
        const shape = mouthShapeOf[VISEMES[k]!];
        shapeWeights.set(shape, (shapeWeights.get(shape) ?? 0) + face.visemes[k]!);
      }
      layer(m.mouth.rest);
      const order = [...shapeWeights].filter(([s, w]) => s !== 'rest' && w > 0.02).sort((a, b) => a[1] - b[1]);
      for (const [shape, w] of order) {
        ctx.globalAlpha = Math.min(1, w * 1.15);
        layer(m.mouth[shape]);
      }
      // …and its mouth, while the mouth is at rest (speech draws its own shapes).
      const atRest = shapeWeights.get('rest') ?? 0;
      if (mood && atRest > 0.02) {
        ctx.globalAlpha = moodAlpha * Math.min(1, atRest);
        layer(mood.mouth);
      }
      ctx.globalAlpha = 1;
      targets.clear();
      for (const [shape, w] of shapeWeights) if (w > 0.001) targets.set(`mouth_${shape}`, w);
      targets.set('blink', blink);
    },
    dispose() {
      canvas.remove();
    },
  };
}
