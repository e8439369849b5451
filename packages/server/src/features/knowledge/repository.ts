import { and, asc, count, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { avatars, knowledgeChunks, knowledgeCollections, knowledgeIndexState, knowledgeItems, knowledgeUploads } from '../../db/schema/index.js';
import type { Chunk } from './chunker.js';

export type CollectionRow = typeof knowledgeCollections.$inferSelect & { itemCount: number };
export type ItemRow = typeof knowledgeItems.$inferSelect;
export type NewItem = typeof knowledgeItems.$inferInsert;

export interface RankedChunk {
  chunkId: number;
  score: number;
}

export interface ChunkDetails {
  chunkId: number;
  itemId: number;
  collectionId: number;
  heading: string | null;
  text: string;
  itemName: string;
  knowledgeType: ItemRow['knowledgeType'];
  url: string | null;
}

// Column names spelled out: inside a sub-select drizzle would leave them unqualified.
const itemCount = sql<number>`(select count(*)::int from knowledge_items ki where ki.collection_id = "knowledge_collections"."id")`;
const idList = (ids: number[]) => sql.join(ids.map((id) => sql`${id}`), sql`, `);
const vectorLiteral = (v: number[]) => `[${v.map((x) => (Number.isFinite(x) ? x : 0)).join(',')}]`;
const rowsOf = <T>(result: unknown): T[] => ((result as { rows?: T[] }).rows ?? (result as T[]));

export function createKnowledgeRepository(db: Db) {
  return {
    // ── Collections ──
    async listCollections(userId: number): Promise<CollectionRow[]> {
      const rows = await db
        .select({
          collection: knowledgeCollections,
          itemCount,
        })
        .from(knowledgeCollections)
        .where(eq(knowledgeCollections.userId, userId))
        .orderBy(asc(knowledgeCollections.createdAt), asc(knowledgeCollections.id));
      return rows.map((r) => ({ ...r.collection, itemCount: Number(r.itemCount) }));
    },
    async findCollection(userId: number, id: number): Promise<CollectionRow | undefined> {
      const [row] = await db
        .select({
          collection: knowledgeCollections,
          itemCount,
        })
        .from(knowledgeCollections)
        .where(and(eq(knowledgeCollections.id, id), eq(knowledgeCollections.userId, userId)))
        .limit(1);
      return row ? { ...row.collection, itemCount: Number(row.itemCount) } : undefined;
    },
    /** Which of these collection ids belong to the user. */
    async ownedCollectionIds(userId: number, ids: number[]): Promise<number[]> {
      if (ids.length === 0) return [];
      const rows = await db
        .select({ id: knowledgeCollections.id })
        .from(knowledgeCollections)
        .where(and(eq(knowledgeCollections.userId, userId), inArray(knowledgeCollections.id, ids)));
      return rows.map((r) => r.id);
    },
    async insertCollection(userId: number, name: string) {
      const [row] = await db.insert(knowledgeCollections).values({ userId, name }).returning();
      return { ...row!, itemCount: 0 };
    },
    async renameCollection(userId: number, id: number, name: string) {
      const [row] = await db
        .update(knowledgeCollections)
        .set({ name, updatedAt: sql`now()` })
        .where(and(eq(knowledgeCollections.id, id), eq(knowledgeCollections.userId, userId)))
        .returning({ id: knowledgeCollections.id });
      return row !== undefined;
    },
    /**
     * Deletes a collection with its items and chunks, and takes its id out of the user's avatars
     * (config.customData.collection_ids), in one transaction. Answers the storage keys to delete
     * afterwards and how many avatars changed; null when it is not the user's.
     */
    async deleteCollection(userId: number, id: number): Promise<{ storageKeys: string[]; avatarsUpdated: number } | null> {
      return db.transaction(async (tx) => {
        const [found] = await tx
          .select({ id: knowledgeCollections.id })
          .from(knowledgeCollections)
          .where(and(eq(knowledgeCollections.id, id), eq(knowledgeCollections.userId, userId)))
          .for('update');
        if (!found) return null;
        const keys = await tx
          .select({ key: knowledgeItems.storageKey })
          .from(knowledgeItems)
          .where(and(eq(knowledgeItems.collectionId, id), sql`${knowledgeItems.storageKey} is not null`));
        const ids = sql`${avatars.config}->'customData'->'collection_ids'`;
        const asNumber = JSON.stringify([id]);
        const asString = JSON.stringify([String(id)]);
        const updated = await tx
          .update(avatars)
          .set({
            config: sql`jsonb_set(${avatars.config}, '{customData,collection_ids}', coalesce((select jsonb_agg(e) from jsonb_array_elements(${ids}) e where e <> ${String(id)}::jsonb and e <> ${JSON.stringify(String(id))}::jsonb), '[]'::jsonb))`,
            version: sql`${avatars.version} + 1`,
            updatedAt: sql`now()`,
          })
          .where(and(eq(avatars.userId, userId), sql`jsonb_typeof(${ids}) = 'array'`, sql`(${ids} @> ${asNumber}::jsonb or ${ids} @> ${asString}::jsonb)`))
          .returning({ id: avatars.id });
        await tx.delete(knowledgeCollections).where(eq(knowledgeCollections.id, id));
        return { storageKeys: keys.map((k) => k.key!).filter(Boolean), avatarsUpdated: updated.length };
      });
    },

    // ── Items ──
    async listItems(collectionId: number): Promise<ItemRow[]> {
      return db.select().from(knowledgeItems).where(eq(knowledgeItems.collectionId, collectionId)).orderBy(asc(knowledgeItems.createdAt), asc(knowledgeItems.id));
    },
    async findItem(userId: number, id: number): Promise<ItemRow | undefined> {
      const [row] = await db
        .select()
        .from(knowledgeItems)
        .where(and(eq(knowledgeItems.id, id), eq(knowledgeItems.userId, userId)))
        .limit(1);
      return row;
    },
    async getItem(id: number): Promise<ItemRow | undefined> {
      const [row] = await db.select().from(knowledgeItems).where(eq(knowledgeItems.id, id)).limit(1);
      return row;
    },
    async insertItem(values: NewItem): Promise<ItemRow> {
      const [row] = await db.insert(knowledgeItems).values(values).returning();
      return row!;
    },
    async updateItem(userId: number, id: number, values: Partial<NewItem>, reprocess: boolean): Promise<ItemRow | undefined> {
      const [row] = await db
        .update(knowledgeItems)
        .set({
          ...values,
          updatedAt: sql`now()`,
          ...(reprocess ? { status: 'processing' as const, statusReason: null, revision: sql`${knowledgeItems.revision} + 1`, attempts: 0, leaseUntil: null } : {}),
        })
        .where(and(eq(knowledgeItems.id, id), eq(knowledgeItems.userId, userId)))
        .returning();
      return row;
    },
    async deleteItem(userId: number, id: number): Promise<ItemRow | undefined> {
      const [row] = await db
        .delete(knowledgeItems)
        .where(and(eq(knowledgeItems.id, id), eq(knowledgeItems.userId, userId)))
        .returning();
      return row;
    },
    // ── Uploads (the quota's ledger) ──
    async insertUpload(row: { userId: number; storageKey: string; maxBytes: number; expiresAt: Date }): Promise<void> {
      await db.insert(knowledgeUploads).values(row);
    },
    async findUpload(userId: number, key: string) {
      const [row] = await db.select().from(knowledgeUploads).where(and(eq(knowledgeUploads.storageKey, key), eq(knowledgeUploads.userId, userId)));
      return row;
    },
    async uploadByKey(key: string) {
      const [row] = await db.select().from(knowledgeUploads).where(eq(knowledgeUploads.storageKey, key));
      return row;
    },
    /**
     * The bytes an account's knowledge files take or may take: files that arrived count their
     * size; forms still valid count the most they allow (so forms in flight cannot overrun the quota).
     */
    async quotaUsed(userId: number, now: Date, exceptKey?: string): Promise<number> {
      const [row] = await db
        .select({
          used: sql<string>`coalesce(sum(case when ${knowledgeUploads.size} is not null then ${knowledgeUploads.size} when ${knowledgeUploads.expiresAt} > ${now.toISOString()}::timestamptz then ${knowledgeUploads.maxBytes} else 0 end), 0)`,
        })
        .from(knowledgeUploads)
        .where(and(eq(knowledgeUploads.userId, userId), exceptKey ? sql`${knowledgeUploads.storageKey} <> ${exceptKey}` : undefined));
      return Number(row?.used ?? 0);
    },
    async setUploadSize(key: string, size: number): Promise<void> {
      await db.update(knowledgeUploads).set({ size }).where(eq(knowledgeUploads.storageKey, key));
    },
    async deleteUploads(keys: string[]): Promise<void> {
      if (keys.length > 0) await db.delete(knowledgeUploads).where(inArray(knowledgeUploads.storageKey, keys));
    },
    /** Uploads older than `before` whose key no item uses: forms never used, files never made into an item, items deleted. */
    async orphanedUploads(before: Date, limit: number): Promise<string[]> {
      const rows = await db
        .select({ key: knowledgeUploads.storageKey })
        .from(knowledgeUploads)
        .where(and(sql`${knowledgeUploads.createdAt} < ${before.toISOString()}::timestamptz`, sql`not exists (select 1 from knowledge_items ki where ki.storage_key = ${knowledgeUploads.storageKey})`))
        .orderBy(asc(knowledgeUploads.createdAt))
        .limit(limit);
      return rows.map((r) => r.key);
    },
    async isStorageKeyUsed(key: string): Promise<boolean> {
      const [row] = await db.select({ n: count() }).from(knowledgeItems).where(eq(knowledgeItems.storageKey, key));
      return Number(row?.n ?? 0) > 0;
    },

    // ── Ingestion ──
    /** Items waiting to be processed (no live lease). */
    async pendingItemIds(): Promise<number[]> {
      const rows = await db
        .select({ id: knowledgeItems.id })
        .from(knowledgeItems)
        .where(and(eq(knowledgeItems.status, 'processing'), sql`(${knowledgeItems.leaseUntil} is null or ${knowledgeItems.leaseUntil} < now())`))
        .orderBy(asc(knowledgeItems.id))
        .limit(1000);
      return rows.map((r) => r.id);
    },
    /** Takes the item for processing (one instance at a time); undefined when it is not waiting. */
    async claimItem(id: number, leaseMs: number): Promise<ItemRow | undefined> {
      const [row] = await db
        .update(knowledgeItems)
        .set({ leaseUntil: sql`now() + ${`${Math.round(leaseMs)} milliseconds`}::interval`, attempts: sql`${knowledgeItems.attempts} + 1` })
        .where(and(eq(knowledgeItems.id, id), eq(knowledgeItems.status, 'processing'), sql`(${knowledgeItems.leaseUntil} is null or ${knowledgeItems.leaseUntil} < now())`))
        .returning();
      return row;
    },
    /**
     * Replaces the item's chunks (and vectors) and marks it ready, in one transaction, unless the
     * item changed or vanished meanwhile: nothing half-indexed is ever visible.
     */
    async commitReady(itemId: number, revision: number, chunks: Chunk[], vectors: number[][] | null, withVectors: boolean): Promise<boolean> {
      return db.transaction(async (tx) => {
        const [item] = await tx
          .select({ id: knowledgeItems.id, collectionId: knowledgeItems.collectionId })
          .from(knowledgeItems)
          .where(and(eq(knowledgeItems.id, itemId), eq(knowledgeItems.revision, revision), eq(knowledgeItems.status, 'processing')))
          .for('update');
        if (!item) return false;
        await tx.delete(knowledgeChunks).where(eq(knowledgeChunks.itemId, itemId));
        const ids: number[] = [];
        for (let i = 0; i < chunks.length; i += 500) {
          const part = chunks.slice(i, i + 500);
          const rows = await tx
            .insert(knowledgeChunks)
            .values(part.map((c, j) => ({ itemId, collectionId: item.collectionId, ord: i + j, heading: c.heading, text: c.text })))
            .returning({ id: knowledgeChunks.id });
          ids.push(...rows.map((r) => r.id));
        }
        if (withVectors && vectors) {
          for (let i = 0; i < ids.length; i += 200) {
            const values = ids.slice(i, i + 200).map((id, j) => sql`(${id}, ${item.collectionId}, ${vectorLiteral(vectors[i + j]!)}::vector)`);
            await tx.execute(sql`insert into knowledge_embeddings (chunk_id, collection_id, embedding) values ${sql.join(values, sql`, `)}`);
          }
        }
        await tx
          .update(knowledgeItems)
          .set({ status: 'ready', statusReason: null, chunkCount: ids.length, leaseUntil: null, updatedAt: sql`now()` })
          .where(eq(knowledgeItems.id, itemId));
        return true;
      });
    },
    async markFailed(itemId: number, revision: number, reason: string): Promise<void> {
      await db
        .update(knowledgeItems)
        .set({ status: 'failed', statusReason: reason.slice(0, 500), leaseUntil: null, updatedAt: sql`now()` })
        .where(and(eq(knowledgeItems.id, itemId), eq(knowledgeItems.revision, revision), eq(knowledgeItems.status, 'processing')));
    },
    /** Ready chunks that have no vector yet (after a model change, or an embedding outage). */
    async chunksWithoutVectors(limit: number): Promise<{ id: number; collectionId: number; heading: string | null; text: string }[]> {
      const result = await db.execute(sql`
        select c.id, c.collection_id as "collectionId", c.heading, c.text
        from knowledge_chunks c
        where not exists (select 1 from knowledge_embeddings e where e.chunk_id = c.id)
        order by c.id
        limit ${limit}`);
      return rowsOf<{ id: number | string; collectionId: number; heading: string | null; text: string }>(result).map((r) => ({ ...r, id: Number(r.id) }));
    },
    async insertVectors(rows: { chunkId: number; collectionId: number; vector: number[] }[]): Promise<void> {
      if (rows.length === 0) return;
      const values = rows.map((r) => sql`(${r.chunkId}, ${r.collectionId}, ${vectorLiteral(r.vector)}::vector)`);
      await db.execute(sql`insert into knowledge_embeddings (chunk_id, collection_id, embedding) values ${sql.join(values, sql`, `)} on conflict (chunk_id) do nothing`);
    },

    // ── Retrieval ──
    /**
     * Full-text: the question's lexemes OR-ed (a question rarely shares every word with its answer).
     * The 200 best by ts_rank (length-normalised, headings weighing more than body text) are then
     * scored by the number of distinct question terms they contain (coordination level) plus that
     * rank: counting terms for every match was the slow part with many matches.
     */
    async searchFullText(collectionIds: number[], query: string, limit: number): Promise<RankedChunk[]> {
      const result = await db.execute(sql`
        with terms as (
          select array(select distinct lexeme from unnest(to_tsvector('english', ${query})) as t(lexeme)) as t
        ), q as (
          select to_tsquery('simple', array_to_string(array(select quote_literal(l) from unnest(terms.t) l), ' | ')) as q,
                 array(select to_tsquery('simple', quote_literal(l)) from unnest(terms.t) l) as each
          from terms where cardinality(terms.t) > 0
        ), candidates as (
          select c.id, c.tsv, ts_rank(c.tsv, q.q, 1) as rank
          from knowledge_chunks c, q
          where c.collection_id in (${idList(collectionIds)}) and c.tsv @@ q.q
          order by rank desc
          limit ${Math.max(200, limit)}
        )
        select candidates.id as "chunkId",
               (select count(*) from unnest(q.each) x where candidates.tsv @@ x)::float8 + candidates.rank as score
        from candidates, q
        order by score desc, candidates.id
        limit ${limit}`);
      return rowsOf<{ chunkId: number | string; score: number | string }>(result).map((r) => ({ chunkId: Number(r.chunkId), score: Number(r.score) }));
    },
    /** Vector: cosine similarity over the HNSW index, filtered by collection (iterative scan). */
    async searchVector(collectionIds: number[], vector: number[], limit: number): Promise<RankedChunk[]> {
      return db.transaction(async (tx) => {
        await tx.execute(sql`set local hnsw.ef_search = 100`);
        await tx.execute(sql`set local hnsw.iterative_scan = relaxed_order`);
        const literal = vectorLiteral(vector);
        const result = await tx.execute(sql`
          select chunk_id as "chunkId", 1 - distance as score from (
            select e.chunk_id, e.embedding <=> ${literal}::vector as distance
            from knowledge_embeddings e
            where e.collection_id in (${idList(collectionIds)})
            order by e.embedding <=> ${literal}::vector
            limit ${limit}
          ) s order by distance`);
        return rowsOf<{ chunkId: number | string; score: number | string }>(result).map((r) => ({ chunkId: Number(r.chunkId), score: Number(r.score) }));
      });
    },
    /**
     * A page of the owner's chunks in these collections, with their item's name, in (item, ord)
     * order after `after` — the vocabulary of an avatar's speech model (ADR 105).
     */
    async vocabularyChunks(userId: number, collectionIds: number[], after: { itemId: number; ord: number } | null, limit: number): Promise<{ itemId: number; ord: number; heading: string | null; text: string; itemName: string }[]> {
      if (collectionIds.length === 0) return [];
      return db
        .select({ itemId: knowledgeChunks.itemId, ord: knowledgeChunks.ord, heading: knowledgeChunks.heading, text: knowledgeChunks.text, itemName: knowledgeItems.name })
        .from(knowledgeChunks)
        .innerJoin(knowledgeItems, eq(knowledgeItems.id, knowledgeChunks.itemId))
        .where(and(inArray(knowledgeChunks.collectionId, collectionIds), eq(knowledgeItems.userId, userId), after ? sql`(${knowledgeChunks.itemId}, ${knowledgeChunks.ord}) > (${after.itemId}, ${after.ord})` : undefined))
        .orderBy(asc(knowledgeChunks.itemId), asc(knowledgeChunks.ord))
        .limit(limit);
    },
    async chunkDetails(chunkIds: number[]): Promise<ChunkDetails[]> {
      if (chunkIds.length === 0) return [];
      return db
        .select({
          chunkId: knowledgeChunks.id,
          itemId: knowledgeChunks.itemId,
          collectionId: knowledgeChunks.collectionId,
          heading: knowledgeChunks.heading,
          text: knowledgeChunks.text,
          itemName: knowledgeItems.name,
          knowledgeType: knowledgeItems.knowledgeType,
          url: knowledgeItems.url,
        })
        .from(knowledgeChunks)
        .innerJoin(knowledgeItems, eq(knowledgeItems.id, knowledgeChunks.itemId))
        .where(inArray(knowledgeChunks.id, chunkIds));
    },

    // ── Index state ──
    async getState(key: string): Promise<string | undefined> {
      const [row] = await db.select().from(knowledgeIndexState).where(eq(knowledgeIndexState.key, key)).limit(1);
      return row?.value;
    },
    async setState(key: string, value: string): Promise<void> {
      await db
        .insert(knowledgeIndexState)
        .values({ key, value })
        .onConflictDoUpdate({ target: knowledgeIndexState.key, set: { value, updatedAt: sql`now()` } });
    },
    async execute(query: SQL): Promise<unknown[]> {
      return rowsOf(await db.execute(query));
    },
  };
}

export type KnowledgeRepository = ReturnType<typeof createKnowledgeRepository>;
