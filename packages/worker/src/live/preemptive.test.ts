import { describe, expect, it } from 'vitest';
import { spokenSession as setup } from '../test/spoken-session.js';
import { until } from '../test/until.js';

/**
 * Preemptive generation (issue 29, ADR 095): the brain starts on a stable, complete-looking
 * interim transcript; the commit uses that answer when its words are the same and discards it
 * otherwise, before anything of it is spoken, shown or remembered; one per turn. The listener's
 * time is a fake clock: no sleeps decide anything.
 */

describe('preemptive generation (issue 29)', () => {
  it('uses the early answer when the committed words are the same: one brain call', async () => {
    const t = setup();
    await t.mic(320, true);
    t.stt.hears('Is there a guided tour today', 'is there a guided tour today?');
    await t.mic(128, false);
    // Started on the stable interim words, before the commit: nothing of it out yet.
    expect(t.calls).toEqual(['Is there a guided tour today']);
    expect(t.c.earlyAnswers.started).toBe(1);
    expect(t.answers()).toEqual([]);
    expect(t.audio()).toBe(0);
    await t.mic(320, false);
    await until(() => t.frames.some((f) => f.type === 'assistant' && f.final));
    expect(t.calls).toHaveLength(1);
    expect(t.c.earlyAnswers).toEqual({ started: 1, used: 1, discarded: 0 });
    expect(t.answers().at(-1)).toBe('Answer to Is there a guided tour today.');
    await until(() => t.audio() > 0);
    await t.c.finish('hang-up');
  });

  it('discards the early answer when the committed words differ: nothing of it spoken, shown or remembered', async () => {
    const t = setup();
    await t.mic(320, true);
    t.stt.hears('is there a guide at tour', 'is there a guided tour');
    await t.mic(128, false);
    expect(t.calls).toEqual(['is there a guide at tour']);
    await t.mic(320, false);
    await until(() => t.frames.some((f) => f.type === 'assistant' && f.final));
    expect(t.calls).toEqual(['is there a guide at tour', 'is there a guided tour']);
    expect(t.c.earlyAnswers).toEqual({ started: 1, used: 0, discarded: 1 });
    const shown = t.answers().join(' ');
    expect(shown).toContain('Answer to is there a guided tour');
    expect(shown).not.toContain('guide at tour');
    await until(() => t.histories.length > 0);
    const history = t.histories.at(-1)!.map((h) => h.text).join(' | ');
    expect(history).toBe('is there a guided tour | Answer to is there a guided tour.');
    await t.c.finish('hang-up');
  });

  it('one early run per turn: the visitor going on discards it, and the next pause starts none', async () => {
    const t = setup();
    await t.mic(320, true);
    t.stt.hears('can you help me');
    await t.mic(128, false);
    expect(t.c.earlyAnswers.started).toBe(1);
    // The visitor goes on: the early answer is discarded at once.
    await t.mic(320, true);
    expect(t.c.earlyAnswers.discarded).toBe(1);
    t.stt.hears('can you help me find a product');
    await t.mic(128, false);
    expect(t.c.earlyAnswers.started).toBe(1);
    await t.mic(320, false);
    await until(() => t.frames.some((f) => f.type === 'assistant' && f.final));
    expect(t.calls).toEqual(['can you help me', 'can you help me find a product']);
    expect(t.answers().join(' ')).not.toContain('Answer to can you help me.');
    // The next turn may have its own (once the page has played the answer).
    await until(() => t.frames.filter((f) => f.type === 'state' && (f as { state: string }).state === 'listening').length >= 2);
    const utt = (t.frames.find((f) => f.type === 'assistant' && f.final) as { utt: number }).utt;
    t.c.onMessage(JSON.stringify({ type: 'playback', utt, state: 'ended', playedMs: 0 }));
    await t.mic(320, true);
    t.stt.hears('what time do you open');
    await t.mic(128, false);
    expect(t.c.earlyAnswers.started).toBe(2);
    await t.c.finish('hang-up');
  });

  it('never for brains a discarded call would cost or change: functions, other kinds', async () => {
    for (const t of [setup({ functions: true }), setup({ kind: 'rest' })]) {
      await t.mic(320, true);
      t.stt.hears('what time do you open');
      await t.mic(128, false);
      expect(t.calls).toEqual([]);
      await t.mic(320, false);
      await until(() => t.frames.some((f) => f.type === 'assistant' && f.final));
      expect(t.calls).toEqual(['what time do you open']);
      expect(t.c.earlyAnswers.started).toBe(0);
      await t.c.finish('hang-up');
    }
  });
});
