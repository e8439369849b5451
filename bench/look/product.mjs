// Screenshots of the PRODUCT's avatar page (the built app in packages/web/dist, served with the
// committed catalogue by the e2e's fake portal and worker), drawn by Debian Chromium on
// SwiftShader: the catalogue avatars at 1280×720 and 390×844, at rest and, when the page has the
// test hook's `hold`, on "aa" and mid-blink. Not part of `npm run bench`.
//   node bench/look/product.mjs --out=/tmp/shots [--people=maya,leo,amara] [--kinds=upper,full] [--tag=after]
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startFakeLive } from '../../packages/web/e2e/support/fake-live-server.mjs';
// The e2e's flags (packages/web/e2e/support/avatar-face.ts): WebGL on SwiftShader.
const FACE_ARGS = ['--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--enable-unsafe-swiftshader', '--use-angle=swiftshader', '--autoplay-policy=no-user-gesture-required'];

const arg = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const out = arg('out', '/tmp/persona-shots');
const people = arg('people', 'maya,leo,amara').split(',');
const kinds = arg('kinds', 'upper,full').split(',');
const tag = arg('tag', 'after');
const sizes = arg('sizes', '1280x720,390x844').split(',').map((s) => s.split('x').map(Number));
fs.mkdirSync(out, { recursive: true });

const avatars = {};
const list = [];
let id = 10;
for (const p of people)
  for (const kind of kinds) {
    avatars[id] = { name: p, dhType: kind === 'full' ? 3 : 2, avatarConfigUrl: `/catalog/avatar-configs/${p}-${kind}.json` };
    list.push({ id, name: `${p}-${kind}` });
    id++;
  }
const server = await startFakeLive({ avatars });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: FACE_ARGS });
try {
  for (const [w, h] of sizes) {
    const page = await browser.newPage({ viewport: { width: w, height: h } });
    for (const item of list) {
      await page.goto(`${server.url}/avatar/${item.id}?hideChatHistory=true`);
      await page.waitForFunction(() => (globalThis.__personaAvatar?.frames ?? 0) > 3 || globalThis.__personaAvatar?.error, null, { timeout: 30_000 });
      const probe = await page.evaluate(() => ({ error: globalThis.__personaAvatar.error, renderer: globalThis.__personaAvatar.renderer, hold: typeof globalThis.__personaAvatar.hold }));
      if (probe.error) console.error(item.name, probe.error);
      const shot = async (suffix, hold) => {
        if (hold && probe.hold === 'function') {
          await page.evaluate((hd) => globalThis.__personaAvatar.hold(hd), hold);
          const f = await page.evaluate(() => globalThis.__personaAvatar.frames);
          await page.waitForFunction((n) => globalThis.__personaAvatar.frames > n + 2, f);
        } else if (hold && suffix !== 'rest') return;
        const file = path.join(out, `${tag}-${item.name}-${suffix}-${w}.png`);
        await page.screenshot({ path: file });
        console.log(file);
      };
      await shot('rest', { blink: 0, viseme: 'sil' });
      await shot('aa', { viseme: 'aa', blink: 0 });
      if (w > 800) {
        await shot('blink', { viseme: 'sil', blink: 0.5 });
        await shot('happy', { viseme: 'E', mood: 'happy', blink: 0 });
      }
    }
    await page.close();
  }
} finally {
  await browser.close();
  await server.close();
}
