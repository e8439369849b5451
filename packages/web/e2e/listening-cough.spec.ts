import { expect, test } from '@playwright/test';
import { FACE_ARGS, waitForFrames } from './support/avatar-face';
import { fakeMicArgs, visitorWav } from './support/espeak';
import { longAnswerAvatar, recordWorkerFrames } from './support/talk-over';

/**
 * A cough over the avatar (issue 14), on the built server's embedded worker: a short "hm" while
 * the LLM avatar answers pauses its voice (speech over it), but it is shorter than the avatar's
 * min_interruption_duration and has no words, so the avatar resumes where it stopped and says
 * its answer to the end — nothing is marked interrupted and no new turn reaches the model.
 */
const LAST = 'That is all there is to know about the ferries.';
const ANSWER = [
  'The first ferry leaves at six in the morning from the north quay, and another follows every hour.',
  'On weekends the timetable changes, and the last boat leaves at eleven at night in the summer.',
  'Tickets are sold on board, and bicycles travel for free on every crossing.',
  'In winter storms can close the crossing for a day, and the harbour office posts a notice at the pier.',
  'Dogs are welcome on the open deck, and there is a small cafe on the larger boats.',
  'Cars must be at the pier twenty minutes before the boat leaves, or their place is given away.',
  LAST,
].join(' ');

// The question ends ~5.5 s in and is answered with ~40 s of voice; the cough (~0.3 s of voice)
// comes 20 s after the question — inside the answer even when a loaded machine took ~15 s to
// recognise the question and start speaking.
const wav = visitorWav([3000, 'Hello, when do the ferries leave?', 20_000, { text: 'Hm.', wordsPerMinute: 260 }, 45_000]);

test.use({ launchOptions: { executablePath: '/usr/bin/chromium', args: [...FACE_ARGS, ...fakeMicArgs(wav)] }, trace: 'off' });

test('a cough over the avatar pauses it, and it resumes and finishes its answer', async ({ page }) => {
  test.setTimeout(180_000);
  const { id, llm } = await longAnswerAvatar('cough', () => ANSWER);
  try {
    const frames = recordWorkerFrames(page);
    await page.goto(`/avatar/${id}?autoConnect=true&chatOpen=true`);
    await waitForFrames(page);
    const log = page.getByRole('log', { name: 'Conversation' });
    await expect(page.getByRole('button', { name: 'Turn microphone off' })).toBeVisible({ timeout: 20_000 });
    await expect(log.locator('.ps-user').first()).toBeVisible({ timeout: 40_000 });
    const answer = log.locator('.ps-assistant').filter({ hasText: 'The first ferry leaves at six' }).first();
    await expect(answer).toBeVisible({ timeout: 30_000 });
    const answerFrame = () => frames.find((f) => f.type === 'assistant' && (f.text ?? f.delta ?? '').includes('The first ferry leaves'));
    await expect.poll(() => answerFrame()?.utt, { timeout: 20_000 }).not.toBeUndefined();
    const utt = answerFrame()!.utt!;

    // The cough: paused, then resumed — the same utterance, never interrupted.
    await expect.poll(() => frames.some((f) => f.type === 'pause' && f.utt === utt), { message: 'the cough pauses the avatar', timeout: 40_000 }).toBe(true);
    await expect.poll(() => frames.some((f) => f.type === 'resume' && f.utt === utt), { message: 'and it resumes', timeout: 15_000 }).toBe(true);
    const pausedAt = frames.find((f) => f.type === 'pause' && f.utt === utt)!.at;
    const resumedAt = frames.find((f) => f.type === 'resume' && f.utt === utt)!.at;
    console.log(`cough: paused for ${resumedAt - pausedAt} ms`);
    // Said to its end.
    await expect(answer).toContainText(LAST, { timeout: 60_000 });
    await expect(answer).toHaveAttribute('data-final', 'true', { timeout: 30_000 });
    await expect(answer).not.toHaveAttribute('data-interrupted', 'true');
    // (The answer's: on a loaded machine the greeting can still be playing when the question
    // comes 3 s into the microphone, and the question rightly talks over it.)
    expect(frames.some((f) => f.type === 'interrupted' && f.utt === utt)).toBe(false);
    await expect.poll(() => frames.some((f) => f.type === 'utterance' && f.utt === utt && (f as { phase?: string }).phase === 'end'), { timeout: 30_000 }).toBe(true);
    // The cough was no turn: the model was asked once.
    expect(llm.chatBodies()).toHaveLength(1);
  } finally {
    await llm.close();
  }
});
