// The suite under load (issue 26, item 16): starts a CPU hog on every core (Debian's `stress`, or
// a busy loop per core in plain Node when it is missing), runs a test command N times in a row
// beside it, and reports each run's result and duration — so that a test racing the machine is
// found here rather than on a busy CI runner.
//
//   node scripts/loaded-suite.mjs [--runs 3] [--hogs <n>] [--no-hog] [--stalls <ms>] [--log <dir>] [-- <command …>]
//
// --stalls <ms> also holds the event loop of every Node process of the command for up to <ms>
// about once a second (scripts/event-loop-stalls.mjs, through NODE_OPTIONS): harsher than the hog,
// it finds the short bounds and fixed waits that a hog on Linux's fair scheduler seldom trips.
// Default command: the whole Vitest suite on one worker (`npx vitest run --maxWorkers=1`), which
// is what a busy two-core runner gives each file. Examples:
//   node scripts/loaded-suite.mjs --runs 3 -- npx vitest run --maxWorkers=1 packages/worker/src/live/provider-faults.test.ts
//   node scripts/loaded-suite.mjs --runs 3 -- npm test -- --unit
// Each run's output goes to <log>/run-<k>.log (default: a fresh temporary directory); the summary
// lists per run: pass/fail, exit code, seconds, and the failed tests Vitest or Playwright named.
// Exit code: 0 when every run passed. The hog is stopped when the runs end (and has a timeout of
// its own, so it cannot outlive a killed script by long).
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root } from './lib.mjs';

const argv = process.argv.slice(2);
const dash = argv.indexOf('--');
const opts = dash >= 0 ? argv.slice(0, dash) : argv;
const command = dash >= 0 ? argv.slice(dash + 1) : ['npx', 'vitest', 'run', '--maxWorkers=1'];
const option = (name, fallback) => {
  const k = opts.indexOf(name);
  return k >= 0 && opts[k + 1] !== undefined ? opts[k + 1] : fallback;
};
const runs = Math.max(1, Number(option('--runs', '3')));
const hogs = Math.max(0, Number(option('--hogs', String(os.availableParallelism()))));
const noHog = opts.includes('--no-hog') || hogs === 0;
const stalls = Math.max(0, Number(option('--stalls', '0')));
const logDir = option('--log', '') || fs.mkdtempSync(path.join(os.tmpdir(), 'loaded-suite-'));
fs.mkdirSync(logDir, { recursive: true });
if (command.length === 0) {
  console.error('no command after --');
  process.exit(2);
}

/** A process group of its own, so that stopping it stops its children too. */
function startHog() {
  if (noHog) return null;
  // Long enough for every run; the script stops it earlier.
  const timeout = 6 * 3600;
  const hasStress = spawnSync('stress', ['--version'], { stdio: 'ignore' }).status === 0;
  const child = hasStress
    ? spawn('stress', ['--cpu', String(hogs), '--timeout', `${timeout}s`], { stdio: 'ignore', detached: true })
    : spawn(process.execPath, ['-e', `const {fork}=require('node:child_process');if(process.argv[1]==='c'){const end=Date.now()+${timeout * 1000};for(;;){if(Date.now()>end)process.exit(0)}}else for(let i=0;i<${hogs};i++)fork(__filename,['c'],{eval:true})`], { stdio: 'ignore', detached: true });
  console.log(`CPU hog: ${hasStress ? 'stress' : 'node busy loops'} on ${hogs} core(s), pid ${child.pid}`);
  return child;
}

function stopHog(child) {
  if (!child || child.exitCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {
    // already gone
  }
}

/** Without terminal colours (FORCE_COLOR=0 asks for none; some tools colour anyway). */
// eslint-disable-next-line no-control-regex
const plainText = (text) => text.replace(/\u001b\[[0-9;]*m/g, '');

/** Failed tests named in a run's output (Vitest's `FAIL` lines, Playwright's `✘` lines, test.mjs' list). */
function failedTests(text) {
  const plain = plainText(text);
  const named = (marks) => {
    const names = new Set();
    for (const line of plain.split('\n')) {
      const m = new RegExp(`^\\s*(?:${marks})\\s+(.*\\S)\\s*$`).exec(line);
      if (m && !/^\d+ /.test(m[1])) names.add(m[1].replace(/\s+\d+(?:\.\d+)?m?s$/, ''));
    }
    return [...names];
  };
  // Vitest's FAIL lines name the file too; the marks of its tree (and Playwright's) are the rest.
  const failLines = named('FAIL');
  return failLines.length ? failLines : named('✘|×');
}

/** The run in progress (its own process group, so that stopping the script stops all of it). */
let current = null;

function runOnce(k) {
  return new Promise((resolve) => {
    const file = path.join(logDir, `run-${k}.log`);
    const out = fs.createWriteStream(file);
    const started = process.hrtime.bigint();
    const env = { ...process.env, FORCE_COLOR: '0' };
    if (stalls > 0) {
      const preload = new URL('./event-loop-stalls.mjs', import.meta.url).href;
      Object.assign(env, { LOADED_STALL_MS: String(stalls), NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${preload}`.trim() });
    }
    const child = spawn(command[0], command.slice(1), { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    current = child;
    let text = '';
    const take = (chunk) => {
      out.write(chunk);
      text += chunk.toString();
      if (text.length > 4_000_000) text = text.slice(-2_000_000);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('close', (code, signal) => {
      current = null;
      out.end();
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const summary = /Tests\s+(.*\(\d+\))/.exec(plainText(text))?.[1] ?? /Total: .*/.exec(text)?.[0] ?? '';
      resolve({ run: k, passed: code === 0, code: code ?? signal, seconds: Math.round(seconds * 10) / 10, summary, failed: failedTests(text), log: file });
    });
  });
}

const hog = startHog();
const stop = () => {
  stopHog(hog);
  stopHog(current);
  process.exit(130);
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

console.log(`Command: ${command.join(' ')}\nRuns: ${runs}${stalls ? `, event-loop stalls up to ${stalls} ms` : ''}, logs in ${logDir}\n`);
const results = [];
try {
  // Let the hog reach full speed before the first run.
  if (hog) await new Promise((r) => setTimeout(r, 1000));
  for (let k = 1; k <= runs; k++) {
    const r = await runOnce(k);
    results.push(r);
    console.log(`run ${k}: ${r.passed ? 'PASS' : 'FAIL'} (exit ${r.code}) in ${r.seconds} s${r.summary ? ` — ${r.summary}` : ''}`);
    for (const name of r.failed) console.log(`    ✘ ${name}`);
  }
} finally {
  stopHog(hog);
}
const ok = results.filter((r) => r.passed).length;
console.log(`\n${ok}/${results.length} runs passed${hog ? ` beside a CPU hog on ${hogs} core(s)` : ''}${stalls ? ` with event-loop stalls up to ${stalls} ms` : ''}.`);
fs.writeFileSync(path.join(logDir, 'summary.json'), JSON.stringify({ command, hogs: hog ? hogs : 0, stalls, results }, null, 2));
process.exit(ok === results.length ? 0 : 1);
