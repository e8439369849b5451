import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import os from 'node:os';
import { pocketsphinxEnv, type PocketsphinxEnv } from '../../config.js';
import { createOfflineRecognizer, createRecognizerPool, DITHER_DBFS, findPocketsphinx, type OfflineRecognizer, type PocketsphinxInstall } from './offline.js';
import { STREAM_DECODER_PY } from './offline-stream-decoder.js';
import type { SttEngine, SttEvents, SttOptions, SttSession } from './types.js';

/**
 * The streaming offline recogniser (ADR 106): the same pocketsphinx model as offline.ts, driven
 * through Debian's `python3-pocketsphinx` by a small resident program (offline-stream-decoder.ts)
 * that decodes each utterance WHILE the visitor speaks — start_utt, process_raw per chunk as the
 * VAD passes it, end_utt at the end — so the final hypothesis is ready a few ms after the end of
 * speech instead of after a whole-utterance decode (~0.2 s idle, seconds under load; ADR 095).
 *
 * A pool of resident processes (one per core, bounded): an utterance is bound to an idle process
 * when its first audio comes and frees it at its end; while every process is busy it waits, its
 * audio queued. Each utterance's audio is queued in Node (bounded: `maxSeconds`, later audio is
 * dropped) and written only while the process keeps up with its pipe (back-pressure); a process
 * that exits or does not answer fails its own utterance only and a new one starts for the next.
 */
export interface StreamingInstall extends PocketsphinxInstall {
  /** A python3 that can `import pocketsphinx` (Debian's /usr/bin/python3 with python3-pocketsphinx). */
  python: string;
}

/**
 * The streaming recogniser's install where python3-pocketsphinx imports here, unless it is
 * turned off (WORKER_STT_STREAMING=off); else null (the batch recogniser answers). ADR 106.
 */
export function findStreamingPocketsphinx(env: PocketsphinxEnv = pocketsphinxEnv()): StreamingInstall | null {
  const off = env.WORKER_STT_STREAMING?.trim().toLowerCase();
  if (off === 'off' || off === '0' || off === 'false') return null;
  const install = findPocketsphinx(env);
  const python = env.POCKETSPHINX_PYTHON || '/usr/bin/python3';
  if (!install || !existsSync(python)) return null;
  // Asked once per python (a second of a loaded machine's time): the answer does not change while the worker runs.
  let importable = importsPocketsphinx.get(python);
  if (importable === undefined) {
    importable = spawnSync(python, ['-c', 'import pocketsphinx'], { stdio: 'ignore', timeout: 10_000 }).status === 0;
    importsPocketsphinx.set(python, importable);
  }
  return importable ? { ...install, python } : null;
}

const importsPocketsphinx = new Map<string, boolean>();

/** What runs one decoder process: the program and its arguments (tests give a fake decoder). */
export interface DecoderCommand {
  file: string;
  args: string[];
}

export function decoderCommand(install: StreamingInstall): DecoderCommand {
  // The same model arguments as the batch recogniser (offline.ts): `-fwdflat no`, no log.
  return { file: install.python, args: ['-u', '-c', STREAM_DECODER_PY, '-hmm', install.hmm, '-lm', install.lm, '-dict', install.dict, '-fwdflat', 'no', '-logfn', '/dev/null'] };
}

export interface StreamUtteranceOptions {
  /** Another n-gram model for this utterance (an avatar's own, language-model.ts), loaded once per process. */
  lm?: string;
  /** Partial hypotheses while it is being decoded (reported to `onPartial`). */
  onPartial?: (text: string) => void;
  /**
   * Whose utterance this is (one listening session): it goes, when idle, to the process that
   * decoded that session's last one — pocketsphinx's live cepstral mean carries over from one
   * utterance to the next in a process, better from the same voice and microphone.
   */
  affinity?: object;
}

/** One utterance being decoded as it comes. */
export interface StreamUtterance {
  /** 16 kHz PCM16 mono; cheap, never blocks (queued while the process is busy or behind). */
  push(pcm: Int16Array): void;
  /** No more audio: its final hypothesis. Rejects when the process failed it. */
  end(signal?: AbortSignal): Promise<{ text: string; score: number }>;
  /** Dropped: nothing is reported and its process is free again. */
  cancel(): void;
}

export interface StreamingRecognizer extends OfflineRecognizer {
  begin(opts?: StreamUtteranceOptions): StreamUtterance;
  /**
   * Loads another n-gram model into every process as soon as it is idle (and into each started
   * later), so that the first utterance asking for it (`lm`) does not wait ~0.2 s for it (ADR 107).
   */
  preload?(lm: string): void;
  /** Processes (started, decoding an utterance), utterances waiting for one, audio queued in this process (samples), whether it gave up (its processes would not start), and models its processes said they loaded ahead (`preload`). */
  stats(): { processes: number; ready: number; busy: number; waiting: number; queuedSamples: number; broken: boolean; preloaded: number };
}

export interface StreamingRecognizerOptions {
  install?: StreamingInstall;
  /** The decoder program (default: python3 running STREAM_DECODER_PY with the install's models). */
  command?: DecoderCommand;
  /** Resident processes at most (default 1). */
  size?: number;
  /**
   * An ended utterance whose process makes no progress (reads none of its audio, says nothing of
   * it) for this long is failed and its process killed (default 20 s). Counted from the end only
   * once a running process has it: a loaded machine's slow start or backlog is not a stuck process.
   */
  timeoutMs?: number;
  /** A process not ready in this long is killed, counted as a failed start (default 60 s). */
  startTimeoutMs?: number;
  /**
   * Keep one more process starting while every running one is busy (within `size`), so the next
   * utterance finds one ready instead of waiting for python and the model to load (seconds on a
   * loaded machine). Default false; the worker's recogniser asks for it.
   */
  spare?: boolean;
  /** Longest utterance decoded (seconds, default 60); later audio is dropped. */
  maxSeconds?: number;
  /** The dither added before recognition (dBFS RMS, default DITHER_DBFS as offline.ts); null: none. */
  ditherDbfs?: number | null;
  /** Starts failing in a row after which the pool gives up (default 3). */
  maxStartFailures?: number;
}

/**
 * offline.ts's `withDither` as a running generator: the same seeded triangular dither, so chunks
 * dithered one after another equal the whole utterance dithered at once (the same audio reaches
 * the decoder as with the batch recogniser).
 */
export function createDitherer(dbfs: number, seed = 0x5eed): (pcm: Int16Array) => Int16Array {
  const a = 32768 * 10 ** (dbfs / 20) * Math.sqrt(6);
  let x = seed >>> 0;
  const next = () => {
    x = (Math.imul(x, 1664525) + 1013904223) >>> 0;
    return x / 4294967296 - 0.5;
  };
  return (pcm) => {
    const out = new Int16Array(pcm.length);
    for (let i = 0; i < pcm.length; i++) out[i] = Math.max(-32768, Math.min(32767, Math.round(pcm[i]! + a * (next() + next()))));
    return out;
  };
}

/** One frame of the decoder's stdin: type, utterance id, payload length, payload. */
export function encodeFrame(kind: 'S' | 'A' | 'E' | 'X' | 'L', id: number, payload?: Uint8Array): Buffer {
  const len = payload?.byteLength ?? 0;
  const buf = Buffer.allocUnsafe(9 + len);
  buf.write(kind, 0, 'latin1');
  buf.writeUInt32LE(id >>> 0, 1);
  buf.writeUInt32LE(len, 5);
  if (payload && len) buf.set(payload, 9);
  return buf;
}

interface Proc {
  child: ReturnType<typeof spawn>;
  ready: boolean;
  utt: Utt | null;
  /** Its pipe is full: nothing more is written until 'drain'. */
  blocked: boolean;
  out: string;
  dead: boolean;
  /** Killed (stuck): takes no utterance while it exits. */
  retired: boolean;
  /** The affinity of the last utterance it decoded. */
  last: WeakRef<object> | null;
  /** Other models it has been told to load. */
  models: Set<string>;
  /** Models it said it loaded ahead. */
  loaded: number;
}

interface Utt {
  id: number;
  opts: StreamUtteranceOptions;
  proc: Proc | null;
  chunks: Buffer[];
  samples: number;
  started: boolean;
  ended: boolean;
  endSent: boolean;
  done: boolean;
  dither: ((pcm: Int16Array) => Int16Array) | null;
  result: Promise<{ text: string; score: number }>;
  resolve: (hyp: { text: string; score: number }) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout | null;
}

const cleanHyp = (text: string) => text.replace(/<[^>]*>|\[[^\]]*\]|\(\d+\)/g, ' ').replace(/\s+/g, ' ').trim();

export function createStreamingRecognizer(opts: StreamingRecognizerOptions = {}): StreamingRecognizer {
  const install = opts.install ?? null;
  const command = opts.command ?? (install ? decoderCommand(install) : null);
  const size = Math.max(1, opts.size ?? 1);
  const timeoutMs = opts.timeoutMs ?? 20_000;
  const startTimeoutMs = opts.startTimeoutMs ?? 60_000;
  const spare = opts.spare ?? false;
  const maxSamples = (opts.maxSeconds ?? 60) * 16_000;
  const ditherDbfs = opts.ditherDbfs === undefined ? DITHER_DBFS : opts.ditherDbfs;
  const maxStartFailures = opts.maxStartFailures ?? 3;
  const procs = new Set<Proc>();
  const preloads = new Set<string>();
  const waiting: Utt[] = [];
  const readyWaiters: { resolve: () => void; reject: (err: Error) => void }[] = [];
  let startFailures = 0;
  let broken: Error | null = null;
  let closed = false;
  let seq = 0;

  const finish = (u: Utt) => {
    u.done = true;
    u.chunks = [];
    u.samples = 0;
    if (u.timer) clearTimeout(u.timer);
    u.timer = null;
    const i = waiting.indexOf(u);
    if (i >= 0) waiting.splice(i, 1);
    if (u.proc) {
      u.proc.utt = null;
      u.proc = null;
    }
  };

  const fail = (u: Utt, err: Error) => {
    if (u.done) return;
    finish(u);
    u.reject(err);
  };

  const giveUp = (err: Error) => {
    broken = err;
    for (const u of waiting.slice()) fail(u, err);
    for (const w of readyWaiters.splice(0)) w.reject(err);
  };

  const kill = (p: Proc) => {
    p.retired = true;
    if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGKILL');
  };

  const onLine = (p: Proc, line: string) => {
    let msg: { ready?: boolean; loaded?: string; id?: number; final?: boolean; text?: string; score?: number; partial?: string; error?: string };
    try {
      msg = JSON.parse(line) as typeof msg;
    } catch {
      return;
    }
    if (msg.ready) {
      p.ready = true;
      startFailures = 0;
      for (const w of readyWaiters.splice(0)) w.resolve();
      assign();
      return;
    }
    if (typeof msg.loaded === 'string') {
      p.loaded++;
      return;
    }
    const u = p.utt;
    if (!u || msg.id !== u.id) return;
    if (typeof msg.partial === 'string') {
      progressed(u);
      u.opts.onPartial?.(cleanHyp(msg.partial));
      return;
    }
    if (msg.error !== undefined) {
      fail(u, new Error(`the offline recogniser failed: ${msg.error}`));
      assign();
      return;
    }
    if (msg.final) {
      finish(u);
      u.resolve({ text: cleanHyp(msg.text ?? ''), score: Number(msg.score ?? 0) });
      assign();
    }
  };

  const startProc = () => {
    if (!command) throw new Error('python3-pocketsphinx is not installed (apt-get install python3-pocketsphinx pocketsphinx-en-us)');
    const child = spawn(command.file, command.args, { stdio: ['pipe', 'pipe', 'ignore'] });
    const p: Proc = { child, ready: false, utt: null, blocked: false, out: '', dead: false, retired: false, last: null, models: new Set(), loaded: 0 };
    procs.add(p);
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (chunk: string) => {
      p.out += chunk;
      let nl: number;
      while ((nl = p.out.indexOf('\n')) >= 0) {
        const line = p.out.slice(0, nl);
        p.out = p.out.slice(nl + 1);
        onLine(p, line);
      }
    });
    child.stdin!.on('error', () => undefined);
    child.stdin!.on('drain', () => {
      p.blocked = false;
      if (p.utt) {
        progressed(p.utt);
        pump(p.utt);
      }
    });
    // Python and the model load in about a second here, far longer on a loaded machine; never is a failed start.
    const startTimer = setTimeout(() => {
      if (!p.ready && !p.dead) kill(p);
    }, startTimeoutMs);
    startTimer.unref();
    const gone = () => {
      if (p.dead) return;
      p.dead = true;
      clearTimeout(startTimer);
      procs.delete(p);
      if (!p.ready && !closed) {
        startFailures++;
        if (startFailures >= maxStartFailures) giveUp(new Error('the offline recogniser could not start'));
      }
      if (p.utt) fail(p.utt, new Error('the offline recogniser stopped'));
      if (!closed && !broken) assign();
    };
    child.on('exit', gone);
    child.on('error', gone);
    child.unref();
    (child.stdout as unknown as { unref?: () => void }).unref?.();
    (child.stdin as unknown as { unref?: () => void }).unref?.();
    return p;
  };

  /** Waiting utterances to idle processes; a new process when all are busy and the pool may grow. */
  function assign() {
    if (closed || broken) return;
    while (waiting.length) {
      const idle = [...procs].filter((p) => p.ready && !p.utt && !p.dead && !p.retired);
      if (!idle.length) break;
      const u = waiting.shift()!;
      const key = u.opts.affinity;
      const p = (key && idle.find((x) => x.last?.deref() === key)) || idle.find((x) => !x.last?.deref()) || idle[0]!;
      u.proc = p;
      p.utt = u;
      if (key) p.last = new WeakRef(key);
      pump(u);
      if (u.ended) armTimeout(u);
    }
    const live = [...procs].filter((p) => !p.dead && !p.retired);
    // Idle processes load the models asked for ahead (an utterance's own is loaded with its start).
    for (const p of live) {
      if (!p.ready || p.utt) continue;
      for (const lm of preloads) {
        if (p.models.has(lm)) continue;
        p.models.add(lm);
        if (!p.child.stdin!.write(encodeFrame('L', 0, Buffer.from(lm)))) p.blocked = true;
      }
    }
    const starting = live.filter((p) => !p.ready).length;
    if (waiting.length > starting && procs.size < size) startProc();
    // Every running process busy and none starting: one more, ready for the next utterance.
    else if (spare && starting === 0 && live.length > 0 && live.every((p) => p.utt) && procs.size < size) startProc();
  }

  /** Writes what it can of an utterance to its process: start, audio while the pipe takes it, end. */
  function pump(u: Utt) {
    const p = u.proc;
    if (!p || u.done || p.dead) return;
    const write = (buf: Buffer) => {
      if (!p.child.stdin!.write(buf)) p.blocked = true;
    };
    if (!u.started) {
      // A process is told of an utterance with its first audio.
      if (u.chunks.length === 0) return;
      u.started = true;
      if (u.opts.lm) p.models.add(u.opts.lm);
      write(encodeFrame('S', u.id, Buffer.from(JSON.stringify({ lm: u.opts.lm, partial: Boolean(u.opts.onPartial) }))));
    }
    while (u.chunks.length && !p.blocked) {
      const chunk = u.chunks.shift()!;
      u.samples -= chunk.byteLength / 2;
      write(encodeFrame('A', u.id, chunk));
    }
    if (u.ended && !u.endSent && u.chunks.length === 0) {
      u.endSent = true;
      write(encodeFrame('E', u.id));
    }
  }

  /** Ended and running: answered, or progressing, within timeoutMs, or its process (stuck, or not reading its pipe) is killed. */
  function armTimeout(u: Utt) {
    if (u.done || !u.ended || !u.proc) return;
    if (u.timer) clearTimeout(u.timer);
    u.timer = setTimeout(() => {
      const p = u.proc;
      fail(u, new Error('the offline recogniser timed out'));
      // Its process is killed (the next utterance gets a new one); one still waiting just fails.
      if (p) kill(p);
      assign();
    }, timeoutMs);
    u.timer.unref();
  }

  /** Its process read more of its audio or said something of it: the wait starts again. */
  function progressed(u: Utt) {
    if (u.timer) armTimeout(u);
  }

  const recognizer: StreamingRecognizer = {
    begin(uttOpts = {}) {
      let received = 0;
      let result: Promise<{ text: string; score: number }> | null = null;
      let resolve!: Utt['resolve'];
      let reject!: Utt['reject'];
      const u: Utt = {
        id: (seq = (seq + 1) >>> 0 || 1),
        opts: uttOpts,
        proc: null,
        chunks: [],
        samples: 0,
        started: false,
        ended: false,
        endSent: false,
        done: false,
        dither: ditherDbfs === null ? null : createDitherer(ditherDbfs),
        result: new Promise((res, rej) => {
          resolve = res;
          reject = rej;
        }),
        resolve: (hyp) => resolve(hyp),
        reject: (err) => reject(err),
        timer: null,
      };
      // A failure nobody asked for yet (the utterance is still being spoken) is not unhandled.
      u.result.catch(() => undefined);
      if (closed) fail(u, new Error('the offline recogniser is closed'));
      else if (broken) fail(u, broken);
      else {
        waiting.push(u);
        assign();
      }
      return {
        push(pcm) {
          if (u.done || u.ended || pcm.length === 0) return;
          // Longer than maxSeconds (or a process far behind): the rest is not decoded; memory stays bounded.
          const room = maxSamples - received;
          if (room <= 0) return;
          const take = pcm.length > room ? pcm.subarray(0, room) : pcm;
          received += take.length;
          const audio = u.dither ? u.dither(take) : take.slice();
          u.chunks.push(Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength));
          u.samples += take.length;
          pump(u);
        },
        end(signal) {
          if (!result) {
            u.ended = true;
            if (received === 0 && !u.started) {
              // Nothing said: no process is needed.
              finish(u);
              u.resolve({ text: '', score: 0 });
              assign();
            } else {
              armTimeout(u);
              pump(u);
            }
            result = u.result;
          }
          if (!signal) return result;
          return new Promise((res, rej) => {
            const onAbort = () => rej(new Error('aborted'));
            if (signal.aborted) onAbort();
            signal.addEventListener('abort', onAbort, { once: true });
            result!.then(res, rej).finally(() => signal.removeEventListener('abort', onAbort));
          });
        },
        cancel() {
          if (u.done) return;
          const p = u.proc;
          const sent = u.started;
          finish(u);
          u.reject(new Error('cancelled'));
          if (p && sent && !p.dead) p.child.stdin!.write(encodeFrame('X', u.id));
          assign();
        },
      };
    },
    preload(lm) {
      if (!lm || preloads.has(lm)) return;
      preloads.add(lm);
      assign();
    },
    stats() {
      const all = [...procs];
      const queued = [...waiting, ...all.map((p) => p.utt).filter((u): u is Utt => u !== null)].reduce((n, u) => n + u.samples, 0);
      return { processes: all.length, ready: all.filter((p) => p.ready && !p.retired).length, busy: all.filter((p) => p.utt).length, waiting: waiting.length, queuedSamples: queued, broken: broken !== null, preloaded: all.reduce((n, p) => n + p.loaded, 0) };
    },
    async transcribe(pcm, signal) {
      return (await recognizer.transcribeScored!(pcm, signal)).text;
    },
    async transcribeScored(pcm, signal) {
      if (closed) throw new Error('the offline recogniser is closed');
      const utt = recognizer.begin();
      utt.push(pcm);
      return utt.end(signal);
    },
    warm() {
      if (closed) return Promise.reject(new Error('the offline recogniser is closed'));
      if (broken) return Promise.reject(broken);
      if ([...procs].some((p) => p.ready)) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        readyWaiters.push({ resolve, reject });
        try {
          if (procs.size === 0) startProc();
        } catch (err) {
          readyWaiters.pop();
          reject(err instanceof Error ? err : new Error(String(err)));
        }
      });
    },
    async close() {
      closed = true;
      const err = new Error('the offline recogniser is closed');
      for (const u of waiting.slice()) fail(u, err);
      for (const w of readyWaiters.splice(0)) w.reject(err);
      for (const p of [...procs]) {
        if (p.utt) fail(p.utt, err);
        kill(p);
      }
    },
  };
  return recognizer;
}

/**
 * The worker's offline recogniser: the streaming one when python3-pocketsphinx imports here (and
 * WORKER_STT_STREAMING is not 'off'), else the batch pool of offline.ts; null when pocketsphinx is
 * not installed. `size`: resident processes at most (WORKER_STT_PROCESSES). By default the batch
 * pool has one per core (at most 4: a process is busy only while it decodes); the streaming one
 * two per core (at most 6): a process is held while a visitor speaks, mostly waiting for audio,
 * so it is memory (~110 MB each, started only when utterances overlap) that bounds it, not CPU.
 * `lm`: another language model (an avatar's own, avatar-models.ts) instead of the generic one.
 */
export function createWorkerOfflineRecognizer(size?: number, env: PocketsphinxEnv = pocketsphinxEnv(), lm?: string): OfflineRecognizer | null {
  const cores = os.availableParallelism();
  const found = findStreamingPocketsphinx(env);
  const streaming = found && lm ? { ...found, lm } : found;
  const generic = findPocketsphinx(env);
  const install = generic && lm ? { ...generic, lm } : generic;
  const batch = () => createRecognizerPool(() => createOfflineRecognizer({ install: install! }), size ?? Math.min(4, cores));
  if (streaming) return withBatchFallback(createStreamingRecognizer({ install: streaming, size: size ?? Math.min(6, 2 * cores), spare: true }), batch);
  return install ? batch() : null;
}

/**
 * The streaming recogniser, or the batch one once the streaming one has given up (its python
 * processes would not start: a broken python3-pocketsphinx) — the worker keeps listening. An
 * utterance begun on a broken recogniser is buffered and transcribed whole at its end.
 */
export function withBatchFallback(stream: StreamingRecognizer, makeBatch: () => OfflineRecognizer): StreamingRecognizer {
  let batch: OfflineRecognizer | null = null;
  const fallback = () => (batch ??= makeBatch());
  const usable = () => !stream.stats().broken;
  return {
    begin(opts) {
      if (usable()) return stream.begin(opts);
      return bufferedUtterance(fallback());
    },
    stats: () => stream.stats(),
    preload: (lm) => stream.preload?.(lm),
    transcribe: (pcm, signal) => (usable() ? stream.transcribe(pcm, signal) : fallback().transcribe(pcm, signal)),
    transcribeScored: async (pcm, signal) => {
      if (usable()) return stream.transcribeScored!(pcm, signal);
      const b = fallback();
      return b.transcribeScored ? b.transcribeScored(pcm, signal) : { text: await b.transcribe(pcm, signal), score: 0 };
    },
    async warm() {
      try {
        await stream.warm();
      } catch (err) {
        if (usable()) throw err;
        await fallback().warm();
      }
    },
    async close() {
      await stream.close();
      await batch?.close();
    },
  };
}

/** One utterance for a batch recogniser: its audio kept (at most 60 s) and transcribed at its end. */
function bufferedUtterance(batch: OfflineRecognizer): StreamUtterance {
  const max = 60 * 16_000;
  let chunks: Int16Array[] = [];
  let samples = 0;
  let cancelled = false;
  return {
    push(pcm) {
      if (cancelled || samples >= max) return;
      const take = pcm.subarray(0, max - samples);
      chunks.push(take.slice());
      samples += take.length;
    },
    async end(signal) {
      if (cancelled) throw new Error('cancelled');
      const pcm = new Int16Array(samples);
      let at = 0;
      for (const c of chunks) {
        pcm.set(c, at);
        at += c.length;
      }
      chunks = [];
      if (pcm.length === 0) return { text: '', score: 0 };
      return batch.transcribeScored ? batch.transcribeScored(pcm, signal) : { text: await batch.transcribe(pcm, signal), score: 0 };
    },
    cancel() {
      cancelled = true;
      chunks = [];
    },
  };
}

/** Each recogniser's recent answer time (flush → final, ms; a moving average over its sessions). */
const answerTimes = new WeakMap<StreamingRecognizer, number>();
function noteAnswer(recognizer: StreamingRecognizer, ms: number) {
  const before = answerTimes.get(recognizer);
  answerTimes.set(recognizer, before === undefined ? ms : before + (ms - before) * 0.3);
}

export function isStreamingRecognizer(r: OfflineRecognizer): r is StreamingRecognizer {
  return typeof (r as Partial<StreamingRecognizer>).begin === 'function';
}

/**
 * The streaming recogniser as an STT engine. To the listener it is a batch engine (`mode:
 * 'batch'`): it is given the VAD's cut speech segment by segment, as the segment is heard, and
 * asked for the text at the early transcript or the end of speech — the same utterance boundaries
 * as the batch recogniser. Each segment is decoded while it comes; `finalize` only ends it.
 *
 * `overAvatarModel`: the over-the-avatar model's file once it is there (null meanwhile, or none):
 * a segment the listener says began over the avatar's voice is decoded with it (ADR 107).
 */
export function createOfflineStreamStt(recognizer: StreamingRecognizer, uttOpts: Omit<StreamUtteranceOptions, 'onPartial'> = {}, overAvatarModel?: () => string | null): SttEngine {
  return {
    provider: 'offline',
    mode: 'batch',
    answerMs: () => answerTimes.get(recognizer) ?? null,
    async open(options: SttOptions, events: SttEvents): Promise<SttSession> {
      let utt: StreamUtterance | null = null;
      let samples = 0;
      const affinity = {};
      let startMs = 0;
      let closed = false;
      /** The next utterance is speech over the avatar (the listener's word for it). */
      let over = false;
      options.signal.addEventListener('abort', () => utt?.cancel(), { once: true });
      return {
        overAvatar(on) {
          over = on;
        },
        push(pcm) {
          if (closed || options.signal.aborted || pcm.length === 0) return;
          if (!utt) {
            const lm = over ? overAvatarModel?.() : null;
            utt = recognizer.begin({ ...uttOpts, ...(lm ? { lm } : {}), affinity });
          }
          utt.push(pcm);
          samples += pcm.length;
        },
        async finalize() {
          if (closed) return;
          const u = utt;
          const from = startMs;
          startMs += (samples * 1000) / 16_000;
          utt = null;
          samples = 0;
          if (!u) return;
          try {
            const asked = performance.now();
            const { text } = await u.end(options.signal);
            noteAnswer(recognizer, performance.now() - asked);
            if (!closed) events.onResult({ text, final: true, endOfTurn: true, language: 'en-US', startMs: from, endMs: startMs });
          } catch (err) {
            if (!closed && !options.signal.aborted) events.onError(err instanceof Error ? err : new Error(String(err)));
          }
        },
        reset() {
          startMs += (samples * 1000) / 16_000;
          samples = 0;
          utt?.cancel();
          utt = null;
        },
        close() {
          closed = true;
          utt?.cancel();
          utt = null;
        },
      };
    },
  };
}
