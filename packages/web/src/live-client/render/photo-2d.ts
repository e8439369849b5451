import type { FaceState } from './face-driver';
import { loadImage, sizeCanvas, type AvatarRenderer } from './renderer';
import type { PhotoLandmarks } from './stage-config';

type Pt = [number, number];

/**
 * A talking photo (custom image avatars completed from a photo request): the photo, with the
 * mouth region moved from the face landmarks found once when the admin attached it. The lower
 * lip and chin (the region between the lower inner lip and the jaw line) are redrawn lower as
 * the jaw opens, over a dark mouth interior; blinks draw lids in the colour of the skin above
 * each eye. Without landmarks the photo only sways and breathes.
 */
export async function createPhotoRenderer(url: string, landmarks: PhotoLandmarks | null): Promise<AvatarRenderer> {
  const img = await loadImage(url);
  const canvas = document.createElement('canvas');
  canvas.className = 'ps-canvas';
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('no 2D canvas');
  const sx = landmarks ? img.naturalWidth / landmarks.width : 1;
  const sy = landmarks ? img.naturalHeight / landmarks.height : 1;
  const lm = landmarks
    ? {
        mouth: landmarks.mouth.map(([x, y]) => [x * sx, y * sy] as Pt),
        jaw: landmarks.jaw.map(([x, y]) => [x * sx, y * sy] as Pt),
        eyes: [landmarks.leftEye, landmarks.rightEye].map((e) => e.map(([x, y]) => [x * sx, y * sy] as Pt)),
      }
    : null;
  // Skin tone above each eye (for the lids), read once.
  const lidColour: string[] = [];
  if (lm) {
    const probe = document.createElement('canvas');
    probe.width = img.naturalWidth;
    probe.height = img.naturalHeight;
    const pctx = probe.getContext('2d', { willReadFrequently: true });
    for (const eye of lm.eyes) {
      const cx = eye.reduce((s, p) => s + p[0], 0) / eye.length;
      const top = Math.min(...eye.map((p) => p[1]));
      const h = Math.max(...eye.map((p) => p[1])) - top;
      let colour = 'rgb(200,160,140)';
      try {
        pctx?.drawImage(img, 0, 0);
        const d = pctx?.getImageData(Math.round(cx) - 2, Math.max(0, Math.round(top - h * 1.2)), 5, 3).data;
        if (d) {
          let r = 0;
          let g = 0;
          let b = 0;
          for (let i = 0; i < d.length; i += 4) {
            r += d[i]!;
            g += d[i + 1]!;
            b += d[i + 2]!;
          }
          const n = d.length / 4;
          colour = `rgb(${Math.round(r / n)},${Math.round(g / n)},${Math.round(b / n)})`;
        }
      } catch {
        // A cross-origin photo without CORS: keep the default tone.
      }
      lidColour.push(colour);
    }
  }
  let dpr = 1;
  let width = 1;
  let height = 1;
  const targets = new Map<string, number>();
  const path = (pts: Pt[]) => {
    ctx.beginPath();
    pts.forEach(([x, y], i) => (i ? ctx.lineTo(x, y) : ctx.moveTo(x, y)));
    ctx.closePath();
  };
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
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.clearRect(0, 0, width, height);
      // Cover, a little larger than the stage so the sway never shows an edge.
      const scale = Math.max(width / img.naturalWidth, height / img.naturalHeight) * 1.04;
      ctx.translate(width / 2 + face.headYaw * 30, height / 2 + face.breath * 1 + face.headPitch * 20);
      ctx.rotate(face.headRoll * 0.35);
      ctx.scale(scale, scale);
      ctx.translate(-img.naturalWidth / 2, -img.naturalHeight / 2);
      ctx.drawImage(img, 0, 0);
      targets.clear();
      if (!lm) return;
      const mouth = lm.mouth;
      const outerH = Math.max(...mouth.slice(0, 12).map((p) => p[1])) - Math.min(...mouth.slice(0, 12).map((p) => p[1]));
      const open = Math.min(1, face.jaw) * Math.max(4, outerH * 0.95);
      targets.set('jawOpen', face.jaw);
      if (open > 0.5) {
        // The lower region: from the left corner along the lower inner lip to the right corner,
        // then down and around the jaw line.
        const lowerInner: Pt[] = [mouth[12]!, mouth[19]!, mouth[18]!, mouth[17]!, mouth[16]!];
        const jaw = lm.jaw.slice(3, 14);
        const region: Pt[] = [mouth[0]!, ...lowerInner, mouth[6]!, ...[...jaw].reverse()];
        // The dark inside of the mouth.
        const inner = mouth.slice(12, 20);
        const cx = inner.reduce((s, p) => s + p[0], 0) / inner.length;
        const cy = inner.reduce((s, p) => s + p[1], 0) / inner.length;
        const halfW = (Math.abs(mouth[16]![0] - mouth[12]![0]) / 2) * (1 - 0.25 * (face.visemes[13]! + face.visemes[14]!));
        ctx.fillStyle = '#2a0d10';
        ctx.beginPath();
        ctx.ellipse(cx, cy + open / 2, Math.max(2, halfW), open / 2 + 1, 0, 0, Math.PI * 2);
        ctx.fill();
        ctx.save();
        path(region);
        ctx.clip();
        ctx.drawImage(img, 0, open);
        ctx.restore();
      }
      const blink = Math.max(face.blinkLeft, face.blinkRight);
      targets.set('blink', blink);
      if (blink > 0.05) {
        lm.eyes.forEach((eye, i) => {
          const cx = eye.reduce((s, p) => s + p[0], 0) / eye.length;
          const cy = eye.reduce((s, p) => s + p[1], 0) / eye.length;
          const w = (Math.max(...eye.map((p) => p[0])) - Math.min(...eye.map((p) => p[0]))) / 2;
          const h = (Math.max(...eye.map((p) => p[1])) - Math.min(...eye.map((p) => p[1]))) / 2 + 2;
          ctx.globalAlpha = Math.min(1, blink * 1.2);
          ctx.fillStyle = lidColour[i] ?? '#c8a090';
          ctx.beginPath();
          ctx.ellipse(cx, cy, w * 1.15, h * 1.3, 0, 0, Math.PI * 2);
          ctx.fill();
          ctx.strokeStyle = 'rgba(40,25,20,0.7)';
          ctx.lineWidth = Math.max(1, h * 0.25);
          ctx.beginPath();
          ctx.ellipse(cx, cy, w, h * 0.6, 0, 0.15 * Math.PI, 0.85 * Math.PI);
          ctx.stroke();
          ctx.globalAlpha = 1;
        });
      }
    },
    dispose() {
      canvas.remove();
    },
  };
}
