// Shared helpers for the benchmarks.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import WebSocket from 'ws';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const serverMain = path.join(root, 'packages/server/dist/main.js');
export const workerMain = path.join(root, 'packages/worker/dist/main.js');
/** file: URL of a module of the built worker (packages/worker/dist/<p>). */
export const workerDist = (p) => pathToFileURL(path.join(root, 'packages/worker/dist', p)).href;
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export function tmpDir(prefix) {
  return fs.mkdtempSync(path.join(os.tmpdir(), prefix));
}

export function freePort() {
  return 43000 + Math.floor(Math.random() * 5000);
}

/** Starts the built server; resolves when it prints that it is ready, with the ms it took. */
export function startServer(env) {
  const t0 = performance.now();
  const child = spawn(process.execPath, [serverMain], {
    env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  const ready = new Promise((resolve, reject) => {
    const onData = (d) => {
      out += d;
      if (out.includes('is ready')) resolve(performance.now() - t0);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => reject(new Error(`server exited ${code}: ${out}`)));
  });
  const stop = () =>
    new Promise((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', resolve);
      child.kill('SIGTERM');
    });
  return { child, ready, stop, output: () => out };
}

const PASSWORD = 'bench-password-1';
export const APP_KEY = 'persona-studio-web';

/**
 * The portal with npm start's defaults: only the data dir, port, host and the first admin's
 * password are set (LOG_LEVEL is removed from the environment so the default applies). Its
 * stdout/stderr go to a file, as they would go to a terminal or a log collector.
 */
export async function startPortal(main, extraEnv = {}, nodeArgs = []) {
  const dataDir = tmpDir('persona-bench-http-');
  const port = freePort();
  const logPath = path.join(dataDir, 'server.log');
  const out = fs.openSync(logPath, 'a');
  const env = { ...process.env, DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', ADMIN_PASSWORD: PASSWORD, ...extraEnv };
  delete env.LOG_LEVEL;
  const child = spawn(process.execPath, [...nodeArgs, main], { env, stdio: ['ignore', out, out] });
  fs.closeSync(out);
  const t0 = Date.now();
  for (;;) {
    const text = fs.readFileSync(logPath, 'utf8');
    if (text.includes('is ready')) break;
    if (child.exitCode !== null || Date.now() - t0 > 120_000) throw new Error(`portal did not start: ${text.slice(-2000)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  const base = `http://127.0.0.1:${port}`;
  const login = await fetch(`${base}/api/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${APP_KEY}` },
    body: JSON.stringify({ email: 'admin@persona.local', password: PASSWORD }),
  }).then((r) => r.json());
  if (!login.sessionId) throw new Error(`login failed: ${JSON.stringify(login)}`);
  return {
    base,
    auth: { authorization: `Bearer ${APP_KEY}:${login.sessionId}` },
    logBytes: () => fs.statSync(logPath).size,
    /** The portal's output so far (e.g. the outbox's mail lines with their links). */
    logText: () => fs.readFileSync(logPath, 'utf8'),
    child,
    stop: async () => {
      await stopChild(child);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function stopChild(child) {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
}


/** CPU seconds this process (every thread) has used so far. */
export function ownCpuSeconds() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1e6;
}

/** CPU seconds used so far by the processes matching `filter` (Linux /proc; 0 elsewhere): other processes (`ownCpuSeconds` for this one). */
export function cpuSeconds(filter) {
  let ticks = 0;
  let pids = [];
  try {
    pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return 0;
  }
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const cmdline = () => {
        try {
          return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        } catch {
          return '';
        }
      };
      if (!filter(Number(pid), comm, cmdline)) continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      // gone meanwhile
    }
  }
  return ticks / 100;
}

/**
 * How fast this machine's core is now: the CPU time (ms, median of 7 after a warm-up) of a fixed
 * piece of work — a 160-tap filter over 2 s of 16 kHz audio, the kind of loop the listening path
 * runs. These machines' speed moves 2–4× within an hour (ADR 106): a figure is comparable with
 * another only at a like reference. CPU time, not wall time: a loaded machine that still gives
 * the bench a whole core reads the same; the load average says how loaded it was.
 */
export function machineSpeed() {
  const n = 32_000;
  const taps = 160;
  const x = new Float32Array(n + taps);
  const h = new Float32Array(taps);
  for (let i = 0; i < x.length; i++) x[i] = Math.sin(i * 0.013) + 0.5 * Math.sin(i * 0.171);
  for (let k = 0; k < taps; k++) h[k] = Math.exp(-k / 40) / 40;
  const out = new Float32Array(n);
  const once = () => {
    const t0 = ownCpuSeconds();
    for (let rep = 0; rep < 16; rep++) {
      for (let i = 0; i < n; i++) {
        let y = 0;
        for (let k = 0; k < taps; k++) y += h[k] * x[i + taps - k];
        out[i] = y;
      }
    }
    return (ownCpuSeconds() - t0) * 1000;
  };
  once();
  const times = Array.from({ length: 7 }, once).sort((a, b) => a - b);
  return { referenceMs: round(times[3], 1), load: os.loadavg().map((v) => round(v, 1)) };
}

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export const round = (n, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

/**
 * Runs fn with the URL of a scratch PostgreSQL database (created on BENCH_DATABASE_URL's server,
 * default postgres://postgres@127.0.0.1:5432/test) and drops it afterwards. An error is returned
 * as { error } so one missing server does not lose the other figures.
 */
export async function withScratchPostgres(label, fn) {
  const url = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const { default: pg } = await import('pg');
  const admin = new pg.Client({ connectionString: url });
  const name = `persona_bench_${label}_${process.pid}`;
  try {
    await admin.connect();
    await admin.query(`create database ${name}`);
    const u = new URL(url);
    u.pathname = `/${name}`;
    return await fn(u.toString());
  } catch (err) {
    return { error: String(err) };
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => {});
    await admin.end().catch(() => {});
  }
}

/**
 * Offset between the sound heard and the mouth (ms; positive = mouth late), from the avatar page's
 * probe: at each onset and offset, when the heard level crosses half its peak vs when the mouth's
 * openness does (nearest crossing within 400 ms).
 */
export function audioMouthOffsets(history, levels) {
  const cross = (series) => {
    const peak = Math.max(...series.map((s) => s.v));
    const half = peak / 2;
    const up = [];
    const down = [];
    for (let i = 1; i < series.length; i++) {
      const a = series[i - 1];
      const b = series[i];
      if (a.v < half && b.v >= half) up.push(a.t + ((half - a.v) / (b.v - a.v || 1)) * (b.t - a.t));
      if (a.v >= half && b.v < half) down.push(a.t + ((a.v - half) / (a.v - b.v || 1)) * (b.t - a.t));
    }
    return { up, down };
  };
  const m = cross(history.map((h) => ({ t: h.t, v: h.open })));
  const s = cross(levels.map((l) => ({ t: l.t, v: l.rms })));
  const pair = (sound, mouth) => sound.map((t) => mouth.reduce((best, x) => (Math.abs(x - t) < Math.abs(best - t) ? x : best), Infinity) - t).filter((d) => Math.abs(d) < 400);
  if (process.env.BENCH_OFFSETS_DEBUG) console.error("up", pair(s.up, m.up), "down", pair(s.down, m.down));
  return [...pair(s.up, m.up), ...pair(s.down, m.down)];
}

/** n, p50, p95, max of a list of milliseconds (n: 0 when empty). */
export const latencyStats = (v) => (v.length ? { n: v.length, p50: round(percentile(v, 50)), p95: round(percentile(v, 95)), max: round(Math.max(...v)) } : { n: 0 });

/** Index of the last sample louder than the speech threshold (the end of what was said). */
export const lastVoicedSample = (pcm) => {
  for (let i = pcm.length - 1; i >= 0; i--) if (Math.abs(pcm[i]) > 600) return i;
  return pcm.length - 1;
};

/** What the Brain tab saves for an LLM avatar in Simple mode (the portal answers with PLATFORM_LLM_*). */
export const SIMPLE_LLM = { customData: { agent_pipeline_config: { llm: { base_url: 'https://api.groq.com/openai/v1', model: 'llama-3.3-70b-versatile', summary_enabled: false } } } };

/** Creates an avatar as the editor does (add_avatar_v2), then sets its engine with an edit. */
export async function createAvatar(portal, fields, auth = portal.auth) {
  const form = new FormData();
  form.set(
    'json',
    JSON.stringify({ dhType: 2, setupMode: 0, dailyLimitPerSession: -1, dailyLimitPerIP: -1, dailyLimits: { Demo: -1 }, idleTimeout: 600, wakeUpMessage: 'Hello!', avatarJson: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json' }), ...fields }),
  );
  const res = await fetch(`${portal.base}/api/add_avatar_v2`, { method: 'POST', headers: auth, body: form });
  const json = await res.json();
  if (!json.agent?.id) throw new Error(`avatar not created: ${JSON.stringify(json)}`);
  // New avatars start as EchoTest: the engine is set by an edit, as in the editor.
  if (fields.nlpEngine !== undefined && json.agent.nlpEngine !== fields.nlpEngine) {
    const edit = new FormData();
    edit.set('json', JSON.stringify({ ...json.agent, ...fields, id: json.agent.id, version: json.agent.version }));
    const updated = await (await fetch(`${portal.base}/api/add_avatar_v2`, { method: 'POST', headers: auth, body: edit })).json();
    if (updated.agent?.nlpEngine !== fields.nlpEngine) throw new Error(`engine not set: ${JSON.stringify(updated)}`);
  }
  return json.agent.id;
}

let visitorCounter = 0;
/** A fresh visitor address for X-Forwarded-For (the portal runs with TRUST_PROXY=true). */
export function nextVisitorIp() {
  const n = ++visitorCounter;
  return `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
}

/**
 * One visitor as the avatar page connects: admission from its own address (TRUST_PROXY), the
 * worker socket and its hello. Text-only by default; `{ textOnly: false, mic: true }` is a voice
 * page (then `onFrame`/`onBinary` see every frame). `say(text)` sends a typed line and resolves
 * with ms to the first `assistant` delta and to the final one.
 */
export async function openLiveSession(portal, avatarId, { textOnly = true, mic = false, onFrame = () => {}, onBinary = () => {} } = {}) {
  const res = await fetch(`${portal.base}/api/live/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': nextVisitorIp(), authorization: `Bearer ${APP_KEY}` },
    body: JSON.stringify({ avatarId, ...(textOnly ? { textOnly: true } : {}) }),
  });
  const answer = await res.json();
  if (answer.status !== 'OK') throw Object.assign(new Error(`admission refused: ${JSON.stringify(answer)}`), { answer });
  const ws = new WebSocket(answer.wsUrl);
  let ready;
  let failed;
  const isReady = new Promise((resolve, reject) => {
    ready = resolve;
    failed = reject;
  });
  ws.on('open', () => ws.send(JSON.stringify({ type: 'hello', protocol: 1, ticket: answer.ticket, mic, speaker: !textOnly, ...(textOnly ? { textOnly: true } : {}) })));
  ws.on('close', (code) => failed(new Error(`socket closed ${code} before ready`)));
  ws.on('error', (err) => failed(err));
  let pending = null;
  ws.on('message', (data, isBinary) => {
    if (isBinary) return onBinary(data);
    const f = JSON.parse(String(data));
    if (f.type === 'ready') ready(f);
    else if (f.type === 'assistant' && pending && !f.final && f.delta) pending.first ??= performance.now();
    else if (f.type === 'assistant' && f.final && pending) {
      const p = pending;
      pending = null;
      p.resolve({ first: (p.first ?? performance.now()) - p.sent, total: performance.now() - p.sent });
    }
    onFrame(f);
  });
  const readyFrame = await isReady;
  // As the page does: a ping every 15 s (the worker closes a socket silent for 45 s).
  const pinger = setInterval(() => ws.readyState === WebSocket.OPEN && ws.send(JSON.stringify({ type: 'ping', t: Date.now() })), 15_000);
  pinger.unref();
  ws.on('close', () => clearInterval(pinger));
  if (textOnly) await sleep(50); // the wake-up message
  let id = 0;
  return {
    ws,
    ready: readyFrame,
    say(text) {
      return new Promise((resolve) => {
        pending = { sent: performance.now(), resolve, first: null };
        ws.send(JSON.stringify({ type: 'text', id: `b${++id}`, text }));
      });
    },
    send(frame) {
      if (ws.readyState === WebSocket.OPEN) ws.send(typeof frame === 'string' || frame instanceof Uint8Array ? frame : JSON.stringify(frame));
    },
    close() {
      if (ws.readyState === WebSocket.OPEN) ws.send(JSON.stringify({ type: 'bye' }));
      ws.close();
    },
  };
}

/**
 * An external worker as `npm run worker` runs it (its own process), registered with the portal at
 * `serverBase`; resolves once it said it registered. `env` must carry the portal's WORKER_SECRET.
 */
export async function startWorker(serverBase, env, { args = [], nodeArgs = [], name = 'bench-worker' } = {}) {
  const child = spawn(process.execPath, [...nodeArgs, workerMain, '--server', serverBase, '--name', name, '--listen', '127.0.0.1:0', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let bytes = 0;
  const keep = (d) => {
    bytes += d.length;
    out += d;
    if (out.length > 64_000) out = out.slice(-16_000); // a long run's log: its tail is enough
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const t0 = Date.now();
  while (!(/page sockets on port (\d+)/.test(out) && /registered/.test(out))) {
    if (child.exitCode !== null || Date.now() - t0 > 60_000) throw new Error(`worker did not start: ${out.slice(-2000)}`);
    await sleep(50);
  }
  return { child, pid: child.pid, port: Number(/page sockets on port (\d+)/.exec(out)[1]), output: () => out, outputBytes: () => bytes, stop: () => stopChild(child) };
}

/** The pid and every descendant of it (Linux /proc; [pid] elsewhere). */
export function processTree(pid) {
  const parents = new Map();
  try {
    for (const d of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(d)) continue;
      try {
        const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        parents.set(Number(d), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      } catch {
        // gone meanwhile
      }
    }
  } catch {
    return [pid];
  }
  const tree = new Set([pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const [p, pp] of parents) {
      if (!tree.has(p) && tree.has(pp)) {
        tree.add(p);
        grew = true;
      }
    }
  }
  return [...tree];
}

/** Resident memory (MB) of these processes, from /proc/<pid>/status VmRSS (0 where gone). */
export function rssMb(pids) {
  let kb = 0;
  for (const pid of [].concat(pids)) {
    try {
      kb += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kb / 1024;
}

/**
 * A webhook receiver on a free port: the first arrival time of each delivery's `id`
 * (`arrivals`), answered 204 (bench conversations, bench webhooks).
 */
export async function webhookReceiver() {
  const arrivals = new Map();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const at = Date.now();
      const { id } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (!arrivals.has(id)) arrivals.set(id, at);
      res.writeHead(204).end();
    });
  });
  server.keepAliveTimeout = 1;
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  return { arrivals, url: `http://127.0.0.1:${server.address().port}/hook`, close: () => new Promise((r) => server.close(r)) };
}

