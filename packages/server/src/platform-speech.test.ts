import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LivePaths, type TLiveStartAnswer } from '@persona/contract';
import { AZURE_KEY, startFakeAzure, type FakeTts } from '../../worker/src/test/fake-tts.js';
import { PageClient, until } from './test/live.js';
import { assertBuilt, freePort, startPortal, startWorkerProcess, type Proc } from './test/processes.js';

/**
 * Issue 26: the operator's hosted voice (PLATFORM_TTS_*) reaches Simple-mode avatars through both
 * entry points — the portal's embedded worker (`npm start`) and a separate `npm run worker` —
 * started as an operator starts them, against a local fake of Azure Speech. Before, no entry point
 * passed the operator's voice to the worker: every Simple-mode avatar spoke with the offline voice.
 */
const APP_KEY = 'persona-studio-web';
const ADMIN = { email: 'operator@example.com', password: 'Operator-Password-1' };
const WORKER_SECRET = 'platform-speech-worker-secret-0123';

describe('the product voice of PLATFORM_TTS_* on the built entry points', () => {
  const procs: Proc[] = [];
  const dirs: string[] = [];
  const pages: PageClient[] = [];
  let azure: FakeTts;

  const api = async (base: string, url: string, init: { token?: string; body?: unknown } = {}) => {
    const res = await fetch(`${base}${url}`, {
      method: init.body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${APP_KEY}${init.token ? `:${init.token}` : ''}`, ...(init.body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      signal: AbortSignal.timeout(10_000),
    });
    const text = await res.text();
    return { status: res.status, json: (text.startsWith('{') ? JSON.parse(text) : {}) as Record<string, unknown>, text };
  };

  const platformTts = () => ({ PLATFORM_TTS_PROVIDER: 'azure', PLATFORM_TTS_API_KEY: AZURE_KEY, PLATFORM_TTS_REGION: 'westeurope', PLATFORM_TTS_URL: azure.origin });

  async function portal(name: string, env: Record<string, string>) {
    const port = await freePort();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `persona-speech-${name}-`));
    dirs.push(dataDir);
    const proc = startPortal(name, {
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATABASE_URL: '',
      REDIS_URL: '',
      WORKER_SECRET,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      LOG_LEVEL: 'warn',
      // Nothing of the test runner's own environment decides the voice.
      PLATFORM_TTS_PROVIDER: '',
      PLATFORM_STT_PROVIDER: '',
      ...env,
    });
    procs.push(proc);
    await proc.waitFor(/is ready/, 90_000);
    const base = `http://127.0.0.1:${port}`;
    const login = await api(base, '/api/login', { body: ADMIN });
    expect(login.status, login.text).toBe(200);
    return { base, token: login.json.sessionId as string };
  }

  /** A new Simple-mode avatar (echo), greeted aloud: the greeting is what its voice speaks first. */
  async function greetAloud(p: { base: string; token: string }, greeting: string) {
    const created = await api(p.base, '/api/add_avatar', {
      token: p.token,
      body: { name: 'Simple', nlpEngine: 0, dhType: 2, setupMode: 0, wakeUpMessage: greeting, dailyLimitPerSession: -1, dailyLimitPerIP: -1, dailyLimits: { Demo: -1 }, idleTimeout: 300, avatarJson: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json' }) },
    });
    expect(created.status, created.text).toBe(200);
    const avatarId = (created.json.agent as { id: number }).id;
    // The worker registers a moment after the portal says it is ready.
    let answer: TLiveStartAnswer | undefined;
    await until(
      async () => {
        const res = await api(p.base, LivePaths.start, { body: { avatarId, visitorId: `visitor-${avatarId}` } });
        if (res.status === 200 && (res.json as TLiveStartAnswer).wsUrl) answer = res.json as unknown as TLiveStartAnswer;
        return answer !== undefined;
      },
      30_000,
      'a worker to take the session',
    );
    const page = new PageClient(answer!, { voice: true });
    pages.push(page);
    return page;
  }

  beforeAll(async () => {
    assertBuilt();
    azure = await startFakeAzure();
  });

  afterAll(async () => {
    for (const p of pages) p.close();
    for (const p of procs) if (p.alive()) p.child.kill('SIGKILL');
    await Promise.all(procs.map((p) => p.exited));
    await azure?.close();
    for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
  });

  it("the portal's embedded worker speaks a Simple-mode avatar with the operator's Azure, and the Brain tab is told so", async () => {
    const p = await portal('embedded', { EMBEDDED_WORKER: 'true', ...platformTts() });
    const platform = await api(p.base, '/api/lookups/platform', { token: p.token });
    expect(platform.json).toMatchObject({ tts: { provider: 'azure', voice: 'en-US-JennyNeural' }, stt: null });
    expect(platform.text).not.toContain(AZURE_KEY);

    const page = await greetAloud(p, 'Hello from the embedded worker.');
    await until(() => azure.requests.some((r) => r.body.includes('Hello from the embedded worker.')), 20_000, 'the greeting sent to the fake Azure');
    const asked = azure.requests.find((r) => r.body.includes('Hello from the embedded worker.'))!;
    expect(asked.headers['ocp-apim-subscription-key']).toBe(AZURE_KEY);
    expect(asked.body).toContain('<voice name="en-US-JennyNeural">');
    // What Azure answered is what the page is sent.
    await until(() => page.audio.length > 0, 20_000, 'audio frames on the page');
  }, 150_000);

  it('`npm run worker` reads the same variables: its Simple-mode avatars speak with them, whatever the portal has', async () => {
    const p = await portal('separate', { EMBEDDED_WORKER: 'false' });
    // This portal has no voice of its own configured: it says so.
    expect((await api(p.base, '/api/lookups/platform', { token: p.token })).json).toMatchObject({ tts: null, stt: null });
    const worker = startWorkerProcess('speech-worker', [p.base], { WORKER_SECRET, ...platformTts(), PLATFORM_TTS_VOICE: 'en-GB-RyanNeural' });
    procs.push(worker);
    await worker.waitFor(/page sockets on port \d+/, 60_000);

    const page = await greetAloud(p, 'Hello from a worker of its own.');
    await until(() => azure.requests.some((r) => r.body.includes('Hello from a worker of its own.')), 20_000, 'the greeting sent to the fake Azure');
    // The avatar names no voice of Azure's: the operator's default voice speaks.
    expect(azure.requests.find((r) => r.body.includes('Hello from a worker of its own.'))!.body).toContain('<voice name="en-GB-RyanNeural">');
    await until(() => page.audio.length > 0, 20_000, 'audio frames on the page');
  }, 150_000);
});
