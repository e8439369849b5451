import { ProviderError } from '../core/errors.js';
import type { TtsChunk, TtsEngine } from '../providers/tts/types.js';
import type { VisemeItem, WordItem } from '../core/visemes.js';
import { fakeSpeech } from './fake-tts.js';

/**
 * An in-process TTS engine for pipeline tests: it "speaks" with `fakeSpeech` (a silent lead, a
 * tone burst per word, a silent tail; at the rate asked for), optionally with marks (one `aa` per word, word times),
 * after a scripted delay, in a scripted number of chunks; it records each call and whether its
 * signal was aborted, and can fail on chosen texts.
 */
export interface ScriptedCall {
  text: string;
  previousText?: string;
  /** The rate asked for (`<trl-config speechSpeed>`), when one was. */
  rate?: number;
  at: number;
  finishedAt: number | null;
  abortedAt: number | null;
}

export interface ScriptedTtsOptions {
  sampleRate?: number;
  /** Delay before the first chunk (ms), per text. */
  delayMs?: number | ((text: string) => number);
  chunks?: number;
  chunkDelayMs?: number;
  marks?: 'visemes' | 'none';
  /** Throw a ProviderError for these texts (after the delay, before any audio). */
  failOn?: (text: string) => boolean;
}

export function scriptedTts(o: ScriptedTtsOptions = {}): TtsEngine & { calls: ScriptedCall[] } {
  const rate = o.sampleRate ?? 16000;
  const calls: ScriptedCall[] = [];
  const wait = (ms: number, signal: AbortSignal) =>
    new Promise<void>((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      const t = setTimeout(() => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(t);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
    });
  return {
    provider: 'scripted',
    sampleRate: rate,
    marks: o.marks ?? 'visemes',
    calls,
    async *synthesize(text, { signal, previousText, rate: speechRate }): AsyncIterable<TtsChunk> {
      const call: ScriptedCall = { text, previousText, ...(speechRate !== undefined ? { rate: speechRate } : {}), at: performance.now(), finishedAt: null, abortedAt: null };
      calls.push(call);
      signal.addEventListener('abort', () => (call.abortedAt = performance.now()), { once: true });
      const delay = typeof o.delayMs === 'function' ? o.delayMs(text) : (o.delayMs ?? 0);
      if (delay) await wait(delay, signal);
      if (o.failOn?.(text)) throw new ProviderError('scripted', `refused ${JSON.stringify(text)}`, 500);
      const speech = fakeSpeech(text, rate, speechRate ?? 1);
      const n = Math.max(1, o.chunks ?? 3);
      const size = Math.ceil(speech.samples.length / n);
      const visemes: VisemeItem[] = [];
      const words: WordItem[] = speech.words.map((w) => ({ t: w.startMs, d: w.endMs - w.startMs, w: w.word }));
      for (const w of speech.words) visemes.push({ t: w.startMs, v: 'aa', d: w.endMs - w.startMs });
      for (let k = 0; k < n; k++) {
        if (k > 0 && o.chunkDelayMs) await wait(o.chunkDelayMs, signal);
        signal.throwIfAborted();
        const pcm = speech.samples.subarray(k * size, (k + 1) * size);
        // Marks come with the first chunk, as Polly's and Cartesia's do.
        const marks = k === 0 && o.marks !== 'none' ? { visemes, words } : undefined;
        yield { pcm, sampleRate: rate, ...(marks ? { marks } : {}) };
      }
      call.finishedAt = performance.now();
    },
  };
}
