import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { defineConfig } from '@playwright/test';

/**
 * A port that is free now, asked of the OS (a random pick could land on another run's server on
 * this shared machine, and the health check would then be answered by that server).
 */
const freePort = () =>
  execFileSync(process.execPath, ['-e', "const s = require('net').createServer().listen(0, '127.0.0.1', () => { process.stdout.write(String(s.address().port)); s.close(); })"], {
    encoding: 'utf8',
  }).trim();

// One server for the whole run (started by global-setup.ts). The port is chosen here so that
// the runner and its workers (which inherit the environment) agree on the base URL.
const port = (process.env.E2E_PORT ??= freePort());

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  outputDir: './test-results',
  globalSetup: './global-setup.ts',
  timeout: 45_000,
  expect: { timeout: 10_000 },
  fullyParallel: true,
  // One browser per core, at most 3: with 3 workers on this 2-core machine (plus the server) every
  // step of a long story test took seconds and one hit the 45 s limit (ERR_ABORTED on reload).
  workers: Number(process.env.E2E_WORKERS) || Math.max(1, Math.min(3, os.availableParallelism())),
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    viewport: { width: 1280, height: 800 },
    // Traces cost a screencast of every frame (a third of a 3D page's frame rate here), and CI
    // keeps only the printed output: recorded when asked for (E2E_TRACE=1).
    trace: process.env.E2E_TRACE ? 'retain-on-failure' : 'off',
    // The portal's stories do not measure the avatar's idle life: with reduced motion a silent 3D
    // avatar is drawn a few times a second instead of taking a whole core of a software WebGL
    // (avatar-face.spec.ts tests full motion, and that reduced motion keeps speech at full rate).
    reducedMotion: 'reduce',
    screenshot: 'only-on-failure',
    launchOptions: {
      // Debian's chromium: never a downloaded browser.
      executablePath: '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
  projects: [{ name: 'chromium', use: { browserName: 'chromium' } }],
});
