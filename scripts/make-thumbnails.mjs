// The catalogue's 3D thumbnails (packages/server/catalog/thumbs/<person>-{upper,full}.png) in the
// look the page draws (the toon people of ADR 089, built in the browser from their recipes): the
// built avatar page (packages/web/dist, `npm run build` first) is served with the committed
// catalogue by the e2e's fake portal, and Debian's Chromium draws each person at rest, looking at
// the visitor, at twice the card's size; the page scales it down (smooth edges on a software
// rasteriser, which has no antialiasing). make-catalog.mjs runs this after writing the catalogue.
//   node scripts/make-thumbnails.mjs [--people=maya,leo]
/* global document, Image */ // (the scaling runs in the page)
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { root } from './lib.mjs';

const WIDTH = 240;
const HEIGHT = 288;
const ARGS = ['--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--enable-unsafe-swiftshader', '--use-angle=swiftshader', '--autoplay-policy=no-user-gesture-required'];

/**
 * Opens each catalogue avatar (`items`: ids of avatars.json) on the built page, served with the
 * committed catalogue by the e2e's fake portal, and calls `shoot(page, item)` once it draws.
 */
export async function withAvatarPages(items, viewport, shoot) {
  if (!fs.existsSync(path.join(root, 'packages/web/dist/index.html'))) throw new Error('packages/web/dist is missing: run `npm run build` first');
  const { startFakeLive } = await import('../packages/web/e2e/support/fake-live-server.mjs');
  const avatars = Object.fromEntries(items.map((a, i) => [String(i + 1), { name: a.name, dhType: a.dhType, avatarConfigUrl: a.avatarConfigURL }]));
  const server = await startFakeLive({ avatars });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
  try {
    const page = await browser.newPage({ viewport });
    for (const [i, item] of items.entries()) {
      await page.goto(`${server.url}/avatar/${i + 1}?hideChatHistory=true&hideChatInput=true&autoConnect=false`);
      await page.waitForFunction(() => (globalThis.__personaAvatar?.frames ?? 0) > 3 || globalThis.__personaAvatar?.error, null, { timeout: 60_000 });
      const error = await page.evaluate(() => globalThis.__personaAvatar.error);
      if (error) throw new Error(`${item.id}: ${error}`);
      // Only the stage's scene: its backdrop and the avatar (no controls, no caption).
      await page.addStyleTag({ content: 'body * { visibility: hidden !important } .ps-scene, .ps-scene * { visibility: visible !important } .ps-subtitle { display: none !important }' });
      await shoot(page, item);
    }
  } finally {
    await browser.close();
    await server.close();
  }
}

/** Holds the face (the test hook's `hold`) and waits until a few frames show it. */
export async function holdStill(page, hold) {
  await page.evaluate((h) => globalThis.__personaAvatar.hold(h), hold);
  const frames = await page.evaluate(() => globalThis.__personaAvatar.frames);
  await page.waitForFunction((n) => globalThis.__personaAvatar.frames > n + 3, frames);
}

export async function makeThumbnails({ people } = {}) {
  const catalog = path.join(root, 'packages/server/catalog');
  const list = JSON.parse(fs.readFileSync(path.join(catalog, 'avatars.json'), 'utf8'));
  const items = [...list.upperBody, ...list.fullBody].filter((a) => !people || people.includes(a.id.split('-')[0]));
  const written = [];
  await withAvatarPages(items, { width: WIDTH * 2, height: HEIGHT * 2 }, async (page, item) => {
    // At rest, eyes open and on the visitor, a light smile (a full one narrows the eyes: at 240 px they read as sleepy).
    await holdStill(page, { viseme: 'sil', blink: 0, eyeYaw: 0, eyePitch: 0, mood: 'happy', moodStrength: 0.45, still: true });
    const shot = await page.locator('.ps-scene').first().screenshot();
    const png = await page.evaluate(
      async ({ b64, w, h }) => {
        const img = new Image();
        img.src = `data:image/png;base64,${b64}`;
        await img.decode();
        // The card's shape (5:6), from the middle of the stage, scaled down in two halvings.
        const scale = Math.min(img.width / w, img.height / h);
        const sw = w * scale;
        const sh = h * scale;
        let src = document.createElement('canvas');
        src.width = Math.round(sw);
        src.height = Math.round(sh);
        src.getContext('2d').drawImage(img, (img.width - sw) / 2, (img.height - sh) / 2, sw, sh, 0, 0, src.width, src.height);
        while (src.width > w * 1.5) {
          const half = document.createElement('canvas');
          half.width = Math.max(w, Math.round(src.width / 2));
          half.height = Math.max(h, Math.round(src.height / 2));
          const ctx = half.getContext('2d');
          ctx.imageSmoothingQuality = 'high';
          ctx.drawImage(src, 0, 0, half.width, half.height);
          src = half;
        }
        const out = document.createElement('canvas');
        out.width = w;
        out.height = h;
        const ctx = out.getContext('2d');
        ctx.imageSmoothingQuality = 'high';
        ctx.drawImage(src, 0, 0, w, h);
        return out.toDataURL('image/png').split(',')[1];
      },
      { b64: shot.toString('base64'), w: WIDTH, h: HEIGHT },
    );
    const file = path.join(catalog, 'thumbs', `${item.id}.png`);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, Buffer.from(png, 'base64'));
    written.push(file);
  });
  return written;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const people = process.argv.find((a) => a.startsWith('--people='))?.split('=')[1].split(',');
  for (const file of await makeThumbnails({ people })) console.log(path.relative(root, file));
}
