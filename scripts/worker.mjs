// npm run worker -- --server <url>: start an avatar server (worker) that registers with the portal.
import path from 'node:path';
import { ensureBuilt, root, run } from './lib.mjs';

const code = await ensureBuilt({ quiet: true });
if (code !== 0) process.exit(code);
process.exit(await run(process.execPath, [path.join(root, 'packages/worker/dist/main.js'), ...process.argv.slice(2)]));
