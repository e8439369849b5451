import { z } from 'zod';
import { ZStatus, ZId, TextChecks } from './common.js';

/**
 * Knowledge base (portal spec sections 2, 3, 4, 5, 7, 8, 9; avatar creator: knowledge files and the
 * 25-page crawl maximum): collections of text, URL, crawled and file items that avatars answer from.
 * The knowledge calls live at the root (/knowledge…, /knowledge_collection…) and accept only the
 * short-lived JWT of GET /api/token/jwt as their Bearer credential.
 */
export const KnowledgeMessages = {
  // Validation (spec section 5), word for word.
  collectionNameRequired: 'Collection name is a required field.',
  nameRequired: 'Name is required',
  contentRequired: 'Content is required',
  fileRequired: 'File is required',
  urlRequired: 'URL is required',
  urlInvalid: 'Enter a valid URL',
  crawlNoneSelected: 'Please select a URL before submitting.',
  crawlNothingCrawled: 'No URLs crawled. Please crawl the URLs before submitting.',
  // Toasts (spec section 8).
  collectionCreated: 'The collection has been created successfully!',
  collectionUpdated: 'The collection has been updated successfully!',
  collectionDeleted: 'The collection has been deleted successfully!',
  createFailed: 'Error creating item',
  updateFailed: 'Error updating item',
  deleteFailed: 'Error deleting item.',
  knowledgeDeleted: (name: string) => `The "${name}" knowledge has been deleted successfully!`,
  knowledgeDeleteFailed: (name: string) => `Error! Unable to delete "${name}" Please try again.`,
  // Delete confirmations (spec section 2).
  collectionDeleteConfirm: (name: string) =>
    `Are you sure you want to delete "${name}"? The collection will also be removed from every avatar it is linked to. This action cannot be undone.`,
  itemDeleteConfirm: 'This action cannot be undone.',
  // Files (spec section 8).
  uploadFailed: 'There was an error uploading the file. Please try submitting it again.',
  fileTooLarge: (maxMb: number, type: string) => `❌ File size exceeds ${maxMb}MB for ${type}.`,
  invalidFile: '❌ Invalid file type or file exceeds size limit.',
  fileProcessFailed: 'Failed to process given file.',
  processingFailed: 'Processing failed',
  textProcessFailed: 'Failed to process document.',
  // Crawl (spec section 8).
  crawlUnable: 'Unable to fetch URLs from the provided website. Please check the URL and try again.',
  crawlError: 'Error while crawling. Please check the provided URL.',
  // URL batch and the multi-URL progress overlays (spec sections 4 and 8).
  urlBatchFailed: 'Failed to process some URLs. Network timeout or inaccessible content detected.',
  overlayFailed: 'Upload failed',
  overlayPartial: 'Partial upload completed',
  overlaySuccess: 'Knowledge base uploaded successfully!',
  // Ours (the spec leaves these unsaid).
  collectionNotFound: 'Collection not found.',
  itemNotFound: 'Knowledge not found.',
  nameTooLong: 'Name must be at most 200 characters',
  descriptionTooLong: 'Description must be at most 2,000 characters',
  contentTooLong: 'Content must be at most 1,000,000 characters',
  urlTooLong: 'URL must be at most 2,048 characters',
  tooManyItems: 'Send at most 50 knowledge items at a time.',
  noItems: 'Send at least one knowledge item.',
  fileTypeUnsupported: 'Only PDF, plain text (.txt) and Word (.docx) files are accepted.',
  fileNotUploaded: 'The file was not found in storage. Please upload it again.',
  // The per-account storage quota of knowledge files (KNOWLEDGE_QUOTA_MB).
  quotaExceeded: (quotaMb: number) => `Your knowledge files use all of your ${quotaMb} MB of storage. Delete some files to upload more.`,
  quotaTooSmall: (leftMb: number) => `This file is larger than the ${leftMb} MB left of your knowledge storage. Delete some files to upload it.`,
  queryRequired: 'Query is required',
  collectionsRequired: 'Choose at least one collection.',
  tokenInvalid: 'The knowledge token is invalid or has expired.',
  uploadPolicyInvalid: 'The upload form is invalid or has expired. Please try again.',
  noChanges: 'Nothing to update.',
  reprocessOnlyFailed: 'Only knowledge that failed can be retried.',
} as const;

export const KnowledgeLimits = {
  nameMax: 200,
  descriptionMax: 2000,
  contentMax: 1_000_000,
  urlMax: 2048,
  batchMax: 50,
  /** Crawl: 20 URLs per request by default (portal spec 9), never more than 25 pages (avatar creator). */
  crawlDefault: 20,
  crawlMax: 25,
  /** The drop zone's maximum (spec section 5). */
  dropZoneMaxMb: 25,
  /** Single-item progress (spec section 4). */
  progressCap: 98,
  progressTickMs: 200,
  progressSuccessDelayMs: 3000,
  progressDefaultDelayMs: 500,
  searchDefaultK: 5,
  searchMaxK: 50,
  queryMax: 1000,
  searchCollectionsMax: 50,
  /** The Add Knowledge dialog's height (spec section 2). */
  dialogHeightPx: 720,
} as const;

/** The three accepted files, each with its own maximum size (spec section 5). */
export const KnowledgeFileTypes = {
  'application/pdf': { label: 'PDF', ext: 'pdf', maxMb: 25 },
  'text/plain': { label: 'TXT', ext: 'txt', maxMb: 5 },
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': { label: 'DOCX', ext: 'docx', maxMb: 20 },
} as const;
export type TKnowledgeFileType = keyof typeof KnowledgeFileTypes;
export const KNOWLEDGE_FILE_TYPES = Object.keys(KnowledgeFileTypes) as TKnowledgeFileType[];
export const knowledgeFileMaxBytes = (type: TKnowledgeFileType) => KnowledgeFileTypes[type].maxMb * 1024 * 1024;
/** The file type from a file name's extension (browsers often send an empty or wrong MIME type). */
export function knowledgeFileTypeFromName(name: string): TKnowledgeFileType | null {
  const ext = name.toLowerCase().split('.').pop() ?? '';
  const found = (Object.entries(KnowledgeFileTypes) as [TKnowledgeFileType, (typeof KnowledgeFileTypes)[TKnowledgeFileType]][]).find(([, v]) => v.ext === ext);
  return found ? found[0] : null;
}

export const KNOWLEDGE_TYPES = ['text', 'url', 'file', 'crawl'] as const;
export const ZKnowledgeType = z.enum(KNOWLEDGE_TYPES);
export type TKnowledgeType = z.infer<typeof ZKnowledgeType>;

/** An item's ingestion state: processing, then ready or failed (with its reason). */
export const KNOWLEDGE_STATUSES = ['processing', 'ready', 'failed'] as const;
export const ZKnowledgeStatus = z.enum(KNOWLEDGE_STATUSES);
export type TKnowledgeStatus = z.infer<typeof ZKnowledgeStatus>;

/** http(s)://something.something (spec section 5); a bracketed IPv6 address is a host too. */
export const KNOWLEDGE_URL_PATTERN = /^https?:\/\/(\[[0-9a-f:.]+\]|[^\s/?#.[\]]+(\.[^\s/?#.[\]]+)+)(:\d+)?([/?#]\S*)?$/i;
export const isValidKnowledgeUrl = (value: string) => {
  if (!KNOWLEDGE_URL_PATTERN.test(value)) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:';
  } catch {
    return false;
  }
};

const ZName = z
  .string({ error: KnowledgeMessages.nameRequired })
  .trim()
  .min(1, { error: KnowledgeMessages.nameRequired, abort: true })
  .max(KnowledgeLimits.nameMax, { error: KnowledgeMessages.nameTooLong })
  .check(TextChecks.singleLine());
const ZDescription = z
  .string()
  .trim()
  .max(KnowledgeLimits.descriptionMax, { error: KnowledgeMessages.descriptionTooLong })
  .nullish()
  .transform((v) => (v ? v : null));
export const ZKnowledgeUrl = z
  .string({ error: KnowledgeMessages.urlRequired })
  .trim()
  .min(1, { error: KnowledgeMessages.urlRequired, abort: true })
  .max(KnowledgeLimits.urlMax, { error: KnowledgeMessages.urlTooLong, abort: true })
  .refine(isValidKnowledgeUrl, { error: KnowledgeMessages.urlInvalid });
const ZContent = z
  .string({ error: KnowledgeMessages.contentRequired })
  .max(KnowledgeLimits.contentMax, { error: KnowledgeMessages.contentTooLong, abort: true })
  .refine((v) => v.trim() !== '', { error: KnowledgeMessages.contentRequired });

// ── Collections ──────────────────────────────────────────────────────────────

export const ZCollectionName = z
  .string({ error: KnowledgeMessages.collectionNameRequired })
  .trim()
  .min(1, { error: KnowledgeMessages.collectionNameRequired, abort: true })
  .max(KnowledgeLimits.nameMax, { error: KnowledgeMessages.nameTooLong })
  .check(TextChecks.singleLine());

/** The create page and the Collection Builder's editable name. */
export const ZCollectionForm = z.object({ name: ZCollectionName });
export type TCollectionForm = z.infer<typeof ZCollectionForm>;

export const ZKnowledgeCollection = z.object({
  id: z.number().int(),
  name: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  item_count: z.number().int(),
});
export type TKnowledgeCollection = z.infer<typeof ZKnowledgeCollection>;

export const ZCollectionIdParams = z.object({ id: ZId });
export const ZCollectionResponse = z.object({ status: ZStatus, data: ZKnowledgeCollection });
export const ZCollectionListResponse = z.object({ status: ZStatus, data: z.array(ZKnowledgeCollection) });
export const ZCollectionDeleteResponse = z.object({
  status: ZStatus,
  id: z.number().int(),
  /** Avatars the collection was removed from. */
  avatars_updated: z.number().int(),
});

// ── Items ────────────────────────────────────────────────────────────────────

export const ZKnowledgeItem = z.object({
  id: z.number().int(),
  collection_id: z.number().int(),
  name: z.string(),
  description: z.string().nullable(),
  knowledge_type: ZKnowledgeType,
  created_at: z.string(),
  updated_at: z.string(),
  /** text items only. */
  content: z.string().optional(),
  /** url and crawl items: the page; file items: the stored file. */
  url: z.string().nullable(),
  file_name: z.string().nullable(),
  file_type: z.string().nullable(),
  /** file items: a short-lived signed link to the stored file (the file itself is private). */
  file_url: z.string().optional(),
  status: ZKnowledgeStatus,
  /** Why it failed (failed items only). */
  status_reason: z.string().nullable(),
  chunk_count: z.number().int(),
});
export type TKnowledgeItem = z.infer<typeof ZKnowledgeItem>;

const base = { collection_id: ZId, name: ZName, description: ZDescription };
export const ZCreateTextKnowledge = z.object({ ...base, knowledge_type: z.literal('text'), content: ZContent });
export const ZCreateUrlKnowledge = z.object({ ...base, knowledge_type: z.literal('url'), url: ZKnowledgeUrl });
export const ZCreateCrawlKnowledge = z.object({ ...base, knowledge_type: z.literal('crawl'), url: ZKnowledgeUrl });
export const ZCreateFileKnowledge = z.object({
  ...base,
  knowledge_type: z.literal('file'),
  file_name: z.string({ error: KnowledgeMessages.fileRequired }).trim().min(1, { error: KnowledgeMessages.fileRequired }).max(255),
  file_type: z.enum(KNOWLEDGE_FILE_TYPES as [TKnowledgeFileType, ...TKnowledgeFileType[]], { error: KnowledgeMessages.fileTypeUnsupported }),
  /** The final_url of the upload. */
  url: z.string({ error: KnowledgeMessages.fileRequired }).trim().min(1, { error: KnowledgeMessages.fileRequired }).max(KnowledgeLimits.urlMax),
});
export const ZCreateKnowledge = z.discriminatedUnion('knowledge_type', [ZCreateTextKnowledge, ZCreateUrlKnowledge, ZCreateCrawlKnowledge, ZCreateFileKnowledge]);
export type TCreateKnowledge = z.input<typeof ZCreateKnowledge>;
export type TCreateKnowledgeParsed = z.output<typeof ZCreateKnowledge>;

/**
 * POST /knowledge: one item, or a batch (an array) whose items are checked and created one by one.
 * The batch answers per item, so one bad URL does not sink the others.
 */
export const ZCreateKnowledgeBody = z.union([
  z.array(z.unknown(), { error: KnowledgeMessages.noItems }).min(1, { error: KnowledgeMessages.noItems }).max(KnowledgeLimits.batchMax, { error: KnowledgeMessages.tooManyItems }),
  // One item: checked against ZCreateKnowledge by the route, so its messages are the spec's.
  z.record(z.string(), z.unknown()),
]);

export const ZKnowledgeItemResponse = z.object({ status: ZStatus, data: ZKnowledgeItem });
export const ZKnowledgeBatchResult = z.object({
  index: z.number().int(),
  status: ZStatus,
  data: ZKnowledgeItem.optional(),
  errors: z.array(z.string()).optional(),
});
export type TKnowledgeBatchResult = z.infer<typeof ZKnowledgeBatchResult>;
export const ZKnowledgeBatchResponse = z.object({ status: ZStatus, data: z.array(ZKnowledgeBatchResult) });
export type TKnowledgeBatchResponse = z.infer<typeof ZKnowledgeBatchResponse>;
export const ZCreateKnowledgeResponse = z.union([ZKnowledgeItemResponse, ZKnowledgeBatchResponse]);

export const ZListKnowledgeQuery = z.object({ collection_id: ZId });
export const ZKnowledgeListResponse = z.object({ status: ZStatus, data: z.array(ZKnowledgeItem) });
export const ZKnowledgeIdParams = z.object({ id: ZId });

/** PUT /knowledge/{id}: rename, change the text or page (processed again), or retry a failed item. */
export const ZUpdateKnowledge = z
  .object({
    name: ZName.optional(),
    description: ZDescription.optional(),
    content: ZContent.optional(),
    url: ZKnowledgeUrl.optional(),
    /** Process a failed item again (Retry / Retry Failed). */
    reprocess: z.boolean().optional(),
  })
  .refine((v) => Object.values(v).some((x) => x !== undefined), { error: KnowledgeMessages.noChanges });
export type TUpdateKnowledge = z.input<typeof ZUpdateKnowledge>;
export const ZDeleteKnowledgeResponse = z.object({ status: ZStatus, id: z.number().int() });

// ── Crawl ────────────────────────────────────────────────────────────────────

export const ZCrawlForm = z.object({ url: ZKnowledgeUrl });
export type TCrawlForm = z.infer<typeof ZCrawlForm>;
export const ZCrawlRequest = z.object({
  url: ZKnowledgeUrl,
  limit: z.coerce.number().int().min(1).max(KnowledgeLimits.crawlMax).default(KnowledgeLimits.crawlDefault),
});
export type TCrawlRequest = z.input<typeof ZCrawlRequest>;
export const ZCrawledUrl = z.object({ url: z.string(), title: z.string() });
export type TCrawledUrl = z.infer<typeof ZCrawledUrl>;
export const ZCrawlResponse = z.object({ status: ZStatus, data: z.array(ZCrawledUrl) });

// ── File upload (presigned POST) ─────────────────────────────────────────────

export const ZGenerateUploadRequest = z.object({
  file_type: z.enum(KNOWLEDGE_FILE_TYPES as [TKnowledgeFileType, ...TKnowledgeFileType[]], { error: KnowledgeMessages.fileTypeUnsupported }),
});
export const ZGenerateUploadResponse = z.object({
  status: ZStatus,
  /** The form fields to send, in this order, before the file (as S3's presigned POST). */
  form: z.record(z.string(), z.string()),
  /** Where the form is posted. */
  url: z.string(),
  /** Where the file will be once uploaded: the url of the file item. */
  final_url: z.string(),
  /** The largest file this form accepts, in bytes. */
  max_bytes: z.number().int(),
});
export type TGenerateUploadResponse = z.infer<typeof ZGenerateUploadResponse>;

// ── Retrieval ────────────────────────────────────────────────────────────────

export const SEARCH_MODES = ['fused', 'fulltext', 'vector'] as const;
export const ZSearchMode = z.enum(SEARCH_MODES);
export type TSearchMode = z.infer<typeof ZSearchMode>;

export const ZSimilaritySearchRequest = z.object({
  collection_ids: z
    .array(ZId, { error: KnowledgeMessages.collectionsRequired })
    .min(1, { error: KnowledgeMessages.collectionsRequired })
    .max(KnowledgeLimits.searchCollectionsMax),
  query: z
    .string({ error: KnowledgeMessages.queryRequired })
    .trim()
    .min(1, { error: KnowledgeMessages.queryRequired })
    .max(KnowledgeLimits.queryMax),
  k: z.coerce.number().int().min(1).max(KnowledgeLimits.searchMaxK).default(KnowledgeLimits.searchDefaultK),
  /** fused (default): full-text and vector results by reciprocal rank fusion, where both exist. */
  mode: ZSearchMode.default('fused'),
});
export type TSimilaritySearchRequest = z.input<typeof ZSimilaritySearchRequest>;

export const ZSearchHit = z.object({
  chunk_id: z.number().int(),
  item_id: z.number().int(),
  item_name: z.string(),
  collection_id: z.number().int(),
  knowledge_type: ZKnowledgeType,
  /** The page or file the chunk came from (null for text items). */
  url: z.string().nullable(),
  /** The heading path above the chunk, if any. */
  heading: z.string().nullable(),
  text: z.string(),
  /** Higher is better: the fused RRF score, ts_rank, or cosine similarity, by mode. */
  score: z.number(),
  fulltext_rank: z.number().int().nullable(),
  vector_rank: z.number().int().nullable(),
});
export type TSearchHit = z.infer<typeof ZSearchHit>;
export const ZSimilaritySearchResponse = z.object({
  status: ZStatus,
  data: z.array(ZSearchHit),
  /** What actually ran: 'fulltext' where the database has no pgvector. */
  mode: ZSearchMode,
});
export type TSimilaritySearchResponse = z.infer<typeof ZSimilaritySearchResponse>;

// ── Token ────────────────────────────────────────────────────────────────────

export const ZKnowledgeTokenResponse = z.object({
  status: ZStatus,
  jwtToken: z.string(),
  /** ISO time the token stops working; fetch a new one before. */
  expiresAt: z.string(),
});
export type TKnowledgeTokenResponse = z.infer<typeof ZKnowledgeTokenResponse>;

// ── Add Knowledge dialog forms ──────────────────────────────────────────────

export const ZKnowledgeTextForm = z.object({ name: ZName, description: z.string().max(KnowledgeLimits.descriptionMax), content: ZContent });
export type TKnowledgeTextForm = z.infer<typeof ZKnowledgeTextForm>;
export const ZKnowledgeUrlForm = z.object({
  name: ZName,
  description: z.string().max(KnowledgeLimits.descriptionMax),
  urls: z.array(z.object({ url: ZKnowledgeUrl })).min(1).max(KnowledgeLimits.batchMax),
});
export type TKnowledgeUrlForm = z.infer<typeof ZKnowledgeUrlForm>;
export const ZKnowledgeFileForm = z.object({ name: ZName, description: z.string().max(KnowledgeLimits.descriptionMax) });
export type TKnowledgeFileForm = z.infer<typeof ZKnowledgeFileForm>;
