import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test, type Page } from '@playwright/test';
import { startFakeLive } from './support/fake-live-server.mjs';

// Listening in the avatar page (issue 14), against a fake portal and worker that speak the real
// protocol: Chromium's fake microphone plays a WAV made here with espeak-ng; the page must stream
// it as 16 kHz PCM16 in 20 ms mic frames, show the level and the transcript, and the avatar answer.
// Without a microphone permission the page must say so. Screenshots of both states.

const here = path.dirname(fileURLToPath(import.meta.url));
const shots = path.join(here, 'screenshots');
const wav = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'persona-mic-')), 'visitor.wav');
// Made before the browser starts (its flags name the file).
execFileSync('espeak-ng', ['-v', 'en-us', '-s', '150', '-w', wav, 'Hello avatar, can you hear me? What is the weather like today?']);

const BASE_ARGS = ['--no-sandbox', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--autoplay-policy=no-user-gesture-required'];

type Server = Awaited<ReturnType<typeof startFakeLive>>;
let server: Server;

test.beforeAll(async () => {
  server = await startFakeLive({ avatars: { 1: { name: 'Maya', dhType: 1, avatarConfigUrl: null } }, listening: true, ui: { transcriptionStreaming: true } });
});
test.afterAll(async () => {
  await server.close();
});

async function shoot(page: Page, name: string) {
  fs.mkdirSync(shots, { recursive: true });
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: width > 760 ? 800 : 844 });
    await page.waitForTimeout(150);
    await page.screenshot({ path: path.join(shots, `${name}-${width}.png`) });
  }
}

test.use({ launchOptions: { executablePath: '/usr/bin/chromium', args: [...BASE_ARGS, '--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-audio-capture=${wav}%noloop`] }, trace: 'off' });
test.describe.configure({ mode: 'serial' });

test.describe('with a microphone', () => {
  test('streams the visitor’s speech as 20 ms 16 kHz mic frames, shows the level and the transcript, and the avatar answers', async ({ page }) => {
    server.mic.length = 0;
    await page.goto(`${server.url}/avatar/1?autoConnect=true&chatOpen=true`);
    const micButton = page.getByRole('button', { name: 'Turn microphone off' });
    await expect(micButton).toBeVisible();
    await expect(page.getByRole('meter', { name: 'Microphone level' })).toBeVisible();
    // The speech: interim, then the final transcript once the visitor stops.
    const log = page.getByRole('log', { name: 'Conversation' });
    await expect(log.locator('[data-interim="true"] .ps-msg-text')).toHaveText('hello avatar', { timeout: 15_000 });
    await shoot(page, 'listening-interim');
    await expect(log).toContainText(/Hello avatar \(\d\.\d s of speech\)\./, { timeout: 15_000 });
    await expect(log.locator('.ps-assistant')).toContainText('Hello there, friend.', { timeout: 10_000 });

    // The WAV has a pause mid-sentence: the final can come before the speech ends. Wait for the
    // silence after it (the fake microphone plays the file once, then silence).
    await expect.poll(() => server.mic.filter((f) => f.kind === 1).at(-1)?.rms ?? Infinity, { timeout: 15_000 }).toBeLessThan(300);
    const frames = server.mic.filter((f) => f.kind === 1);
    expect(frames.length).toBeGreaterThan(100);
    expect(frames.every((f) => f.samples === 320 && f.flags === 0)).toBe(true);
    // In order, none lost on loopback.
    expect(frames.map((f) => f.seq)).toEqual(frames.map((_, i) => frames[0]!.seq + i));
    // 20 ms each: the frames arrive at 50 per second (give or take the worklet's batching). The
    // first second is left out: what was captured while the socket opened arrives in a burst.
    const steady = frames.filter((f) => f.at >= frames[0]!.at + 1000);
    const span = (steady.at(-1)!.at - steady[0]!.at) / 1000;
    const rate = (steady.length - 1) / span;
    expect(rate).toBeGreaterThan(44);
    expect(rate).toBeLessThan(56);
    // The WAV's speech is there: loud frames, and the silence after it is quiet.
    const loud = frames.filter((f) => f.rms > 300).length;
    expect(loud * 0.02).toBeGreaterThan(1.5);
    expect(frames.at(-1)!.rms).toBeLessThan(300);
    console.log(`mic frames: ${frames.length}, ${rate.toFixed(1)}/s, speech ${(loud * 0.02).toFixed(2)} s, peak rms ${Math.max(...frames.map((f) => f.rms)).toFixed(0)}`);
    await shoot(page, 'listening-answered');

    // Mic off: no more frames, the meter goes.
    await micButton.click();
    await expect(page.getByRole('button', { name: 'Turn microphone on' })).toHaveAttribute('aria-pressed', 'false');
    await expect(page.getByRole('meter')).toBeHidden();
    const count = server.mic.length;
    await page.waitForTimeout(400);
    expect(server.mic.length).toBe(count);
    expect(server.micSwitches).toContain(false);
  });
});

test.describe('when the microphone cannot be used', () => {
  // Its own browser without the fake-ui flag: the permission prompt is answered "block"
  // (Playwright grants nothing).
  test('explains in the page that the microphone is blocked; typing still works', async ({ playwright }) => {
    const browser = await playwright.chromium.launch({ executablePath: '/usr/bin/chromium', args: [...BASE_ARGS, '--use-fake-device-for-media-stream'] });
    const page = await browser.newPage();
    await page.goto(`${server.url}/avatar/1?autoConnect=true&chatOpen=true`);
    const note = page.getByRole('alert').filter({ hasText: 'Microphone access is blocked' });
    await expect(note).toBeVisible({ timeout: 15_000 });
    await expect(page.getByRole('button', { name: 'Turn microphone on' })).toHaveAttribute('aria-pressed', 'false');
    await expect(page.getByLabel('Message')).toBeEnabled();
    await shoot(page, 'listening-denied');
    await browser.close();
  });

  // Permission granted but no capture device at all (no fake device; this machine has none).
  test('says when there is no microphone', async ({ playwright }) => {
    const browser = await playwright.chromium.launch({ executablePath: '/usr/bin/chromium', args: [...BASE_ARGS, '--use-fake-ui-for-media-stream'] });
    const page = await browser.newPage();
    await page.goto(`${server.url}/avatar/1?autoConnect=true&chatOpen=true`);
    const note = page.getByRole('alert').filter({ hasText: 'No microphone was found.' });
    await expect(note).toBeVisible({ timeout: 15_000 });
    await browser.close();
  });
});
