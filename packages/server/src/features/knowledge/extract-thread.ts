import { parentPort } from 'node:worker_threads';
import { getPythonParser } from '../../lib/python-syntax.js';
import { runExtractJob, type ExtractJob } from './extract-jobs.js';

/**
 * The body of an extraction worker thread (see extract-pool.ts): runs one job at a time and
 * answers with its result or its error. Everything that parses untrusted content runs here, never
 * on the thread that answers HTTP requests.
 */
parentPort!.on('message', (msg: { id: number; job: ExtractJob }) => {
  runExtractJob(msg.job).then(
    (result) => parentPort!.postMessage({ id: msg.id, result }),
    (err: unknown) => {
      const e = err as Error;
      // A WebAssembly trap (tree-sitter's parser on some hostile python: "memory access out of
      // bounds") may leave the module's memory broken: this thread ends (`ending` tells the pool
      // to give it no other job), and the pool starts another.
      const ending = e?.name === 'RuntimeError';
      parentPort!.postMessage({ id: msg.id, ending, error: { name: e?.name ?? 'Error', message: String(e?.message ?? err) } });
      if (ending) process.exit(1);
    },
  );
});
// Load the PDF reader (and its parser, which pdf.js would otherwise load on first use) before
// taking jobs, so no job's time limit is spent loading code.
await import('pdfjs-dist/legacy/build/pdf.mjs');
// (pdf.js looks for `globalThis.pdfjsWorker`; the module ships no types, hence the variable.)
const pdfWorkerModule: string = 'pdfjs-dist/legacy/build/pdf.worker.mjs';
(globalThis as { pdfjsWorker?: unknown }).pdfjsWorker = (await import(pdfWorkerModule)) as unknown;
// The python parser (tree-sitter's WASM) too: a python job's time limit is its parse alone.
await getPythonParser();
parentPort!.postMessage({ ready: true });
