// npm run bench [-- name ...]: runs the benchmarks (never part of npm test) and writes
// bench/results/<name>.json. Names: every bench/<name>.mjs that exports run() (support.mjs is shared code).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from '../scripts/lib.mjs';
import { machineSpeed } from './support.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
// Every benchmark is a file here exporting run(); branches add theirs without editing this list.
const all = fs
  .readdirSync(here)
  .filter((f) => f.endsWith('.mjs') && !['run.mjs', 'support.mjs'].includes(f))
  .map((f) => f.slice(0, -'.mjs'.length))
  .sort();
// `voice`, `render`, `sandbox`… also name the live-avatar benchmarks (live-voice.mjs…).
const chosen = process.argv
  .slice(2)
  .filter((a) => !a.startsWith('-'))
  .map((a) => (all.includes(a) || !all.includes(`live-${a}`) ? a : `live-${a}`));
const names = chosen.length ? chosen : all;

if ((await ensureBuilt()) !== 0) process.exit(1);
fs.mkdirSync(path.join(here, 'results'), { recursive: true });
for (const name of names) {
  if (!all.includes(name)) {
    console.error(`unknown benchmark ${name}; choose from ${all.join(', ')}`);
    process.exit(1);
  }
  console.log(`\n=== ${name} ===`);
  // The machine's speed before and after (support.mjs machineSpeed): figures are comparable only at a like reference.
  const before = machineSpeed();
  console.log(`machine before: reference ${before.referenceMs} ms of CPU, load ${before.load.join(' ')}`);
  const { run } = await import(`./${name}.mjs`);
  const result = await run();
  const after = machineSpeed();
  console.log(`machine after: reference ${after.referenceMs} ms of CPU, load ${after.load.join(' ')}`);
  const machine = { referenceMsBefore: before.referenceMs, referenceMsAfter: after.referenceMs, loadBefore: before.load, loadAfter: after.load };
  fs.writeFileSync(path.join(here, 'results', `${name}.json`), JSON.stringify({ at: new Date().toISOString(), machine, ...result }, null, 2));
  console.log(JSON.stringify(result, null, 2));
}
