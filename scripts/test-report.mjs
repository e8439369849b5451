// Reads the names of failed tests out of Vitest's and Playwright's JSON reports (npm test prints
// them in its last lines, so a failure in a long log is found without scrolling).
import path from 'node:path';
import { root } from './lib.mjs';

const rel = (file) => path.relative(root, file ?? '');

/** Vitest's JSON report: failed tests, and files that failed outside any test (import, hooks). */
export function vitestFailures(report) {
  const names = [];
  for (const file of report.testResults ?? []) {
    const failedTests = (file.assertionResults ?? []).filter((t) => t.status === 'failed');
    for (const t of failedTests) names.push(`vitest ${rel(file.name)} › ${t.fullName ?? t.title}`);
    if (file.status === 'failed' && failedTests.length === 0) {
      const why = String(file.message ?? '').split('\n')[0]?.slice(0, 200);
      names.push(`vitest ${rel(file.name)} (file failed${why ? `: ${why}` : ''})`);
    }
  }
  return names;
}

/** Playwright's JSON report: specs whose outcome is unexpected, and those that passed only on retry. */
export function playwrightFailures(report) {
  const failures = [];
  const flaky = [];
  const walk = (suite, titles) => {
    const here = suite.title && !suite.title.endsWith('.ts') ? [...titles, suite.title] : titles;
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        const name = `playwright ${spec.file}:${spec.line} › ${[...here, spec.title].join(' › ')}${test.projectName ? ` [${test.projectName}]` : ''}`;
        if (test.status === 'unexpected') failures.push(name);
        else if (test.status === 'flaky') flaky.push(name);
      }
    }
    for (const child of suite.suites ?? []) walk(child, here);
  };
  for (const suite of report.suites ?? []) walk(suite, []);
  for (const error of report.errors ?? []) failures.push(`playwright (run error: ${String(error.message ?? '').split('\n')[0]?.slice(0, 200)})`);
  return { failures, flaky };
}

/**
 * Where a run's time went: Vitest's files (a server file run on both databases appears twice)
 * and Playwright's tests, the slowest `n` of each with their share of the runner's summed time. Printed at the end of `npm test`, so CI's last lines say what to speed up.
 */
export function vitestSlowest(report, n = 12) {
  const files = (report.testResults ?? []).map((f) => ({ name: rel(f.name), ms: Math.max(0, (f.endTime ?? 0) - (f.startTime ?? 0)) }));
  return slowest(files, n);
}

export function playwrightSlowest(report, n = 12) {
  const tests = [];
  const walk = (suite) => {
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        const ms = (test.results ?? []).reduce((sum, r) => sum + (r.duration ?? 0), 0);
        tests.push({ name: `${spec.file}:${spec.line} ${spec.title}`.slice(0, 110), ms });
      }
    }
    for (const child of suite.suites ?? []) walk(child);
  };
  for (const suite of report.suites ?? []) walk(suite);
  return slowest(tests, n);
}

function slowest(items, n) {
  const total = items.reduce((sum, x) => sum + x.ms, 0);
  const top = [...items].sort((a, b) => b.ms - a.ms).slice(0, n);
  return { total, lines: top.map((x) => `  ${(x.ms / 1000).toFixed(1).padStart(6)} s ${total ? `${((x.ms / total) * 100).toFixed(1).padStart(4)} %` : ''}  ${x.name}`) };
}
