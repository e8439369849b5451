import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, type WorkerOptions } from 'node:worker_threads';

/**
 * A worker thread running the module `name` next to the caller (`callerUrl`: its import.meta.url):
 * the built `name.js` when the caller runs built, else — from TypeScript sources (vitest, tsx) —
 * `name.ts` through tsx's ESM loader (the package's `import` export of ./esm/api). Used by the
 * avatar model builds (ADR 105) and the server's knowledge extraction threads.
 */
export function spawnModuleThread(callerUrl: string, name: string, options: WorkerOptions = {}): Worker {
  if (callerUrl.endsWith('.js')) return new Worker(new URL(`./${name}.js`, callerUrl), options);
  const tsxDir = path.dirname(createRequire(callerUrl).resolve('tsx/package.json'));
  const tsx = pathToFileURL(path.join(tsxDir, 'dist/esm/api/index.mjs')).href;
  const entry = new URL(`./${name}.ts`, callerUrl).href;
  const source = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); });`;
  return new Worker(source, { ...options, eval: true });
}
