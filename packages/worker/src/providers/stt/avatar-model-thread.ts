import { writeFile } from 'node:fs/promises';
import os from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { buildInterpolatedModel } from './avatar-model-build.js';
import type { PocketsphinxInstall } from './offline.js';

/**
 * The body of a model's build thread (avatar-models.ts `buildModelInThread`: an avatar's, ADR
 * 105, or the over-the-avatar model, ADR 107): reads the generic model and dictionary, counts, interpolates and writes the model to
 * `file` itself — the worker's event loop holds none of it, and the ~27 MB of the model never
 * cross between threads (only its size does). One build per thread; the thread then ends, and its
 * ~150 MB of arrays with it.
 */
const job = workerData as { install: PocketsphinxInstall; texts: { text: string; weight: number }[]; lambda: number; file: string; nice: number };
// Background work: on Linux a thread's nice value is its own (setpriority on the calling thread),
// so the build yields the CPU to the worker's main thread (sessions' audio, the portal) and to its
// recognisers. Elsewhere it would lower the whole process: left as it is.
if (process.platform === 'linux' && job.nice > 0) {
  try {
    os.setPriority(job.nice);
  } catch {
    // Not allowed here: the build runs at the worker's priority.
  }
}
// Nothing else runs on this thread: no pauses between slices.
const bytes = await buildInterpolatedModel(job.install, job.texts, job.lambda, async () => undefined);
await writeFile(job.file, bytes);
parentPort!.postMessage({ bytes: bytes.length });
