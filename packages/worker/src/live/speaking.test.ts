import { LiveProtocol } from '@persona/contract';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SpeakingTracker } from './speaking.js';

const RATE = 16_000;
const HOLD = LiveProtocol.faceWaitMs;
/** `ms` of PCM16 audio at RATE. */
const audio = (utt: number, ms: number) => ({ type: 'audio' as const, utt, seq: 0, pcm: new Uint8Array(((RATE * ms) / 1000) * 2), last: false });
const playback = (utt: number, state: 'started' | 'progress' | 'ended', playedMs: number) => ({ type: 'playback' as const, utt, state, playedMs });

describe('SpeakingTracker: when the visitor has heard an utterance to its end', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  function tracker() {
    const changes: (number | null)[] = [];
    const t = new SpeakingTracker(() => Date.now(), (utt) => changes.push(utt));
    /** Utterance `utt` with `ms` of audio, all sent now. */
    const say = (utt: number, ms: number) => {
      t.track({ type: 'utterance', utt, phase: 'start' }, RATE);
      t.track(audio(utt, ms), RATE);
      t.track({ type: 'utterance', utt, phase: 'end', durationMs: ms }, RATE);
    };
    return { t, changes, say };
  }

  it('without any report yet: once its audio has had time to play, the face-wait the page may hold it for, and 1 s', () => {
    const { t, changes, say } = tracker();
    say(1, 3000);
    vi.advanceTimersByTime(3000 + HOLD + 999);
    expect(t.utt).toBe(1);
    vi.advanceTimersByTime(1);
    expect(t.utt).toBeNull();
    expect(changes).toEqual([1, null]);
  });

  it('once the page has reported playback, a later utterance without reports ends at its audio + 1 s', () => {
    const { t, say } = tracker();
    say(1, 1000);
    t.onPlayback(playback(1, 'started', 0));
    t.onPlayback(playback(1, 'ended', 1000));
    say(2, 2000);
    vi.advanceTimersByTime(2999);
    expect(t.utt).toBe(2);
    vi.advanceTimersByTime(1);
    expect(t.utt).toBeNull();
  });

  it('a short greeting held by a cold page for its face is still the one being heard when it starts', () => {
    const { t, say } = tracker();
    say(1, 1000);
    vi.advanceTimersByTime(3500);
    expect(t.utt).toBe(1);
    t.onPlayback(playback(1, 'started', 0));
    vi.advanceTimersByTime(1999);
    expect(t.utt).toBe(1);
    vi.advanceTimersByTime(1);
    expect(t.utt).toBeNull();
  });

  it('a page that starts playing late is counted from its reports', () => {
    const { t, say } = tracker();
    say(1, 3000);
    vi.advanceTimersByTime(2500);
    t.onPlayback(playback(1, 'started', 0));
    vi.advanceTimersByTime(2000);
    t.onPlayback(playback(1, 'progress', 2000));
    expect(t.heardMs(1)).toBe(2000);
    // 1 s of audio left, plus the margin.
    vi.advanceTimersByTime(1999);
    expect(t.utt).toBe(1);
    vi.advanceTimersByTime(1);
    expect(t.utt).toBeNull();
  });

  it('held by the visitor talking over it, it is not over however long the hold; the pause counts once resumed', () => {
    const { t, say } = tracker();
    say(1, 3000);
    t.onPlayback(playback(1, 'started', 0));
    vi.advanceTimersByTime(1000);
    t.onPlayback(playback(1, 'progress', 1000));
    t.pause(1);
    vi.advanceTimersByTime(10_000);
    expect(t.utt).toBe(1);
    t.resume(1);
    // 2 s of audio left after the resume, plus the margin.
    vi.advanceTimersByTime(2999);
    expect(t.utt).toBe(1);
    vi.advanceTimersByTime(1);
    expect(t.utt).toBeNull();
  });

  it("ends at once on the page's `ended`", () => {
    const { t, say } = tracker();
    say(1, 3000);
    t.onPlayback(playback(1, 'started', 0));
    t.onPlayback(playback(1, 'ended', 3000));
    expect(t.utt).toBeNull();
    expect(t.heardMs(1)).toBe(3000);
  });

  it('reports of another utterance change nothing of this one', () => {
    const { t, say } = tracker();
    say(2, 1000);
    t.onPlayback(playback(1, 'ended', 500));
    expect(t.utt).toBe(2);
    vi.advanceTimersByTime(2000 + HOLD - 1);
    expect(t.utt).toBe(2);
    vi.advanceTimersByTime(1);
    expect(t.utt).toBeNull();
  });
});
