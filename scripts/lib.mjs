// Helpers shared by the root scripts (plain Node, no build needed).
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Runs a command with inherited stdio; resolves with its exit code. */
export function run(cmd, args, opts = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { stdio: 'inherit', cwd: root, ...opts });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

function newestMtime(p) {
  let newest = 0;
  const stat = fs.statSync(p, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  for (const entry of fs.readdirSync(p, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist') continue;
    newest = Math.max(newest, newestMtime(path.join(p, entry.name)));
  }
  return newest;
}

const STAMP = path.join(root, 'node_modules', '.cache', 'persona-build-stamp');
const INPUTS = [
  'packages/contract/src',
  'packages/net/src',
  'packages/server/src',
  'packages/worker/src',
  'packages/server/migrations',
  'packages/web/src',
  'packages/web/index.html',
  'packages/web/avatar.html',
  'packages/web/avatar-refused.html',
  'packages/web/vite.config.ts',
  'packages/web/vite.avatar.config.ts',
  'packages/web/public',
  'package-lock.json',
];

/** True when a source file changed since the last build (or nothing was built). */
export function buildIsStale() {
  const stamp = fs.statSync(STAMP, { throwIfNoEntry: false });
  if (!stamp) return true;
  if (!fs.existsSync(path.join(root, 'packages/server/dist/main.js'))) return true;
  if (!fs.existsSync(path.join(root, 'packages/web/dist/index.html'))) return true;
  if (!fs.existsSync(path.join(root, 'packages/web/dist/avatar.html'))) return true;
  if (!fs.existsSync(path.join(root, 'packages/web/dist/avatar-refused.html'))) return true;
  return INPUTS.some((p) => newestMtime(path.join(root, p)) > stamp.mtimeMs);
}

/** Builds contract, server and web when their sources changed. */
export async function ensureBuilt({ quiet = false } = {}) {
  if (!buildIsStale()) return 0;
  if (!quiet) console.log('Building Persona Studio (first start, or sources changed)…');
  const code = await run('npm', ['run', 'build', '--silent']);
  if (code === 0) {
    fs.mkdirSync(path.dirname(STAMP), { recursive: true });
    fs.writeFileSync(STAMP, new Date().toISOString());
  }
  return code;
}
