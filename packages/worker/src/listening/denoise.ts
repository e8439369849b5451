import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { SILENCE_PEAK } from './turns.js';

/**
 * Noise suppression of the visitor's audio before the VAD and the STT (issue 29, ADR 096):
 * RNNoise (Xiph, BSD-3) compiled to WebAssembly, `@echogarden/rnnoise-wasm` — one module per
 * worker in a thread of its own, one state per session. RNNoise works on 10 ms frames of 48 kHz
 * audio: the mic's 16 kHz PCM goes up to 48 kHz (×3 polyphase windowed-sinc), through RNNoise
 * frame by frame, and back down (÷3, the same filter). The output is the input delayed by ~12 ms
 * (a frame being filled and the two filters); pushing a signal in pieces gives the samples
 * pushing it whole gives.
 *
 * The thread: RNNoise costs ~0.2–0.3 ms of CPU per 10 ms of a session's audio (2–3 % of a core):
 * on the calling thread — the embedded worker's is the portal's — 16 visitors speaking would
 * take half of it. The pieces of every session waiting when the thread is free go to it as one
 * message (as the VAD's windows do), so a message costs little whatever the number of sessions.
 */
export interface Denoiser {
  /** 16 kHz PCM16 mono in (any length); the denoised samples ready so far out (16 kHz), in order. */
  process(pcm: Int16Array): Promise<Int16Array>;
  /** Frees the state; a closed denoiser passes audio through unchanged. */
  close(): void;
}

export interface DenoiseModel {
  readonly name: string;
  /** 10 ms frames let through without RNNoise so far, every session's: under the VAD's silence peak (nothing to take out). */
  silentFrames?(): number;
  /** One per session: each keeps its own recurrent state and buffers. */
  stream(): Denoiser;
  close(): Promise<void>;
}

/**
 * The thread. Messages in: `{open: sid}`, `{close: sid}`, `{batch: [{sid, pcm}]}` (pcm buffers
 * transferred); out: `{ready}` or `{failed}`, then per batch `{outs: [Int16Array]}` in its order.
 */
const DENOISE_THREAD_SOURCE = String.raw`
const { parentPort, workerData } = process.getBuiltinModule('node:worker_threads');
const RATIO = 3;
const HALF = 16; // input samples either side of a 16 kHz output (the filter spans 2·HALF·RATIO taps at 48 kHz)
const TAPS = 2 * HALF * RATIO;
const UP = 2 * HALF;
// Low-pass at 48 kHz, cut below 8 kHz (0.94 of the lower Nyquist), Blackman window, unit DC gain.
const H = new Float32Array(TAPS);
{
  const fc = (0.94 * 8000) / 48000;
  let sum = 0;
  for (let i = 0; i < TAPS; i++) {
    const t = i - (TAPS - 1) / 2;
    const sinc = t === 0 ? 2 * fc : Math.sin(2 * Math.PI * fc * t) / (Math.PI * t);
    const w = 0.42 - 0.5 * Math.cos((2 * Math.PI * i) / (TAPS - 1)) + 0.08 * Math.cos((4 * Math.PI * i) / (TAPS - 1));
    H[i] = sinc * w;
    sum += H[i];
  }
  for (let i = 0; i < TAPS; i++) H[i] /= sum;
}

const SILENT_UNDER = workerData.silentUnder;
let skipped = 0;

function start(m) {
  const FRAME = m._rnnoise_get_frame_size();
  const streams = new Map();
  const open = (sid) => {
    streams.set(sid, {
      state: m._rnnoise_create(0),
      buf: m._malloc(FRAME * 4),
      // 16 kHz history of the up filter, the 48 kHz frame being filled, 48 kHz history of the down filter.
      up: new Float32Array(2 * UP),
      upAt: 0,
      frame: new Float32Array(FRAME),
      frameLen: 0,
      down: new Float32Array(2 * TAPS),
      downAt: 0,
      downPhase: 0,
    });
  };
  const close = (sid) => {
    const s = streams.get(sid);
    if (!s) return;
    m._rnnoise_destroy(s.state);
    m._free(s.buf);
    streams.delete(sid);
  };
  const denoise = (s, pcm) => {
    // Out: the frames this piece completes, each FRAME/3 samples at 16 kHz.
    const out = new Int16Array(Math.floor((s.frameLen + RATIO * pcm.length) / FRAME) * (FRAME / RATIO));
    let o = 0;
    // Ring buffers stored twice over, so that the last R samples are always contiguous.
    const up = s.up;
    const dn = s.down;
    for (let n = 0; n < pcm.length; n++) {
      up[s.upAt] = up[s.upAt + UP] = pcm[n];
      s.upAt = (s.upAt + 1) % UP;
      const last = s.upAt + UP - 1;
      // Three 48 kHz samples per 16 kHz one: y[3n+p] = 3·Σ x[n-k]·H[3k+p].
      for (let p = 0; p < RATIO; p++) {
        let acc = 0;
        for (let k = 0; k < UP; k++) acc += up[last - k] * H[RATIO * k + p];
        s.frame[s.frameLen++] = acc * RATIO;
      }
      if (s.frameLen === FRAME) {
        const heap = m.HEAPF32;
        heap.set(s.frame, s.buf >> 2);
        // A frame the VAD would take for silence without asking (its peak under SILENCE_PEAK) has
        // nothing to take out: it goes through as it is, and RNNoise is not run on it (most of a
        // session's audio: the visitor listening).
        let peak = 0;
        for (let i = 0; i < FRAME; i++) {
          const v = s.frame[i];
          if (v > peak) peak = v;
          else if (-v > peak) peak = -v;
        }
        if (peak >= SILENT_UNDER) m._rnnoise_process_frame(s.state, s.buf, s.buf);
        else skipped++;
        const base = s.buf >> 2;
        for (let i = 0; i < FRAME; i++) {
          dn[s.downAt] = dn[s.downAt + TAPS] = heap[base + i];
          s.downAt = (s.downAt + 1) % TAPS;
          if (++s.downPhase === RATIO) {
            s.downPhase = 0;
            const top = s.downAt + TAPS - 1;
            let acc = 0;
            for (let j = 0; j < TAPS; j++) acc += dn[top - j] * H[j];
            out[o++] = acc > 32767 ? 32767 : acc < -32768 ? -32768 : Math.round(acc);
          }
        }
        s.frameLen = 0;
      }
    }
    return out;
  };
  parentPort.on('message', (msg) => {
    if (msg.open !== undefined) return open(msg.open);
    if (msg.close !== undefined) return close(msg.close);
    const outs = msg.batch.map(({ sid, pcm }) => {
      const s = streams.get(sid);
      return s ? denoise(s, pcm) : pcm;
    });
    parentPort.postMessage({ outs, skipped }, outs.map((x) => x.buffer));
  });
  parentPort.postMessage({ ready: true });
}

import(workerData.module)
  .then((mod) => mod.default())
  .then(start, (err) => parentPort.postMessage({ failed: String((err && err.message) || err) }));
`;

/**
 * Pieces of one session the thread has not answered yet beyond which its audio goes on raw: a
 * starved thread (a machine out of CPU) costs the session its suppression, never its listening
 * (~0.5 s of 20 ms frames).
 */
export const MAX_PENDING = 25;

interface Job {
  sid: number;
  pcm: Int16Array;
  resolve: (out: Int16Array) => void;
  reject: (err: Error) => void;
}

/** Loads RNNoise in its thread (its .wasm is read from the package's folder: nothing is downloaded). */
export async function loadRnnoise(): Promise<DenoiseModel> {
  const module = pathToFileURL(createRequire(import.meta.url).resolve('@echogarden/rnnoise-wasm')).href;
  const worker = new Worker(DENOISE_THREAD_SOURCE, { eval: true, workerData: { module, silentUnder: SILENCE_PEAK * 32768 } });
  await new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (msg: { ready?: true; failed?: string }) => (msg.ready ? resolve() : reject(new Error(msg.failed ?? 'the noise suppressor did not start'))));
  });
  let queue: Job[] = [];
  let inFlight: Job[] | null = null;
  let dead: Error | null = null;
  let nextSid = 0;
  const send = () => {
    if (inFlight || !queue.length || dead) return;
    inFlight = queue;
    queue = [];
    const batch = inFlight.map((j) => ({ sid: j.sid, pcm: j.pcm }));
    worker.postMessage({ batch }, batch.map((b) => b.pcm.buffer as ArrayBuffer));
  };
  const fail = (err: Error) => {
    dead = err;
    for (const j of [...(inFlight ?? []), ...queue]) j.reject(err);
    inFlight = null;
    queue = [];
  };
  let silentFrames = 0;
  worker.on('message', (msg: { outs: Int16Array[]; skipped: number }) => {
    silentFrames = msg.skipped;
    const done = inFlight ?? [];
    inFlight = null;
    done.forEach((j, i) => j.resolve(msg.outs[i]!));
    send();
  });
  worker.on('error', (err) => fail(err));
  worker.on('exit', () => fail(new Error('the noise suppressor stopped')));
  // An idle thread does not keep the process alive.
  worker.unref();
  return {
    name: 'rnnoise',
    silentFrames: () => silentFrames,
    stream() {
      const sid = ++nextSid;
      let closed = false;
      let pending = 0;
      worker.postMessage({ open: sid });
      return {
        process(pcm) {
          if (closed || pending >= MAX_PENDING) return Promise.resolve(pcm);
          if (dead) return Promise.reject(dead);
          pending++;
          return new Promise<Int16Array>((resolve, reject) => {
            // Copied: the caller keeps its buffer, this one is transferred.
            queue.push({ sid, pcm: pcm.slice(), resolve, reject });
            if (!inFlight) setImmediate(send);
          }).finally(() => pending--);
        },
        close() {
          if (closed) return;
          closed = true;
          if (!dead) worker.postMessage({ close: sid });
        },
      };
    },
    async close() {
      worker.removeAllListeners('exit');
      fail(new Error('the noise suppressor is closed'));
      await worker.terminate();
    },
  };
}

let shared: Promise<DenoiseModel> | null = null;
/** The worker's one RNNoise thread, started on first use. */
export function sharedRnnoise(): Promise<DenoiseModel> {
  shared ??= loadRnnoise().catch((err: unknown) => {
    shared = null;
    throw err;
  });
  return shared;
}

/**
 * A denoiser usable at once while the module loads (~50 ms when a visitor first turns the mic on):
 * until then the audio passes through as it is; a module that fails to load leaves it raw (the
 * error reported once), and so does a failed piece.
 */
export function lazyDenoiser(model: () => Promise<DenoiseModel>, onError?: (err: Error) => void): Denoiser {
  let stream: Denoiser | null = null;
  let loading = false;
  let closed = false;
  let reported = false;
  const report = (err: unknown) => {
    if (reported) return;
    reported = true;
    onError?.(err instanceof Error ? err : new Error(String(err)));
  };
  return {
    process(pcm) {
      if (stream) return stream.process(pcm).catch((err: unknown) => (report(err), pcm));
      if (!loading && !closed) {
        loading = true;
        model().then((m) => {
          if (!closed) stream = m.stream();
        }, report);
      }
      return Promise.resolve(pcm);
    },
    close() {
      closed = true;
      stream?.close();
      stream = null;
    },
  };
}
