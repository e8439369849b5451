import { describe, expect, it } from 'vitest';
import type { TWorkerFrame } from '@persona/contract';
import { REOPEN_WINDOW_MS } from '../listening/turns.js';
import { spokenSession } from '../test/spoken-session.js';
import { until } from '../test/until.js';

/**
 * A turn cut short (issue 29, ADR 095, stop 39): the visitor paused after words that already make
 * a sentence, the turn was committed, and they went on before the avatar said anything. The
 * answer to the first part is withdrawn unheard and the brain answers the whole thought once —
 * not the fragment and then the rest. The listener's time is a fake clock; the brain is held so
 * that the visitor goes on while it "thinks".
 */

const finals = (frames: TWorkerFrame[]) => frames.filter((f) => f.type === 'transcript' && f.final).map((f) => ({ text: (f as { text: string }).text, continues: (f as { continues?: boolean }).continues === true }));

/** The visitor says `words`, pausing long enough for the commit of a complete sentence. */
async function sayAndPause(t: ReturnType<typeof spokenSession>, words: string) {
  await t.mic(320, true);
  t.stt.hears(words);
  await t.mic(640, false);
}

describe('a turn continued after its commit (false cut-offs)', () => {
  it('the visitor goes on before the avatar speaks: one turn for the brain, one bubble, nothing of the first answer heard or kept', async () => {
    const t = spokenSession({ held: true });
    await sayAndPause(t, 'I want to cancel my order');
    await until(() => finals(t.frames).length === 1);
    expect(t.calls.at(-1)).toBe('I want to cancel my order');
    // They go on ("… because it arrived broken") while the brain is still at work.
    await t.mic(320, true);
    expect(t.c.continuedTurns.count).toBe(1);
    await until(() => t.aborted.includes('I want to cancel my order'));
    t.stt.hears('because it arrived broken');
    t.release();
    await t.mic(640, false);
    await until(() => t.frames.some((f) => f.type === 'assistant' && f.final && (f as { text: string }).text !== ''));
    expect(finals(t.frames)).toEqual([
      { text: 'I want to cancel my order', continues: false },
      { text: 'I want to cancel my order because it arrived broken', continues: true },
    ]);
    expect(t.calls.at(-1)).toBe('I want to cancel my order because it arrived broken');
    // The withdrawn answer: never a word of it (had its text gone out, held for its voice, an empty final would take it away).
    const shown = t.frames.filter((f) => f.type === 'assistant').map((f) => (f as { text?: string; delta?: string }).text ?? (f as { delta: string }).delta);
    expect(shown.join('|')).not.toContain('Answer to I want to cancel my order.');
    const final = t.frames.filter((f) => f.type === 'assistant' && f.final).map((f) => (f as { text: string }).text);
    expect(final).toEqual(['Answer to I want to cancel my order because it arrived broken.']);
    await until(() => t.audio() > 0);
    await until(() => t.histories.length > 0);
    expect(t.histories.at(-1)!.map((h) => `${h.role}: ${h.text}`)).toEqual(['user: I want to cancel my order because it arrived broken', 'assistant: Answer to I want to cancel my order because it arrived broken.']);
    await t.c.finish('hang-up');
  });

  it('a sound without words after the commit: the same words are committed again, the answer is only late', async () => {
    const t = spokenSession({ held: true });
    await sayAndPause(t, 'What time do you open?');
    await until(() => finals(t.frames).length === 1);
    // A cough: speech to the VAD, no words to the recogniser.
    await t.mic(192, true);
    t.stt.hears('', '');
    t.release();
    await t.mic(960, false);
    await until(() => t.frames.some((f) => f.type === 'assistant' && f.final && (f as { text: string }).text !== ''));
    expect(finals(t.frames)).toEqual([
      { text: 'What time do you open?', continues: false },
      { text: 'What time do you open?', continues: true },
    ]);
    expect(t.c.continuedTurns.count).toBe(1);
    await until(() => t.histories.length > 0);
    expect(t.histories.at(-1)!.map((h) => h.text)).toEqual(['What time do you open?', 'Answer to What time do you open?.']);
    await t.c.finish('hang-up');
  });

  it('once: a continued turn is not reopened again (its answer is not restarted twice)', async () => {
    const t = spokenSession({ held: true });
    await sayAndPause(t, 'I want to cancel my order');
    await until(() => finals(t.frames).length === 1);
    await t.mic(320, true);
    t.stt.hears('from last week');
    await t.mic(640, false);
    await until(() => finals(t.frames).length === 2);
    // Speech again soon after the continued commit: a turn of its own, the answer not withdrawn.
    await t.mic(320, true);
    t.stt.hears('thanks');
    t.release();
    await t.mic(640, false);
    await until(() => finals(t.frames).length === 3);
    expect(t.c.continuedTurns.count).toBe(1);
    expect(finals(t.frames).map((f) => f.continues)).toEqual([false, true, false]);
    expect(t.aborted).toEqual(['I want to cancel my order']);
    await t.c.finish('hang-up');
  });

  it('once the answer has a voice, speech over it is an interruption as before, not a continuation', async () => {
    const t = spokenSession();
    await sayAndPause(t, 'Tell me about the harbour');
    await until(() => t.audio() > 0);
    await t.mic(320, true);
    expect(t.c.continuedTurns.count).toBe(0);
    await t.c.finish('hang-up');
  });

  it('with the speaker off, an answer whose text the page already shows stands', async () => {
    // Its first words are out (shown), the rest still coming.
    const t = spokenSession({ held: 'between', speakerOn: false });
    await sayAndPause(t, 'Where is the museum?');
    await until(() => t.frames.some((f) => f.type === 'assistant' && (f as { delta?: string }).delta));
    await t.mic(320, true);
    expect(t.c.continuedTurns.count).toBe(0);
    t.release();
    await until(() => t.frames.some((f) => f.type === 'assistant' && f.final));
    expect(t.aborted).toEqual([]);
    await t.c.finish('hang-up');
  });

  it('speech after the window is a new turn of its own, queued behind the answer', async () => {
    const t = spokenSession({ held: true });
    await sayAndPause(t, 'Where is the museum?');
    await until(() => finals(t.frames).length === 1);
    await t.mic(REOPEN_WINDOW_MS + 100, false);
    await sayAndPause(t, 'And the harbour?');
    t.release();
    await until(() => finals(t.frames).length === 2);
    expect(t.c.continuedTurns.count).toBe(0);
    expect(finals(t.frames).map((f) => f.continues)).toEqual([false, false]);
    await until(() => t.calls.includes('And the harbour?'));
    expect(t.calls.filter((c) => c === 'Where is the museum?').length).toBeGreaterThanOrEqual(1);
    expect(t.aborted).toEqual([]);
    await t.c.finish('hang-up');
  });

  it('brains whose request cannot be taken back (an own REST endpoint, an Assistant): the first turn stands', async () => {
    for (const opts of [{ kind: 'rest' }, { kind: 'assistant' }]) {
      const t = spokenSession({ ...opts, held: true });
      await sayAndPause(t, 'Book a table for two');
      await until(() => finals(t.frames).length === 1);
      await t.mic(320, true);
      expect(t.c.continuedTurns.count).toBe(0);
      t.stt.hears('at eight');
      t.release();
      await t.mic(640, false);
      await until(() => finals(t.frames).length === 2);
      expect(finals(t.frames)).toEqual([
        { text: 'Book a table for two', continues: false },
        { text: 'at eight', continues: false },
      ]);
      expect(t.aborted).toEqual([]);
      await t.c.finish('hang-up');
    }
  });
});
