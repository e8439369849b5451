/**
 * The microphone's samples (float, at the audio context's rate: 48 kHz, 44.1 kHz…) → 16 kHz
 * PCM16 in 20 ms frames (LiveProtocol.micSampleRate / micFrameMs), as the worker wants them.
 * Runs inside the capture AudioWorklet; pure, so it is unit-tested here.
 *
 * Downsampling is area averaging: output sample k is the mean of the input over
 * [k·r, (k+1)·r) input samples (r = in/out rate; fractional edges weighted), which is a box
 * low-pass before decimation — exact for 48 kHz (r = 3: the mean of three samples) and good
 * enough for speech at 44.1 kHz. Upsampling (a context below 16 kHz) interpolates linearly.
 */
export class MicFramer {
  readonly ratio: number;
  private acc = 0;
  private filled = 0;
  /** Upsampling: the previous input sample and the position of the next output between samples. */
  private prev = 0;
  private phase = 0;
  private frame: Int16Array;
  private at = 0;
  private sumSquares = 0;

  constructor(
    readonly inputRate: number,
    readonly outputRate = 16_000,
    readonly frameMs = 20,
  ) {
    if (!(inputRate > 0) || !(outputRate > 0)) throw new Error('sample rates must be positive');
    this.ratio = inputRate / outputRate;
    this.frame = new Int16Array(Math.round((outputRate * frameMs) / 1000));
  }

  /** Samples per output frame (320 for 20 ms at 16 kHz). */
  get frameSamples(): number {
    return this.frame.length;
  }

  /** Feeds input samples; returns the frames completed by them (each a fresh array) with their RMS (0…1). */
  push(input: Float32Array): { pcm: Int16Array; rms: number }[] {
    const out: { pcm: Int16Array; rms: number }[] = [];
    const r = this.ratio;
    if (r >= 1) {
      for (let i = 0; i < input.length; i++) {
        const x = input[i]!;
        let remaining = 1;
        while (remaining > 1e-9) {
          const take = Math.min(r - this.filled, remaining);
          this.acc += x * take;
          this.filled += take;
          remaining -= take;
          if (this.filled >= r - 1e-9) {
            this.emit(this.acc / r, out);
            this.acc = 0;
            this.filled = 0;
          }
        }
      }
    } else {
      // Output positions advance by r (< 1) input samples; interpolate between prev and x.
      for (let i = 0; i < input.length; i++) {
        const x = input[i]!;
        while (this.phase < 1) {
          this.emit(this.prev + (x - this.prev) * this.phase, out);
          this.phase += r;
        }
        this.phase -= 1;
        this.prev = x;
      }
    }
    return out;
  }

  private emit(v: number, out: { pcm: Int16Array; rms: number }[]) {
    const s = v >= 1 ? 1 : v <= -1 ? -1 : v;
    this.frame[this.at++] = Math.round(s < 0 ? s * 0x8000 : s * 0x7fff);
    this.sumSquares += s * s;
    if (this.at === this.frame.length) {
      out.push({ pcm: this.frame, rms: Math.sqrt(this.sumSquares / this.frame.length) });
      this.frame = new Int16Array(this.frame.length);
      this.at = 0;
      this.sumSquares = 0;
    }
  }

  /** Drops a partial frame (the mic was turned off). */
  reset() {
    this.acc = 0;
    this.filled = 0;
    this.prev = 0;
    this.phase = 0;
    this.at = 0;
    this.sumSquares = 0;
    this.frame = new Int16Array(this.frame.length);
  }
}

/** A level for the meter: RMS → 0…1 on a dB scale (−60 dBFS = 0, −10 dBFS = 1). */
export function meterLevel(rms: number): number {
  if (!(rms > 0)) return 0;
  const db = 20 * Math.log10(rms);
  return Math.max(0, Math.min(1, (db + 60) / 50));
}
