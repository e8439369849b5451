// npm test: unit + integration (Vitest: PGlite, and PostgreSQL when TEST_DATABASE_URL is set),
// then the end-to-end suite in Debian's Chromium against the built app.
//   npm test -- --unit   only Vitest      npm test -- --e2e   only Playwright
//   npm test -- --side-by-side   Vitest and Playwright at once (faster; by default one after the other)
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureBuilt, root, run } from './lib.mjs';
import { playwrightFailures, playwrightSlowest, vitestFailures, vitestSlowest } from './test-report.mjs';

const args = process.argv.slice(2);
const onlyUnit = args.includes('--unit');
const onlyE2e = args.includes('--e2e');
const reports = fs.mkdtempSync(path.join(os.tmpdir(), 'persona-test-'));
let passed = 0;
let failed = 0;
let broken = false;
/** Names of the failed (and of the flaky, passed on retry) tests, printed just before the total. */
const failedNames = [];
const flakyNames = [];
/** The slowest files and tests, printed before the failures. */
const timings = [];

function count(file, read) {
  try {
    const [p, f] = read(JSON.parse(fs.readFileSync(file, 'utf8')));
    passed += p;
    failed += f;
  } catch {
    broken = true; // no report: the runner itself failed
  }
}

function collect(file, read) {
  try {
    read(JSON.parse(fs.readFileSync(file, 'utf8')));
  } catch {
    // no report: already counted as broken
  }
}

// The entry-point tests run the built packages, and the e2e suite the built app.
if ((await ensureBuilt()) !== 0) {
  console.log('\nTotal: 0 passed, 1 failed');
  process.exit(1);
}

/** Vitest's half: its output to the terminal as it runs. */
async function vitest({ yielding = false } = {}) {
  const file = path.join(reports, 'vitest.json');
  const command = ['npx', 'vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${file}`];
  // Beside the browser, Vitest yields the CPU to it (nice 10): the e2e suite measures what a
  // visitor sees and hears on the page's own clock (the voice against the frames that show it),
  // which a browser starved of CPU gets wrong by seconds; Vitest's bounds are proven beside a
  // CPU hog on every core (scripts/loaded-suite.mjs) and take the rest of the machine.
  const code = yielding ? await run('nice', ['-n', '10', ...command]) : await run(command[0], command.slice(1));
  count(file, (r) => [r.numPassedTests, r.numFailedTests]);
  collect(file, (r) => failedNames.push(...vitestFailures(r)));
  collect(file, (r) => {
    const { total, lines } = vitestSlowest(r);
    timings.push(`Slowest Vitest files (of ${Math.round(total / 1000)} s summed over the runner's workers):`, ...lines);
  });
  if (code !== 0) broken = true;
}

/**
 * Playwright's half. Beside Vitest its output goes to a file, printed whole when it ends (two
 * runners' lines interleaved could not be read), and the file's name is said at the start so a
 * run cut short still has it.
 */
async function playwright({ beside }) {
  const file = path.join(reports, 'playwright.json');
  const log = beside ? path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'persona-e2e-')), 'playwright.log') : null;
  if (log) console.log(`(Playwright's output, printed when it ends, is written meanwhile to ${log})`);
  const out = log ? fs.openSync(log, 'a') : null;
  const code = await run('npx', ['playwright', 'test', '-c', e2eConfig, '--reporter=list,json'], {
    env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: file },
    ...(out !== null ? { stdio: ['ignore', out, out] } : {}),
  });
  if (log) {
    fs.closeSync(out);
    console.log('\n▶ Playwright end-to-end (Debian chromium): its output');
    process.stdout.write(fs.readFileSync(log, 'utf8'));
    fs.rmSync(path.dirname(log), { recursive: true, force: true });
  }
  count(file, (r) => [r.stats.expected + r.stats.flaky, r.stats.unexpected]);
  collect(file, (r) => {
    const { failures, flaky } = playwrightFailures(r);
    failedNames.push(...failures);
    flakyNames.push(...flaky);
  });
  collect(file, (r) => {
    const { total, lines } = playwrightSlowest(r);
    timings.push(`Slowest e2e tests (of ${Math.round(total / 1000)} s summed over the runner's workers):`, ...lines);
  });
  if (code !== 0) broken = true;
}

// The two halves run side by side: the e2e suite spends most of its time waiting on what a
// visitor waits on (speech played in real time, a page's load), which Vitest's CPU-bound files
// fill. Every test is built to pass on a busy machine (the whole suite passes beside a CPU hog on
// every core: scripts/loaded-suite.mjs), so neither half needs the machine to itself.
// Only with `--side-by-side`; by default they run one after the other.
const e2eConfig = path.join(root, 'packages/web/e2e/playwright.config.ts');
const withVitest = !onlyE2e;
const withE2e = !onlyUnit && fs.existsSync(e2eConfig);
// Serial by default: side by side (`--side-by-side`) took CI from ~1435 s to 778–905 s, but
// starved Vitest's multi-process tests (ADR 004): not the default until that is proven loaded.
const serial = !args.includes('--side-by-side');
const started = Date.now();
const took = () => `${Math.round((Date.now() - started) / 1000)} s`;
if (withVitest && withE2e && !serial) {
  console.log(`\n▶ Vitest (database: PGlite${process.env.TEST_DATABASE_URL ? ' + PostgreSQL' : ''}) and, beside it, Playwright end-to-end (Debian chromium)`);
  await Promise.all([vitest({ yielding: true }).then(() => console.log(`\n(Vitest ended after ${took()})`)), playwright({ beside: true }).then(() => console.log(`\n(Playwright ended after ${took()})`))]);
} else {
  if (withVitest) {
    console.log(`\n▶ Vitest (database: PGlite${process.env.TEST_DATABASE_URL ? ' + PostgreSQL' : ''})`);
    await vitest();
  }
  if (withE2e) {
    console.log('\n▶ Playwright end-to-end (Debian chromium)');
    await playwright({ beside: false });
  }
}

fs.rmSync(reports, { recursive: true, force: true });
if (timings.length > 0) console.log(`\n${timings.join('\n')}`);
if (broken && failed === 0) failed = 1;
if (flakyNames.length > 0) {
  console.log(`\nFlaky (failed, then passed on retry): ${flakyNames.length}`);
  for (const name of flakyNames) console.log(`  ~ ${name}`);
}
if (failedNames.length > 0) {
  console.log(`\nFailed: ${failedNames.length}`);
  for (const name of failedNames) console.log(`  ✘ ${name}`);
} else if (broken) {
  console.log('\nFailed: a runner exited with an error but reported no failed test (see its output above)');
}
console.log(`\nTotal: ${passed} passed, ${failed} failed`);
process.exit(failed > 0 || broken ? 1 : 0);
