import { describe, expect, it } from 'vitest';
import { LevelEnvelope } from './level-envelope';

const RATE = 24_000;
/** `ms` of a 200 Hz tone at `amplitude` (0–1), or of silence. */
const tone = (ms: number, amplitude: number) => Int16Array.from({ length: (RATE * ms) / 1000 }, (_, i) => Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * 200 * i) / RATE)));

describe('LevelEnvelope', () => {
  it('opens the mouth where the sound is and closes it in the silence, to the 10 ms window', () => {
    const env = new LevelEnvelope();
    // 100 ms of silence, 200 ms of speech-loud tone, 100 ms of silence, in uneven chunks.
    const all = Int16Array.from([...tone(100, 0), ...tone(200, 0.3), ...tone(100, 0)]);
    for (let at = 0; at < all.length; at += 1000) env.add(7, all.subarray(at, at + 1000), RATE);
    expect(env.openAt(7, 50)).toBe(0);
    expect(env.openAt(7, 200)).toBe(1);
    expect(env.openAt(7, 350)).toBe(0);
    // Half open within a window of the onset and of the offset.
    const crossing = (from: number, to: number) => {
      for (let ms = from; ms <= to; ms++) if ((env.openAt(7, ms) ?? 0) >= 0.5 !== (env.openAt(7, from) ?? 0) >= 0.5) return ms;
      return null;
    };
    expect(Math.abs(crossing(60, 150)! - 100)).toBeLessThanOrEqual(10);
    expect(Math.abs(crossing(250, 350)! - 300)).toBeLessThanOrEqual(10);
  });

  it('scales to the loudness of the utterance, and a murmur under the floor stays closed', () => {
    const env = new LevelEnvelope();
    env.add(1, Int16Array.from([...tone(100, 0.8), ...tone(100, 0.25), ...tone(100, 0.004)]), RATE);
    expect(env.openAt(1, 50)).toBe(1);
    // A quieter stretch of a loud utterance is less open.
    expect(env.openAt(1, 150)).toBeGreaterThan(0.2);
    expect(env.openAt(1, 150)).toBeLessThan(1);
    expect(env.openAt(1, 250)).toBe(0);
  });

  it('stays on time through a long utterance at a rate whose 10 ms is not whole samples (22 050 Hz)', () => {
    const env = new LevelEnvelope();
    const rate = 22_050;
    const at = (ms: number, amplitude: number) => Int16Array.from({ length: Math.round((rate * ms) / 1000) }, (_, i) => Math.round(amplitude * 32767 * Math.sin((2 * Math.PI * 200 * i) / rate)));
    env.add(1, Int16Array.from([...at(30_000, 0), ...at(500, 0.3)]), rate);
    expect(env.openAt(1, 29_970)).toBe(0);
    expect(env.openAt(1, 30_030)).toBeGreaterThan(0.5);
  });

  it('knows nothing of an utterance it has not heard, and forgets the oldest', () => {
    const env = new LevelEnvelope(2);
    expect(env.openAt(1, 0)).toBeNull();
    for (const utt of [1, 2, 3]) env.add(utt, tone(50, 0.3), RATE);
    expect(env.openAt(1, 20)).toBeNull();
    expect(env.openAt(3, 20)).toBe(1);
    env.clear();
    expect(env.openAt(3, 20)).toBeNull();
  });
});
