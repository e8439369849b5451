import path from 'node:path';
import type { FastifyInstance } from 'fastify';
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
}

const ORPHAN_SWEEP_MS = 60 * 60 * 1000;

/** Token lifetime: short, the portal fetches a new one before it runs out. */
const TOKEN_TTL_SECONDS = 15 * 60;

/**
 * Wires the knowledge base into the app: its routes, the background ingestion (started when the
 * app is ready, resuming unfinished items) and the vector index (made then, where pgvector exists).
 */
export async function registerKnowledge(
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
  await app.register(knowledgeRoutes({ service, tokens, files, guards: deps.guards, tmpDir: path.join(config.dataDir, 'tmp', 'knowledge-uploads') }));
  const feature: KnowledgeFeature = { service, ingestion, extractor, vectorState: () => vector };
  app.decorate('knowledge', feature);
  return feature;
}
