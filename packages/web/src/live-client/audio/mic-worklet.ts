// The microphone's processor (AudioWorklet scope): the input (echo-cancelled, noise-suppressed,
// gain-controlled by getUserMedia) is downmixed to mono, resampled to 16 kHz PCM16 and cut into
// 20 ms frames, which go to the page through the port (transferred) with their RMS level.
import { MicFramer } from './mic-framer';

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

export type MicOutbound = { type: 'frame'; pcm: Int16Array; rms: number };
export type MicInbound = { type: 'enabled'; enabled: boolean };

class MicProcessor extends AudioWorkletProcessor {
  private readonly framer: MicFramer;
  private enabled = true;
  private mono = new Float32Array(128);

  constructor(options: { processorOptions?: MicOptions }) {
    super(options);
    this.framer = new MicFramer(sampleRate, options.processorOptions?.outputRate ?? 16_000, options.processorOptions?.frameMs ?? 20);
    this.port.onmessage = (event: MessageEvent<MicInbound>) => {
      if (event.data.type === 'enabled') {
        this.enabled = event.data.enabled;
        if (!this.enabled) this.framer.reset();
      }
    };
  }

  process(inputs: Float32Array[][]): boolean {
    const channels = inputs[0];
    if (!this.enabled || !channels || channels.length === 0 || !channels[0]) return true;
    let input = channels[0];
    if (channels.length > 1) {
      if (this.mono.length !== input.length) this.mono = new Float32Array(input.length);
      for (let i = 0; i < input.length; i++) {
        let sum = 0;
        for (const c of channels) sum += c[i] ?? 0;
        this.mono[i] = sum / channels.length;
      }
      input = this.mono;
    }
    for (const f of this.framer.push(input)) this.port.postMessage({ type: 'frame', pcm: f.pcm, rms: f.rms } satisfies MicOutbound, [f.pcm.buffer]);
    return true;
  }
}

registerProcessor('persona-mic', MicProcessor);
