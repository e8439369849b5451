// npm run admin -- <command>: operator commands (see packages/server/src/cli/admin.ts).
import path from 'node:path';
import { ensureBuilt, root, run } from './lib.mjs';

const code = await ensureBuilt({ quiet: true });
if (code !== 0) process.exit(code);
process.exit(await run(process.execPath, [path.join(root, 'packages/server/dist/cli/admin.js'), ...process.argv.slice(2)]));
