import { AudioFrameKind, LiveProtocol, LiveRates, TokenBucket, readAudioFrame } from '@persona/contract';

/**
 * What one page socket may send once its session is open,
 * checked before any frame reaches the conversation:
 * - frames beyond the protocol's sizes (LiveProtocol.maxTextFrame / maxBinaryFrame) close the
 *   socket at once (the embedded worker's sockets come through the portal's listener, whose
 *   payload limit is larger), and so does a mic frame longer than LiveRates.maxMicFrameMs (the
 *   page sends 20 ms; a frame longer than the burst could never be taken);
 * - frames that do not parse (bad JSON, wrong shape, audio with a bad header or kind) get a
 *   non-fatal error from the conversation, and more than `maxBadFrames` of them close the socket;
 * - JSON frames of any kind are paced: a burst of `frameBurst`, then `framesPerSecond`. Frames
 *   over it are dropped unread; `maxDroppedFrames` dropped without the page coming back to the
 *   pace close the socket;
 * - mic audio is paced by a token bucket in samples: a burst of `micBurstMs`, then at most
 *   `micRate` × real time. Audio beyond it is dropped (not buffered, not given to the VAD or STT);
 *   once `micFloodMs` of audio has been dropped without the page coming back to the pace (a frame
 *   taken from a full bucket), the socket is closed.
 * A closed socket leaves the session to be resumed or swept, as any dropped socket does.
 */
export interface FrameGuardOptions {
  now?: () => number;
  /** Mic audio accepted at once above the pace (ms of audio). */
  micBurstMs?: number;
  /** Pace of mic audio relative to real time (clock drift and jitter need a little over 1). */
  micRate?: number;
  /** Dropped mic audio (ms) after which the client is treated as hostile. */
  micFloodMs?: number;
  /** Unreadable frames tolerated on one socket. */
  maxBadFrames?: number;
  /** JSON frames: burst, pace and drops tolerated (default LiveRates'). */
  frameBurst?: number;
  framesPerSecond?: number;
  maxDroppedFrames?: number;
}

export type FrameVerdict =
  /** Hand the frame to the conversation. */
  | 'ok'
  /** Ignore the frame (mic audio or JSON frames over the pace). */
  | 'drop'
  /** A frame that does not parse: the conversation answers with a non-fatal error. */
  | 'bad'
  /** Close the socket with LiveProtocol.close.badFrame; `reason` says why. */
  | { close: string };

const SAMPLES_PER_MS = LiveProtocol.micSampleRate / 1000;

export class FrameGuard {
  private readonly burst: number;
  private readonly maxMicFrame: number;
  private readonly floodSamples: number;
  private readonly maxBad: number;
  private readonly mic: TokenBucket;
  private readonly frames: TokenBucket;
  private readonly maxDroppedFrames: number;
  private dropped = 0;
  private droppedFrames = 0;
  private badFrames = 0;

  constructor(opts: FrameGuardOptions = {}) {
    const now = opts.now ?? Date.now;
    this.burst = (opts.micBurstMs ?? 2000) * SAMPLES_PER_MS;
    this.maxMicFrame = Math.min(this.burst, LiveRates.maxMicFrameMs * SAMPLES_PER_MS);
    this.mic = new TokenBucket(this.burst, (opts.micRate ?? 1.25) * SAMPLES_PER_MS, now);
    this.floodSamples = (opts.micFloodMs ?? 30_000) * SAMPLES_PER_MS;
    this.maxBad = opts.maxBadFrames ?? 20;
    this.frames = new TokenBucket(opts.frameBurst ?? LiveRates.frameBurst, (opts.framesPerSecond ?? LiveRates.framesPerSecond) / 1000, now);
    this.maxDroppedFrames = opts.maxDroppedFrames ?? LiveRates.maxDroppedFrames;
  }

  /** A JSON frame of `bytes` bytes. */
  text(bytes: number): FrameVerdict {
    if (bytes > LiveProtocol.maxTextFrame) return { close: 'text frame over the protocol limit' };
    const atPace = this.frames.isFull;
    if (this.frames.take()) {
      if (atPace) this.droppedFrames = 0;
      return 'ok';
    }
    return ++this.droppedFrames > this.maxDroppedFrames ? { close: 'JSON frames faster than the protocol allows' } : 'drop';
  }

  /** The conversation could not read a JSON frame. */
  unreadable(): FrameVerdict {
    return ++this.badFrames > this.maxBad ? { close: 'too many unreadable frames' } : 'bad';
  }

  /** A binary frame: header, kind, length and the mic's pace. */
  binary(frame: Uint8Array): FrameVerdict {
    if (frame.byteLength > LiveProtocol.maxBinaryFrame) return { close: 'binary frame over the protocol limit' };
    const parsed = readAudioFrame(frame);
    if (!parsed || parsed.header.kind !== AudioFrameKind.mic) return this.unreadable();
    const samples = parsed.pcm.byteLength / 2;
    // Longer than any page sends: it could never be taken, so it would never count as a flood either.
    if (samples > this.maxMicFrame) return { close: 'mic frame longer than the protocol allows' };
    // Back at the pace (a frame taken from a full bucket, as a page catching up after a stall): forgiven.
    const atPace = this.mic.isFull;
    if (this.mic.take(samples)) {
      if (atPace) this.dropped = 0;
      return 'ok';
    }
    this.dropped += samples;
    return this.dropped > this.floodSamples ? { close: 'mic audio faster than real time' } : 'drop';
  }

  /** Mic audio dropped since the page was last at the pace (ms). */
  get droppedMs(): number {
    return this.dropped / SAMPLES_PER_MS;
  }
}
