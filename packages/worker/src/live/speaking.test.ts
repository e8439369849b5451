import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SpeakingTracker } from './speaking.js';

const RATE = 16_000;
/** `ms` of PCM16 audio at RATE. */
const audio = (utt: number, ms: number) => ({ type: 'audio' as const, utt, seq: 0, pcm: new Uint8Array((RATE * ms) / 1000 * 2), last: false });
const playback = (utt: number, state: 'started' | 'progress' | 'ended', playedMs: number) => ({ type: 'playback' as const, utt, state, playedMs });

describe('SpeakingTracker: when the visitor has heard an utterance to its end', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function tracker() {
    const changes: (number | null)[] = [];
    const t = new SpeakingTracker(() => Date.now(), (utt) => changes.push(utt));
    return { t, changes };
  }

  it('without reports, once its audio has had time to play (+1 s)', () => {
    const { t, changes } = tracker();
    t.track({ type: 'utterance', utt: 1, phase: 'start' }, RATE);
    t.track(audio(1, 3000), RATE);
    t.track({ type: 'utterance', utt: 1, phase: 'end', durationMs: 3000 }, RATE);
    vi.advanceTimersByTime(3999);
    expect(t.utt).toBe(1);
    vi.advanceTimersByTime(1);
    expect(t.utt).toBeNull();
    expect(changes).toEqual([1, null]);
  });

  it('a page that starts playing late (its face still loading) is counted from its reports', () => {
    const { t } = tracker();
    t.track({ type: 'utterance', utt: 1, phase: 'start' }, RATE);
    t.track(audio(1, 3000), RATE);
    t.track({ type: 'utterance', utt: 1, phase: 'end', durationMs: 3000 }, RATE);
    // The page starts it 2.5 s after it was sent.
    vi.advanceTimersByTime(2500);
    t.onPlayback(playback(1, 'started', 0));
    vi.advanceTimersByTime(2000);
    t.onPlayback(playback(1, 'progress', 2000));
    expect(t.heardMs(1)).toBe(2000);
    // Without the reports it would have ended at 4 s; it has 1 s of audio left, plus the margin.
    vi.advanceTimersByTime(1999);
    expect(t.utt).toBe(1);
    vi.advanceTimersByTime(1);
    expect(t.utt).toBeNull();
  });

  it('ends at once on the page\'s `ended`', () => {
    const { t } = tracker();
    t.track({ type: 'utterance', utt: 1, phase: 'start' }, RATE);
    t.track(audio(1, 3000), RATE);
    t.track({ type: 'utterance', utt: 1, phase: 'end', durationMs: 3000 }, RATE);
    t.onPlayback(playback(1, 'started', 0));
    t.onPlayback(playback(1, 'ended', 3000));
    expect(t.utt).toBeNull();
    expect(t.heardMs(1)).toBe(3000);
  });

  it('reports of another utterance change nothing', () => {
    const { t } = tracker();
    t.track({ type: 'utterance', utt: 2, phase: 'start' }, RATE);
    t.track(audio(2, 1000), RATE);
    t.track({ type: 'utterance', utt: 2, phase: 'end', durationMs: 1000 }, RATE);
    t.onPlayback(playback(1, 'ended', 500));
    expect(t.utt).toBe(2);
    vi.advanceTimersByTime(2000);
    expect(t.utt).toBeNull();
  });
});
