import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import fs from 'node:fs';
import { importX } from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

// The import rules of docs/ARCHITECTURE.md as lint rules (ADR 045).
const featuresOf = (dir) => fs.readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);
/** A feature folder imports no other feature; `allowed` lists the exceptions the architecture names. */
const featureZones = (root, allowed = {}) =>
  featuresOf(root).map((feature) => ({
    target: `${root}/${feature}`,
    from: root,
    except: [`./${feature}`, ...(allowed[feature] ?? [])],
    message: 'Features do not import each other: move what both need to contract, lib or components (docs/ARCHITECTURE.md).',
  }));
/**
 * The worker's floors, bottom up: core (errors, shared types, PCM and visemes) with config.ts (the only reader of
 * process.env) beside it; providers; brains, listening, speech and sandbox, side by side and none
 * importing another; live; main.ts and index.ts on top. The worker link (agent.ts) stands on core;
 * live starts it. A folder imports its own files and the floors below it (docs/ARCHITECTURE.md).
 */
const workerSrc = './packages/worker/src';
const workerFloor = (folders, below, message) =>
  folders.map((folder) => ({ target: `${workerSrc}/${folder}`, from: workerSrc, except: [`./${folder}`, ...below], message }));
const workerBottom = ['./core', './config.ts'];
const workerFloorZones = [
  ...workerFloor(['core', 'config.ts'], [], 'core and config.ts are the bottom of the worker: they import none of its files (docs/ARCHITECTURE.md).'),
  ...workerFloor(['agent.ts'], workerBottom, 'The worker link (agent.ts) imports only core and config.ts: live starts it, not the other way (docs/ARCHITECTURE.md).'),
  ...workerFloor(
    ['providers'],
    workerBottom,
    "Providers import only core and config.ts: move what a provider shares with the floors above down to core or the provider's own types (docs/ARCHITECTURE.md).",
  ),
  ...workerFloor(
    ['brains', 'listening', 'speech'],
    [...workerBottom, './providers'],
    'brains, listening and speech import providers, core and config.ts only: not each other, the sandbox or live (docs/ARCHITECTURE.md).',
  ),
  ...workerFloor(['sandbox'], workerBottom, 'The sandbox imports core and config.ts only (docs/ARCHITECTURE.md).'),
  {
    target: `${workerSrc}/live`,
    from: [`${workerSrc}/main.ts`, `${workerSrc}/index.ts`],
    message: 'live is below the entry points: it does not import main.ts or index.ts (docs/ARCHITECTURE.md).',
  },
];
const architectureZones = [
  ...featureZones('./packages/server/src/features', { users: ['./auth/repository.ts'] }),
  ...featureZones('./packages/web/src/features'),
  {
    target: './packages/server/src/features',
    from: ['./packages/server/src/app.ts', './packages/server/src/main.ts', './packages/server/src/cli'],
    message: 'Features are wired by app.ts; they do not import it, main.ts or the CLI.',
  },
  {
    target: ['./packages/server/src/plugins', './packages/server/src/lib', './packages/server/src/db'],
    from: ['./packages/server/src/features', './packages/server/src/app.ts', './packages/server/src/main.ts', './packages/server/src/cli'],
    message: 'plugins, lib and db are below the features: they do not import them (docs/ARCHITECTURE.md).',
  },
  {
    target: ['./packages/web/src/lib', './packages/web/src/components'],
    from: ['./packages/web/src/features', './packages/web/src/app'],
    message: 'lib and components are below the features: they do not import them (docs/ARCHITECTURE.md).',
  },
  {
    target: './packages/web/src/live-client',
    from: ['./packages/web/src/features', './packages/web/src/app', './packages/web/src/components'],
    message: 'The avatar page and chat widget run without React: live-client imports only the contract (docs/ARCHITECTURE.md).',
  },
  ...workerFloorZones,
  // Between packages: the contract is shared; nobody imports the server or the web app's sources.
  { target: './packages/contract', from: ['./packages/net', './packages/server', './packages/worker', './packages/web'], message: 'contract imports only zod.' },
  {
    target: './packages/net/src',
    from: ['./packages/contract', './packages/server', './packages/worker', './packages/web'],
    message: 'net (the outbound-network rules) imports node and ws only: the server and the worker import it, not the other way (docs/ARCHITECTURE.md).',
  },
  { target: ['./packages/worker/src', './packages/web'], from: './packages/server', message: 'Only the server imports the server.' },
  { target: ['./packages/server/src', './packages/worker/src'], from: './packages/web', message: 'Only the web app imports the web app.' },
];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/migrations/**', 'data/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node } },
    plugins: { 'import-x': importX },
    settings: {
      // What import-x needs to read TypeScript files (the plugin's own typescript preset, less its resolver).
      'import-x/extensions': importX.flatConfigs.typescript.settings['import-x/extensions'],
      'import-x/external-module-folders': importX.flatConfigs.typescript.settings['import-x/external-module-folders'],
      'import-x/parsers': importX.flatConfigs.typescript.settings['import-x/parsers'],
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: ['packages/*/tsconfig.json', 'tsconfig.check.json'], noWarnOnMultipleProjects: true })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: architectureZones }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    files: ['packages/web/src/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      'react-hooks/rules-of-hooks': 'error',
      'react-hooks/exhaustive-deps': 'warn',
    },
  },
  {
    // contract imports only zod (and its own files).
    files: ['packages/contract/src/**/*.ts'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: [{ regex: '^(?!zod(/[a-z-]+)?$|\\.{1,2}/)', message: 'contract imports only zod (docs/ARCHITECTURE.md).' }] }],
    },
  },
  {
    // Tests set up through other features and build the whole app (an integration test of
    // encryption keys signs a user in through auth; sandbox tests run the server's function
    // templates): only the contract's rule holds for them. The test harnesses and fakes
    // (src/test, e2e) may import anything (docs/ARCHITECTURE.md).
    files: ['**/*.test.ts', '**/*.test.tsx'],
    rules: { 'import-x/no-restricted-paths': ['error', { zones: architectureZones.filter((z) => z.target === './packages/contract') }] },
  },
  {
    files: ['packages/*/src/test/**', 'packages/web/e2e/**'],
    rules: { 'import-x/no-restricted-paths': 'off' },
  },
  {
    files: ['packages/server/src/**/*.ts', 'packages/contract/src/**/*.ts', 'packages/net/src/**/*.ts', 'packages/worker/src/**/*.{ts,mjs}'],
    ignores: ['**/config.ts', '**/*.test.ts', '**/test/**'],
    rules: {
      'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'Read configuration through config.ts only.' }],
    },
  },
);
