// The catalogue's 2D people (image avatars: the layered portraits render/portrait-2d.ts draws) in
// the look of the 3D ones (ADR 089, decision 3): each person's toon character is drawn by the
// built avatar page in Debian Chromium, held at rest, mid-blink and on one viseme per mouth shape,
// without its backdrop (transparent), at twice the portrait's size and scaled down in the page.
// Where the eyes and the mouth are is found by difference (rest against blink, rest against each
// mouth shape); each overlay is that region of its still, with a soft edge. The base is the rest
// still (eyes open, so the open-eyes layer is empty: the 2D people look at the visitor).
// WebP layers (alpha), a PNG thumbnail over the person's backdrop. make-catalog runs this.
//   node scripts/make-portraits.mjs [--people=maya,leo]
/* global document, Image */ // (the compositing runs in the page)
import fs from 'node:fs';
import path from 'node:path';
import { root } from './lib.mjs';
import { holdStill, withAvatarPages } from './make-thumbnails.mjs';

const W = 400;
const H = 480;
const THUMB = [240, 288];
/** One viseme for each mouth shape of the portrait (render/visemes.ts mouthShapeOf). */
const SHAPES = { rest: 'sil', closed: 'PP', open: 'aa', wide: 'E', round: 'O', teeth: 'SS', narrow: 'DD' };
/** The moods the 2D person shows (face-driver's moods but neutral): brows and eyes above the mouth, and the mouth at rest. */
const MOODS = ['happy', 'sad', 'surprised', 'concerned', 'thinking'];

export async function makePortraits({ people } = {}) {
  const catalog = path.join(root, 'packages/server/catalog');
  const list = JSON.parse(fs.readFileSync(path.join(catalog, 'avatars.json'), 'utf8'));
  const items = list.upperBody.filter((a) => !people || people.includes(a.id.split('-')[0]));
  const written = [];
  await withAvatarPages(items, { width: W * 2, height: H * 2 }, async (page, item) => {
    const person = item.id.split('-')[0];
    // Transparent: no backdrop, no page colour behind the scene.
    await page.addStyleTag({ content: 'html, body { background: transparent !important } .ps-backdrop { display: none !important }' });
    const still = async (hold) => {
      await holdStill(page, { blink: 0, eyeYaw: 0, eyePitch: 0, still: true, ...hold });
      return (await page.locator('.ps-scene').first().screenshot({ omitBackground: true })).toString('base64');
    };
    const shots = { rest: await still({ viseme: 'sil' }), blink: await still({ viseme: 'sil', blink: 1 }) };
    for (const [shape, viseme] of Object.entries(SHAPES)) if (shape !== 'rest') shots[shape] = await still({ viseme });
    for (const mood of MOODS) shots[`mood-${mood}`] = await still({ viseme: 'sil', mood });
    const backdrop = fs.readFileSync(path.join(catalog, 'portraits', person, 'backdrop.svg'), 'utf8');
    const layers = await page.evaluate(
      async ({ shots, w, h, thumb, backdrop, moods }) => {
        const load = async (src) => {
          const img = new Image();
          img.src = src;
          await img.decode();
          return img;
        };
        /** A still scaled to the portrait's size (5:6 from the bottom middle of the stage, as the portrait is anchored). */
        const scaled = async (b64) => {
          const img = await load(`data:image/png;base64,${b64}`);
          const scale = Math.min(img.width / w, img.height / h);
          const c = document.createElement('canvas');
          c.width = Math.round(w * 2);
          c.height = Math.round(h * 2);
          c.getContext('2d').drawImage(img, (img.width - w * scale) / 2, img.height - h * scale, w * scale, h * scale, 0, 0, c.width, c.height);
          const out = document.createElement('canvas');
          out.width = w;
          out.height = h;
          const ctx = out.getContext('2d');
          ctx.imageSmoothingQuality = 'high';
          ctx.drawImage(c, 0, 0, w, h);
          return out;
        };
        const canvases = {};
        for (const [k, b64] of Object.entries(shots)) canvases[k] = await scaled(b64);
        const data = (c) => c.getContext('2d').getImageData(0, 0, w, h).data;
        const rest = data(canvases.rest);
        /** The box where a still differs from the rest one (rows `from` to `below`). */
        const diffBox = (c, box = null, below = h, from = 0) => {
          const d = data(c);
          for (let y = from; y < below; y++)
            for (let x = 0; x < w; x++) {
              const i = (y * w + x) * 4;
              if (Math.abs(d[i] - rest[i]) + Math.abs(d[i + 1] - rest[i + 1]) + Math.abs(d[i + 2] - rest[i + 2]) + Math.abs(d[i + 3] - rest[i + 3]) < 40) continue;
              box = box ? [Math.min(box[0], x), Math.min(box[1], y), Math.max(box[2], x), Math.max(box[3], y)] : [x, y, x, y];
            }
          return box;
        };
        let mouth = null;
        for (const k of ['closed', 'open', 'wide', 'round', 'teeth', 'narrow']) mouth = diffBox(canvases[k], mouth);
        if (!mouth) throw new Error('no mouth found by difference');
        // The eyes: where the blink differs, above the mouth.
        const eyes = diffBox(canvases.blink, null, mouth[1]);
        if (!eyes) throw new Error('no eyes found by difference');
        /** A region of a still with a soft edge (an ellipse around the box, grown by `grow`, feathered). */
        const region = (c, box, grow) => {
          const out = document.createElement('canvas');
          out.width = w;
          out.height = h;
          const ctx = out.getContext('2d');
          const cx = (box[0] + box[2]) / 2;
          const cy = (box[1] + box[3]) / 2;
          const rx = (box[2] - box[0]) / 2 + grow;
          const ry = (box[3] - box[1]) / 2 + grow;
          const g = ctx.createRadialGradient(0, 0, 0.7, 0, 0, 1);
          g.addColorStop(0, 'rgba(0,0,0,1)');
          g.addColorStop(1, 'rgba(0,0,0,0)');
          ctx.save();
          ctx.translate(cx, cy);
          ctx.scale(rx, ry);
          ctx.fillStyle = g;
          ctx.beginPath();
          ctx.arc(0, 0, 1, 0, Math.PI * 2);
          ctx.fill();
          ctx.restore();
          ctx.globalCompositeOperation = 'source-in';
          ctx.drawImage(c, 0, 0);
          return out;
        };
        const webp = (c) => c.toDataURL('image/webp', 0.9).split(',')[1];
        const empty = document.createElement('canvas');
        empty.width = w;
        empty.height = h;
        const result = { base: webp(canvases.rest), eyesOpen: webp(empty), eyesClosed: webp(region(canvases.blink, eyes, 8)), mouth: {}, eyes, mouthBox: mouth };
        for (const k of ['rest', 'closed', 'open', 'wide', 'round', 'teeth', 'narrow']) result.mouth[k] = webp(region(canvases[k], mouth, 10));
        // Each mood: what changed above the mouth (brows, lids, cheeks) and the mouth at rest, apart
        // (the page shows the mood's mouth only while the mouth is at rest; speech draws its own).
        result.moods = {};
        const split = Math.max(0, mouth[1] - 6);
        for (const mood of moods) {
          const c = canvases[`mood-${mood}`];
          const upper = diffBox(c, null, split);
          const lower = diffBox(c, null, h, split);
          result.moods[mood] = { upper: upper ? webp(region(c, upper, 8)) : webp(empty), mouth: lower ? webp(region(c, [Math.min(lower[0], mouth[0]), Math.min(lower[1], mouth[1]), Math.max(lower[2], mouth[2]), Math.max(lower[3], mouth[3])], 10)) : webp(empty) };
        }
        // The card: the backdrop, the person at rest.
        const t = document.createElement('canvas');
        t.width = thumb[0];
        t.height = thumb[1];
        const tctx = t.getContext('2d');
        tctx.imageSmoothingQuality = 'high';
        const bd = await load(`data:image/svg+xml;base64,${btoa(backdrop)}`);
        tctx.drawImage(bd, 0, 0, thumb[0], thumb[1]);
        tctx.drawImage(canvases.rest, 0, 0, thumb[0], thumb[1]);
        result.thumbnail = t.toDataURL('image/png').split(',')[1];
        return result;
      },
      { shots, w: W, h: H, thumb: THUMB, backdrop, moods: MOODS },
    );
    const dir = path.join(catalog, 'portraits', person);
    for (const f of fs.readdirSync(dir)) if (f !== 'backdrop.svg') fs.rmSync(path.join(dir, f));
    const put = (name, b64) => {
      fs.writeFileSync(path.join(dir, name), Buffer.from(b64, 'base64'));
      written.push(path.join(dir, name));
    };
    put('base.webp', layers.base);
    put('eyes-open.webp', layers.eyesOpen);
    put('eyes-closed.webp', layers.eyesClosed);
    for (const [shape, b64] of Object.entries(layers.mouth)) put(`mouth-${shape}.webp`, b64);
    for (const [mood, l] of Object.entries(layers.moods)) {
      put(`mood-${mood}.webp`, l.upper);
      put(`mood-${mood}-mouth.webp`, l.mouth);
    }
    const at = (p) => `/catalog/portraits/${person}/${p}`;
    const [ex0, ey0, ex1, ey1] = layers.eyes;
    const [mx0, my0, mx1, my1] = layers.mouthBox;
    const eyesAt = [Math.round((ex0 + ex1) / 2), Math.round((ey0 + ey1) / 2)];
    const mouthAt = [Math.round((mx0 + mx1) / 2), Math.round((my0 + my1) / 2)];
    fs.writeFileSync(
      path.join(dir, 'portrait.json'),
      `${JSON.stringify(
        {
          size: [W, H],
          backdrop: at('backdrop.svg'),
          base: at('base.webp'),
          eyes: { open: at('eyes-open.webp'), closed: at('eyes-closed.webp') },
          mouth: Object.fromEntries(Object.keys(SHAPES).map((shape) => [shape, at(`mouth-${shape}.webp`)])),
          moods: Object.fromEntries(MOODS.map((mood) => [mood, { face: at(`mood-${mood}.webp`), mouth: at(`mood-${mood}-mouth.webp`) }])),
          // The head turns about the neck, below the chin (as far below the mouth as the eyes are above it, about).
          anchors: { neck: [mouthAt[0], Math.min(H - 1, Math.round(my1 + (mouthAt[1] - eyesAt[1]) * 0.9))], eyes: eyesAt, mouth: mouthAt },
        },
        null,
        2,
      )}\n`,
    );
    fs.writeFileSync(path.join(catalog, 'thumbs', `${person}-image.png`), Buffer.from(layers.thumbnail, 'base64'));
    written.push(path.join(dir, 'portrait.json'));
  });
  return written;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const people = process.argv.find((a) => a.startsWith('--people='))?.split('=')[1].split(',');
  for (const file of await makePortraits({ people })) console.log(path.relative(root, file));
}
