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

/** Signs in through the API and stores the session the way the portal does (before the page loads). */
async function signedIn(base, email, password) {
  const { appKey } = await (await fetch(`${base}/api/config`)).json();
  const answer = await (
    await fetch(`${base}/api/login`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${appKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ email, password }),
    })
  ).json();
  if (answer.status !== 'OK') throw new Error(`bench sign-in failed: ${JSON.stringify(answer)}`);
  const session = { token: answer.sessionId, expiryDate: answer.expiryDate, userName: answer.userName ?? '', userType: answer.userType, adminProxy: false };
  // Runs in the page: globalThis is its window.
  return (page) => page.addInitScript((value) => globalThis.localStorage.setItem('persona.auth', value), JSON.stringify(session));
}

export async function run() {
  const port = freePort();
  const admin = { email: 'bench-admin@example.com', password: 'bench-admin-password-1' };
  const server = startServer({
    DATA_DIR: tmpDir('persona-bench-bundle-'),
    PORT: String(port),
    EMBEDDED_WORKER: 'false',
    ADMIN_EMAIL: admin.email,
    ADMIN_PASSWORD: admin.password,
  });
  await server.ready;
  const base = `http://127.0.0.1:${port}`;
  try {
    const login = await measurePage(base, '/react/login');
    // The avatar editor route, signed in (its list, catalogue and creator chunks).
    const avatars = await measurePage(base, '/react/avatars', await signedIn(base, admin.email, admin.password));
    return { login, avatars, target: 'login ≤ 170 KB gzipped; the avatar editor is loaded only on its route' };
  } finally {
    await server.stop();
  }
}
