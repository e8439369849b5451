import { LANGUAGE_TAG } from '@persona/contract';
import { ProviderError } from '../../core/errors.js';
import { concatSamples } from '../../core/audio.js';
import type { SttEvents, SttOptions, SttResult, SttSession } from './types.js';

/** What the network STT clients wait for at most. */
export interface SttTimeouts {
  /** Batch: one utterance's request until its whole answer. Stream: the socket's opening handshake. */
  requestMs: number;
  /** Stream: how long `finalize` waits for the provider's flushed result before giving up quietly. */
  finalizeMs: number;
  /** Stream: audio went out and nothing readable came back for this long: the stream is stuck. */
  streamIdleMs: number;
}

/**
 * A batch transcription of one utterance (≤ 60 s of audio, ≤ 2 MB uploaded) comes back in 0.3–3 s;
 * the visitor waits in silence meanwhile, so 10 s is the most that is still an answer. The same
 * bound covers a streaming socket's handshake (TLS + upgrade: well under a second normally).
 */
export const STT_REQUEST_MS = 10_000;
/** Deepgram answers a Finalize at once when it has audio buffered; without one it may say nothing. */
export const STT_FINALIZE_MS = 3_000;
/**
 * A streaming recogniser answers the audio it gets with results about every second (empty ones
 * for silence); 6 s of audio without one readable message means the socket is stuck.
 */
export const STT_STREAM_IDLE_MS = 6_000;

export const DEFAULT_STT_TIMEOUTS: SttTimeouts = { requestMs: STT_REQUEST_MS, finalizeMs: STT_FINALIZE_MS, streamIdleMs: STT_STREAM_IDLE_MS };

/** Longest utterance a batch engine sends (a minute: OpenAI's `/audio/transcriptions` takes 25 MB, the offline recogniser is bounded anyway). */
export const MAX_BATCH_SECONDS = 60;
/** Largest answer accepted from a batch transcription (bytes). */
export const MAX_STT_ANSWER_BYTES = 1024 * 1024;

/**
 * One batch transcription: the utterance's samples in, its text (or null for silence / no match)
 * out. Failures are ProviderErrors; the signal aborts the request.
 */
export type TranscribeFn = (pcm: Int16Array, signal: AbortSignal) => Promise<Omit<SttResult, 'final' | 'endOfTurn'> | null>;

/**
 * The session of a batch engine (OpenAI-compatible
 * `/audio/transcriptions`): `push`ed audio is buffered (capped at MAX_BATCH_SECONDS — the oldest
 * audio beyond it is dropped), `finalize` sends it as one request and reports one final,
 * end-of-turn result (none when nothing was recognised). At most one transcription is in flight
 * and one queued behind it: while a slow endpoint answers, further utterances are merged into the
 * queued one (also capped at MAX_BATCH_SECONDS), so memory and requests stay bounded. `reset`
 * drops the buffer; `close` (or the session's signal) aborts whatever is in flight.
 */
export function batchSession(options: SttOptions, events: SttEvents, transcribe: TranscribeFn): SttSession {
  const cap = MAX_BATCH_SECONDS * options.sampleRate;
  let parts: Int16Array[] = [];
  let buffered = 0;
  let sentSamples = 0;
  let closed = false;
  const ctl = new AbortController();
  const onAbort = () => {
    closed = true;
    ctl.abort(options.signal.reason);
  };
  if (options.signal.aborted) onAbort();
  else options.signal.addEventListener('abort', onAbort, { once: true });

  interface Job {
    parts: Int16Array[];
    samples: number;
    startMs: number;
    endMs: number;
  }
  /** The transcription in flight (settles once its result is reported). */
  let inFlight: Promise<void> | null = null;
  /** The one utterance waiting behind it, and the promise its finalize() calls share. */
  let queued: { job: Job; done: Promise<void>; resolve: () => void } | null = null;

  const take = (): Int16Array => {
    const out = concatSamples(parts);
    parts = [];
    buffered = 0;
    return out;
  };

  const transcribeJob = async (job: Job) => {
    if (closed || job.samples === 0) return;
    try {
      const got = await transcribe(concatSamples(job.parts), ctl.signal);
      // Nothing recognised (silence, a cough): no result; the finalize still resolves.
      if (closed || !got?.text.trim()) return;
      events.onResult({ text: got.text.trim(), final: true, endOfTurn: true, startMs: job.startMs, endMs: job.endMs, ...(got.language ? { language: got.language } : {}) });
    } catch (err) {
      if (closed) return;
      events.onError(err instanceof Error ? err : new ProviderError('stt', String(err)));
    }
  };

  const launch = (job: Job): Promise<void> => {
    const p: Promise<void> = transcribeJob(job).finally(() => {
      if (inFlight === p) inFlight = null;
      const next = queued;
      if (!next) return;
      queued = null;
      void launch(next.job).then(next.resolve);
    });
    inFlight = p;
    return p;
  };

  return {
    push(pcm) {
      if (closed || pcm.length === 0) return;
      parts.push(pcm.slice());
      buffered += pcm.length;
      while (buffered > cap && parts.length > 1) {
        const dropped = parts.shift()!;
        buffered -= dropped.length;
        sentSamples += dropped.length;
      }
    },
    finalize() {
      const pcm = take();
      const startMs = (sentSamples * 1000) / options.sampleRate;
      sentSamples += pcm.length;
      const endMs = (sentSamples * 1000) / options.sampleRate;
      if (closed || pcm.length === 0) return queued?.done ?? inFlight ?? Promise.resolve();
      if (queued) {
        // A third utterance while one is in flight and one waits: it joins the waiting one.
        const job = queued.job;
        job.parts.push(pcm);
        job.samples += pcm.length;
        while (job.samples > cap && job.parts.length > 1) {
          const dropped = job.parts.shift()!;
          job.samples -= dropped.length;
          job.startMs += (dropped.length * 1000) / options.sampleRate;
        }
        job.endMs = endMs;
        return queued.done;
      }
      const job: Job = { parts: [pcm], samples: pcm.length, startMs, endMs };
      if (!inFlight) return launch(job);
      let resolve!: () => void;
      const done = new Promise<void>((r) => (resolve = r));
      queued = { job, done, resolve };
      return done;
    },
    reset() {
      sentSamples += buffered;
      parts = [];
      buffered = 0;
    },
    close() {
      if (closed) return;
      closed = true;
      parts = [];
      buffered = 0;
      options.signal.removeEventListener('abort', onAbort);
      ctl.abort(new Error('closed'));
    },
  };
}

/** A BCP-47 tag as providers take it (letters, digits, dashes); anything else is refused. */
export function languageTag(value: string | undefined, provider: string): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!LANGUAGE_TAG.test(value)) throw new ProviderError(provider, `language ${JSON.stringify(value.slice(0, 20))} is not valid`);
  return value;
}
