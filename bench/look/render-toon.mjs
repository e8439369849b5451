// The render bench's measurement (bench/live-render.mjs `measure`: fps idle and speaking at
// 640×480 on SwiftShader, Connect → first frame, gzipped JS) for the catalogue's toon people
// only, without the real-portal part. Not part of `npm run bench`.
//   node bench/look/render-toon.mjs [--rounds=3]
import { chromium } from 'playwright-core';
import { startFakeLive } from '../../packages/web/e2e/support/fake-live-server.mjs';
import { measure } from '../live-render.mjs';

const rounds = Number(process.argv.find((a) => a.startsWith('--rounds='))?.split('=')[1] ?? 3);
const ARGS = ['--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking', '--enable-unsafe-swiftshader', '--use-angle=swiftshader', '--autoplay-policy=no-user-gesture-required'];
const server = await startFakeLive({
  avatars: {
    2: { name: 'Maya', dhType: 2, avatarConfigUrl: '/catalog/avatar-configs/maya-upper.json' },
    3: { name: 'Leo', dhType: 3, avatarConfigUrl: '/catalog/avatar-configs/leo-full.json' },
    5: { name: 'Amara', dhType: 2, avatarConfigUrl: '/catalog/avatar-configs/amara-upper.json' },
    6: { name: 'Maya (GLB)', dhType: 2, avatarConfigUrl: '/bench/maya-glb.json' },
    7: { name: 'Leo (GLB)', dhType: 3, avatarConfigUrl: '/bench/leo-glb.json' },
  },
  // The same person as today's GLB (still written by make-catalog), for a side-by-side figure.
  files: {
    '/bench/maya-glb.json': { type: 'application/json', body: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json', Avatar: { modelURL: '/catalog/models/maya-upper.glb' } }) },
    '/bench/leo-glb.json': { type: 'application/json', body: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/leo-full.json', Avatar: { modelURL: '/catalog/models/leo-full.glb' } }) },
  },
});
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
try {
  for (let r = 0; r < rounds; r++)
    for (const [id, kind] of [
      [6, 'upper body (Maya, the GLB of before)'],
      [2, 'upper body (Maya, toon recipe)'],
      [5, 'upper body (Amara, toon recipe)'],
      [7, 'full body (Leo, the GLB of before + plaza)'],
      [3, 'full body (Leo, toon recipe + plaza)'],
    ]) {
      const m = await measure(browser, server, id, kind);
      console.log(JSON.stringify({ round: r, ...m, audioMouthOffsetMs: m.audioMouthOffsetMs }));
    }
} finally {
  await browser.close();
  await server.close();
}
