import { expect } from 'vitest';
import { AudioFrameFlag, AudioFrameKind, readAudioFrame, writeAudioFrame, type TWorkerFrame } from '@persona/contract';
import type { Conversation, PageSocket } from '../live/conversation.js';

/** The avatar page as a conversation sees it: JSON frames and avatar audio frames, recorded. */
export function fakePage() {
  const frames: TWorkerFrame[] = [];
  /** The JSON text as sent (to check what never reaches the page, e.g. a key). */
  const raw: string[] = [];
  const audio: { utt: number; seq: number; last: boolean; samples: number }[] = [];
  let closed: number | null = null;
  const socket: PageSocket & { frames: TWorkerFrame[]; raw: string[]; audio: typeof audio } = {
    frames,
    raw,
    audio,
    send: (data) => {
      raw.push(data);
      frames.push(JSON.parse(data) as TWorkerFrame);
    },
    sendBinary: (data) => {
      const f = readAudioFrame(data)!;
      expect(f.header.kind).toBe(AudioFrameKind.avatar);
      audio.push({ utt: f.header.utterance, seq: f.header.seq, last: (f.header.flags & AudioFrameFlag.last) !== 0, samples: f.pcm.byteLength / 2 });
    },
    close: (code) => (closed = code),
    get isOpen() {
      return closed === null;
    },
  };
  return socket;
}

export { until } from './until.js';

type Of<T extends TWorkerFrame['type']> = Extract<TWorkerFrame, { type: T }>;
export const framesOf = <T extends TWorkerFrame['type']>(page: { frames: TWorkerFrame[] }, type: T) => page.frames.filter((f): f is Of<T> => f.type === type);
/** Samples of avatar audio the page received for utterance `utt`. */
export const samplesOf = (page: ReturnType<typeof fakePage>, utt: number) => page.audio.filter((a) => a.utt === utt).reduce((n, a) => n + a.samples, 0);
export const finals = (page: { frames: TWorkerFrame[] }) => framesOf(page, 'assistant').filter((f) => f.final);

/** Mic audio as the page sends it: 16 kHz PCM16 in 20 ms binary frames (a loud tone, or silence). */
export function sendMic(c: Conversation, ms: number, loud: boolean) {
  for (let t = 0; t < ms; t += 20) {
    const pcm = Int16Array.from({ length: 320 }, (_, i) => (loud ? Math.round(9000 * Math.sin(i / 3)) : 0));
    c.onAudio(writeAudioFrame({ kind: AudioFrameKind.mic, flags: 0, utterance: 0, seq: t / 20 }, new Uint8Array(pcm.buffer)));
  }
}
