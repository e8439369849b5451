// Stills of an avatar page at 640×480 held at rest at each render scale (ADR 089, "Adaptive
// resolution (stop 40)"): full resolution and the floor a slow machine drops to, to look at side
// by side. Not part of `npm run bench`.
//   node bench/look/scale.mjs --out=/tmp/shots [--people=maya] [--kind=upper] [--scales=1,0.72]
/* global document */
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { startFakeLive } from '../../packages/web/e2e/support/fake-live-server.mjs';
const FACE_ARGS = ['--no-sandbox', '--disable-quic', '--no-first-run', '--enable-unsafe-swiftshader', '--use-angle=swiftshader', '--autoplay-policy=no-user-gesture-required'];
const arg = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.split('=')[1] ?? fallback;
const out = arg('out', '/tmp/persona-shots');
const person = arg('people', 'maya');
const kind = arg('kind', 'upper');
const scales = arg('scales', '1,0.72').split(',').map(Number);
fs.mkdirSync(out, { recursive: true });
const server = await startFakeLive({ avatars: { 1: { name: person, dhType: kind === 'full' ? 3 : 2, avatarConfigUrl: `/catalog/avatar-configs/${person}-${kind}.json` } } });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: FACE_ARGS });
try {
  const page = await browser.newPage({ viewport: { width: 640, height: 480 } });
  await page.goto(`${server.url}/avatar/1?hideChatHistory=true&hideChatInput=true`);
  await page.waitForFunction(() => (globalThis.__personaAvatar?.frames ?? 0) > 3);
  for (const scale of scales) {
    const f = await page.evaluate((s) => (globalThis.__personaAvatar.hold({ still: true, viseme: 'sil', blink: 0, renderScale: s }), globalThis.__personaAvatar.frames), scale);
    await page.waitForFunction((n) => globalThis.__personaAvatar.frames > n + 3, f);
    const canvas = await page.evaluate(() => ({ scale: globalThis.__personaAvatar.renderScale, width: document.querySelector('.ps-canvas').width, height: document.querySelector('.ps-canvas').height }));
    const file = path.join(out, `scale-${person}-${kind}-${scale}.png`);
    await page.locator('.ps-stage').screenshot({ path: file });
    console.log(file, JSON.stringify(canvas));
  }
} finally {
  await browser.close();
  await server.close();
}
