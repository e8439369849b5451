import { defineConfig } from 'vitest/config';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const contractSrc = fileURLToPath(new URL('./packages/contract/src/index.ts', import.meta.url));
const workerSrc = fileURLToPath(new URL('./packages/worker/src/index.ts', import.meta.url));
const alias = { '@persona/contract': contractSrc, '@persona/worker': workerSrc };

// The server's integration suite runs on PGlite, and a second time on PostgreSQL when
// TEST_DATABASE_URL is set (see packages/server/src/test/db.ts); tests that touch no
// database run once.
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

export default defineConfig({
  test: {
    // Vitest's default is one worker per core less one: a single worker on CI's two cores, which
    // left a core idle while tests waited on servers, timers and PostgreSQL (945 s; 647 s with 2).
    maxWorkers: Math.max(2, os.availableParallelism() - 1),
    projects: [
      { resolve: { alias }, test: { name: 'contract', root: './packages/contract', include: ['src/**/*.test.ts'] } },
      { resolve: { alias }, test: { name: 'worker', root: './packages/worker', include: ['src/**/*.test.ts'], testTimeout: 30_000, pool: 'forks' as const } },
      serverProject('server-pglite', 'pglite'),
      ...(process.env.TEST_DATABASE_URL ? [serverProject('server-postgres', 'postgres', ['src/main.test.ts', 'src/config.test.ts', 'src/plugins/web-app.test.ts', 'src/plugins/errors.test.ts'])] : []),
      {
        resolve: { alias },
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
