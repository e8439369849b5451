// Time from `npm start` (the same script it runs) to "ready": first start on a new data dir,
// then restarts on the same dir (target ≤ 2 s).
import { spawn } from 'node:child_process';
import path from 'node:path';
import { freePort, root, round, tmpDir } from './support.mjs';

function timeStart(env) {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [path.join(root, 'scripts/start.mjs')], { env: { ...process.env, LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      if (out.includes('is ready')) {
        const ms = performance.now() - t0;
        child.once('exit', () => resolve(ms));
        child.kill('SIGTERM');
      }
    });
    child.stderr.on('data', (d) => (out += d));
    child.on('exit', (code) => {
      if (!out.includes('is ready')) reject(new Error(`start failed (${code}): ${out}`));
    });
  });
}

export async function run() {
  const dataDir = tmpDir('persona-bench-start-');
  const env = { DATA_DIR: dataDir, PORT: String(freePort()) };
  const first = await timeStart(env);
  const restarts = [];
  for (let i = 0; i < 3; i++) restarts.push(await timeStart(env));
  return {
    firstStartMs: round(first, 0),
    restartMs: restarts.map((m) => round(m, 0)),
    restartMedianMs: round([...restarts].sort((a, b) => a - b)[1], 0),
    target: 'restart ≤ 2000 ms',
    note: 'measured through scripts/start.mjs (the npm start script) with an up-to-date build',
  };
}
