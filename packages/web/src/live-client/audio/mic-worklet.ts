// The microphone's processor (AudioWorklet scope): the input (echo-cancelled, noise-suppressed,
// gain-controlled by getUserMedia) is downmixed to mono, resampled to 16 kHz PCM16 and cut into
// 20 ms frames, which go to the page through the port (transferred) with their RMS level. A second
// input, when the page connects one, is what it makes audible: the avatar's voice is taken out of
// the mic against it (mic-echo.ts, ADR 108) where the browser's own canceller is not at work.
import type { EchoStats } from '@persona/contract/echo-filter';
import { MicEchoFrames } from './mic-echo';

declare const sampleRate: number;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
  constructor(options?: unknown);
}
declare function registerProcessor(name: string, ctor: new (options: { processorOptions?: MicOptions }) => AudioWorkletProcessor): void;

export interface MicOptions {
  outputRate: number;
  frameMs: number;
}

export type MicOutbound = { type: 'frame'; pcm: Int16Array; rms: number } | { type: 'echo'; stats: EchoStats };
export type MicInbound = { type: 'enabled'; enabled: boolean };

/** How often the echo figures go to the page (render quanta: ~0.5 s at 48 kHz). */
const ECHO_REPORT_QUANTA = 188;

class MicProcessor extends AudioWorkletProcessor {
  private readonly frames: MicEchoFrames;
  private enabled = true;
  private mono = [new Float32Array(128), new Float32Array(128)];
  private quanta = 0;

  constructor(options: { processorOptions?: MicOptions }) {
    super(options);
    this.frames = new MicEchoFrames(sampleRate, options.processorOptions?.outputRate ?? 16_000, options.processorOptions?.frameMs ?? 20);
    this.port.onmessage = (event: MessageEvent<MicInbound>) => {
      if (event.data.type === 'enabled') {
        this.enabled = event.data.enabled;
        if (!this.enabled) this.frames.reset();
      }
    };
  }

  /** Input `n`'s channels as one (a view, or this processor's own buffer); null when it has none. */
  private monoOf(channels: Float32Array[] | undefined, n: 0 | 1): Float32Array | null {
    const first = channels?.[0];
    if (!channels || !first) return null;
    if (channels.length === 1) return first;
    let out = this.mono[n]!;
    if (out.length !== first.length) out = this.mono[n] = new Float32Array(first.length);
    for (let i = 0; i < first.length; i++) {
      let sum = 0;
      for (const c of channels) sum += c[i] ?? 0;
      out[i] = sum / channels.length;
    }
    return out;
  }

  process(inputs: Float32Array[][]): boolean {
    const input = this.monoOf(inputs[0], 0);
    if (!this.enabled || !input) return true;
    const far = this.monoOf(inputs[1], 1);
    for (const f of this.frames.push(input, far)) this.port.postMessage({ type: 'frame', pcm: f.pcm, rms: f.rms } satisfies MicOutbound, [f.pcm.buffer]);
    const stats = this.frames.stats;
    // The canceller's figures, for the page's test hook (its cost is measured by `npm run bench -- echo`).
    if (stats && ++this.quanta % ECHO_REPORT_QUANTA === 0) this.port.postMessage({ type: 'echo', stats: { ...stats } } satisfies MicOutbound);
    return true;
  }
}

registerProcessor('persona-mic', MicProcessor);
