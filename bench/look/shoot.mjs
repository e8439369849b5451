// Renders the look harness with Debian chromium on SwiftShader (the e2e's flags), one browser,
// one page at a time: side-by-side PNG sheets to docs/decisions/img/ (single shots to the temporary
// folder) and, with --bench, ms/frame over 120 frames.
// node bench/look/shoot.mjs [--only=toon] [--quick [--size=1280x720]] [--persona=maya] [--portrait] [--q=&toon-options] [--tag=name]
// node bench/look/shoot.mjs --bench [--rounds=3] [--variants='today|,toon|&mat=lite,...']
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startServer } from './serve.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
// Single shots go to a temporary folder; the side-by-side sheets (what the ADR shows) to docs.
const out = path.join(os.tmpdir(), 'persona-look');
const sheets = path.resolve(here, '../../docs/decisions/img');
fs.mkdirSync(out, { recursive: true });
fs.mkdirSync(sheets, { recursive: true });
const arg = (name) => {
  const a = process.argv.find((x) => x === `--${name}` || x.startsWith(`--${name}=`));
  return a === undefined ? null : a.includes('=') ? a.slice(a.indexOf('=') + 1) : true;
};
const only = arg('only');
const persona = arg('persona') ?? 'maya';
const FACE_ARGS = ['--no-sandbox', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--enable-unsafe-swiftshader', '--use-angle=swiftshader'];

const server = await startServer();
const base = `http://127.0.0.1:${server.address().port}/index.html`;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: FACE_ARGS });
const results = {};
try {
  for (const look of arg('bench') ? [] : ['today', 'toon', ...(arg('portrait') ? ['portrait'] : [])]) {
    if (only && only !== look) continue;
    const [qw, qh] = (arg('size') || '640x480').split('x').map(Number);
    const shots = arg('quick') ? [[`${qw}x${qh}-aa`, qw, qh, 1]] : [
      ['640x480', 640, 480, 0],
      ['640x480-blink', 640, 480, 0, 1],
      ['640x480-aa', 640, 480, 1],
      ['240', 240, 240, 0],
      ['240-aa', 240, 240, 1],
      ['240-card', 240, 240, 0, 0, '&frame=card'],
      ['240-card-aa', 240, 240, 1, 0, '&frame=card'],
    ];
    for (const [name, w, h, mouth, blink = 0, frame = ''] of shots) {
      const page = await browser.newPage({ viewport: { width: w, height: h } });
      page.on('pageerror', (e) => console.error(look, name, e.message));
      page.on('console', (m) => {
        if (m.type() === 'error' || m.type() === 'warning') console.error(look, name, m.type(), m.text().slice(0, 400));
      });
      await page.goto(`${base}?look=${look}&w=${w}&h=${h}&mouth=${mouth}&blink=${blink}${frame}&aa=1&persona=${persona}${look === 'toon' ? (arg('q') || '') : ''}`);
      await page.waitForFunction(() => globalThis.__look?.ready || globalThis.__look?.error, null, { timeout: 60_000 });
      const state = await page.evaluate(() => globalThis.__look);
      if (state.error) throw new Error(state.error);
      const file = path.join(out, `look-${persona}-${look}${look === 'toon' && arg('tag') ? `-${arg('tag')}` : ''}-${name}.png`);
      await page.locator('#stage').screenshot({ path: file });
      results[`${look}-${name}`] = { bytes: state.bytes, extra: state.extra, png: file };
      await page.close();
    }
  }
  // Frame times: each variant's page in turn, for --rounds rounds (interleaved, so a busy
  // machine weighs on all of them alike); the median of the rounds' medians is reported, as the
  // interval between animation frames (capped at 60 Hz) and as the time to draw one frame and
  // read a pixel back (what a frame costs, below the cap too).
  if (arg('bench')) {
    const variants = (arg('variants') || 'today|toon').split(',');
    const rounds = Number(arg('rounds') || 1);
    const runs = {};
    for (let r = 0; r < rounds; r++) for (const v of variants) {
      const [look, ...rest] = v.split('|');
      const extra = rest.join('|');
      const page = await browser.newPage({ viewport: { width: 640, height: 480 } });
      await page.goto(`${base}?look=${look}&w=640&h=480&aa=0&bench=120&persona=${persona}${extra}`);
      await page.waitForFunction(() => globalThis.__look?.ready || globalThis.__look?.error, null, { timeout: 120_000 });
      const state = await page.evaluate(() => globalThis.__look);
      if (state.error) throw new Error(state.error);
      (runs[v] ??= []).push({ interval: state.bench.intervalMsMedian, render: state.bench.renderMsMedian, triangles: state.bench.triangles, drawCalls: state.bench.drawCalls, bytes: state.bytes, extra: state.extra });
      await page.close();
    }
    const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
    for (const [v, list] of Object.entries(runs)) {
      results[`bench ${v}`] = { msPerFrame: med(list.map((x) => x.interval)), rounds: list.map((x) => Math.round(x.interval * 10) / 10), renderMs: med(list.map((x) => x.render)), renderRounds: list.map((x) => Math.round(x.render * 10) / 10), drawCalls: list[0].drawCalls, trianglesDrawn: list[0].triangles, bytes: list[0].bytes, ...list[0].extra };
    }
  }
  // Side-by-side sheets for the ADR: today and the candidate, at rest and on "aa".
  if (!arg('bench') && !only && !arg('quick')) {
    const img = (name) => `data:image/png;base64,${fs.readFileSync(path.join(out, `look-${persona}-${name}.png`)).toString('base64')}`;
    const cell = (name, label) => `<figure><img src="${img(name)}"><figcaption>${label}</figcaption></figure>`;
    const sheet = async (file, cells, width) => {
      const page = await browser.newPage({ viewport: { width, height: 560 } });
      await page.setContent(`<style>body{margin:0;background:#111827;font:13px sans-serif;color:#e5e7eb}#sheet{display:inline-flex;gap:6px;padding:6px;background:#111827}figure{margin:0}img{display:block}figcaption{padding:3px 2px}</style><div id="sheet">${cells.join('')}</div>`);
      await page.locator('#sheet').screenshot({ path: path.join(sheets, file) });
      await page.close();
    };
    const t = arg('tag') ? `-${arg('tag')}` : '';
    await sheet(`look-${persona}${t}-sheet-240.png`, [cell('today-240', 'today, rest'), cell('today-240-aa', 'today, "aa"'), cell(`toon${t}-240`, `toon (a${t}), rest`), cell(`toon${t}-240-aa`, `toon (a${t}), "aa"`)], 1000);
    await sheet(`look-${persona}${t}-sheet-640.png`, [cell('today-640x480-aa', 'today, "aa" (640×480)'), cell(`toon${t}-640x480-aa`, `toon (a${t}), "aa" (640×480)`)], 1300);
    await sheet(`look-${persona}${t}-sheet-card.png`, [cell('today-240-card', 'today, card framing'), cell('today-240-card-aa', 'today, card, "aa"'), cell(`toon${t}-240-card`, `toon (a${t}), card framing`), cell(`toon${t}-240-card-aa`, `toon (a${t}), card, "aa"`)], 1000);
        if (arg('portrait')) await sheet(`look-${persona}-sheet-styles-240.png`, [cell('today-240-aa', 'today 3D, "aa"'), cell('portrait-240-aa', 'today 2D (basis of b), "aa"'), cell('toon-240-card-aa', 'toon (a), card, "aa"')], 800);
        await sheet(`look-${persona}${t}-sheet-blink.png`, [cell('today-640x480-blink', 'today, blink'), cell(`toon${t}-640x480-blink`, `toon (a${t}), blink`)], 1300);
  }
} finally {
  await browser.close();
  server.close();
}
console.log(JSON.stringify(results, null, 2));
