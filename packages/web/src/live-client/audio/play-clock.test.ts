import { describe, expect, it } from 'vitest';
import { PlayClock } from './play-clock';

describe('PlayClock', () => {
  it('tells how far into an utterance the listener is, between and a little past the reports', () => {
    const clock = new PlayClock(16_000);
    clock.report({ type: 'start', utt: 4, frame: 1000 });
    clock.report({ type: 'pos', utt: 4, played: 384, frame: 1384 });
    expect(clock.positionAt(900)).toBeNull();
    expect(clock.positionAt(1100)).toEqual({ utt: 4, samples: 100 });
    expect(clock.positionAt(1384 + 200)).toEqual({ utt: 4, samples: 584 });
    // Never further than 60 ms past the last report.
    expect(clock.positionAt(1384 + 5000)!.samples).toBe(384 + 960);
  });

  it('stands still through an underrun (the reports say no samples were written)', () => {
    const clock = new PlayClock(16_000);
    clock.report({ type: 'start', utt: 1, frame: 0 });
    clock.report({ type: 'pos', utt: 1, played: 384, frame: 384 });
    clock.report({ type: 'pos', utt: 1, played: 384, frame: 768 });
    clock.report({ type: 'pos', utt: 1, played: 500, frame: 1152 });
    expect(clock.positionAt(600)!.samples).toBe(384);
    expect(clock.positionAt(800)!.samples).toBe(384 + 32);
  });

  it('hands out starts and ends when they are heard, not when they were written', () => {
    const clock = new PlayClock(16_000);
    clock.report({ type: 'start', utt: 1, frame: 100 });
    clock.report({ type: 'end', utt: 1, frame: 900, played: 800, interrupted: false });
    clock.report({ type: 'start', utt: 2, frame: 900 });
    expect(clock.due(50)).toEqual([]);
    expect(clock.due(500)).toEqual([{ type: 'start', utt: 1 }]);
    expect(clock.positionAt(950)).toEqual({ utt: 2, samples: 50 });
    expect(clock.due(1000)).toEqual([
      { type: 'end', utt: 1, played: 800, interrupted: false },
      { type: 'start', utt: 2 },
    ]);
    expect(clock.due(2000)).toEqual([]);
  });

  it('an ended utterance is no longer heard', () => {
    const clock = new PlayClock(16_000);
    clock.report({ type: 'start', utt: 1, frame: 0 });
    clock.report({ type: 'end', utt: 1, frame: 300, played: 300, interrupted: true });
    expect(clock.positionAt(299)).toEqual({ utt: 1, samples: 299 });
    expect(clock.positionAt(300)).toBeNull();
  });
});
