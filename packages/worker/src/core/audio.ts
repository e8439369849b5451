/**
 * PCM helpers for the voice pipeline: 16-bit little-endian mono is the only format that leaves
 * the worker (LiveProtocol: avatar audio frames), so everything a provider gives is brought to it
 * here — bytes ⇄ samples, WAV headers, sample-rate conversion, and trimming the silence that
 * synthesizers put around speech.
 */

/** Samples from PCM16LE bytes (an odd trailing byte is the caller's to keep: see Pcm16Reader). */
export function bytesToSamples(bytes: Uint8Array): Int16Array {
  const count = bytes.byteLength >> 1;
  const out = new Int16Array(count);
  const view = new DataView(bytes.buffer, bytes.byteOffset, count * 2);
  for (let i = 0; i < count; i++) out[i] = view.getInt16(i * 2, true);
  return out;
}

/** PCM16LE bytes of samples. */
export function samplesToBytes(samples: Int16Array): Uint8Array {
  const out = new Uint8Array(samples.length * 2);
  const view = new DataView(out.buffer);
  for (let i = 0; i < samples.length; i++) view.setInt16(i * 2, samples[i]!, true);
  return out;
}

/**
 * Turns a byte stream of PCM16LE (split anywhere, odd lengths included) into whole samples.
 */
export class Pcm16Reader {
  private carry: number | null = null;

  push(bytes: Uint8Array): Int16Array {
    if (bytes.byteLength === 0) return new Int16Array(0);
    let input = bytes;
    if (this.carry !== null) {
      const joined = new Uint8Array(bytes.byteLength + 1);
      joined[0] = this.carry;
      joined.set(bytes, 1);
      input = joined;
      this.carry = null;
    }
    if (input.byteLength % 2 === 1) {
      this.carry = input[input.byteLength - 1]!;
      input = input.subarray(0, input.byteLength - 1);
    }
    return bytesToSamples(input);
  }
}

export function concatSamples(parts: readonly Int16Array[]): Int16Array {
  let total = 0;
  for (const p of parts) total += p.length;
  const out = new Int16Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A 44-byte RIFF/WAVE header for 16-bit PCM (what parseWavHeader reads back). */
export function wavHeader(sampleRate: number, channels: number, dataBytes: number): Uint8Array {
  const out = new Uint8Array(44);
  const v = new DataView(out.buffer);
  const ascii = (at: number, s: string) => {
    for (let i = 0; i < s.length; i++) out[at + i] = s.charCodeAt(i);
  };
  ascii(0, 'RIFF');
  v.setUint32(4, 36 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  v.setUint32(16, 16, true);
  v.setUint16(20, 1, true); // PCM
  v.setUint16(22, channels, true);
  v.setUint32(24, sampleRate, true);
  v.setUint32(28, sampleRate * channels * 2, true);
  v.setUint16(32, channels * 2, true);
  v.setUint16(34, 16, true);
  ascii(36, 'data');
  v.setUint32(40, dataBytes, true);
  return out;
}

/** 16-bit mono PCM → a WAV file (header + data). */
export function wavFile(pcm: Int16Array, sampleRate: number): Uint8Array {
  const data = samplesToBytes(pcm);
  const out = new Uint8Array(44 + data.byteLength);
  out.set(wavHeader(sampleRate, 1, data.byteLength), 0);
  out.set(data, 44);
  return out;
}

export interface WavInfo {
  sampleRate: number;
  channels: number;
  bitsPerSample: number;
  /** Byte offset of the sample data. */
  dataOffset: number;
  /** Bytes of sample data the header announces (streams often say 0 or 0xFFFFFFFF). */
  dataBytes: number;
}

/**
 * Reads a RIFF/WAVE header (PCM, format 1 or WAVE_FORMAT_EXTENSIBLE). Returns null when `bytes`
 * does not hold the whole header yet, throws when it is not a PCM WAV file.
 */
export function parseWavHeader(bytes: Uint8Array): WavInfo | null {
  if (bytes.byteLength < 12) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const tag = (at: number) => String.fromCharCode(bytes[at]!, bytes[at + 1]!, bytes[at + 2]!, bytes[at + 3]!);
  if (tag(0) !== 'RIFF' || tag(8) !== 'WAVE') throw new Error('not a WAV file');
  let at = 12;
  let fmt: { format: number; channels: number; sampleRate: number; bits: number } | null = null;
  while (at + 8 <= bytes.byteLength) {
    const id = tag(at);
    const size = view.getUint32(at + 4, true);
    if (id === 'data') {
      if (!fmt) throw new Error('WAV data before its format');
      return { sampleRate: fmt.sampleRate, channels: fmt.channels, bitsPerSample: fmt.bits, dataOffset: at + 8, dataBytes: size };
    }
    if (at + 8 + size > bytes.byteLength) return null;
    if (id === 'fmt ') {
      if (size < 16) throw new Error('bad WAV format chunk');
      fmt = { format: view.getUint16(at + 8, true), channels: view.getUint16(at + 10, true), sampleRate: view.getUint32(at + 12, true), bits: view.getUint16(at + 22, true) };
      if (fmt.format !== 1 && fmt.format !== 0xfffe) throw new Error(`WAV format ${fmt.format} is not PCM`);
      if (fmt.bits !== 16) throw new Error(`${fmt.bits}-bit WAV is not supported (16-bit PCM only)`);
      if (fmt.channels < 1 || fmt.channels > 8) throw new Error('bad WAV channel count');
      if (fmt.sampleRate < 4000 || fmt.sampleRate > 192_000) throw new Error('bad WAV sample rate');
    }
    at += 8 + size + (size % 2);
  }
  return null;
}

/** Mono from interleaved channels (the first channel: speech providers never send stereo speech). */
export function firstChannel(samples: Int16Array, channels: number): Int16Array {
  if (channels === 1) return samples;
  const out = new Int16Array(Math.floor(samples.length / channels));
  for (let i = 0; i < out.length; i++) out[i] = samples[i * channels]!;
  return out;
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * Streaming sample-rate conversion by windowed-sinc interpolation (Blackman window, `halfTaps`
 * input samples either side, cutoff below the lower Nyquist so downsampling does not alias).
 * Pushing a signal in pieces gives exactly the samples pushing it whole gives; `flush()` emits
 * the tail. When the ratio reduces to at most 2,000 phases the filter is tabulated once.
 */
export class Resampler {
  private readonly step: number;
  private readonly phases: number;
  private readonly table: Float32Array | null;
  private readonly cutoff: number;
  /** Input samples not yet consumed, as floats; `base` is the absolute index of history[0]. */
  private history = new Float32Array(0);
  private base = 0;
  /** Absolute input samples received. */
  private received = 0;
  /** Next output sample, counted from 0. */
  private produced = 0;

  constructor(
    readonly from: number,
    readonly to: number,
    private readonly halfTaps = 16,
  ) {
    if (!(from > 0 && to > 0) || !Number.isInteger(from) || !Number.isInteger(to)) throw new Error('sample rates must be positive integers');
    const g = gcd(from, to);
    // Output n sits at input position n·from/to = n·step/phases.
    this.phases = to / g;
    this.step = from / g;
    this.cutoff = Math.min(1, to / from) * 0.94;
    this.table = this.phases <= 2000 && from !== to ? this.buildTable() : null;
    // Zeros before the first sample, so the first outputs have their left neighbours.
    this.history = new Float32Array(halfTaps);
    this.base = -halfTaps;
  }

  private kernel(d: number): number {
    const n = this.halfTaps;
    if (d <= -n || d >= n) return 0;
    const x = d * this.cutoff;
    const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
    const w = 0.42 + 0.5 * Math.cos((Math.PI * d) / n) + 0.08 * Math.cos((2 * Math.PI * d) / n);
    return this.cutoff * sinc * w;
  }

  private buildTable(): Float32Array {
    const width = 2 * this.halfTaps;
    const table = new Float32Array(this.phases * width);
    for (let p = 0; p < this.phases; p++) {
      const frac = p / this.phases;
      // taps k = -halfTaps+1 … halfTaps relative to floor(position)
      for (let j = 0; j < width; j++) {
        const k = j - this.halfTaps + 1;
        table[p * width + j] = this.kernel(frac - k);
      }
    }
    return table;
  }

  push(input: Int16Array): Int16Array {
    if (this.from === this.to) return input;
    const joined = new Float32Array(this.history.length + input.length);
    joined.set(this.history);
    for (let i = 0; i < input.length; i++) joined[this.history.length + i] = input[i]!;
    this.history = joined;
    this.received += input.length;
    return this.drain(this.received);
  }

  /** The rest of the signal (its right neighbours taken as silence). */
  flush(): Int16Array {
    if (this.from === this.to) return new Int16Array(0);
    const end = this.received;
    const pad = new Float32Array(this.history.length + this.halfTaps + 1);
    pad.set(this.history);
    this.history = pad;
    // Outputs whose position lies before the end of the input.
    const last = Math.ceil((end * this.phases) / this.step);
    return this.drain(end + this.halfTaps + 1, last);
  }

  /** Emits the outputs whose right-most tap is below `available` (absolute input index). */
  private drain(available: number, limit = Infinity): Int16Array {
    const width = 2 * this.halfTaps;
    const out: number[] = [];
    for (;;) {
      if (this.produced >= limit) break;
      const num = this.produced * this.step;
      const whole = Math.floor(num / this.phases);
      const phase = num - whole * this.phases;
      if (whole + this.halfTaps >= available) break;
      const first = whole - this.halfTaps + 1 - this.base;
      let acc = 0;
      if (this.table) {
        const row = phase * width;
        for (let j = 0; j < width; j++) acc += this.history[first + j]! * this.table[row + j]!;
      } else {
        const frac = phase / this.phases;
        for (let j = 0; j < width; j++) acc += this.history[first + j]! * this.kernel(frac - (j - this.halfTaps + 1));
      }
      out.push(acc > 32767 ? 32767 : acc < -32768 ? -32768 : Math.round(acc));
      this.produced++;
    }
    // Keep only what the next outputs can still reach.
    const nextWhole = Math.floor((this.produced * this.step) / this.phases);
    const keepFrom = nextWhole - this.halfTaps + 1 - this.base;
    if (keepFrom > 0) {
      this.history = this.history.slice(Math.min(keepFrom, this.history.length));
      this.base += keepFrom;
    }
    return Int16Array.from(out);
  }
}

/** Resamples a whole signal at once. */
export function resample(samples: Int16Array, from: number, to: number): Int16Array {
  if (from === to) return samples;
  const r = new Resampler(from, to);
  return concatSamples([r.push(samples), r.flush()]);
}

export interface SilenceTrimOptions {
  /** Window of the loudness measure, ms. */
  windowMs?: number;
  /** RMS (of full scale) above which a window is speech: 0.002 ≈ -54 dBFS, above synthesizer noise floors. */
  threshold?: number;
  /** Consecutive loud windows that make an onset (a click is not speech). */
  onsetWindows?: number;
  /** Kept before the onset, ms (soft consonants start below the threshold). */
  leadPadMs?: number;
  /** Leading silence longer than this is kept as it is (the provider meant it), ms. */
  maxLeadMs?: number;
}

/**
 * Drops the silence before speech and caps the silence after it, on a stream: samples are held
 * back only while they are quiet (loud samples pass at once), so trimming adds no latency to
 * speech. Pauses inside speech are kept whole (timings of marks stay valid); only the head
 * and the tail are cut. `trimmedLead` (samples) is what was cut at the head: marks measured
 * from the provider's first sample move earlier by it.
 */
export class SilenceTrimmer {
  private readonly window: number;
  private readonly threshold: number;
  private readonly onsetWindows: number;
  private readonly leadPad: number;
  private readonly maxLead: number;
  /** Before the onset: everything received; after it: the quiet samples not yet emitted. */
  private pending: Int16Array[] = [];
  private pendingLength = 0;
  /** Samples of the current (incomplete) measuring window. */
  private win: number[] = [];
  private loudRun = 0;
  private started = false;
  /** Samples cut at the head. */
  trimmedLead = 0;
  /** Samples kept before the onset of speech (the pad). */
  leadKept = 0;
  /** Samples emitted so far. */
  emitted = 0;
  /** Samples (counted in the output) up to the end of the last loud window. */
  speechEnd = 0;

  constructor(
    readonly sampleRate: number,
    options: SilenceTrimOptions = {},
  ) {
    this.window = Math.max(1, Math.round(((options.windowMs ?? 5) * sampleRate) / 1000));
    this.threshold = (options.threshold ?? 0.002) * 32768;
    this.onsetWindows = options.onsetWindows ?? 2;
    this.leadPad = Math.round(((options.leadPadMs ?? 30) * sampleRate) / 1000);
    this.maxLead = Math.round(((options.maxLeadMs ?? 3000) * sampleRate) / 1000);
  }

  /** Samples to emit now. */
  push(samples: Int16Array): Int16Array {
    if (samples.length === 0) return samples;
    this.pending.push(samples);
    this.pendingLength += samples.length;
    let loudUntil = -1; // index into pending (flattened) where the latest loud window ends
    let onsetAt = -1;
    const startOffset = this.pendingLength - samples.length;
    for (let i = 0; i < samples.length; i++) {
      this.win.push(samples[i]!);
      if (this.win.length < this.window) continue;
      let sum = 0;
      for (const s of this.win) sum += s * s;
      const rms = Math.sqrt(sum / this.win.length);
      this.win.length = 0;
      const end = startOffset + i + 1;
      if (rms > this.threshold) {
        this.loudRun++;
        if (!this.started && this.loudRun >= this.onsetWindows && onsetAt < 0) onsetAt = end - this.loudRun * this.window;
        loudUntil = end;
      } else this.loudRun = 0;
    }
    if (!this.started) {
      if (onsetAt >= 0) {
        const cut = Math.max(0, onsetAt - this.leadPad);
        this.trimmedLead = cut;
        this.leadKept = onsetAt - cut;
        this.started = true;
        const all = concatSamples(this.pending).subarray(cut);
        this.pending = [];
        this.pendingLength = 0;
        // Everything after the onset up to the last loud window goes out; a quiet tail waits.
        const loudEnd = loudUntil - cut;
        return this.release(all, loudEnd);
      }
      if (this.pendingLength > this.maxLead) {
        // Not silence we should cut: a long quiet start is the provider's intent.
        this.started = true;
        const all = concatSamples(this.pending);
        this.pending = [];
        this.pendingLength = 0;
        return this.release(all, loudUntil);
      }
      return new Int16Array(0);
    }
    if (loudUntil < 0) return new Int16Array(0);
    const all = concatSamples(this.pending);
    this.pending = [];
    this.pendingLength = 0;
    return this.release(all, loudUntil);
  }

  /** Emits `all` up to `loudEnd` (exclusive) and keeps the rest pending. */
  private release(all: Int16Array, loudEnd: number): Int16Array {
    if (loudEnd <= 0) {
      this.pending = [all];
      this.pendingLength = all.length;
      return new Int16Array(0);
    }
    const out = all.subarray(0, loudEnd);
    const rest = all.subarray(loudEnd);
    if (rest.length) {
      this.pending = [rest];
      this.pendingLength = rest.length;
    }
    this.emitted += out.length;
    this.speechEnd = this.emitted;
    return out;
  }

  /** The end of the stream: the quiet tail, at most `maxTrailMs` of it. */
  end(maxTrailMs: number): Int16Array {
    const tail = concatSamples(this.pending);
    this.pending = [];
    this.pendingLength = 0;
    if (!this.started) {
      // Nothing loud at all: no speech to keep.
      this.trimmedLead = tail.length;
      return new Int16Array(0);
    }
    const keep = Math.min(tail.length, Math.round((maxTrailMs * this.sampleRate) / 1000));
    const out = tail.subarray(0, keep);
    this.emitted += out.length;
    return out;
  }
}

export const msOf = (samples: number, sampleRate: number) => (samples * 1000) / sampleRate;
