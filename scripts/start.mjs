// npm start: build what changed, then run the portal on the embedded defaults.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { ensureBuilt, root } from './lib.mjs';

const code = await ensureBuilt();
if (code !== 0) process.exit(code);

const server = spawn(process.execPath, [path.join(root, 'packages/server/dist/main.js')], { stdio: 'inherit', cwd: root });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (c, s) => process.exit(c ?? (s ? 1 : 0)));
