import { describe, expect, it } from 'vitest';
import { VisemeTimeline } from './viseme-timeline';
import { normalizeViseme, visemeIndex, type Viseme } from './visemes';

const w = (tl: VisemeTimeline, t: number, v: Viseme) => tl.weightsAt(t)[visemeIndex[v]]!;

describe('VisemeTimeline', () => {
  it('holds a cue for its duration and rests on sil outside it', () => {
    const tl = new VisemeTimeline({ attackMs: 50, releaseMs: 50 });
    tl.add([{ t: 200, v: 'aa', d: 100 }]);
    expect(w(tl, 0, 'sil')).toBe(1);
    expect(w(tl, 250, 'aa')).toBe(1);
    expect(w(tl, 250, 'sil')).toBe(0);
    expect(w(tl, 400, 'aa')).toBe(0);
    expect(w(tl, 400, 'sil')).toBe(1);
  });

  it('coarticulates: the mouth shapes a viseme before its sound and lets go after it, smoothly', () => {
    const tl = new VisemeTimeline({ attackMs: 60, releaseMs: 90 });
    tl.add([{ t: 300, v: 'O', d: 100 }]);
    const before = [230, 250, 270, 290].map((t) => w(tl, t, 'O'));
    expect(before[0]).toBe(0);
    for (let i = 1; i < before.length; i++) expect(before[i]!).toBeGreaterThan(before[i - 1]!);
    expect(before[3]!).toBeLessThan(1);
    const after = [410, 440, 470, 500].map((t) => w(tl, t, 'O'));
    for (let i = 1; i < after.length; i++) expect(after[i]!).toBeLessThan(after[i - 1]!);
    expect(after[3]).toBe(0);
  });

  it('neighbouring visemes cross-fade and never add up to more than 1', () => {
    const tl = new VisemeTimeline({ attackMs: 60, releaseMs: 90 });
    tl.add([
      { t: 0, v: 'PP', d: 80 },
      { t: 80, v: 'aa', d: 120 },
      { t: 200, v: 'U', d: 100 },
    ]);
    for (let t = 0; t < 400; t += 5) {
      const weights = tl.weightsAt(t);
      let speech = 0;
      for (let k = 1; k < weights.length; k++) speech += weights[k]!;
      expect(speech).toBeLessThanOrEqual(1.0000001);
    }
    // At the PP→aa boundary both are present (no switch).
    expect(w(tl, 60, 'PP')).toBeGreaterThan(0.2);
    expect(w(tl, 60, 'aa')).toBeGreaterThan(0.2);
  });

  it('gives cues without a duration the gap to the next one (capped), and a default at the end', () => {
    const tl = new VisemeTimeline({ attackMs: 10, releaseMs: 10, maxHoldMs: 300, lastCueMs: 120 });
    tl.add([
      { t: 0, v: 'aa' },
      { t: 100, v: 'E' },
      { t: 1000, v: 'O' },
    ]);
    expect(w(tl, 90, 'aa')).toBe(1);
    expect(w(tl, 380, 'E')).toBe(1);
    expect(w(tl, 600, 'E')).toBe(0); // held 300 ms, not 900
    expect(tl.endMs).toBe(1120);
  });

  it('merges several frames for one utterance in time order', () => {
    const tl = new VisemeTimeline({ attackMs: 10, releaseMs: 10 });
    tl.add([{ t: 500, v: 'viseme_O', d: 100 }]);
    tl.add([{ t: 0, v: 'viseme_aa', d: 100 }]);
    expect(w(tl, 50, 'aa')).toBe(1);
    expect(w(tl, 550, 'O')).toBe(1);
    expect(tl.size).toBe(2);
  });

  it('scales to the audio really played when the cues end too far from it', () => {
    const tl = new VisemeTimeline({ attackMs: 10, releaseMs: 10 });
    tl.add([
      { t: 0, v: 'aa', d: 500 },
      { t: 500, v: 'O', d: 500 },
    ]);
    expect(tl.fitToDuration(1050)).toBe(1); // within 10 %: left alone
    expect(tl.fitToDuration(1500)).toBeCloseTo(1.5);
    expect(tl.endMs).toBeCloseTo(1500);
    expect(w(tl, 700, 'aa')).toBe(1);
    expect(w(tl, 800, 'O')).toBe(1);
  });

  it('an interruption closes the mouth from what was heard, and later cues never play', () => {
    const tl = new VisemeTimeline({ attackMs: 40, releaseMs: 80 });
    tl.add([
      { t: 0, v: 'aa', d: 300 },
      { t: 300, v: 'O', d: 300 },
    ]);
    tl.interrupt(150);
    expect(w(tl, 140, 'aa')).toBe(1);
    expect(w(tl, 190, 'aa')).toBeLessThan(1);
    expect(w(tl, 240, 'aa')).toBe(0);
    expect(w(tl, 320, 'O')).toBe(0);
    expect(w(tl, 320, 'sil')).toBe(1);
    expect(tl.endMs).toBe(150);
  });

  it('skips what it cannot use (unknown names, negative or non-finite times)', () => {
    const tl = new VisemeTimeline();
    tl.add([
      { t: -5, v: 'aa' },
      { t: Number.NaN, v: 'aa' },
      { t: 10, v: 'bogus' },
      { t: 20, v: 'E', d: Number.POSITIVE_INFINITY },
    ]);
    expect(tl.size).toBe(1);
  });
});

describe('normalizeViseme', () => {
  it('reads Oculus names with or without the prefix, Polly marks and Azure ids', () => {
    expect(normalizeViseme('viseme_aa')).toBe('aa');
    expect(normalizeViseme('AA')).toBe('aa');
    expect(normalizeViseme('sil')).toBe('sil');
    expect(normalizeViseme('p')).toBe('PP');
    expect(normalizeViseme('@')).toBe('aa');
    expect(normalizeViseme('21')).toBe('PP');
    expect(normalizeViseme('0')).toBe('sil');
    expect(normalizeViseme('nope')).toBeNull();
    expect(normalizeViseme('constructor')).toBeNull();
  });
});
