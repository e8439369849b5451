import { ECHO_RATE, EchoFilter, type EchoStats } from '@persona/contract/echo-filter';
import { MicFramer } from './mic-framer';

/**
 * The microphone's frames with the avatar's own voice taken out in the page (ADR 108), for a
 * browser whose own echo canceller is not at work on the capture (its track reports
 * `echoCancellation` off: a browser or device that does not do it, an embedding page's own
 * stream). The far end is what the page makes audible — the loopback's received stream, or the
 * player's output — brought into the capture's audio context beside the mic: both run on the
 * page's audio clock, so the echo sits at a fixed delay behind it (the output's and the input's
 * latency and the room's path), which the shared `EchoFilter` finds and follows. The worker's own
 * canceller (ADR 103) places the far end by the page's playback reports instead, through the
 * loopback's wandering jitter buffer; here there is nothing to place.
 *
 * Runs inside the capture AudioWorklet; pure, so it is unit-tested. Mic and far end are taken in
 * the same render quanta, so their two framers (the same resampling) make frames in lockstep.
 * Until a far end is given the frames are the mic's, untouched (no filter, no delay); the filter
 * itself passes the mic untouched while the far end is silent.
 */
/**
 * Until the echo's delay is found (0.2–0.4 s into the avatar's first words), the far end's envelope
 * gates the mic, for this much of the avatar's voice; and it gates wherever the filter may not fit
 * (`envelopeGate`). This canceller runs only where the browser cancels none, so most likely on
 * speakers; a visitor with headphones who speaks over the first 1.5 s, more quietly than the avatar
 * plays, is the price (ADR 108).
 */
const PRIOR_GATE_MS = 1500;

export class MicEchoFrames {
  private readonly mic: MicFramer;
  private readonly far: MicFramer;
  private filter: EchoFilter | null = null;
  private silence = new Float32Array(128);

  constructor(inputRate: number, outputRate = 16_000, frameMs = 20) {
    this.mic = new MicFramer(inputRate, outputRate, frameMs);
    this.far = new MicFramer(inputRate, outputRate, frameMs);
    if (outputRate !== ECHO_RATE) throw new Error(`the echo filter runs at ${ECHO_RATE} Hz`);
  }

  /** Whether a far end has been given (the filter runs from then on). */
  get cancelling(): boolean {
    return this.filter !== null;
  }

  get stats(): EchoStats | null {
    return this.filter?.stats ?? null;
  }

  /**
   * One render quantum of mic and far end (same length, same time); `far` null: the page plays
   * nothing into this context now (silence). Returns the frames completed, echo taken out.
   */
  push(mic: Float32Array, far: Float32Array | null): { pcm: Int16Array; rms: number }[] {
    if (far) this.filter ??= new EchoFilter({ priorGateMs: PRIOR_GATE_MS, envelopeGate: true });
    if (!far || far.length !== mic.length) {
      if (this.silence.length !== mic.length) this.silence = new Float32Array(mic.length);
      far = this.silence;
    }
    // Both framers take every quantum, the far end's before the filter exists too: their frames
    // stay in step whenever it starts.
    const frames = this.mic.push(mic);
    const farFrames = this.far.push(far);
    if (!this.filter) return frames;
    return frames.map((f, i) => {
      const pcm = this.filter!.process(f.pcm, farFrames[i]!.pcm);
      return { pcm, rms: rmsOf(pcm) };
    });
  }

  /** Drops partial frames (the mic was turned off); the filter keeps the room it learnt. */
  reset() {
    this.mic.reset();
    this.far.reset();
  }
}

function rmsOf(pcm: Int16Array): number {
  let sum = 0;
  for (const v of pcm) sum += v * v;
  return Math.sqrt(sum / Math.max(1, pcm.length)) / 0x8000;
}
