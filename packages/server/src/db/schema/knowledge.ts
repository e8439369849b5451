import { sql } from 'drizzle-orm';
import { bigint, customType, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './users.js';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/** A knowledge collection: a named set of items an avatar can answer from. */
export const knowledgeCollections = pgTable(
  'knowledge_collections',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('knowledge_collections_user_idx').on(t.userId, t.createdAt)],
);

/**
 * One piece of knowledge (text, url, crawl or file) and its ingestion state. `revision` grows on
 * every change that needs processing again; a result computed for an older revision is dropped.
 * `leaseUntil` lets one server instance own the processing of an item for a while.
 */
export const knowledgeItems = pgTable(
  'knowledge_items',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    collectionId: integer('collection_id')
      .notNull()
      .references(() => knowledgeCollections.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    description: text('description'),
    knowledgeType: text('knowledge_type', { enum: ['text', 'url', 'file', 'crawl'] }).notNull(),
    content: text('content'),
    url: text('url'),
    fileName: text('file_name'),
    fileType: text('file_type'),
    storageKey: text('storage_key'),
    status: text('status', { enum: ['processing', 'ready', 'failed'] })
      .notNull()
      .default('processing'),
    statusReason: text('status_reason'),
    chunkCount: integer('chunk_count').notNull().default(0),
    revision: integer('revision').notNull().default(1),
    attempts: integer('attempts').notNull().default(0),
    leaseUntil: timestamp('lease_until', { withTimezone: true, mode: 'date' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    index('knowledge_items_collection_idx').on(t.collectionId, t.createdAt),
    index('knowledge_items_processing_idx').on(t.leaseUntil).where(sql`${t.status} = 'processing'`),
  ],
);

/**
 * The searchable pieces of a ready item, replaced as a whole in one transaction when the item
 * (re)turns ready. Full-text: a weighted tsvector (heading A, text B) with a GIN index.
 * Vectors live in knowledge_embeddings, made at start-up only where pgvector exists.
 */
export const knowledgeChunks = pgTable(
  'knowledge_chunks',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    itemId: integer('item_id')
      .notNull()
      .references(() => knowledgeItems.id, { onDelete: 'cascade' }),
    collectionId: integer('collection_id').notNull(),
    ord: integer('ord').notNull(),
    heading: text('heading'),
    text: text('text').notNull(),
    tsv: tsvector('tsv')
      .notNull()
      .generatedAlwaysAs(
        sql`setweight(to_tsvector('english'::regconfig, coalesce(heading, '')), 'A') || setweight(to_tsvector('english'::regconfig, text), 'B')`,
      ),
  },
  (t) => [
    index('knowledge_chunks_item_idx').on(t.itemId, t.ord),
    index('knowledge_chunks_collection_idx').on(t.collectionId),
    index('knowledge_chunks_tsv_idx').using('gin', t.tsv),
  ],
);

/** Small key/value state of the knowledge index (e.g. which embedding model made the vectors). */
export const knowledgeIndexState = pgTable('knowledge_index_state', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});

/**
 * The ledger of knowledge uploads: one row per presigned form. It is what the per-account quota
 * counts (`size` once the file arrived, else the form's `maxBytes` while the form is still valid)
 * and what the clean-up walks: a row whose key no item uses, past its grace period, is an orphan
 * (form never used, or used but no item made, or its item deleted) and its file is removed.
 */
export const knowledgeUploads = pgTable(
  'knowledge_uploads',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    storageKey: text('storage_key').notNull().unique(),
    maxBytes: bigint('max_bytes', { mode: 'number' }).notNull(),
    size: bigint('size', { mode: 'number' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [index('knowledge_uploads_user_idx').on(t.userId), index('knowledge_uploads_created_idx').on(t.createdAt)],
);
