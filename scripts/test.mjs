// npm test: unit + integration (Vitest: PGlite, and PostgreSQL when TEST_DATABASE_URL is set),
// then the end-to-end suite in Debian's Chromium against the built app.
//   npm test -- --unit   only Vitest      npm test -- --e2e   only Playwright
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

if (!onlyE2e) {
  console.log(`\n▶ Vitest (database: PGlite${process.env.TEST_DATABASE_URL ? ' + PostgreSQL' : ''})`);
  const file = path.join(reports, 'vitest.json');
  const code = await run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${file}`]);
  count(file, (r) => [r.numPassedTests, r.numFailedTests]);
  collect(file, (r) => failedNames.push(...vitestFailures(r)));
  collect(file, (r) => {
    const { total, lines } = vitestSlowest(r);
    timings.push(`Slowest Vitest files (of ${Math.round(total / 1000)} s summed over the runner's workers):`, ...lines);
  });
  if (code !== 0) broken = true;
}

const e2eConfig = path.join(root, 'packages/web/e2e/playwright.config.ts');
if (!onlyUnit && fs.existsSync(e2eConfig)) {
  console.log('\n▶ Playwright end-to-end (Debian chromium)');
  {
    const file = path.join(reports, 'playwright.json');
    const code = await run('npx', ['playwright', 'test', '-c', e2eConfig, '--reporter=list,json'], {
      env: { ...process.env, PLAYWRIGHT_JSON_OUTPUT_NAME: file },
    });
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
