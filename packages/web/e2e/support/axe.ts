import AxeBuilder from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';

/** WCAG 2.1 A and AA rules (contrast, names, roles, landmarks…). */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

export interface AxeFinding {
  page: string;
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

/** axe's reason for a node ("Element has insufficient color contrast of 3.1 …"), for the failure message. */
const why = (summary: string | undefined) => {
  const detail = summary?.split('\n').slice(1).join(' ').trim();
  return detail ? ` — ${detail}` : '';
};

/**
 * Runs axe-core over the page as it is now and answers its serious and critical violations
 * (ADR 050). Minor and moderate findings are not failures here.
 */
export async function seriousViolations(page: Page, name: string): Promise<AxeFinding[]> {
  // A transition in flight (a tooltip fading in under the pointer after a click) is measured half
  // way by axe — CI saw a contrast of 1.01 on a fading MUI tooltip. Finite animations end first
  // (endless ones, spinners, are left running), at most 2 s.
  await page.evaluate(() =>
    Promise.race([
      Promise.all(
        document
          .getAnimations()
          .filter((a) => Number.isFinite(Number(a.effect?.getComputedTiming().endTime ?? Infinity)))
          .map((a) => a.finished.catch(() => undefined)),
      ),
      new Promise((r) => setTimeout(r, 2000)),
    ]),
  );
  const result = await new AxeBuilder({ page }).withTags(TAGS).analyze();
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ page: name, rule: v.id, impact: v.impact ?? '', help: v.help, targets: v.nodes.slice(0, 5).map((n) => `${n.target.join(' ')}${why(n.failureSummary)}`) }));
}

/** A readable report of findings for a test failure message. */
export function formatFindings(findings: AxeFinding[]): string {
  return findings.map((f) => `${f.page}: [${f.impact}] ${f.rule} — ${f.help}\n    ${f.targets.join('\n    ')}`).join('\n');
}

/**
 * Checks the page as it is now with axe-core: a serious or critical violation fails the test.
 * Soft, so a story goes on and reports every page it checks in one run.
 */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  const findings = await seriousViolations(page, name);
  expect.soft(findings, formatFindings(findings)).toEqual([]);
}
