import { describe, expect, it } from 'vitest';
import { AudioFrameKind, LiveProtocol, writeAudioFrame } from '@persona/contract';
import { FrameGuard } from './frame-guard.js';

/** One 20 ms mic frame (320 samples). */
const frame = (kind: number = AudioFrameKind.mic, bytes = 640) => writeAudioFrame({ kind, flags: 0, utterance: 0, seq: 0 }, new Uint8Array(bytes));

describe('FrameGuard', () => {
  it('paces mic audio: a 2 s burst, then 1.25× real time; the rest is dropped, a sustained flood closes', () => {
    let now = 0;
    const guard = new FrameGuard({ now: () => now });
    const verdicts = Array.from({ length: 500 }, () => guard.binary(frame()));
    // 10 s at once: the 2 s burst (100 frames) passes, the rest is dropped.
    expect(verdicts.filter((v) => v === 'ok')).toHaveLength(100);
    expect(verdicts.slice(100).every((v) => v === 'drop')).toBe(true);
    expect(guard.droppedMs).toBe(8000);
    // Real time from here on: every frame passes.
    for (let i = 0; i < 500; i++) {
      now += 20;
      expect(guard.binary(frame())).toBe('ok');
    }
    // Back at the pace with a full bucket: what was dropped is forgiven.
    expect(guard.droppedMs).toBe(0);
    // A flood that never comes back to the pace: closed once 30 s were dropped.
    let verdict = guard.binary(frame());
    for (let i = 0; i < 3000 && typeof verdict !== 'object'; i++) verdict = guard.binary(frame());
    expect(verdict).toEqual({ close: 'mic audio faster than real time' });
  });

  it('sizes and shapes: oversized frames close at once, unreadable ones are tolerated up to a count', () => {
    const guard = new FrameGuard({ maxBadFrames: 3 });
    expect(guard.text(LiveProtocol.maxTextFrame)).toBe('ok');
    expect(guard.text(LiveProtocol.maxTextFrame + 1)).toEqual({ close: 'text frame over the protocol limit' });
    expect(guard.binary(new Uint8Array(LiveProtocol.maxBinaryFrame + 2))).toEqual({ close: 'binary frame over the protocol limit' });
    expect(guard.binary(new Uint8Array(3))).toBe('bad');
    expect(guard.binary(frame(AudioFrameKind.avatar))).toBe('bad');
    expect(guard.binary(frame(AudioFrameKind.mic, 641))).toBe('bad');
    expect(guard.unreadable()).toEqual({ close: 'too many unreadable frames' });
  });
});
