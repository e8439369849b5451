// npm run bench -- live-render (the lead's `render`): the avatar page's face in headless Debian
// chromium (WebGL on SwiftShader), per kind, against the fake portal + worker of the e2e tests
// (the real protocol, audio paced in real time):
//  - frames per second at 640×480 while idle and while speaking (target ≥ 30 for the defaults);
//  - time from Connect to the first frame of the avatar (target ≤ 1.5 s on loopback);
//  - the page's gzipped JS per kind (2D ≤ 80 KB, 3D ≤ 250 KB);
//  - offset between the audio heard and the mouth (target within 45 ms early / 125 ms late);
//  - and through the real portal (the built server as `npm start` runs it, PGlite, its embedded
//    worker): Connect → connected (admission, socket, the worker's `ready`) and Connect → the
//    greeting heard (the offline voice's first audible sample at the page), for an upper-body
//    avatar; page open → first frame there too. BENCH_CONNECTS (default 5) connections, each a
//    fresh page.
/* global window, document */
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';
import { personaGlb } from '../scripts/make-personas.mjs';
import { startFakeLive } from '../packages/web/e2e/support/fake-live-server.mjs';
import { audioMouthOffsets as offsets, createAvatar, percentile, round, serverMain, startPortal } from './support.mjs';

const ARGS = ['--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking', '--enable-unsafe-swiftshader', '--use-angle=swiftshader', '--autoplay-policy=no-user-gesture-required'];


export async function measure(browser, server, id, kind) {
  const context = await browser.newContext({ viewport: { width: 640, height: 480 } });
  const page = await context.newPage();
  const scripts = [];
  page.on('response', (res) => {
    if (res.request().resourceType() === 'script') scripts.push(res);
  });
  await page.goto(`${server.url}/avatar/${id}?autoConnect=false&hideChatHistory=true`);
  // Connect → first frame of the avatar.
  const t0 = await page.evaluate(() => performance.now());
  await page.getByRole('button', { name: 'Connect' }).click();
  await page.waitForFunction(() => window.__personaAvatar?.firstFrameAt != null || window.__personaAvatar?.renderer === 'dom', null, { timeout: 30_000 });
  const probe0 = await page.evaluate(() => window.__personaAvatar);
  // The stage loads with the page (before Connect): from opening the page, and from the click.
  const firstFrameMs = probe0.firstFrameAt;
  const afterConnectMs = Math.max(0, probe0.firstFrameAt - t0);
  await page.waitForFunction(() => document.querySelector('.ps-avatar')?.getAttribute('data-connection') === 'connected', null, { timeout: 10_000 });
  await page.waitForTimeout(2500);
  const idleFps = await page.evaluate(async () => {
    const start = window.__personaAvatar.frames;
    await new Promise((r) => setTimeout(r, 3000));
    return (window.__personaAvatar.frames - start) / 3;
  });
  // Speak (through the page's own send path) and measure fps and the audio/mouth offset.
  await page.evaluate(() => window.__personaAvatar.probe?.());
  const before = server.playback.length;
  const speakingFps = await page.evaluate(async () => {
    const input = document.querySelector('#ps-message');
    const form = input?.closest('form');
    if (input && form) {
      input.value = 'bench';
      form.requestSubmit();
    }
    await new Promise((r) => setTimeout(r, 400));
    const start = window.__personaAvatar.frames;
    await new Promise((r) => setTimeout(r, 1600));
    return (window.__personaAvatar.frames - start) / 1.6;
  });
  const deadline = Date.now() + 15_000;
  while (!server.playback.slice(before).some((p) => p.state === 'ended') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const probe = await page.evaluate(() => window.__personaAvatar);
  const diffs = offsets(probe.history, probe.levels);
  let gzip = 0;
  for (const res of scripts) gzip += zlib.gzipSync(await res.body(), { level: 9 }).length;
  await context.close();
  return {
    kind,
    renderer: probe.renderer,
    route: probe.route,
    idleFps: round(idleFps, 1),
    speakingFps: round(speakingFps, 1),
    pageOpenToFirstFrameMs: round(firstFrameMs, 0),
    connectToFirstFrameMs: round(afterConnectMs, 0),
    jsGzipKB: round(gzip / 1024, 1),
    scripts: scripts.length,
    audioMouthOffsetMs: diffs.length ? { n: diffs.length, min: round(Math.min(...diffs), 0), max: round(Math.max(...diffs), 0), mean: round(diffs.reduce((a, b) => a + b, 0) / diffs.length, 0) } : null,
  };
}

/** Connect on the real portal and its embedded worker: Connect → connected, → greeting heard. */
async function measureRealPortal(browser) {
  const portal = await startPortal(serverMain, {});
  try {
    const id = await createAvatar(portal, { name: 'Bench Maya', nlpEngine: 0, wakeUpMessage: 'Hello, I am here.' });
    const rows = [];
    for (let i = 0; i < Number(process.env.BENCH_CONNECTS ?? 5); i++) {
      const context = await browser.newContext({ viewport: { width: 640, height: 480 } });
      const page = await context.newPage();
      await page.goto(`${portal.base}/avatar/${id}?autoConnect=false&hideChatHistory=true`);
      await page.waitForFunction(() => window.__personaAvatar?.firstFrameAt != null || window.__personaAvatar?.renderer === 'dom', null, { timeout: 30_000 });
      const openToFirstFrame = await page.evaluate(() => window.__personaAvatar.firstFrameAt);
      await page.waitForTimeout(300);
      const t0 = await page.evaluate(() => performance.now());
      await page.getByRole('button', { name: 'Connect' }).click();
      const connected = await page.waitForFunction(
        () => (document.querySelector('.ps-avatar')?.getAttribute('data-connection') === 'connected' ? performance.now() : null),
        null,
        { timeout: 15_000, polling: 5 },
      );
      const heard = await page.waitForFunction(() => (window.__personaAvatar?.audio ? performance.now() : null), null, { timeout: 15_000, polling: 5 });
      rows.push({ openToFirstFrame, connected: (await connected.jsonValue()) - t0, greetingHeard: (await heard.jsonValue()) - t0 });
      await context.close();
    }
    const s = (k) => ({ p50: round(percentile(rows.map((r) => r[k]), 50), 0), max: round(Math.max(...rows.map((r) => r[k])), 0) });
    return { avatar: 'upper body (catalogue GLB), echo brain, offline voice', n: rows.length, pageOpenToFirstFrameMs: s('openToFirstFrame'), connectToConnectedMs: s('connected'), connectToGreetingHeardMs: s('greetingHeard') };
  } finally {
    await portal.stop();
  }
}

export async function run() {
  const person = { id: 'bench', skin: '#e0ac69', hair: '#4a2f1b', shirt: '#0e7490', bg: '#e0f2fe', hairStyle: 'short', build: 'm' };
  const vrm = await personaGlb(person, { fullBody: false, vrm: true, rename: { viseme_aa: 'aa', viseme_I: 'ih', viseme_U: 'ou', viseme_E: 'ee', viseme_O: 'oh', eyeBlinkLeft: 'blinkLeft', eyeBlinkRight: 'blinkRight' } });
  const json = (body) => ({ type: 'application/json', body: JSON.stringify(body) });
  const server = await startFakeLive({
    avatars: {
      1: { name: 'Maya (photo)', dhType: 1, avatarConfigUrl: '/catalog/avatar-configs/maya-image.json' },
      2: { name: 'Maya', dhType: 2, avatarConfigUrl: '/catalog/avatar-configs/maya-upper.json' },
      3: { name: 'Leo', dhType: 3, avatarConfigUrl: '/catalog/avatar-configs/leo-full.json' },
      4: { name: 'VRM', dhType: 2, avatarConfigUrl: '/bench/vrm.json' },
    },
    files: {
      '/bench/persona.vrm': { type: 'model/gltf-binary', body: vrm.bytes },
      '/bench/vrm.json': json({ ParentConfig: '/catalog/avatar-configs/base-upper-body.json', Avatar: { modelURL: '/bench/persona.vrm', format: 'vrm' } }),
    },
  });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
  try {
    const kinds = [];
    for (const [id, kind] of [
      [1, 'image (2D portrait, toon layers)'],
      [2, 'upper body (catalogue toon recipe)'],
      [3, 'full body (catalogue toon recipe + plaza)'],
      [4, 'upper body (VRM)'],
    ]) {
      kinds.push(await measure(browser, server, id, kind));
    }
    const realPortal = await measureRealPortal(browser);
    return {
      viewport: '640×480, headless Debian chromium, SwiftShader WebGL',
      kinds,
      realPortal,
      targets: { fps: '≥ 30 (defaults)', connectToFirstFrameMs: '≤ 1500', jsGzipKB: '2D ≤ 80, 3D ≤ 250', audioMouthOffsetMs: '−45 … +125 (mouth early … late)' },
    };
  } finally {
    await browser.close();
    await server.close();
  }
}
