import path from 'node:path';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { TLivePassage, TLiveVocabularyItem } from '@persona/contract';
import type { PythonAnalysis } from '../../lib/python-syntax.js';
import type { Config } from '../../config.js';
import type { Db } from '../../db/client.js';
import { loadOrCreateKeyFile } from '../../lib/key-file.js';
import { parseS3Url } from '../../lib/s3.js';
import { parseMasterKey } from '../../lib/secret-box.js';
import type { AuthGuards } from '../../plugins/auth.js';
import type { Storage } from '../../plugins/storage.js';
import { createEmbedder, type Embedder } from './embedder.js';
import { createLocalKnowledgeFiles, createS3KnowledgeFiles } from './files.js';
import { createExtractPool, type ExtractPool } from './extract-pool.js';
import { createIngestion } from './ingest.js';
import { createKnowledgeTokens, deriveKey } from './jwt.js';
import { createKnowledgeRepository } from './repository.js';
import { knowledgeRoutes } from './routes.js';
import { analysePythonInPool } from './python-analysis.js';
import { createKnowledgeService } from './service.js';
import { prepareVectorIndex, type VectorIndexState } from './vector-index.js';

declare module 'fastify' {
  interface FastifyInstance {
    knowledge: KnowledgeFeature;
  }
}

export interface KnowledgeFeature {
  service: ReturnType<typeof createKnowledgeService>;
  ingestion: ReturnType<typeof createIngestion>;
  extractor: ExtractPool;
  /** Whether vector search is on (known after the app is ready). */
  vectorState(): VectorIndexState;
  /** A live session's retrieval: hybrid search in those of the collections the owner still owns (others are skipped, not an error). */
  passages(ownerUserId: number, collectionIds: number[], query: string, k: number): Promise<TLivePassage[]>;
  /** A live session's avatar's knowledge titles and text for its speech model (ADR 105): the owner's collections only, capped. */
  vocabulary(ownerUserId: number, collectionIds: number[], maxChars: number): Promise<TLiveVocabularyItem[]>;
  /** Python parsed in the extraction threads (the functions feature's check). */
  analysePython(code: string): Promise<PythonAnalysis>;
  /** The knowledge base's embedding model for other features (analytics' frequent questions, ADR 102); null when off. */
  embed: ((texts: string[]) => Promise<number[][]>) | null;
  /** The feature's routes (JWT-only calls at `/knowledge*`), registered by app.ts with the others. */
  routes: FastifyPluginAsync;
}

const ORPHAN_SWEEP_MS = 60 * 60 * 1000;

/** Token lifetime: short, the portal fetches a new one before it runs out. */
const TOKEN_TTL_SECONDS = 15 * 60;

/**
 * The knowledge base of the app: its services, the background ingestion (started when the app is
 * ready, resuming unfinished items), the vector index (made then, where pgvector exists), and its
 * routes for app.ts to register.
 */
export async function createKnowledgeFeature(
  app: FastifyInstance,
  deps: { config: Config; db: Db; storage: Storage; guards: AuthGuards; now?: () => Date; embedder?: Embedder | null },
): Promise<KnowledgeFeature> {
  const { config } = deps;
  const master = parseMasterKey(config.secretKey ?? (await loadOrCreateKeyFile(config.dataDir, 'secret-key')));
  const tokens = createKnowledgeTokens({ key: deriveKey(master, 'persona-knowledge-jwt-v1'), ttlSeconds: TOKEN_TTL_SECONDS, now: deps.now });
  const s3 = parseS3Url(config.storageUrl);
  const files = s3
    ? createS3KnowledgeFiles(s3, { now: deps.now })
    : createLocalKnowledgeFiles({ storage: deps.storage, publicUrl: config.publicUrl, uploadSecret: deriveKey(master, 'persona-knowledge-upload-v1'), now: deps.now });
  const repo = createKnowledgeRepository(deps.db);
  const embedder = deps.embedder !== undefined ? deps.embedder : createEmbedder(config.embeddings);
  let vector: VectorIndexState = { enabled: false, reason: 'not prepared yet' };
  const vectorsEnabled = () => vector.enabled;
  const extractor = createExtractPool({ timeoutMs: config.knowledge.extractTimeoutSeconds * 1000 });
  const ingestion = createIngestion({ repo, files, embedder, extractor, vectorsEnabled, allowPrivateUrls: config.allowPrivateUrls, log: app.log });
  const service = createKnowledgeService({ repo, files, ingestion, extractor, embedder, vectorsEnabled, allowPrivateUrls: config.allowPrivateUrls, log: app.log, quotaMb: config.knowledge.quotaMb, now: deps.now });
  // Orphaned uploads (forms never used, files never made into an item, deletions that failed): removed hourly.
  let cleanup: NodeJS.Timeout | null = null;
  const removeOrphans = () =>
    service
      .removeOrphanedUploads()
      .then((n) => n > 0 && app.log.info({ removed: n }, 'orphaned knowledge uploads removed'))
      .catch((err: unknown) => app.log.warn({ err }, 'knowledge upload clean-up failed'));

  app.addHook('onReady', async () => {
    vector = await prepareVectorIndex(repo, embedder, app.log);
    await ingestion.start();
    void removeOrphans();
    cleanup = setInterval(() => void removeOrphans(), ORPHAN_SWEEP_MS);
    cleanup.unref();
  });
  app.addHook('preClose', async () => {
    if (cleanup) clearInterval(cleanup);
    await ingestion.stop();
  });
  app.addHook('onClose', async () => {
    await extractor.close();
    await embedder?.close();
  });
  const feature: KnowledgeFeature = {
    service,
    ingestion,
    extractor,
    vectorState: () => vector,
    async passages(ownerUserId, collectionIds, query, k) {
      const owned = new Set(collectionIds);
      for (const id of await service.foreignCollectionIds(ownerUserId, collectionIds)) owned.delete(id);
      if (owned.size === 0) return [];
      const { hits } = await service.search(ownerUserId, { collection_ids: [...owned], query, k, mode: 'fused' });
      return hits.map((h) => ({ text: h.text, source: h.url ?? h.item_name, collectionId: h.collection_id, itemId: h.item_id }));
    },
    vocabulary: (ownerUserId, collectionIds, maxChars) => service.vocabulary(ownerUserId, collectionIds, maxChars),
    analysePython: (code) => analysePythonInPool(extractor, code),
    embed: embedder ? (texts) => embedder.embed(texts) : null,
    routes: knowledgeRoutes({ service, tokens, files, guards: deps.guards, tmpDir: path.join(config.dataDir, 'tmp', 'knowledge-uploads') }),
  };
  app.decorate('knowledge', feature);
  return feature;
}
