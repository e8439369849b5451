import { expect, test } from '@playwright/test';
import { apiLogin, baseUrl, createVerifiedAccount } from './support/accounts';
import { FACE_ARGS, readProbe, waitForFrames } from './support/avatar-face';
import { WIDTHS } from './support/screenshots';
import { fakeMicArgs, visitorWav } from './support/espeak';

/**
 * A speech-to-speech avatar end to end (issue 15): the built server's embedded worker connects the
 * avatar to an OpenAI Realtime model (global-setup's fake on 127.0.0.1, with its own server VAD),
 * Chromium's fake microphone plays the visitor — silence while the greeting plays, a question,
 * then, while the avatar is still answering, "wait, stop". The avatar must answer aloud with
 * moving lips, and stop when talked over: its answer ends where it was cut, marked interrupted.
 */

// Made before the browser starts (its flags name the file). The fake model answers a spoken turn
// with ~9 s of voice, starting ~0.5 s after the question ends: "wait, stop" lands ~3 s into it.
// 9 s of silence first: a clean-clone CI run on a loaded machine took more than 5 s from the
// microphone's start to the greeting's end, and the question talked over it.
const wav = visitorWav([9000, 'Hello there, tell me about the harbour please.', 3500, 'Wait, stop, stop.', 4000]);

test.use({ launchOptions: { executablePath: '/usr/bin/chromium', args: [...FACE_ARGS, ...fakeMicArgs(wav)] }, trace: 'off' });

test('a speech-to-speech avatar hears the visitor, answers aloud with moving lips, and stops when talked over', async ({ page }) => {
  test.setTimeout(120_000);
  const account = await createVerifiedAccount('s2s');
  const session = await apiLogin(account.email, account.password);
  const { appKey } = (await (await fetch(`${baseUrl()}/api/config`)).json()) as { appKey: string };
  const avatar = {
    name: 'Harbour Voice',
    nlpEngine: 9,
    dhType: 2,
    setupMode: 2,
    wakeUpMessage: 'Ahoy! Ask me about the harbour.',
    dailyLimitPerSession: -1,
    dailyLimitPerIP: -1,
    dailyLimits: { Demo: -1 },
    idleTimeout: 300,
    customData: {
      agent_pipeline_config: {
        speech_to_speech: { url: process.env.E2E_REALTIME_URL, api_key: process.env.E2E_REALTIME_KEY, model: 'gpt-realtime', voice_id: 'verse', instructions: 'You are the harbour guide.', greeting: '' },
      },
    },
    avatarJson: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json' }),
  };
  // A new avatar starts in echo-back (spec): the brain is set by saving it again, as the editor does.
  const save = async (json: Record<string, unknown>) => {
    const form = new FormData();
    form.set('json', JSON.stringify(json));
    const response = await fetch(`${baseUrl()}/api/add_avatar_v2`, { method: 'POST', headers: { authorization: `Bearer ${appKey}:${session}` }, body: form });
    const saved = (await response.json()) as { agent?: { id: number; version: number; nlpEngine: number } };
    expect(response.status, JSON.stringify(saved)).toBe(200);
    return saved.agent!;
  };
  const created = await save(avatar);
  expect((await save({ ...avatar, id: created.id, version: created.version })).nlpEngine).toBe(9);

  await page.goto(`/avatar/${created.id}?autoConnect=true&chatOpen=true`);
  await waitForFrames(page);
  // Meter what is heard from now on (the page's own level of the avatar's voice).
  await page.evaluate(() => (window as unknown as { __personaAvatar?: { probe?: () => void } }).__personaAvatar?.probe?.());
  const log = page.getByRole('log', { name: 'Conversation' });
  await expect(log).toContainText('Ahoy! Ask me about the harbour.', { timeout: 30_000 });
  await expect(page.getByRole('button', { name: 'Turn microphone off' })).toBeVisible();

  // The visitor's question, transcribed by the model, then its spoken answer.
  await expect(log.locator('.ps-user').first()).toContainText('Tell me about the harbour', { timeout: 30_000 });
  const answer = log.locator('.ps-assistant').filter({ hasText: 'The harbour was dug' }).first();
  await expect(answer).toBeVisible({ timeout: 15_000 });
  // Transcribed after the answer began, the question is still shown above it.
  await expect(async () => {
    const order = await log.locator('.ps-msg').allTextContents();
    const asked = order.findIndex((t) => t.includes('Tell me about the harbour'));
    expect(asked).toBeGreaterThanOrEqual(0);
    expect(asked).toBeLessThan(order.findIndex((t) => t.includes('The harbour was dug')));
  }).toPass({ timeout: 10_000 });
  // Heard (the page's level of the voice it plays) with the mouth moving: open, and closing between sounds.
  await expect
    .poll(async () => (await readProbe(page))!.levels.filter((l) => l.rms > 0.01).length, { message: 'the answer is heard', timeout: 15_000 })
    .toBeGreaterThan(10);
  await expect
    .poll(
      async () => {
        const open = (await readProbe(page))!.history.filter((h) => h.utt !== null && h.ms !== null).map((h) => h.open);
        return open.length > 10 ? Math.max(...open) - Math.min(...open) : 0;
      },
      { message: 'the mouth moves with the answer', timeout: 15_000 },
    )
    .toBeGreaterThan(0.15);
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width > 760 ? 800 : 844 });
    await page.screenshot({ path: test.info().outputPath(`live-realtime-${width}.png`) });
  }

  // "Wait, stop": the answer stops where the visitor cut it, marked interrupted, without its end.
  await expect(answer).toHaveAttribute('data-interrupted', 'true', { timeout: 20_000 });
  await expect(answer).not.toContainText('every single night of the year');
});
