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
        ctx.drawImage(mood.face, 0, 0);
        ctx.globalAlpha = 1;
      }
      // Eyes: a little gaze, blinks fade the closed eyes in.
      ctx.save();
      ctx.translate(face.eyeYaw * 18, face.eyePitch * 14);
      ctx.drawImage(m.eyesOpen, 0, 0);
      ctx.restore();
      const blink = Math.max(face.blinkLeft, face.blinkRight);
      if (blink > 0.02) {
        ctx.globalAlpha = Math.min(1, blink * 1.3);
        ctx.drawImage(m.eyesClosed, 0, 0);
        ctx.globalAlpha = 1;
      }
      // Mouth: shapes weighted by the visemes, lightest first.
      shapeWeights.clear();
      for (let k = 0; k < VISEMES.length; k++) {
        const shape = mouthShapeOf[VISEMES[k]!];
        shapeWeights.set(shape, (shapeWeights.get(shape) ?? 0) + face.visemes[k]!);
      }
      ctx.drawImage(m.mouth.rest, 0, 0);
      const order = [...shapeWeights].filter(([s, w]) => s !== 'rest' && w > 0.02).sort((a, b) => a[1] - b[1]);
      for (const [shape, w] of order) {
        ctx.globalAlpha = Math.min(1, w * 1.15);
        ctx.drawImage(m.mouth[shape], 0, 0);
      }
      // …and its mouth, while the mouth is at rest (speech draws its own shapes).
      const atRest = shapeWeights.get('rest') ?? 0;
      if (mood && atRest > 0.02) {
        ctx.globalAlpha = moodAlpha * Math.min(1, atRest);
        ctx.drawImage(mood.mouth, 0, 0);
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
