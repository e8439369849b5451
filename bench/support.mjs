// Shared helpers for the benchmarks.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const serverMain = path.join(root, 'packages/server/dist/main.js');

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
const APP_KEY = 'persona-studio-web';

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


/** CPU seconds used so far by the processes matching `filter` (Linux /proc; 0 elsewhere). */
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
