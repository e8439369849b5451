import { sql } from 'drizzle-orm';
import type { FastifyBaseLogger } from 'fastify';
import type { Embedder } from './embedder.js';
import type { KnowledgeRepository } from './repository.js';

/**
 * The vector side of the index, made at start-up (not by a migration, which must stay valid on a
 * PostgreSQL without pgvector): the extension, a table of one vector per chunk sized for the
 * embedder, and its HNSW index. A different embedder than the one that made the stored vectors
 * means new vectors: the table is made again and the backfill fills it. Where pgvector is missing
 * (or embeddings are off) search is full-text only, and the log says so once.
 */
export interface VectorIndexState {
  enabled: boolean;
  /** Why vector search is off, when it is. */
  reason?: string;
}

let saidFullTextOnly = false;

export async function prepareVectorIndex(repo: KnowledgeRepository, embedder: Embedder | null, log: FastifyBaseLogger): Promise<VectorIndexState> {
  const off = (reason: string): VectorIndexState => {
    if (!saidFullTextOnly) {
      saidFullTextOnly = true;
      log.warn(`knowledge search is full-text only: ${reason}`);
    }
    return { enabled: false, reason };
  };
  if (!embedder) return off('embeddings are switched off (EMBEDDINGS=off)');
  const available = await repo.execute(sql`select 1 from pg_available_extensions where name = 'vector'`);
  if (available.length === 0) return off('the database has no pgvector extension');
  try {
    await repo.execute(sql`create extension if not exists vector`);
  } catch (err) {
    return off(`pgvector could not be enabled (${(err as Error).message})`);
  }
  const made = await repo.getState('embedding_model');
  const exists = (await repo.execute(sql`select 1 from pg_class where relname = 'knowledge_embeddings' and relkind = 'r'`)).length > 0;
  if (made !== embedder.id || !exists) {
    await repo.execute(sql`drop table if exists knowledge_embeddings`);
    await repo.execute(
      sql.raw(`create table if not exists knowledge_embeddings (
        chunk_id bigint primary key references knowledge_chunks(id) on delete cascade,
        collection_id integer not null,
        embedding vector(${Math.floor(embedder.dimensions)}) not null
      )`),
    );
    await repo.execute(sql`create index if not exists knowledge_embeddings_collection_idx on knowledge_embeddings (collection_id)`);
    await repo.execute(sql`create index if not exists knowledge_embeddings_hnsw_idx on knowledge_embeddings using hnsw (embedding vector_cosine_ops) with (m = 16, ef_construction = 64)`);
    await repo.setState('embedding_model', embedder.id);
    if (made) log.info({ from: made, to: embedder.id }, 'knowledge embeddings model changed: vectors are made again in the background');
  }
  return { enabled: true };
}
