import { defineConfig } from 'vitest/config';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const contractSrc = fileURLToPath(new URL('./packages/contract/src/index.ts', import.meta.url));
const netSrc = fileURLToPath(new URL('./packages/net/src/index.ts', import.meta.url));
const workerSrc = fileURLToPath(new URL('./packages/worker/src/index.ts', import.meta.url));
const echoFilterSrc = fileURLToPath(new URL('./packages/contract/src/echo-filter.ts', import.meta.url));
// The more specific entry first: an alias also matches its key followed by a path.
const alias = { '@persona/contract/echo-filter': echoFilterSrc, '@persona/contract': contractSrc, '@persona/net': netSrc, '@persona/worker': workerSrc };

// The server's integration suite runs on PGlite, and a second time on PostgreSQL when
// TEST_DATABASE_URL is set (see packages/server/src/test/db.ts); tests that touch no
// database run once.
/**
 * Test files run without isolation: the files a worker process runs share one module graph, so
 * the app, Fastify, drizzle and the contract are imported once per process, not once per file
 * (measured on this two-core machine: the whole Vitest run 683 s against 1240 s, most of the
 * difference the 565 s its files spent importing). A file that replaces a module or a global for
 * its own tests (`vi.mock`, `vi.doMock`, `vi.stubGlobal`, `vi.stubEnv`) cannot share a graph, and
 * runs isolated in a project of its own: found here by reading the files, so a new one is placed
 * without a list to keep.
 */
const MOCKING = /\bvi\.(mock|doMock|stubGlobal|stubEnv)\(/;
function mockingFiles(root: string): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'dist') walk(file);
      } else if (entry.name.endsWith('.test.ts') && MOCKING.test(fs.readFileSync(file, 'utf8'))) out.push(path.relative(root, file));
    }
  };
  walk(path.join(root, 'src'));
  return out.sort();
}
const serverMocking = mockingFiles(fileURLToPath(new URL('./packages/server', import.meta.url)));
const workerMocking = mockingFiles(fileURLToPath(new URL('./packages/worker', import.meta.url)));

/** The shared-graph project of a package and, when some of its files mock, their isolated one. */
function withIsolated<P extends { test: { name: string; include: string[]; exclude?: string[] } }>(project: P, mocking: string[]): P[] {
  const shared = { ...project, test: { ...project.test, isolate: false, exclude: [...(project.test.exclude ?? ['**/node_modules/**']), ...mocking] } };
  if (mocking.length === 0) return [shared];
  return [shared, { ...project, test: { ...project.test, name: `${project.test.name}-isolated`, include: mocking, isolate: true } }];
}

const serverProject = (name: string, driver: 'pglite' | 'postgres', exclude: string[] = []) => ({
  resolve: { alias },
  test: {
    name,
    root: './packages/server',
    include: ['src/**/*.test.ts'],
    exclude: ['**/node_modules/**', ...exclude],
    env: { TEST_DB_DRIVER: driver },
    globalSetup: ['./src/test/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks' as const,
  },
});

/**
 * Server test files that open no database (no test app, no repository): run on PGlite only, as
 * running them again on PostgreSQL would test nothing new. A file that starts using the test app
 * or a repository leaves this list.
 */
const NO_DATABASE = [
  'src/main.test.ts',
  'src/platform-speech.test.ts',
  'src/config.test.ts',
  'src/plugins/web-app.test.ts',
  'src/plugins/errors.test.ts',
  'src/plugins/access-log.test.ts',
  'src/plugins/serializer.test.ts',
  'src/plugins/storage.test.ts',
  'src/plugins/revocations.test.ts',
  'src/lib/{s3,secret-box,storage-key}.test.ts',
  'src/test/*.test.ts',
  'src/features/agents/dispatch.test.ts',
  'src/features/auth/session-cache.test.ts',
  'src/features/avatars/model-check.test.ts',
  'src/features/avatars/catalog.test.ts',
  'src/features/workers/hub-order.test.ts',
  'src/features/encryption-keys/avatar-token.test.ts',
  'src/features/functions/python-syntax.test.ts',
  'src/features/knowledge/{linear-parsers,operator-endpoints,pure}.test.ts',
  'src/features/live-sessions/brain-config.test.ts',
];

export default defineConfig({
  test: {
    // Vitest's default is one worker per core less one: a single worker on CI's two cores, which
    // left a core idle while tests waited on servers, timers and PostgreSQL (945 s; 647 s with 2).
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    projects: [
      { resolve: { alias }, test: { name: 'contract', root: './packages/contract', include: ['src/**/*.test.ts'], isolate: false } },
      { resolve: { alias }, test: { name: 'net', root: './packages/net', include: ['src/**/*.test.ts'], testTimeout: 30_000, pool: 'forks' as const, isolate: false } },
      ...withIsolated({ resolve: { alias }, test: { name: 'worker', root: './packages/worker', include: ['src/**/*.test.ts'], testTimeout: 30_000, pool: 'forks' as const } }, workerMocking),
      ...withIsolated(serverProject('server-pglite', 'pglite'), serverMocking),
      ...(process.env.TEST_DATABASE_URL ? withIsolated(serverProject('server-postgres', 'postgres', NO_DATABASE), serverMocking.filter((f) => !NO_DATABASE.includes(f))) : []),
      {
        resolve: { alias },
        // Isolated (the default): the component tests share jsdom's document and stub browser APIs.
        test: {
          name: 'web',
          root: './packages/web',
          include: ['src/**/*.test.{ts,tsx}'],
          environment: 'jsdom',
          // Generous: CI runs every project at once on two cores.
          testTimeout: 20_000,
          setupFiles: ['./src/test/setup.ts'],
        },
      },
    ],
  },
});
