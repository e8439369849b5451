// npm run dev: the server with reload (tsx watch) and the Vite dev server proxying /api to it.
import { spawn } from 'node:child_process';
import { root } from './lib.mjs';

const env = { ...process.env, NODE_ENV: 'development' };
const procs = [
  spawn('npx', ['tsx', 'watch', '--clear-screen=false', 'packages/server/src/main.ts'], { stdio: 'inherit', cwd: root, env }),
  spawn('npx', ['vite', '--config', 'packages/web/vite.config.ts'], { stdio: 'inherit', cwd: root, env }),
];
console.log('Dev servers: API on http://localhost:3000, portal with hot reload on http://localhost:5173/react');
const stop = (signal) => procs.forEach((p) => p.kill(signal));
process.on('SIGINT', () => stop('SIGINT'));
process.on('SIGTERM', () => stop('SIGTERM'));
for (const p of procs) p.on('exit', (code) => { stop('SIGTERM'); process.exit(code ?? 0); });
