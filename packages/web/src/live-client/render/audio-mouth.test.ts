import { describe, expect, it } from 'vitest';
import { audioMouth } from './audio-mouth';
import { VISEME_COUNT, jawOpenOf, VISEMES, visemeIndex } from './visemes';

const jaw = (w: Float32Array) => w.reduce((s, x, k) => s + x * jawOpenOf[VISEMES[k]!], 0);
const weights = (entries: Record<string, number>) => {
  const w = new Float32Array(VISEME_COUNT);
  for (const [v, x] of Object.entries(entries)) w[visemeIndex[v as keyof typeof visemeIndex]] = x;
  return w;
};

describe('audioMouth', () => {
  it('is at rest when the audio is silent, whatever the classifier still says', () => {
    const w = audioMouth(0, weights({ aa: 0.9 }));
    expect(w[visemeIndex.sil]).toBe(1);
    expect(jaw(w)).toBe(0);
  });

  it('opens with the level, in the classifier’s proportions blended with an open vowel', () => {
    const w = audioMouth(1, weights({ O: 0.5, U: 0.3 }));
    expect(w[visemeIndex.sil]).toBe(0);
    expect(w[visemeIndex.O]).toBeGreaterThan(w[visemeIndex.U]!);
    expect(w.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 5);
    expect(jaw(audioMouth(0.5, null))).toBeCloseTo(jaw(audioMouth(1, null)) / 2, 5);
  });

  it('a stale closed shape (PP) cannot keep a loud mouth shut, and no classifier yet is an open vowel', () => {
    expect(jaw(audioMouth(1, weights({ PP: 1 })))).toBeGreaterThan(0.2);
    expect(jaw(audioMouth(1, null))).toBeGreaterThan(0.5);
  });
});
