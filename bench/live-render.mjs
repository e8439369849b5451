// npm run bench -- live-render (the lead's `render`): the avatar page's face in headless Debian
// chromium (WebGL on SwiftShader), per kind, against the fake portal + worker of the e2e tests
// (the real protocol, audio paced in real time):
//  - frames per second at 640×480 while idle and while speaking (target ≥ 30), and the CPU time a
//    frame costs while idle per Chromium process (renderer, GPU process = SwiftShader) and on the
//    renderer's main thread (script, tasks): where the time goes, read apart from the machine's load;
//  - time from Connect to the first frame of the avatar (target ≤ 1 s p50 on loopback);
//  - Connect → first frame again over BENCH_CONNECTS fresh pages per kind (p50, max);
//  - the page's gzipped JS per kind (2D ≤ 80 KB, 3D ≤ 250 KB) and the other bytes it fetched
//    (configs, recipe or model, layers, photo, environment);
//  - the catalogue's bytes per avatar (each of the 18 people: config chain, recipe or portrait
//    layers, environment, card picture; read from packages/server/catalog);
//  - offset between the audio heard and the mouth (target within 45 ms early / 125 ms late);
//  - and through the real portal (the built server as `npm start` runs it, PGlite, its embedded
//    worker): Connect → connected (admission, socket, the worker's `ready`) and Connect → the
//    greeting heard (the offline voice's first audible sample at the page), for an upper-body
//    avatar; page open → first frame there too. BENCH_CONNECTS (default 5) connections, each a
//    fresh page. BENCH_KINDS picks some of them (image, photo, upper, full, vrm, portal);
//    BENCH_CHROMIUM_ARGS adds Chromium switches (experiments: --disable-accelerated-2d-canvas…).
// Kinds: a catalogue 2D person (portrait layers), a talking photo (a public-domain portrait from
// Debian's python3-skimage, its landmarks as face-api found them: the unit tests' fixture; the
// photo re-encoded as the crop dialog stores it, JPEG 0.9), catalogue upper and full body (toon
// recipes; full body with the plaza), an uploaded VRM (made by make-personas).
/* global window, document, Image */
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';
import { personaGlb } from '../scripts/make-personas.mjs';
import { startFakeLive } from '../packages/web/e2e/support/fake-live-server.mjs';
import { audioMouthOffsets as offsets, createAvatar, percentile, processTree, root, round, serverMain, startPortal } from './support.mjs';

const CONNECTS = Number(process.env.BENCH_CONNECTS ?? 5);
/** BENCH_KINDS=image,photo,upper,full,vrm,portal (the default: all) measures only these. */
const ONLY = new Set((process.env.BENCH_KINDS ?? 'image,photo,upper,full,vrm,portal').split(','));
const PHOTO = '/usr/lib/python3/dist-packages/skimage/data/astronaut.png';
const PHOTO_LANDMARKS = path.join(root, 'packages/web/src/live-client/render/fixtures/astronaut-landmarks.json');
const CATALOG = path.join(root, 'packages/server/catalog');
/** Marks this benchmark's Chromium among the machine's others (e2e runs of other engineers). */
const MARKER = `--persona-bench-render=${process.pid}`;

/** CPU seconds used so far by this benchmark's Chromium, by process type. */
function chromiumCpu() {
  const out = { renderer: 0, gpu: 0, other: 0 };
  const cmd = (pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      return '';
    }
  };
  const main = fs.readdirSync('/proc').find((d) => /^\d+$/.test(d) && cmd(d).split('\0').includes(MARKER) && !cmd(d).includes('--type='));
  if (!main) return out;
  for (const pid of processTree(Number(main))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const seconds = (Number(fields[11]) + Number(fields[12])) / 100;
      const type = /--type=([a-z-]+)/.exec(cmd(pid))?.[1];
      out[type === 'renderer' ? 'renderer' : type === 'gpu-process' ? 'gpu' : 'other'] += seconds;
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

const ARGS = ['--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking', '--enable-unsafe-swiftshader', '--use-angle=swiftshader', '--autoplay-policy=no-user-gesture-required'];


export async function measure(browser, server, id, kind) {
  const context = await browser.newContext({ viewport: { width: 640, height: 480 } });
  const page = await context.newPage();
  const scripts = [];
  const assets = [];
  page.on('response', (res) => {
    const type = res.request().resourceType();
    if (type === 'script') scripts.push(res);
    else if (!['document', 'stylesheet', 'websocket'].includes(type) && res.status() === 200) assets.push(res);
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
  // The adaptive resolution (ADR 089, stop 40) settles first: its first second and a 2 s window
  // (two more for a second step) — the rate a visitor sees after the first seconds.
  await page.waitForTimeout(6000);
  // Idle: frames per second, and what each frame cost in CPU time (load-independent where fps is
  // not: a frame's cost is what a visitor's machine must have spare) — per Chromium process type
  // (the page's renderer: JS and command recording; the GPU process: SwiftShader drawing and
  // compositing) and, inside the renderer, its main thread's script/layout/style time.
  const cdp = await context.newCDPSession(page);
  await cdp.send('Performance.enable');
  const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
  const cpu0 = chromiumCpu();
  const m0 = await metrics();
  const { idle, idleScale } = await page.evaluate(async () => {
    const start = window.__personaAvatar.frames;
    const scale0 = window.__personaAvatar.renderScale ?? null;
    await new Promise((r) => setTimeout(r, 3000));
    return { idle: window.__personaAvatar.frames - start, idleScale: [scale0, window.__personaAvatar.renderScale ?? null] };
  });
  const cpu1 = chromiumCpu();
  const m1 = await metrics();
  const idleFps = idle / 3;
  const perFrame = (s) => round((s * 1000) / Math.max(1, idle), 1);
  const idleCpuMsPerFrame = {
    renderer: perFrame(cpu1.renderer - cpu0.renderer),
    gpu: perFrame(cpu1.gpu - cpu0.gpu),
    browserAndOther: perFrame(cpu1.other - cpu0.other),
    mainThreadScript: perFrame(m1.ScriptDuration - m0.ScriptDuration),
    mainThreadTasks: perFrame(m1.TaskDuration - m0.TaskDuration),
    mainThreadLayoutAndStyle: perFrame(m1.LayoutDuration - m0.LayoutDuration + m1.RecalcStyleDuration - m0.RecalcStyleDuration),
  };
  await cdp.detach();
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
  // What else the page fetched for this avatar (API answers excluded: they are the same for every kind).
  const fetched = [];
  for (const res of assets) {
    const url = new URL(res.url()).pathname;
    if (url.startsWith('/api/')) continue;
    fetched.push({ url, bytes: await res.body().then((b) => b.length, () => 0) });
  }
  await context.close();
  const connects = await connectRounds(browser, server, id);
  return {
    kind,
    renderer: probe.renderer,
    route: probe.route,
    idleFps: round(idleFps, 1),
    speakingFps: round(speakingFps, 1),
    idleCpuMsPerFrame,
    // The adaptive resolution (ADR 089, stop 40): the renderer's scale at the start and end of the idle
    // measurement and after speaking (null: a build without it).
    renderScale: { idle: idleScale, afterSpeaking: probe.renderScale ?? null },
    pageOpenToFirstFrameMs: round(firstFrameMs, 0),
    connectToFirstFrameMs: round(afterConnectMs, 0),
    connectToFirstFrameRoundsMs: connects,
    jsGzipKB: round(gzip / 1024, 1),
    scripts: scripts.length,
    assetsKB: round(fetched.reduce((a, f) => a + f.bytes, 0) / 1024, 1),
    assets: fetched.map((f) => `${f.url} ${round(f.bytes / 1024, 1)} KB`),
    audioMouthOffsetMs: diffs.length ? { n: diffs.length, min: round(Math.min(...diffs), 0), max: round(Math.max(...diffs), 0), mean: round(diffs.reduce((a, b) => a + b, 0) / diffs.length, 0) } : null,
  };
}

/** Connect → first frame (and page open → first frame) on `CONNECTS` fresh pages: p50 and max. */
async function connectRounds(browser, server, id) {
  const rows = [];
  for (let i = 0; i < CONNECTS; i++) {
    const context = await browser.newContext({ viewport: { width: 640, height: 480 } });
    const page = await context.newPage();
    await page.goto(`${server.url}/avatar/${id}?autoConnect=false&hideChatHistory=true`);
    const t0 = await page.evaluate(() => performance.now());
    await page.getByRole('button', { name: 'Connect' }).click();
    await page.waitForFunction(() => window.__personaAvatar?.firstFrameAt != null || window.__personaAvatar?.renderer === 'dom', null, { timeout: 30_000, polling: 5 });
    // Where the time to the first frame went: the last script or asset the avatar needed arrived
    // at `loaded` (page clock); from there to the first frame the page built the scene, compiled
    // its shaders and drew.
    const { first, loaded } = await page.evaluate(() => {
      const at = window.__personaAvatar.firstFrameAt;
      const ends = performance
        .getEntriesByType('resource')
        .filter((e) => e.responseEnd <= at && !new URL(e.name).pathname.startsWith('/api/'))
        .map((e) => e.responseEnd);
      return { first: at, loaded: Math.max(0, ...ends) };
    });
    rows.push({ connect: Math.max(0, first - t0), open: first, loaded, afterLoaded: first - loaded });
    await context.close();
  }
  const s = (k) => ({ p50: round(percentile(rows.map((r) => r[k]), 50), 0), max: round(Math.max(...rows.map((r) => r[k])), 0) });
  return { n: rows.length, connect: s('connect'), pageOpen: s('open'), pageOpenToLastFileLoaded: s('loaded'), lastFileLoadedToFirstFrame: s('afterLoaded') };
}

/**
 * The catalogue's bytes per avatar, from the files the server serves under /catalog: the config
 * chain, what the renderer loads (a toon recipe; a portrait's manifest and layers; a full body's
 * environment) and the card picture (the connect screen's picture on the real portal).
 */
export function catalogueBytes(dir = CATALOG) {
  const size = (url) => {
    const file = path.join(dir, url.replace(/^\/catalog\//, ''));
    return fs.existsSync(file) ? fs.statSync(file).size : 0;
  };
  const read = (url) => JSON.parse(fs.readFileSync(path.join(dir, url.replace(/^\/catalog\//, '')), 'utf8'));
  const urlsIn = (value) => (typeof value === 'string' ? (value.startsWith('/catalog/') ? [value] : []) : value && typeof value === 'object' ? Object.values(value).flatMap(urlsIn) : []);
  const list = read('/catalog/avatars.json');
  const rows = [];
  for (const [kind, avatars] of Object.entries(list)) {
    for (const a of avatars) {
      const configs = [];
      const renders = new Set();
      for (let url = a.avatarConfigURL; url && configs.length < 8; ) {
        const doc = read(url);
        configs.push(url);
        for (const u of urlsIn({ ...doc, ParentConfig: undefined })) renders.add(u);
        url = doc.ParentConfig;
      }
      for (const u of [...renders]) if (u.endsWith('.json')) for (const v of urlsIn(read(u))) renders.add(v);
      const renderBytes = [...renders].reduce((n, u) => n + size(u), 0);
      const configBytes = configs.reduce((n, u) => n + size(u), 0);
      const pictureBytes = size(a.thumbnail);
      rows.push({ id: a.id, kind, pageBytes: configBytes + renderBytes, configBytes, renderBytes, files: renders.size, pictureBytes });
    }
  }
  const range = (values, scale = 1) => ({ min: round(Math.min(...values) / scale, 1), max: round(Math.max(...values) / scale, 1) });
  const byKind = {};
  for (const kind of new Set(rows.map((r) => r.kind))) {
    const of = rows.filter((r) => r.kind === kind);
    byKind[kind] = { n: of.length, pageKB: range(of.map((r) => r.pageBytes), 1024), pictureKB: range(of.map((r) => r.pictureBytes), 1024) };
  }
  return { byKind, perAvatar: rows };
}

/** The talking photo's config: the portrait re-encoded as the crop dialog stores a photo (JPEG at 0.9), with its landmarks. */
async function photoFiles(browser, server, files) {
  if (!fs.existsSync(PHOTO)) return null;
  files['/bench/photo.png'] = { type: 'image/png', body: fs.readFileSync(PHOTO) };
  files['/bench/blank.html'] = { type: 'text/html', body: '<!doctype html><html><body></body></html>' };
  const page = await browser.newPage();
  await page.goto(`${server.url}/bench/blank.html`);
  const dataUrl = await page.evaluate(async () => {
    const img = new Image();
    img.src = '/bench/photo.png';
    await img.decode();
    const c = document.createElement('canvas');
    c.width = img.width;
    c.height = img.height;
    c.getContext('2d').drawImage(img, 0, 0);
    return c.toDataURL('image/jpeg', 0.9);
  });
  await page.close();
  const landmarks = JSON.parse(fs.readFileSync(PHOTO_LANDMARKS, 'utf8'));
  files['/bench/photo.jpg'] = { type: 'image/jpeg', body: Buffer.from(dataUrl.slice(dataUrl.indexOf(',') + 1), 'base64') };
  files['/bench/photo.json'] = { type: 'application/json', body: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/base-image.json', Avatar: { image: '/bench/photo.jpg', landmarks } }) };
  return true;
}

/** Connect on the real portal and its embedded worker: Connect → connected, → greeting heard. */
async function measureRealPortal(browser) {
  const portal = await startPortal(serverMain, {});
  try {
    const id = await createAvatar(portal, { name: 'Bench Maya', nlpEngine: 0, wakeUpMessage: 'Hello, I am here.' });
    const rows = [];
    /** Rounds that did not get there in time (a loaded machine): which step, and how far they got. */
    const failed = [];
    for (let i = 0; i < CONNECTS; i++) {
      const context = await browser.newContext({ viewport: { width: 640, height: 480 } });
      const page = await context.newPage();
      let step = 'first frame';
      try {
        await page.goto(`${portal.base}/avatar/${id}?autoConnect=false&hideChatHistory=true`);
        await page.waitForFunction(() => window.__personaAvatar?.firstFrameAt != null || window.__personaAvatar?.renderer === 'dom', null, { timeout: 30_000 });
        const openToFirstFrame = await page.evaluate(() => window.__personaAvatar.firstFrameAt);
        await page.waitForTimeout(300);
        const t0 = await page.evaluate(() => performance.now());
        await page.getByRole('button', { name: 'Connect' }).click();
        step = 'connected';
        const connected = await page.waitForFunction(
          () => (document.querySelector('.ps-avatar')?.getAttribute('data-connection') === 'connected' ? performance.now() : null),
          null,
          { timeout: 15_000, polling: 5 },
        );
        step = 'greeting heard';
        const heard = await page.waitForFunction(() => (window.__personaAvatar?.audio ? performance.now() : null), null, { timeout: 15_000, polling: 5 });
        rows.push({ openToFirstFrame, connected: (await connected.jsonValue()) - t0, greetingHeard: (await heard.jsonValue()) - t0 });
      } catch (err) {
        const connection = await page.evaluate(() => document.querySelector('.ps-avatar')?.getAttribute('data-connection') ?? null).catch(() => null);
        failed.push({ step, connection, error: String(err instanceof Error ? err.message : err).split('\n')[0] });
      }
      await context.close();
    }
    const s = (k) => (rows.length ? { p50: round(percentile(rows.map((r) => r[k]), 50), 0), max: round(Math.max(...rows.map((r) => r[k])), 0) } : null);
    return { avatar: 'upper body (catalogue toon recipe), echo brain, offline voice', n: rows.length, failed, pageOpenToFirstFrameMs: s('openToFirstFrame'), connectToConnectedMs: s('connected'), connectToGreetingHeardMs: s('greetingHeard') };
  } finally {
    await portal.stop();
  }
}

export async function run() {
  const person = { id: 'bench', skin: '#e0ac69', hair: '#4a2f1b', shirt: '#0e7490', bg: '#e0f2fe', hairStyle: 'short', build: 'm' };
  const vrm = await personaGlb(person, { fullBody: false, vrm: true, rename: { viseme_aa: 'aa', viseme_I: 'ih', viseme_U: 'ou', viseme_E: 'ee', viseme_O: 'oh', eyeBlinkLeft: 'blinkLeft', eyeBlinkRight: 'blinkRight' } });
  const json = (body) => ({ type: 'application/json', body: JSON.stringify(body) });
  const files = {
    '/bench/persona.vrm': { type: 'model/gltf-binary', body: vrm.bytes },
    '/bench/vrm.json': json({ ParentConfig: '/catalog/avatar-configs/base-upper-body.json', Avatar: { modelURL: '/bench/persona.vrm', format: 'vrm' } }),
  };
  const server = await startFakeLive({
    avatars: {
      1: { name: 'Maya (photo)', dhType: 1, avatarConfigUrl: '/catalog/avatar-configs/maya-image.json' },
      2: { name: 'Maya', dhType: 2, avatarConfigUrl: '/catalog/avatar-configs/maya-upper.json' },
      3: { name: 'Leo', dhType: 3, avatarConfigUrl: '/catalog/avatar-configs/leo-full.json' },
      4: { name: 'VRM', dhType: 2, avatarConfigUrl: '/bench/vrm.json' },
      5: { name: 'Eileen (talking photo)', dhType: 1, avatarConfigUrl: '/bench/photo.json' },
    },
    files,
  });
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: [...ARGS, MARKER, ...(process.env.BENCH_CHROMIUM_ARGS ?? '').split(' ').filter(Boolean)] });
  try {
    const hasPhoto = await photoFiles(browser, server, files);
    const kinds = [];
    for (const [id, kind] of [
      [1, 'image (2D portrait, toon layers)', 'image'],
      ...(hasPhoto ? [[5, 'talking photo (photo-2d: a face photo and its landmarks)', 'photo']] : []),
      [2, 'upper body (catalogue toon recipe)', 'upper'],
      [3, 'full body (catalogue toon recipe + plaza)', 'full'],
      [4, 'upper body (VRM)', 'vrm'],
    ].filter((k) => ONLY.has(k[2]))) {
      kinds.push(await measure(browser, server, id, kind));
      // Printed as they come: a later failure (the real portal on a loaded machine) keeps them.
      console.log(JSON.stringify(kinds.at(-1)));
    }
    const realPortal = ONLY.has('portal') ? await measureRealPortal(browser) : null;
    return {
      viewport: '640×480, headless Debian chromium, SwiftShader WebGL',
      kinds,
      ...(hasPhoto ? {} : { missing: `talking photo: ${PHOTO} not found (apt-get install python3-skimage)` }),
      catalogue: catalogueBytes(),
      realPortal,
      targets: { fps: '≥ 30', connectToFirstFrameMs: '≤ 1000 p50', jsGzipKB: '2D ≤ 80, 3D ≤ 250', audioMouthOffsetMs: '−45 … +125 (mouth early … late)' },
    };
  } finally {
    await browser.close();
    await server.close();
  }
}
