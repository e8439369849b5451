import { defineConfig } from 'vitest/config';
import os from 'node:os';
import { fileURLToPath } from 'node:url';

const contractSrc = fileURLToPath(new URL('./packages/contract/src/index.ts', import.meta.url));
const netSrc = fileURLToPath(new URL('./packages/net/src/index.ts', import.meta.url));
const workerSrc = fileURLToPath(new URL('./packages/worker/src/index.ts', import.meta.url));
const alias = { '@persona/contract': contractSrc, '@persona/net': netSrc, '@persona/worker': workerSrc };

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
      { resolve: { alias }, test: { name: 'contract', root: './packages/contract', include: ['src/**/*.test.ts'] } },
      { resolve: { alias }, test: { name: 'net', root: './packages/net', include: ['src/**/*.test.ts'], testTimeout: 30_000, pool: 'forks' as const } },
      { resolve: { alias }, test: { name: 'worker', root: './packages/worker', include: ['src/**/*.test.ts'], testTimeout: 30_000, pool: 'forks' as const } },
      serverProject('server-pglite', 'pglite'),
      ...(process.env.TEST_DATABASE_URL ? [serverProject('server-postgres', 'postgres', NO_DATABASE)] : []),
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
