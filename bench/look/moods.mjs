// Stills of the product's avatar page held at rest in each mood (1280×720), face crops side by
// side: for judging how moods read. Not part of `npm run bench`.
//   node bench/look/moods.mjs --out=/tmp/shots [--people=maya] [--kind=upper]
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startFakeLive } from '../../packages/web/e2e/support/fake-live-server.mjs';
const FACE_ARGS = ['--no-sandbox', '--disable-quic', '--no-first-run', '--enable-unsafe-swiftshader', '--use-angle=swiftshader', '--autoplay-policy=no-user-gesture-required'];
const arg = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const out = arg('out', '/tmp/persona-shots');
const person = arg('people', 'maya');
const kind = arg('kind', 'upper');
fs.mkdirSync(out, { recursive: true });
const dhType = kind === 'full' ? 3 : kind === 'image' ? 1 : 2;
const server = await startFakeLive({ avatars: { 1: { name: person, dhType, avatarConfigUrl: `/catalog/avatar-configs/${person}-${kind}.json` } } });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: FACE_ARGS });
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 720 } });
  await page.goto(`${server.url}/avatar/1`);
  await page.waitForFunction(() => (globalThis.__personaAvatar?.frames ?? 0) > 3);
  for (const mood of ['neutral', 'happy', 'sad', 'surprised', 'concerned', 'thinking']) {
    const f = await page.evaluate((m) => (globalThis.__personaAvatar.hold({ still: true, viseme: 'sil', blink: 0, mood: m }), globalThis.__personaAvatar.frames), mood);
    await page.waitForFunction((n) => globalThis.__personaAvatar.frames > n + 3, f);
    const file = path.join(out, `mood-${person}-${kind}-${mood}.png`);
    await page.screenshot({ path: file, clip: { x: 490, y: 150, width: 300, height: 260 } });
    console.log(file);
  }
} finally {
  await browser.close();
  await server.close();
}
