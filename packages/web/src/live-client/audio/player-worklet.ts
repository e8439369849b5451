// The avatar's playback processor (AudioWorklet scope): PCM from the page's socket goes in
// through the port, the jitter buffer decides what plays, and the exact frame each utterance's
// first and last sample was written at goes back, with the play position every few blocks.
import { JitterBuffer } from './jitter-buffer';

declare const sampleRate: number;
declare const currentFrame: number;
declare class AudioWorkletProcessor {
  readonly port: MessagePort;
  constructor(options?: unknown);
}
declare function registerProcessor(name: string, ctor: new (options: { processorOptions?: PlayerOptions }) => AudioWorkletProcessor): void;

export interface PlayerOptions {
  prebufferMs?: number;
  rebufferMs?: number;
}

export type PlayerInbound =
  | { type: 'pcm'; utt: number; pcm: Int16Array; last: boolean }
  | { type: 'end'; utt: number }
  | { type: 'flush'; utt?: number }
  /** The worker holds the utterance (the visitor talks over it) or lets it go on. */
  | { type: 'pause' | 'resume'; utt: number }
  /** A new connection to a worker: utterance numbers start again (see JitterBuffer.forgetFinished). */
  | { type: 'forget' };

export type PlayerOutbound =
  | { type: 'start'; utt: number; frame: number }
  | { type: 'end'; utt: number; frame: number; played: number; interrupted: boolean }
  | { type: 'underrun'; utt: number; frame: number }
  /** `played` samples of `utt` had been written when frame `frame` was reached. */
  | { type: 'pos'; utt: number; played: number; frame: number };

const POS_EVERY_BLOCKS = 3;

class PlayerProcessor extends AudioWorkletProcessor {
  private readonly buffer: JitterBuffer;
  private blocks = 0;

  constructor(options: { processorOptions?: PlayerOptions }) {
    super(options);
    this.buffer = new JitterBuffer({ sampleRate, prebufferMs: options.processorOptions?.prebufferMs ?? 80, rebufferMs: options.processorOptions?.rebufferMs ?? 40 });
    this.port.onmessage = (event: MessageEvent<PlayerInbound>) => {
      const m = event.data;
      if (m.type === 'pcm') this.buffer.push(m.utt, m.pcm, m.last);
      else if (m.type === 'end') this.buffer.end(m.utt);
      else if (m.type === 'flush') this.buffer.flush(m.utt);
      else if (m.type === 'pause') this.buffer.pause(m.utt);
      else if (m.type === 'resume') this.buffer.resume(m.utt);
      else if (m.type === 'forget') this.buffer.forgetFinished();
    };
  }

  process(_inputs: Float32Array[][], outputs: Float32Array[][]): boolean {
    const channels = outputs[0];
    const out = channels?.[0];
    if (!channels || !out) return true;
    const events = this.buffer.read(out);
    for (let c = 1; c < channels.length; c++) channels[c]!.set(out);
    for (const e of events) {
      const frame = currentFrame + e.offset;
      const message: PlayerOutbound =
        e.type === 'end' ? { type: 'end', utt: e.utt, frame, played: e.played, interrupted: e.interrupted } : { type: e.type, utt: e.utt, frame };
      this.port.postMessage(message);
    }
    const current = this.buffer.current;
    if (current && current.state !== 'waiting' && ++this.blocks % POS_EVERY_BLOCKS === 0) {
      this.port.postMessage({ type: 'pos', utt: current.utt, played: current.played, frame: currentFrame + out.length } satisfies PlayerOutbound);
    }
    return true;
  }
}

registerProcessor('persona-player', PlayerProcessor);
