import type { FastifyBaseLogger } from 'fastify';
import {
  KnowledgeMessages,
  knowledgeFileMaxBytes,
  ZCreateKnowledge,
  type TCrawledUrl,
  type TCreateKnowledgeParsed,
  type TKnowledgeBatchResult,
  type TKnowledgeCollection,
  type TKnowledgeFileType,
  type TKnowledgeItem,
  type TSearchHit,
  type TSearchMode,
} from '@persona/contract';
import { AppError } from '../../lib/app-error.js';
import { crawlSite, CrawlError } from './crawler.js';
import type { Embedder } from './embedder.js';
import type { KnowledgeFiles } from './files.js';
import type { ExtractPool } from './extract-pool.js';
import type { Ingestion } from './ingest.js';
import type { CollectionRow, ItemRow, KnowledgeRepository, RankedChunk } from './repository.js';
import { SafeFetchError } from './safe-fetch.js';

export interface KnowledgeServiceDeps {
  repo: KnowledgeRepository;
  files: KnowledgeFiles;
  ingestion: Ingestion;
  extractor: ExtractPool;
  embedder: Embedder | null;
  vectorsEnabled: () => boolean;
  allowPrivateUrls: boolean;
  log: FastifyBaseLogger;
  /** KNOWLEDGE_QUOTA_MB: what one account's knowledge files may take in storage. */
  quotaMb: number;
  now?: () => Date;
}

/** How long an upload may stay without an item before the clean-up removes it (forms live 15 minutes). */
export const ORPHAN_GRACE_MS = 6 * 60 * 60 * 1000;

/** Reciprocal rank fusion constant (Cormack et al.): dampens the weight of the very first ranks. */
export const RRF_K = 60;

export const presentCollection = (c: CollectionRow): TKnowledgeCollection => ({
  id: c.id,
  name: c.name,
  created_at: c.createdAt.toISOString(),
  updated_at: c.updatedAt.toISOString(),
  item_count: c.itemCount,
});

export const presentItem = (i: ItemRow): TKnowledgeItem => ({
  id: i.id,
  collection_id: i.collectionId,
  name: i.name,
  description: i.description,
  knowledge_type: i.knowledgeType,
  created_at: i.createdAt.toISOString(),
  updated_at: i.updatedAt.toISOString(),
  ...(i.knowledgeType === 'text' ? { content: i.content ?? '' } : {}),
  url: i.url,
  file_name: i.fileName,
  file_type: i.fileType,
  status: i.status,
  status_reason: i.statusReason,
  chunk_count: i.chunkCount,
});

/** Fuses ranked lists: score = Σ 1 / (RRF_K + rank). */
export function fuseRankings(lists: RankedChunk[][]): { chunkId: number; score: number; ranks: (number | null)[] }[] {
  const byId = new Map<number, { chunkId: number; score: number; ranks: (number | null)[] }>();
  lists.forEach((list, li) => {
    list.forEach((hit, index) => {
      const entry = byId.get(hit.chunkId) ?? { chunkId: hit.chunkId, score: 0, ranks: lists.map(() => null) };
      entry.score += 1 / (RRF_K + index + 1);
      entry.ranks[li] = index + 1;
      byId.set(hit.chunkId, entry);
    });
  });
  // Ties (common with two lists) go to the better rank in the first list (full-text), then the lower id.
  const first = (e: { ranks: (number | null)[] }) => e.ranks[0] ?? Number.MAX_SAFE_INTEGER;
  return [...byId.values()].sort((a, b) => b.score - a.score || first(a) - first(b) || a.chunkId - b.chunkId);
}

export function createKnowledgeService(deps: KnowledgeServiceDeps) {
  const { repo, files, ingestion } = deps;
  const now = () => deps.now?.() ?? new Date();
  const quotaBytes = deps.quotaMb * 1024 * 1024;
  const removeFiles = async (keys: string[]) => {
    const removed: string[] = [];
    for (const key of keys) {
      try {
        await files.remove(key);
        removed.push(key);
      } catch (err) {
        // The ledger row stays: the clean-up tries again.
        deps.log.warn({ err, key }, 'could not delete a knowledge file');
      }
    }
    await repo.deleteUploads(removed);
  };
  /** An item as answered to its owner: file items carry a short-lived signed link to the file. */
  const present = (i: ItemRow): TKnowledgeItem => (i.storageKey ? { ...presentItem(i), file_url: files.downloadUrl(i.storageKey) } : presentItem(i));
  const queryVectors = new Map<string, number[]>();

  const ownCollection = async (userId: number, id: number) => {
    const c = await repo.findCollection(userId, id);
    if (!c) throw AppError.notFound(KnowledgeMessages.collectionNotFound);
    return c;
  };
  const ownItem = async (userId: number, id: number) => {
    const item = await repo.findItem(userId, id);
    if (!item) throw AppError.notFound(KnowledgeMessages.itemNotFound);
    return item;
  };

  async function embedQuery(query: string): Promise<number[] | null> {
    if (!deps.embedder) return null;
    const cached = queryVectors.get(query);
    if (cached) return cached;
    const [vector] = await deps.embedder.embed([query]);
    if (!vector) return null;
    queryVectors.set(query, vector);
    if (queryVectors.size > 256) queryVectors.delete(queryVectors.keys().next().value!);
    return vector;
  }

  async function createOne(userId: number, input: TCreateKnowledgeParsed): Promise<TKnowledgeItem> {
    await ownCollection(userId, input.collection_id);
    const base = { userId, collectionId: input.collection_id, name: input.name, description: input.description ?? null, knowledgeType: input.knowledge_type };
    let row: ItemRow;
    if (input.knowledge_type === 'text') {
      row = await repo.insertItem({ ...base, content: input.content });
    } else if (input.knowledge_type === 'file') {
      const key = files.keyFromUrl(userId, input.url);
      const extension = key?.split('.').pop();
      const expected = { 'application/pdf': 'pdf', 'text/plain': 'txt', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx' }[input.file_type as TKnowledgeFileType];
      if (!key || extension !== expected) throw AppError.badRequest(KnowledgeMessages.uploadFailed);
      // Only a form this server issued to this user, and not yet removed as an orphan.
      const upload = await repo.findUpload(userId, key);
      if (!upload || upload.createdAt.getTime() < now().getTime() - ORPHAN_GRACE_MS) throw AppError.badRequest(KnowledgeMessages.fileNotUploaded);
      const size = await files.size(key);
      if (size === null) throw AppError.badRequest(KnowledgeMessages.fileNotUploaded);
      if (await repo.isStorageKeyUsed(key)) throw AppError.badRequest('This upload already belongs to another knowledge item. Please upload the file again.');
      if (upload.size === null) {
        // A bucket upload is first seen here: the quota is checked now that its size is known.
        if ((await repo.quotaUsed(userId, now(), key)) + size > quotaBytes) {
          await files.remove(key).catch((err) => deps.log.warn({ err, key }, 'could not delete a knowledge file'));
          await repo.deleteUploads([key]);
          throw new AppError(413, KnowledgeMessages.quotaExceeded(deps.quotaMb));
        }
        await repo.setUploadSize(key, size);
      }
      row = await repo.insertItem({ ...base, url: input.url, fileName: input.file_name, fileType: input.file_type, storageKey: key });
    } else {
      row = await repo.insertItem({ ...base, url: input.url });
    }
    ingestion.enqueue(row.id);
    return present(row);
  }

  return {
    // ── Collections ──
    async listCollections(userId: number) {
      return (await repo.listCollections(userId)).map(presentCollection);
    },
    async createCollection(userId: number, name: string) {
      return presentCollection(await repo.insertCollection(userId, name));
    },
    async renameCollection(userId: number, id: number, name: string) {
      if (!(await repo.renameCollection(userId, id, name))) throw AppError.notFound(KnowledgeMessages.collectionNotFound);
      return presentCollection((await repo.findCollection(userId, id))!);
    },
    /** For the avatar save: the ids among these that are not collections of the user. */
    async foreignCollectionIds(userId: number, ids: number[]): Promise<number[]> {
      const unique = [...new Set(ids)];
      const owned = new Set(await repo.ownedCollectionIds(userId, unique.filter((id) => Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647)));
      return unique.filter((id) => !owned.has(id));
    },
    async deleteCollection(userId: number, id: number) {
      const result = await repo.deleteCollection(userId, id);
      if (!result) throw AppError.notFound(KnowledgeMessages.collectionNotFound);
      await removeFiles(result.storageKeys);
      return { avatarsUpdated: result.avatarsUpdated };
    },

    // ── Items ──
    async listItems(userId: number, collectionId: number) {
      await ownCollection(userId, collectionId);
      return (await repo.listItems(collectionId)).map(present);
    },
    createItem: createOne,
    /** A batch: each item checked and created on its own, with its own result. */
    async createItems(userId: number, raw: unknown[]): Promise<TKnowledgeBatchResult[]> {
      const results: TKnowledgeBatchResult[] = [];
      for (const [index, value] of raw.entries()) {
        const parsed = ZCreateKnowledge.safeParse(value);
        if (!parsed.success) {
          results.push({ index, status: 'FAIL', errors: [...new Set(parsed.error.issues.map((i) => i.message))] });
          continue;
        }
        try {
          results.push({ index, status: 'OK', data: await createOne(userId, parsed.data) });
        } catch (err) {
          if (!(err instanceof AppError)) throw err;
          results.push({ index, status: 'FAIL', errors: err.errors });
        }
      }
      return results;
    },
    async updateItem(userId: number, id: number, input: { name?: string; description?: string | null; content?: string; url?: string; reprocess?: boolean }) {
      const item = await ownItem(userId, id);
      if (input.content !== undefined && item.knowledgeType !== 'text') throw AppError.badRequest('Only text knowledge has content.');
      if (input.url !== undefined && item.knowledgeType !== 'url' && item.knowledgeType !== 'crawl') throw AppError.badRequest('Only URL and crawled knowledge have a URL to change.');
      if (input.reprocess && item.status === 'processing') throw AppError.badRequest(KnowledgeMessages.reprocessOnlyFailed);
      const changed = (input.content !== undefined && input.content !== item.content) || (input.url !== undefined && input.url !== item.url);
      const reprocess = changed || input.reprocess === true;
      const row = await repo.updateItem(
        userId,
        id,
        {
          ...(input.name !== undefined ? { name: input.name } : {}),
          ...(input.description !== undefined ? { description: input.description } : {}),
          ...(input.content !== undefined ? { content: input.content } : {}),
          ...(input.url !== undefined ? { url: input.url } : {}),
        },
        reprocess,
      );
      if (!row) throw AppError.notFound(KnowledgeMessages.itemNotFound);
      if (reprocess) ingestion.enqueue(row.id);
      return present(row);
    },
    async deleteItem(userId: number, id: number) {
      const row = await repo.deleteItem(userId, id);
      if (!row) throw AppError.notFound(KnowledgeMessages.itemNotFound);
      if (row.storageKey) await removeFiles([row.storageKey]);
      return row;
    },

    // ── Uploads and the quota ──
    /** A presigned form: refused when the quota is used up, and never allowing more than what is left. */
    async issueUpload(userId: number, fileType: TKnowledgeFileType) {
      const left = quotaBytes - (await repo.quotaUsed(userId, now()));
      if (left < 1) throw new AppError(413, KnowledgeMessages.quotaExceeded(deps.quotaMb));
      const presigned = files.presign(userId, fileType, Math.min(knowledgeFileMaxBytes(fileType), left));
      await repo.insertUpload({ userId, storageKey: presigned.key, maxBytes: presigned.max_bytes, expiresAt: presigned.expiresAt });
      return { form: presigned.form, url: presigned.url, final_url: presigned.final_url, max_bytes: presigned.max_bytes };
    },
    /** When a file arrives (local storage): what it may weigh, counting everything else of the account. */
    async arrivalLimit(key: string): Promise<{ maxBytes: number; message: string } | null> {
      const upload = await repo.uploadByKey(key);
      if (!upload) return null;
      const left = Math.max(0, quotaBytes - (await repo.quotaUsed(upload.userId, now(), key)));
      return { maxBytes: left, message: left < 1 ? KnowledgeMessages.quotaExceeded(deps.quotaMb) : KnowledgeMessages.quotaTooSmall(Math.floor((left / 1024 / 1024) * 10) / 10) };
    },
    async recordArrival(key: string, size: number) {
      await repo.setUploadSize(key, size);
    },
    /** Removes uploads no item uses after the grace period (and their files); answers how many. */
    async removeOrphanedUploads(limit = 200): Promise<number> {
      const keys = await repo.orphanedUploads(new Date(now().getTime() - ORPHAN_GRACE_MS), limit);
      await removeFiles(keys);
      return keys.length;
    },

    // ── Crawl ──
    async crawl(url: string, limit: number): Promise<TCrawledUrl[]> {
      let found: TCrawledUrl[];
      try {
        found = await crawlSite(url, { limit, allowPrivate: deps.allowPrivateUrls, extractor: deps.extractor });
      } catch (err) {
        if (err instanceof SafeFetchError || err instanceof CrawlError) throw AppError.badRequest([KnowledgeMessages.crawlUnable, err.message]);
        throw err;
      }
      if (found.length === 0) throw AppError.badRequest([KnowledgeMessages.crawlUnable, 'No HTML pages were found at that address.']);
      return found;
    },

    /**
     * The titles and text of the owner's items in these collections (others' are skipped), for an
     * avatar's speech model (ADR 105): items in the order they were made, each its name then its
     * chunks' headings and text (the overlap a chunk repeats from the one before it left out),
     * cut at `maxChars` in all. Read a page at a time: a large knowledge base is not loaded whole.
     */
    async vocabulary(userId: number, collectionIds: number[], maxChars: number): Promise<{ title: string; text: string }[]> {
      const unique = [...new Set(collectionIds)].filter((id) => Number.isSafeInteger(id) && id > 0 && id <= 2_147_483_647);
      const owned = await repo.ownedCollectionIds(userId, unique);
      const items: { itemId: number; title: string; parts: string[] }[] = [];
      let left = maxChars;
      let after: { itemId: number; ord: number } | null = null;
      /** The chunk read before (item 0: none). */
      const previous = { itemId: 0, heading: null as string | null, text: '' };
      const take = (s: string) => {
        const cut = s.slice(0, Math.max(0, left));
        left -= cut.length;
        return cut;
      };
      while (left > 0 && owned.length > 0) {
        const page = await repo.vocabularyChunks(userId, owned, after, 200);
        for (const c of page) {
          if (left <= 0) break;
          const last = items.at(-1);
          const item = last?.itemId === c.itemId ? last : { itemId: c.itemId, title: take(c.itemName), parts: [] as string[] };
          if (item !== last) items.push(item);
          let text = c.text;
          const same = previous.itemId === c.itemId ? previous : null;
          // The chunker starts a chunk with the last sentences of the one before it (joined by spaces), then a blank line.
          const gap = text.indexOf('\n\n');
          const spaced = (x: string) => x.replace(/\s+/g, ' ');
          if (same && gap > 0 && spaced(same.text).endsWith(spaced(text.slice(0, gap)))) text = text.slice(gap + 2);
          const add = (part: string) => {
            // Parts are joined by a blank line, which counts too.
            if (item.parts.length > 0) left -= 2;
            if (left > 0) item.parts.push(take(part));
          };
          if (c.heading && c.heading !== same?.heading) add(c.heading);
          add(text);
          Object.assign(previous, { itemId: c.itemId, heading: c.heading, text: c.text });
        }
        if (page.length < 200) break;
        const end = page.at(-1)!;
        after = { itemId: end.itemId, ord: end.ord };
      }
      return items.map((i) => ({ title: i.title, text: i.parts.join('\n\n') }));
    },

    // ── Retrieval ──
    async search(userId: number, req: { collection_ids: number[]; query: string; k: number; mode: TSearchMode }): Promise<{ hits: TSearchHit[]; mode: TSearchMode }> {
      const ids = [...new Set(req.collection_ids)];
      const owned = await repo.ownedCollectionIds(userId, ids);
      if (owned.length !== ids.length) throw AppError.notFound(KnowledgeMessages.collectionNotFound);
      const vectorOn = deps.vectorsEnabled() && deps.embedder !== null;
      const mode: TSearchMode = req.mode === 'fulltext' || !vectorOn ? 'fulltext' : req.mode;
      const depth = mode === 'fused' ? Math.max(req.k * 4, 40) : req.k;
      let fused: { chunkId: number; score: number; ranks: (number | null)[] }[];
      if (mode === 'fulltext') {
        const ft = await repo.searchFullText(ids, req.query, depth);
        fused = ft.map((h, i) => ({ chunkId: h.chunkId, score: h.score, ranks: [i + 1, null] }));
      } else {
        const vector = await embedQuery(req.query);
        const [ft, vec] = await Promise.all([mode === 'fused' ? repo.searchFullText(ids, req.query, depth) : Promise.resolve([]), vector ? repo.searchVector(ids, vector, depth) : Promise.resolve([])]);
        fused = mode === 'vector' ? vec.map((h, i) => ({ chunkId: h.chunkId, score: h.score, ranks: [null, i + 1] })) : fuseRankings([ft, vec]);
      }
      const top = fused.slice(0, req.k);
      const details = new Map((await repo.chunkDetails(top.map((t) => t.chunkId))).map((d) => [d.chunkId, d]));
      const hits: TSearchHit[] = [];
      for (const t of top) {
        const d = details.get(t.chunkId);
        if (!d) continue;
        hits.push({
          chunk_id: d.chunkId,
          item_id: d.itemId,
          item_name: d.itemName,
          collection_id: d.collectionId,
          knowledge_type: d.knowledgeType,
          url: d.url,
          heading: d.heading,
          text: d.text,
          score: Number(t.score.toFixed(6)),
          fulltext_rank: t.ranks[0] ?? null,
          vector_rank: t.ranks[1] ?? null,
        });
      }
      return { hits, mode };
    },
  };
}

export type KnowledgeService = ReturnType<typeof createKnowledgeService>;
