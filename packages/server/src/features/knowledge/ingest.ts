import type { FastifyBaseLogger } from 'fastify';
import { KnowledgeMessages, knowledgeFileMaxBytes, type TKnowledgeFileType } from '@persona/contract';
import { chunkForEmbedding, type Chunk } from './chunker.js';
import { robotsAllows } from './crawler.js';
import type { Embedder } from './embedder.js';
import { ExtractError } from './extract.js';
import type { ExtractResult } from './extract-jobs.js';
import type { ExtractPool } from './extract-pool.js';
import type { KnowledgeFiles } from './files.js';
import type { ItemRow, KnowledgeRepository } from './repository.js';
import { decodeBody, safeFetch, SafeFetchError } from './safe-fetch.js';

/**
 * Background ingestion: items are created 'processing' and answered at once; a small in-process
 * queue fetches/extracts their text, chunks it, embeds the chunks and commits chunks, vectors and
 * the 'ready' state in one transaction (or 'failed' with the reason). Each item is claimed with a
 * lease, so after a restart (or a crash of another instance) unfinished items are taken up again.
 */
export interface IngestionDeps {
  repo: KnowledgeRepository;
  files: KnowledgeFiles;
  embedder: Embedder | null;
  /** Where documents are parsed and chunked (worker threads with a time limit). */
  extractor: ExtractPool;
  /** Whether vectors are stored (pgvector present): read at processing time. */
  vectorsEnabled: () => boolean;
  allowPrivateUrls: boolean;
  log: FastifyBaseLogger;
  concurrency?: number;
  leaseMs?: number;
  sweepIntervalMs?: number;
}

export class ItemFailure extends Error {
  override readonly name = 'ItemFailure';
}

const MAX_ATTEMPTS = 3;
const PAGE_MAX_BYTES = 10 * 1024 * 1024;
const PAGE_TIMEOUT_MS = 20_000;

export function createIngestion(deps: IngestionDeps) {
  const concurrency = deps.concurrency ?? 2;
  const leaseMs = deps.leaseMs ?? 10 * 60 * 1000;
  const queue: number[] = [];
  const queued = new Set<number>();
  let running = 0;
  let stopped = false;
  let sweepTimer: NodeJS.Timeout | null = null;
  let backfilling: Promise<void> | null = null;
  const idleWaiters: (() => void)[] = [];

  const settleIdle = () => {
    if (running === 0 && queue.length === 0 && !backfilling) for (const w of idleWaiters.splice(0)) w();
  };

  const pump = () => {
    while (!stopped && running < concurrency && queue.length > 0) {
      const id = queue.shift()!;
      queued.delete(id);
      running++;
      void processItem(id)
        .catch((err) => deps.log.error({ err, itemId: id }, 'knowledge ingestion crashed'))
        .finally(() => {
          running--;
          if (queue.length === 0 && running === 0) void backfill();
          pump();
          settleIdle();
        });
    }
  };

  const enqueue = (id: number) => {
    if (stopped || queued.has(id)) return;
    queued.add(id);
    queue.push(id);
    pump();
  };

  /** The chunks of an item: fetched or read here, parsed and chunked in the extraction pool. */
  async function obtainChunks(item: ItemRow): Promise<Chunk[]> {
    if (item.knowledgeType === 'text') return chunksOf(await deps.extractor.run({ op: 'text', text: item.content ?? '' }));
    if (item.knowledgeType === 'file') {
      const type = item.fileType as TKnowledgeFileType;
      let buf: Buffer;
      try {
        buf = await deps.files.read(item.storageKey ?? '', knowledgeFileMaxBytes(type));
      } catch (err) {
        throw new ItemFailure(`${KnowledgeMessages.fileProcessFailed} ${capitalise((err as Error).message)}.`);
      }
      const result = await deps.extractor.run({ op: 'file', fileType: type, data: buf });
      if ('invalidFile' in result) {
        // Only S3 uploads get here unchecked; the local upload refuses such files at once.
        await deps.files.remove(item.storageKey ?? '').catch(() => undefined);
        throw new ItemFailure(KnowledgeMessages.invalidFile);
      }
      return chunksOf(result);
    }
    // url and crawl
    const url = item.url ?? '';
    if (item.knowledgeType === 'crawl') {
      if (!(await robotsAllows(new URL(url), deps.allowPrivateUrls, deps.extractor))) throw new ItemFailure('The site’s robots.txt does not allow reading this page.');
    }
    const res = await safeFetch(url, { allowPrivate: deps.allowPrivateUrls, timeoutMs: PAGE_TIMEOUT_MS, maxBytes: PAGE_MAX_BYTES });
    const type = (res.contentType.split(';')[0] ?? '').trim().toLowerCase();
    if (type === 'application/pdf' || res.body.subarray(0, 5).toString('latin1') === '%PDF-') return chunksOf(await deps.extractor.run({ op: 'page', kind: 'pdf', data: res.body, url: res.url }));
    if (type === 'text/plain' || type === 'text/markdown') return chunksOf(await deps.extractor.run({ op: 'page', kind: 'text', data: res.body, url: res.url }));
    if (type === '' || type.includes('html') || type.includes('xml')) return chunksOf(await deps.extractor.run({ op: 'page', kind: 'html', data: new Uint8Array(0), html: decodeBody(res), url: res.url }));
    throw new ItemFailure(`The page is not text or HTML (${type}).`);
  }

  async function processItem(id: number): Promise<void> {
    const item = await deps.repo.claimItem(id, leaseMs);
    if (!item) return;
    if (item.attempts > MAX_ATTEMPTS) {
      await deps.repo.markFailed(item.id, item.revision, KnowledgeMessages.processingFailed);
      return;
    }
    try {
      const chunks = await obtainChunks(item);
      if (chunks.length === 0) {
        throw new ItemFailure(item.knowledgeType === 'text' ? KnowledgeMessages.textProcessFailed : item.knowledgeType === 'file' ? `${KnowledgeMessages.fileProcessFailed} No text was found in it.` : 'No text was found on the page.');
      }
      const withVectors = deps.vectorsEnabled() && deps.embedder !== null;
      let vectors: number[][] | null = null;
      if (withVectors) {
        try {
          vectors = await deps.embedder!.embed(chunks.map(chunkForEmbedding));
        } catch (err) {
          // Full-text search still works; the backfill makes the vectors later.
          deps.log.warn({ err, itemId: id }, 'knowledge embeddings failed; the item is searchable by full text until they are made');
        }
      }
      const committed = await deps.repo.commitReady(item.id, item.revision, chunks, vectors, withVectors && vectors !== null);
      if (!committed) deps.log.debug({ itemId: id }, 'knowledge item changed or was deleted while processing; result dropped');
    } catch (err) {
      const reason = failureReason(err, item);
      deps.log.info({ itemId: id, reason }, 'knowledge item failed');
      await deps.repo.markFailed(item.id, item.revision, reason);
    }
  }

  /** Makes missing vectors (after a model change or an embedding outage), a batch at a time. */
  function backfill(): Promise<void> {
    if (backfilling || stopped || !deps.embedder || !deps.vectorsEnabled()) return backfilling ?? Promise.resolve();
    backfilling = (async () => {
      try {
        for (;;) {
          if (stopped || queue.length > 0) return;
          const rows = await deps.repo.chunksWithoutVectors(64);
          if (rows.length === 0) return;
          const vectors = await deps.embedder!.embed(rows.map((r) => chunkForEmbedding(r)));
          await deps.repo.insertVectors(rows.map((r, i) => ({ chunkId: r.id, collectionId: r.collectionId, vector: vectors[i]! })));
        }
      } catch (err) {
        deps.log.warn({ err }, 'knowledge vector backfill stopped');
      } finally {
        backfilling = null;
        settleIdle();
      }
    })();
    return backfilling;
  }

  const sweep = async () => {
    try {
      for (const id of await deps.repo.pendingItemIds()) enqueue(id);
    } catch (err) {
      deps.log.warn({ err }, 'knowledge ingestion sweep failed');
    }
  };

  return {
    enqueue,
    /** Takes up unfinished items (on start, and periodically for items another instance left). */
    async start() {
      stopped = false;
      await sweep();
      void backfill();
      sweepTimer = setInterval(() => void sweep(), deps.sweepIntervalMs ?? 60_000);
      sweepTimer.unref();
    },
    async stop() {
      stopped = true;
      if (sweepTimer) clearInterval(sweepTimer);
      queue.length = 0;
      queued.clear();
      const deadline = Date.now() + 5000;
      while ((running > 0 || backfilling) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    },
    /** Resolves when nothing is queued or running (tests and benchmarks wait on it). */
    idle(): Promise<void> {
      if (running === 0 && queue.length === 0 && !backfilling) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
  };
}

export type Ingestion = ReturnType<typeof createIngestion>;

const chunksOf = (result: ExtractResult): Chunk[] => {
  if (!('chunks' in result)) throw new Error('the extraction pool answered another job');
  return result.chunks;
};

const capitalise = (s: string) => (s ? `${s[0]!.toUpperCase()}${s.slice(1)}`.replace(/\.$/, '') : s);

function failureReason(err: unknown, item: ItemRow): string {
  if (err instanceof ItemFailure) return err.message;
  if (err instanceof SafeFetchError) return err.message;
  if (err instanceof ExtractError) return item.knowledgeType === 'file' ? `${KnowledgeMessages.fileProcessFailed} ${capitalise(err.message)}.` : capitalise(err.message);
  return item.knowledgeType === 'text' ? KnowledgeMessages.textProcessFailed : item.knowledgeType === 'file' ? KnowledgeMessages.fileProcessFailed : KnowledgeMessages.processingFailed;
}
