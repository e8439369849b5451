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
