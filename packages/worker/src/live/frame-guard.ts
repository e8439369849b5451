import { AudioFrameKind, LiveProtocol, readAudioFrame } from '@persona/contract';

/**
 * What one page socket may send once its session is open (issue 16, hostile clients), checked
 * before any frame reaches the conversation:
 * - frames beyond the protocol's sizes (LiveProtocol.maxTextFrame / maxBinaryFrame) close the
 *   socket at once (the embedded worker's sockets come through the portal's listener, whose
 *   payload limit is larger);
 * - frames that do not parse (bad JSON, wrong shape, audio with a bad header or kind) get a
 *   non-fatal error from the conversation, and more than `maxBadFrames` of them close the socket;
 * - mic audio is paced by a token bucket in samples: a burst of `micBurstMs`, then at most
 *   `micRate` × real time. Audio beyond it is dropped (not buffered, not given to the VAD or STT);
 *   once `micFloodMs` of audio has been dropped without the page coming back to the pace (a full
 *   bucket again), the socket is closed.
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
}

export type FrameVerdict =
  /** Hand the frame to the conversation. */
  | 'ok'
  /** Ignore the frame (mic audio over the pace). */
  | 'drop'
  /** A frame that does not parse: the conversation answers with a non-fatal error. */
  | 'bad'
  /** Close the socket with LiveProtocol.close.badFrame; `reason` says why. */
  | { close: string };

const SAMPLES_PER_MS = LiveProtocol.micSampleRate / 1000;

export class FrameGuard {
  private readonly now: () => number;
  private readonly burst: number;
  private readonly rate: number;
  private readonly floodSamples: number;
  private readonly maxBad: number;
  private tokens: number;
  private refilledAt: number;
  private dropped = 0;
  private badFrames = 0;

  constructor(opts: FrameGuardOptions = {}) {
    this.now = opts.now ?? Date.now;
    this.burst = (opts.micBurstMs ?? 2000) * SAMPLES_PER_MS;
    this.rate = (opts.micRate ?? 1.25) * SAMPLES_PER_MS;
    this.floodSamples = (opts.micFloodMs ?? 30_000) * SAMPLES_PER_MS;
    this.maxBad = opts.maxBadFrames ?? 20;
    this.tokens = this.burst;
    this.refilledAt = this.now();
  }

  /** A JSON frame of `bytes` bytes. */
  text(bytes: number): FrameVerdict {
    return bytes > LiveProtocol.maxTextFrame ? { close: 'text frame over the protocol limit' } : 'ok';
  }

  /** The conversation could not read a JSON frame. */
  unreadable(): FrameVerdict {
    return ++this.badFrames > this.maxBad ? { close: 'too many unreadable frames' } : 'bad';
  }

  /** A binary frame: header, kind and the mic's pace. */
  binary(frame: Uint8Array): FrameVerdict {
    if (frame.byteLength > LiveProtocol.maxBinaryFrame) return { close: 'binary frame over the protocol limit' };
    const parsed = readAudioFrame(frame);
    if (!parsed || parsed.header.kind !== AudioFrameKind.mic) return this.unreadable();
    const samples = parsed.pcm.byteLength / 2;
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + (t - this.refilledAt) * this.rate);
    this.refilledAt = t;
    // Back at the pace with a full bucket (a page catching up after a stall did): forgiven.
    if (this.tokens === this.burst) this.dropped = 0;
    if (samples <= this.tokens) {
      this.tokens -= samples;
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
