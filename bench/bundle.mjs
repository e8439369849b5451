// Gzipped JS a visitor downloads for a page, measured in Debian's chromium: every script
// response of the page load, gzipped at level 9 (what a compressing proxy would send).
import zlib from 'node:zlib';
import { chromium } from 'playwright-core';
import { freePort, round, startServer, tmpDir } from './support.mjs';

export async function measurePage(base, route, prepare) {
  const browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const context = await browser.newContext();
  const page = await context.newPage();
  if (prepare) await prepare(page);
  const scripts = [];
  page.on('response', async (res) => {
    if (res.request().resourceType() === 'script') scripts.push(res);
  });
  await page.goto(`${base}${route}`, { waitUntil: 'networkidle' });
  let raw = 0;
  let gzip = 0;
  const files = [];
  for (const res of scripts) {
    const body = await res.body();
    const gz = zlib.gzipSync(body, { level: 9 }).length;
    raw += body.length;
    gzip += gz;
    files.push({ url: new URL(res.url()).pathname, kb: round(gz / 1024, 1) });
  }
  await browser.close();
  return { route, files: files.length, rawKB: round(raw / 1024, 1), gzipKB: round(gzip / 1024, 1), detail: files };
}

export async function run() {
  const port = freePort();
  const server = startServer({ DATA_DIR: tmpDir('persona-bench-bundle-'), PORT: String(port), EMBEDDED_WORKER: 'false' });
  await server.ready;
  try {
    const login = await measurePage(`http://127.0.0.1:${port}`, '/react/login');
    return { login, target: 'login ≤ 170 KB gzipped' };
  } finally {
    await server.stop();
  }
}
