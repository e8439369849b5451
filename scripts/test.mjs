// npm test: unit + integration (Vitest: PGlite, and PostgreSQL when TEST_DATABASE_URL is set),
// then the end-to-end suite in Debian's Chromium against the built app.
//   npm test -- --unit   only Vitest      npm test -- --e2e   only Playwright
import fs from 'node:fs';
import path from 'node:path';
import { ensureBuilt, root, run } from './lib.mjs';

const args = process.argv.slice(2);
const onlyUnit = args.includes('--unit');
const onlyE2e = args.includes('--e2e');
let failed = false;

if (!onlyE2e) {
  console.log(`\n▶ Vitest (database: PGlite${process.env.TEST_DATABASE_URL ? ' + PostgreSQL' : ''})`);
  failed ||= (await run('npx', ['vitest', 'run'])) !== 0;
}

const e2eConfig = path.join(root, 'packages/web/e2e/playwright.config.ts');
if (!onlyUnit && fs.existsSync(e2eConfig)) {
  console.log('\n▶ Playwright end-to-end (Debian chromium)');
  if ((await ensureBuilt()) !== 0) failed = true;
  else failed ||= (await run('npx', ['playwright', 'test', '-c', e2eConfig])) !== 0;
}
process.exit(failed ? 1 : 0);
