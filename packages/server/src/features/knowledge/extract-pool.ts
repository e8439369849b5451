import type { Worker } from 'node:worker_threads';
import { spawnModuleThread } from '@persona/worker';
import { ExtractError } from './extract.js';
import type { ExtractJob, ExtractResult } from './extract-jobs.js';

/**
 * A small pool of worker threads for extraction: every parser of untrusted
 * content (PDF, DOCX, HTML, and the chunker) runs in one of them, so no upload or page can stall
 * the thread that answers requests. Workers are started on demand and reused; a job that runs
 * past its time limit (or runs its worker out of memory) fails with a clear message, and its
 * worker is terminated and replaced.
 */
export interface ExtractPool {
  /** Runs a job; `timeoutMs` replaces the pool's limit for this job (e.g. a python parse's shorter one). */
  run(job: ExtractJob, opts?: { timeoutMs?: number }): Promise<ExtractResult>;
  stats(): { workers: number; busy: number; queued: number; replaced: number };
  close(): Promise<void>;
}

export interface ExtractPoolOptions {
  /** Per-job time limit (KNOWLEDGE_EXTRACT_TIMEOUT_SECONDS). */
  timeoutMs: number;
  size?: number;
  /** V8 old-generation cap of each worker: a hostile document cannot take the server's memory. */
  maxMemoryMb?: number;
}

interface Pending {
  job: ExtractJob;
  timeoutMs: number;
  resolve: (r: ExtractResult) => void;
  reject: (e: Error) => void;
}

interface Slot {
  worker: Worker;
  /** Its modules are loaded (the time limit counts from then, not from the thread's start). */
  ready: boolean;
  current: (Pending & { id: number; timer: NodeJS.Timeout }) | null;
}

/** The thread's entry: extract-thread beside this file, built or through tsx. */
function spawn(maxMemoryMb: number): Worker {
  return spawnModuleThread(import.meta.url, 'extract-thread', { resourceLimits: { maxOldGenerationSizeMb: maxMemoryMb } });
}

const transferables = (job: ExtractJob): { job: ExtractJob; transfer: ArrayBuffer[] } => {
  if (job.op !== 'file' && job.op !== 'page') return { job, transfer: [] };
  // A copy of its own, so the caller's buffer (perhaps a slice of a pool) is never detached.
  const data = new Uint8Array(job.data);
  return { job: { ...job, data }, transfer: [data.buffer] };
};

export function createExtractPool(opts: ExtractPoolOptions): ExtractPool {
  const size = Math.max(1, opts.size ?? 2);
  const maxMemoryMb = opts.maxMemoryMb ?? 1024;
  const slots: Slot[] = [];
  const queue: Pending[] = [];
  let nextId = 0;
  let replaced = 0;
  let closed = false;

  const retire = (slot: Slot) => {
    const at = slots.indexOf(slot);
    if (at >= 0) slots.splice(at, 1);
    slot.worker.removeAllListeners();
    slot.worker.on('error', () => undefined);
    void slot.worker.terminate();
    replaced++;
  };

  const finish = (slot: Slot) => {
    if (slot.current) clearTimeout(slot.current.timer);
    slot.current = null;
    slot.worker.unref();
    pump();
  };

  const start = (): Slot => {
    const slot: Slot = { worker: spawn(maxMemoryMb), ready: false, current: null };
    slot.worker.unref();
    slot.worker.on('message', (msg: { ready?: true; id: number; ending?: boolean; result?: ExtractResult; error?: { name: string; message: string } }) => {
      if (msg.ready) {
        slot.ready = true;
        pump();
        return;
      }
      const job = slot.current;
      if (!job || job.id !== msg.id) return;
      if (msg.ending) {
        // The thread is ending itself (its state may be broken): no job goes to it again.
        clearTimeout(job.timer);
        slot.current = null;
        retire(slot);
        pump();
      } else finish(slot);
      if (msg.error) job.reject(msg.error.name === 'ExtractError' ? new ExtractError(msg.error.message) : new Error(msg.error.message));
      else job.resolve(msg.result!);
    });
    const died = (err: Error | null) => {
      const job = slot.current;
      if (job) clearTimeout(job.timer);
      slot.current = null;
      retire(slot);
      if (job) {
        const oom = (err as NodeJS.ErrnoException | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY';
        job.reject(new ExtractError(oom ? `reading it needs more than ${maxMemoryMb} MB of memory` : `reading it stopped unexpectedly${err ? ` (${err.message})` : ''}`));
      }
      // A worker that could not even start fails what waits (no restart loop); the next job tries again.
      if (!slot.ready) for (const p of queue.splice(0)) p.reject(new ExtractError(`the document reader could not start${err ? ` (${err.message})` : ''}`));
      pump();
    };
    slot.worker.on('error', (err) => died(err));
    slot.worker.on('exit', () => {
      if (slots.includes(slot)) died(null);
    });
    slots.push(slot);
    return slot;
  };

  const pump = () => {
    while (!closed && queue.length > 0) {
      const slot = slots.find((s) => s.ready && !s.current);
      if (!slot) {
        // Start another worker when every one is busy (and none is still starting).
        if (slots.length < size && slots.every((s) => s.ready)) start();
        return;
      }
      const pending = queue.shift()!;
      const id = ++nextId;
      const timer = setTimeout(() => {
        if (slot.current?.id !== id) return;
        slot.current = null;
        retire(slot);
        pending.reject(new ExtractError(`reading it took longer than ${pending.timeoutMs / 1000} seconds and was stopped`));
        pump();
      }, pending.timeoutMs);
      timer.unref();
      slot.current = { ...pending, id, timer };
      // A busy worker keeps the process alive until its job ends.
      slot.worker.ref();
      const { job, transfer } = transferables(pending.job);
      slot.worker.postMessage({ id, job }, transfer);
    }
  };

  return {
    run(job, runOpts) {
      if (closed) return Promise.reject(new ExtractError('the server is shutting down'));
      return new Promise<ExtractResult>((resolve, reject) => {
        queue.push({ job, timeoutMs: runOpts?.timeoutMs ?? opts.timeoutMs, resolve, reject });
        pump();
      });
    },
    stats: () => ({ workers: slots.length, busy: slots.filter((s) => s.current).length, queued: queue.length, replaced }),
    async close() {
      closed = true;
      for (const p of queue.splice(0)) p.reject(new ExtractError('the server is shutting down'));
      const all = slots.splice(0);
      for (const s of all) {
        if (s.current) {
          clearTimeout(s.current.timer);
          s.current.reject(new ExtractError('the server is shutting down'));
        }
        s.worker.removeAllListeners();
        s.worker.on('error', () => undefined);
      }
      await Promise.all(all.map((s) => s.worker.terminate()));
    },
  };
}
