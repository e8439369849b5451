// Knowledge base: retrieval quality and speed, through the real routes (app.inject).
// - recall@1/@5 and MRR of the labelled question set (bench/fixtures/knowledge) for full-text,
//   vector and fused search;
// - ingestion time of a 100-page PDF (upload with the presigned form, then processing to ready);
// - similarity-search p50/p95 with 100,000 chunks in the searched collections (full-text, vector,
//   fused) on PGlite (pgvector) and on PostgreSQL (full-text only here: no pgvector).
// The 100,000 chunks are synthetic (Zipf-like text over a 30,000-word vocabulary that includes the
// fixture's words, random 512-d vectors),
// bulk-inserted, with the HNSW index rebuilt once afterwards.
// BENCH_KNOWLEDGE_CHUNKS overrides the 100,000 (for a quick run).
import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { tsImport } from 'tsx/esm/api';
import { percentile, root, round, tmpDir, withScratchPostgres } from './support.mjs';

const dist = (p) => path.join(root, 'packages/server/dist', p);
const fixtures = path.join(root, 'bench/fixtures/knowledge');
const DOCUMENTS = JSON.parse(fs.readFileSync(path.join(fixtures, 'documents.json'), 'utf8'));
const QUESTIONS = JSON.parse(fs.readFileSync(path.join(fixtures, 'questions.json'), 'utf8'));
const CHUNKS = Number(process.env.BENCH_KNOWLEDGE_CHUNKS ?? 100_000);
const ROUNDS = 3;
const VOCABULARY = 30_000;
const MODES = ['fulltext', 'vector', 'fused'];

async function setup(openOpts) {
  const { openDatabase } = await import(dist('db/client.js'));
  const { buildApp } = await import(dist('app.js'));
  const { loadConfig } = await import(dist('config.js'));
  const { hashPassword } = await import(dist('lib/password.js'));
  const { users } = await import(dist('db/schema/index.js'));
  const database = await openDatabase(openOpts);
  const email = `bench-${Date.now()}@example.com`;
  const [user] = await database.db.insert(users).values({ firstName: 'Bench', lastName: 'Mark', email, passwordHash: await hashPassword('bench-password'), status: 'ACTIVE' }).returning();
  const config = loadConfig({ APP_KEY: 'bench-app-key', LOG_LEVEL: 'silent', DATA_DIR: tmpDir('persona-bench-kb-'), WEB_DIST_DIR: '/nonexistent', PUBLIC_URL: 'http://bench.test' });
  const app = await buildApp({ config, database, logger: false });
  await app.ready();
  const login = await app.inject({ method: 'POST', url: '/api/login', headers: { authorization: 'Bearer bench-app-key' }, payload: { email, password: 'bench-password' } });
  const session = { authorization: `Bearer bench-app-key:${login.json().sessionId}` };
  // The knowledge token lives 15 minutes; a long run fetches a new one when it expires.
  const headers = {};
  const refreshToken = async () => {
    headers.authorization = `Bearer ${(await app.inject({ url: '/api/token/jwt', headers: session })).json().jwtToken}`;
  };
  await refreshToken();
  let n = 0;
  const call = async (method, url, payload) => {
    // A different client address per call: the per-address rate limit is not what is measured.
    n++;
    const remoteAddress = `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`;
    let res = await app.inject({ method, url, headers, remoteAddress, ...(payload !== undefined ? { payload } : {}) });
    if (res.statusCode === 401) {
      await refreshToken();
      res = await app.inject({ method, url, headers, remoteAddress, ...(payload !== undefined ? { payload } : {}) });
    }
    if (res.statusCode >= 400) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
    return res.json();
  };
  const close = async () => {
    await app.close();
    await database.close();
  };
  return { app, database, user, call, close, vector: app.knowledge.vectorState().enabled };
}

async function loadLabelled(ctx) {
  const collection = (await ctx.call('POST', '/knowledge_collection', { name: 'Labelled documents' })).data;
  const t0 = performance.now();
  await ctx.call('POST', '/knowledge', DOCUMENTS.map((d) => ({ collection_id: collection.id, name: d.name, knowledge_type: 'text', content: d.text })));
  await ctx.app.knowledge.ingestion.idle();
  const items = (await ctx.call('GET', `/knowledge?collection_id=${collection.id}`)).data;
  return { collection, items, seconds: round((performance.now() - t0) / 1000, 2), chunks: items.reduce((s, i) => s + i.chunk_count, 0) };
}

async function recall(ctx, collectionIds, modes) {
  const out = {};
  for (const mode of modes) {
    let at1 = 0;
    let at5 = 0;
    let rr = 0;
    const misses = [];
    for (const q of QUESTIONS) {
      const hits = (await ctx.call('POST', '/knowledge/similarity-search', { collection_ids: collectionIds, query: q.q, k: 5, mode })).data;
      const rank = hits.findIndex((h) => `${h.heading ?? ''}\n${h.text}`.toLowerCase().includes(q.answer.toLowerCase()));
      if (rank === 0) at1++;
      if (rank >= 0) {
        at5++;
        rr += 1 / (rank + 1);
      } else misses.push(q.q);
    }
    out[mode] = { recallAt1: round(at1 / QUESTIONS.length, 3), recallAt5: round(at5 / QUESTIONS.length, 3), mrr: round(rr / QUESTIONS.length, 3), missedAt5: misses };
  }
  return out;
}

async function ingestPdf(ctx) {
  // The PDF maker is a test helper (not in the build): loaded from its source, as the live benches load the fakes.
  const { makePdf } = await tsImport(path.join(root, 'packages/server/src/test/sample-documents.ts'), import.meta.url);
  const { extractPdf } = await import(dist('features/knowledge/extract.js'));
  const paragraphs = DOCUMENTS.flatMap((d) => d.text.split('\n\n'));
  const wrap = (text) => text.match(/.{1,95}(\s|$)/g).map((l) => l.trim());
  const pages = Array.from({ length: 100 }, (_, p) => {
    const lines = [`# Page ${p + 1}: ${DOCUMENTS[p % DOCUMENTS.length].name}`];
    for (let i = 0; lines.length < 44; i++) lines.push(...wrap(paragraphs[(p * 3 + i) % paragraphs.length].replace(/^#+ /, '')), '');
    return lines.slice(0, 46).join('\n');
  });
  const pdf = makePdf(pages);
  let t = performance.now();
  const text = await extractPdf(pdf);
  const extractSeconds = round((performance.now() - t) / 1000, 2);
  const collection = (await ctx.call('POST', '/knowledge_collection', { name: 'PDF' })).data;
  t = performance.now();
  const presigned = await ctx.call('POST', '/knowledge/generate-s3-url', { file_type: 'application/pdf' });
  const boundary = `----bench${Date.now()}`;
  const parts = Object.entries(presigned.form).map(([k, v]) => Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  const body = Buffer.concat([...parts, Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="book.pdf"\r\ncontent-type: application/pdf\r\n\r\n`), pdf, Buffer.from(`\r\n--${boundary}--\r\n`)]);
  const up = await ctx.app.inject({ method: 'POST', url: '/knowledge/upload', headers: { 'content-type': `multipart/form-data; boundary=${boundary}` }, payload: body });
  if (up.statusCode !== 204) throw new Error(`upload ${up.statusCode} ${up.body}`);
  const uploadSeconds = round((performance.now() - t) / 1000, 2);
  t = performance.now();
  await ctx.call('POST', '/knowledge', { collection_id: collection.id, name: 'Book', knowledge_type: 'file', file_name: 'book.pdf', file_type: 'application/pdf', url: presigned.final_url });
  await ctx.app.knowledge.ingestion.idle();
  const [item] = (await ctx.call('GET', `/knowledge?collection_id=${collection.id}`)).data;
  return {
    pages: 100,
    pdfBytes: pdf.length,
    textChars: text.length,
    status: item.status,
    chunks: item.chunk_count,
    extractOnlySeconds: extractSeconds,
    uploadSeconds,
    processingSeconds: round((performance.now() - t) / 1000, 2),
    withVectors: ctx.vector,
  };
}

/** 100,000 synthetic chunks in a second collection, bulk-inserted; vectors too where pgvector exists. */
async function seedChunks(ctx, total) {
  const { db } = ctx.database;
  const { knowledgeItems } = await import(dist('db/schema/index.js'));
  const collection = (await ctx.call('POST', '/knowledge_collection', { name: 'Synthetic' })).data;
  const items = await db
    .insert(knowledgeItems)
    .values(Array.from({ length: 100 }, (_, i) => ({ userId: ctx.user.id, collectionId: collection.id, name: `Synthetic ${i}`, knowledgeType: 'text', content: '(synthetic)', status: 'ready', chunkCount: total / 100 })))
    .returning({ id: knowledgeItems.id });
  const firstItem = items[0].id;
  const words = [...new Set(DOCUMENTS.flatMap((d) => d.text.toLowerCase().match(/[a-z]{3,}/g)))];
  // Text is drawn Zipf-like (log-uniform ranks) from a 30,000-word vocabulary in which the fixture
  // words sit at every 30th rank and the rest are made-up words: 110 words per chunk. (A vocabulary
  // of only the fixture's ~1,000 words would put every question word in a third of all chunks,
  // which no real corpus does.) A stable shuffle decides which fixture words are frequent.
  words.sort((a, b) => ((a.length * 7919 + a.charCodeAt(0) * 31) % 101) - ((b.length * 7919 + b.charCodeAt(0) * 31) % 101));
  const wordArray = `array[${words.map((w) => `'${w}'`).join(',')}]`;
  const t0 = performance.now();
  for (let start = 0; start < total; start += 10_000) {
    const end = Math.min(start + 10_000, total) - 1;
    await db.execute(
      sql.raw(`
      insert into knowledge_chunks (item_id, collection_id, ord, heading, text)
      select ${firstItem} + (g % 100), ${collection.id}, g, 'Section ' || (g % 997),
             (select string_agg(case when r % 30 = 0 and r / 30 <= ${words.length} then (${wordArray})[r / 30] else 'w' || r end, ' ')
              from (select floor(exp(random() * ln(${VOCABULARY})))::int as r from generate_series(1, 110) s where g >= 0) z)
      from generate_series(${start}, ${end}) g`),
    );
  }
  const chunkSeconds = round((performance.now() - t0) / 1000, 1);
  let vectorSeconds = null;
  let indexSeconds = null;
  if (ctx.vector) {
    const t1 = performance.now();
    await db.execute(sql`drop index if exists knowledge_embeddings_hnsw_idx`);
    for (let start = 0; start < total; start += 10_000) {
      await db.execute(
        sql.raw(`
        insert into knowledge_embeddings (chunk_id, collection_id, embedding)
        select c.id, c.collection_id, (select array_agg(random() - 0.5)::vector(512) from generate_series(1, 512) s where c.id > 0)
        from knowledge_chunks c where c.collection_id = ${collection.id} and c.ord between ${start} and ${start + 9_999}`),
      );
    }
    vectorSeconds = round((performance.now() - t1) / 1000, 1);
    const t2 = performance.now();
    await db.execute(sql`set maintenance_work_mem = '1GB'`);
    await db.execute(sql`create index knowledge_embeddings_hnsw_idx on knowledge_embeddings using hnsw (embedding vector_cosine_ops) with (m = 16, ef_construction = 64)`);
    indexSeconds = round((performance.now() - t2) / 1000, 1);
  }
  await db.execute(sql`analyze`);
  return { collection, chunkSeconds, vectorSeconds, hnswBuildSeconds: indexSeconds };
}

async function latency(ctx, collectionIds, modes) {
  const out = {};
  for (const mode of modes) {
    // One warm-up pass (also fills the query-embedding cache), then the measured passes.
    for (const q of QUESTIONS) await ctx.call('POST', '/knowledge/similarity-search', { collection_ids: collectionIds, query: q.q, k: 5, mode });
    const times = [];
    for (let r = 0; r < ROUNDS; r++) {
      for (const q of QUESTIONS) {
        const t = performance.now();
        await ctx.call('POST', '/knowledge/similarity-search', { collection_ids: collectionIds, query: q.q, k: 5, mode });
        times.push(performance.now() - t);
      }
    }
    out[mode] = { queries: times.length, p50ms: round(percentile(times, 50)), p95ms: round(percentile(times, 95)), maxMs: round(Math.max(...times)) };
  }
  return out;
}

/** What embedding a question costs (the first time; later the same question hits the cache). */
async function queryEmbedding() {
  const embedder = (await import(dist('features/knowledge/embedder.js'))).createLocalEmbedder();
  try {
    await embedder.embed(['warm up']);
    const times = [];
    for (const q of QUESTIONS) {
      const t = performance.now();
      await embedder.embed([q.q]);
      times.push(performance.now() - t);
    }
    return { p50ms: round(percentile(times, 50)), p95ms: round(percentile(times, 95)) };
  } finally {
    await embedder.close();
  }
}

async function measure(label, openOpts) {
  const ctx = await setup(openOpts);
  try {
    const modes = ctx.vector ? MODES : ['fulltext'];
    const labelled = await loadLabelled(ctx);
    const quality = await recall(ctx, [labelled.collection.id], modes);
    const pdf = await ingestPdf(ctx);
    const seeded = await seedChunks(ctx, CHUNKS);
    const qualityAmongSynthetic = await recall(ctx, [labelled.collection.id, seeded.collection.id], modes);
    const speed = await latency(ctx, [labelled.collection.id, seeded.collection.id], modes);
    return {
      label,
      vectorSearch: ctx.vector,
      labelledSet: { documents: DOCUMENTS.length, questions: QUESTIONS.length, chunks: labelled.chunks, ingestSeconds: labelled.seconds },
      recall: quality,
      recallWith100kSyntheticChunksAlongside: Object.fromEntries(Object.entries(qualityAmongSynthetic).map(([m, v]) => [m, { recallAt5: v.recallAt5, mrr: v.mrr }])),
      pdf100Pages: pdf,
      seed: { chunks: CHUNKS, ...seeded, collection: undefined },
      searchLatencyAtChunks: CHUNKS + labelled.chunks,
      searchLatency: speed,
    };
  } finally {
    await ctx.close();
  }
}

export async function run() {
  const out = { target: 'similarity-search p95 ≤ 50 ms at 100,000 chunks', questions: QUESTIONS.length };
  out.queryEmbeddingLocalModel = await queryEmbedding();
  out.pglite = await measure('PGlite', { pgliteDir: path.join(tmpDir('persona-bench-kb-'), 'pglite') });
  out.postgres = await withScratchPostgres('knowledge', (databaseUrl) => measure('PostgreSQL', { databaseUrl }));
  return out;
}
