import { expect, test } from '@playwright/test';
import { FACE_ARGS, waitForFrames } from './support/avatar-face';
import { longAnswerAvatar, recordWorkerFrames } from './support/talk-over';

/**
 * A filler in the browser (issue 29, ADR 100), on the built server's embedded worker with the
 * offline voice: an LLM avatar with fillers on whose model takes 3 s before its first word. The
 * visitor types a question; 1.5 s into the turn the page plays "Let me check that." in the avatar's
 * voice (an utterance of its own, not in the chat), then the answer as the next utterance.
 */
test.use({ launchOptions: { executablePath: '/usr/bin/chromium', args: FACE_ARGS }, trace: 'off' });

test('a slow model: the avatar says its filler, then the answer; the chat shows only the answer', async ({ page }) => {
  test.setTimeout(180_000);
  const ANSWER = 'The ferry leaves at six from the north quay.';
  const { id, llm } = await longAnswerAvatar('filler', (turn) => (turn === 0 ? ANSWER : 'Of course.'), {
    firstTokenDelayMs: 3000,
    pipeline: { fillers: { enabled: true, phrases: ['Let me check that.'] } },
  });
  const frames = recordWorkerFrames(page);
  // What the page reports it played (its `playback` frames to the worker).
  const played: { utt: number; playedMs: number; state: string }[] = [];
  page.on('websocket', (ws) => {
    if (!ws.url().includes('/avatar-ws')) return;
    ws.on('framesent', ({ payload }) => {
      if (typeof payload !== 'string' || !payload.includes('"playback"')) return;
      played.push(JSON.parse(payload) as { utt: number; playedMs: number; state: string });
    });
  });
  try {
    await page.goto(`/avatar/${id}?autoConnect=true&chatOpen=true`);
    await waitForFrames(page);
    const log = page.getByRole('log', { name: 'Conversation' });
    // The greeting first (it is said without a wait: no filler).
    await expect(log.locator('.ps-assistant').filter({ hasText: 'Hi.' })).toBeVisible({ timeout: 30_000 });
    await expect.poll(() => frames.filter((f) => f.type === 'utterance').length, { timeout: 30_000 }).toBeGreaterThanOrEqual(2);
    const sentAt = Date.now();
    await page.getByLabel('Message').fill('When does the ferry leave?');
    await page.getByRole('button', { name: 'Send' }).click();

    const answer = log.locator('.ps-assistant').filter({ hasText: ANSWER });
    await expect(answer).toBeVisible({ timeout: 30_000 });
    await expect(answer).toHaveAttribute('data-final', 'true', { timeout: 30_000 });
    const answerUtt = frames.find((f) => f.type === 'assistant' && (f.text ?? f.delta ?? '').includes('The ferry leaves'))!.utt!;
    // An utterance with no text of its own started between the question and the answer's voice.
    const starts = frames.filter((f) => f.type === 'utterance' && (f as { phase?: string }).phase === 'start' && f.at >= sentAt);
    const texts = new Set(frames.filter((f) => f.type === 'assistant').map((f) => f.utt));
    const filler = starts.find((f) => !texts.has(f.utt));
    expect(filler, 'the filler utterance').toBeDefined();
    const answerStart = starts.find((f) => f.utt === answerUtt);
    expect(answerStart).toBeDefined();
    expect(filler!.at).toBeLessThan(answerStart!.at);
    // 1.5 s into the turn (plus the page → worker hop and the voice's first audio), before the model's 3 s.
    expect(filler!.at - sentAt).toBeGreaterThanOrEqual(1400);
    expect(filler!.at - sentAt).toBeLessThan(3000);
    console.log(`filler: its voice ${filler!.at - sentAt} ms after the question was sent, the answer's ${answerStart!.at - sentAt} ms after`);
    // The page played it to its end (about a second of voice), then the answer.
    await expect.poll(() => played.some((p) => p.utt === filler!.utt && p.state === 'ended' && p.playedMs > 500), { message: 'the filler heard', timeout: 20_000 }).toBe(true);
    await expect.poll(() => played.some((p) => p.utt === answerUtt && p.state === 'ended'), { message: 'the answer heard', timeout: 30_000 }).toBe(true);
    // Not in the chat, and not what the model is told next.
    await expect(log).not.toContainText('Let me check that');
    await page.getByLabel('Message').fill('Thanks');
    await page.getByRole('button', { name: 'Send' }).click();
    await expect.poll(() => llm.chatBodies().length, { timeout: 30_000 }).toBe(2);
    expect(JSON.stringify(llm.chatBodies()[1])).not.toContain('Let me check that');
    await page.screenshot({ path: test.info().outputPath('avatar-filler-live-1280.png') });
  } finally {
    await llm.close();
  }
});
