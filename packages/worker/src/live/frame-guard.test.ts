import { describe, expect, it } from 'vitest';
import { AudioFrameKind, LiveProtocol, LiveRates, writeAudioFrame } from '@persona/contract';
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

  it('a mic frame longer than any page sends closes at once: frames each over the 2 s burst were never taken, so never counted as a flood (issue 26: 327 MB read)', () => {
    let now = 0;
    const guard = new FrameGuard({ now: () => now });
    // The longest mic frame the protocol's frame size allows: 2.05 s of audio, over the burst.
    const longest = LiveProtocol.maxBinaryFrame - LiveProtocol.binaryHeaderBytes;
    expect(guard.binary(frame(AudioFrameKind.mic, longest))).toEqual({ close: 'mic frame longer than the protocol allows' });
    // Just over LiveRates.maxMicFrameMs closes too; at it, the frame is taken.
    const samplesAtMax = (LiveRates.maxMicFrameMs * LiveProtocol.micSampleRate) / 1000;
    expect(new FrameGuard({ now: () => now }).binary(frame(AudioFrameKind.mic, samplesAtMax * 2 + 2))).toEqual({ close: 'mic frame longer than the protocol allows' });
    expect(new FrameGuard({ now: () => now }).binary(frame(AudioFrameKind.mic, samplesAtMax * 2))).toBe('ok');
    // A flood of the longest allowed frames, a little time passing between them: closed once 30 s were dropped.
    const flood = new FrameGuard({ now: () => now });
    let verdict = flood.binary(frame(AudioFrameKind.mic, samplesAtMax * 2));
    let sent = 0;
    for (; sent < 1000 && typeof verdict !== 'object'; sent++) {
      now += 1;
      verdict = flood.binary(frame(AudioFrameKind.mic, samplesAtMax * 2));
    }
    expect(verdict).toEqual({ close: 'mic audio faster than real time' });
    // 2 s of burst, 1.25 × the ~0.2 s that passed, then 30 s dropped: about 32 s of audio read.
    expect(sent * LiveRates.maxMicFrameMs).toBeLessThan(33_000);
  });

  it('JSON frames are paced: a burst, then LiveRates.framesPerSecond; drops over it, a sustained flood closes, a page back at the pace is forgiven', () => {
    let now = 0;
    const guard = new FrameGuard({ now: () => now });
    const burst = Array.from({ length: LiveRates.frameBurst + 10 }, () => guard.text(20));
    expect(burst.filter((v) => v === 'ok')).toHaveLength(LiveRates.frameBurst);
    expect(burst.slice(LiveRates.frameBurst).every((v) => v === 'drop')).toBe(true);
    // At the pace for a while: every frame taken, the bucket fills again and the drops are forgiven.
    for (let i = 0; i < 200; i++) {
      now += 1000 / LiveRates.framesPerSecond;
      expect(guard.text(20)).toBe('ok');
    }
    now += 10_000;
    expect(guard.text(20)).toBe('ok');
    // A flood that never slows down: closed after maxDroppedFrames drops.
    let verdict = guard.text(20);
    let frames = 1;
    for (; frames < 10_000 && typeof verdict !== 'object'; frames++) verdict = guard.text(20);
    expect(verdict).toEqual({ close: 'JSON frames faster than the protocol allows' });
    expect(frames).toBe(LiveRates.frameBurst - 1 + LiveRates.maxDroppedFrames + 1);
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
