// npm start: build what changed, then run the portal on the embedded defaults.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ensureBuilt, root } from './lib.mjs';

// Listening (issue 14): the offline recogniser is Debian's pocketsphinx, where installed.
const pocketsphinx = ['/usr/bin', '/usr/local/bin'].some((d) => fs.existsSync(path.join(d, 'pocketsphinx_batch'))) && fs.existsSync('/usr/share/pocketsphinx/model/en-us/en-us.lm.bin');
console.log(
  pocketsphinx
    ? fs.existsSync('/usr/lib/python3/dist-packages/pocketsphinx/__init__.py') && !/^(off|0|false)$/i.test(process.env.WORKER_STT_STREAMING ?? '')
      ? 'Offline speech recognition: pocketsphinx and python3-pocketsphinx found (avatars without an STT key listen with it, decoded while they speak).'
      : 'Offline speech recognition: pocketsphinx found (avatars without an STT key listen with it; python3-pocketsphinx would decode while they speak, ADR 106).'
    : 'Offline speech recognition: pocketsphinx not found — avatars without an STT key offer typed chat only (apt-get install pocketsphinx pocketsphinx-en-us).',
);

const major = Number(process.versions.node.split('.')[0]);
if (major < 22) console.warn(`Node.js ${process.version} is out of support (Node 20 ended in April 2026): use Node.js 22 or 24.`);

const code = await ensureBuilt();
if (code !== 0) process.exit(code);

const server = spawn(process.execPath, [path.join(root, 'packages/server/dist/main.js')], { stdio: 'inherit', cwd: root });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (c, s) => process.exit(c ?? (s ? 1 : 0)));
