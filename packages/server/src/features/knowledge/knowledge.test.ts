import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { FailReason, KnowledgeMessages } from '@persona/contract';
import { createTestApp, flush, type TestContext } from '../../test/build-app.js';
import { createAvatar, createSignedInUser, keyHeader, loginAs, multipart } from '../../test/factories.js';
import { testDriver } from '../../test/db.js';
import { avatars, knowledgeChunks, knowledgeItems } from '../../db/schema/index.js';
import { buildApp } from '../../app.js';
import { createKnowledgeTokens, deriveKey } from './jwt.js';
import { makeDocx, makePdf } from '../../test/sample-documents.js';
import { startTestSite, type TestSite } from '../../test/test-site.js';

let t: TestContext; // ALLOW_PRIVATE_URLS=false (the default)
let p: TestContext; // ALLOW_PRIVATE_URLS=true: may read the site the test serves
let site: TestSite;

beforeAll(async () => {
  [t, p, site] = await Promise.all([createTestApp(), createTestApp({ ALLOW_PRIVATE_URLS: 'true' }), startTestSite()]);
});
afterAll(async () => {
  await Promise.all([t?.close(), p?.close(), site?.close()]);
});

type Ctx = TestContext;
const PDF = 'application/pdf';
const TXT = 'text/plain';
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';

async function signIn(ctx: Ctx) {
  const user = await createSignedInUser(ctx.app, ctx.database);
  const res = await ctx.app.inject({ url: '/api/token/jwt', headers: user.headers });
  expect(res.statusCode).toBe(200);
  const jwt = res.json().jwtToken as string;
  return { ...user, jwt, bearer: { authorization: `Bearer ${jwt}` } };
}
type Who = Awaited<ReturnType<typeof signIn>>;
/** The session a knowledge token names (its `sid` claim). */
const sessionOf = (jwt: string) => (JSON.parse(Buffer.from(jwt.split('.')[1]!, 'base64url').toString('utf8')) as { sid: number }).sid;

const call = (ctx: Ctx, who: Who | null, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) =>
  ctx.app.inject({ method, url, headers: who ? who.bearer : {}, ...(payload !== undefined ? { payload: payload as never } : {}) });

async function newCollection(ctx: Ctx, who: Who, name = 'Harbour') {
  const res = await call(ctx, who, 'POST', '/knowledge_collection', { name });
  expect(res.statusCode).toBe(200);
  return res.json().data as { id: number; name: string };
}

async function settled(ctx: Ctx, who: Who, collectionId: number) {
  await ctx.app.knowledge.ingestion.idle();
  const res = await call(ctx, who, 'GET', `/knowledge?collection_id=${collectionId}`);
  return res.json().data as { id: number; name: string; status: string; status_reason: string | null; chunk_count: number; knowledge_type: string }[];
}

const search = (ctx: Ctx, who: Who, collection_ids: number[], query: string, extra: Record<string, unknown> = {}) =>
  call(ctx, who, 'POST', '/knowledge/similarity-search', { collection_ids, query, ...extra });

async function upload(ctx: Ctx, who: Who, fileType: string, data: Buffer, mutate?: (form: Record<string, string>) => void) {
  const presigned = await call(ctx, who, 'POST', '/knowledge/generate-s3-url', { file_type: fileType });
  expect(presigned.statusCode).toBe(200);
  const { form, url, final_url } = presigned.json() as { form: Record<string, string>; url: string; final_url: string };
  mutate?.(form);
  const body = multipart(form, [{ field: 'file', filename: 'upload', data, type: fileType }]);
  const res = await ctx.app.inject({ method: 'POST', url: new URL(url, 'http://portal.test').pathname, ...body });
  return { res, form, final_url, url };
}

const storedFiles = (ctx: Ctx) => {
  const root = path.join(ctx.config.dataDir, 'files', 'knowledge');
  if (!fs.existsSync(root)) return [];
  return fs.readdirSync(root, { recursive: true }).map(String).filter((f) => /\.(pdf|txt|docx)$/.test(f));
};

describe('the knowledge token', () => {
  it('is issued to a signed-in user only, and is the only credential the knowledge calls accept', async () => {
    expect((await t.app.inject({ url: '/api/token/jwt' })).statusCode).toBe(401);
    const me = await signIn(t);
    expect(me.jwt.split('.')).toHaveLength(3);
    expect((await call(t, me, 'GET', '/knowledge_collection')).statusCode).toBe(200);
    // No token, the session header, garbage, a tampered token: all refused with InvalidToken.
    for (const headers of [{}, me.headers, { authorization: 'Bearer nonsense' }, { authorization: `Bearer ${me.jwt.slice(0, -2)}xx` }]) {
      const res = await t.app.inject({ url: '/knowledge_collection', headers });
      expect(res.statusCode).toBe(401);
      expect(res.json()).toMatchObject({ status: 'FAIL', failReason: FailReason.InvalidToken, errors: [KnowledgeMessages.tokenInvalid] });
    }
  });

  it('refuses an expired token and one signed by another server', async () => {
    const me = await signIn(t);
    const master = Buffer.from('7'.repeat(64), 'hex');
    const sid = sessionOf(me.jwt);
    const past = createKnowledgeTokens({ key: deriveKey(master, 'persona-knowledge-jwt-v1'), ttlSeconds: 60, now: () => new Date(Date.now() - 3600_000) });
    const expired = past.issue(me.id, sid).token;
    expect((await t.app.inject({ url: '/knowledge_collection', headers: { authorization: `Bearer ${expired}` } })).statusCode).toBe(401);
    const foreign = createKnowledgeTokens({ key: deriveKey(Buffer.alloc(32, 9), 'persona-knowledge-jwt-v1'), ttlSeconds: 600 }).issue(me.id, sid).token;
    expect((await t.app.inject({ url: '/knowledge_collection', headers: { authorization: `Bearer ${foreign}` } })).statusCode).toBe(401);
    // A token of this server, freshly made with the same key, works.
    const ours = createKnowledgeTokens({ key: deriveKey(master, 'persona-knowledge-jwt-v1'), ttlSeconds: 60 });
    const fresh = ours.issue(me.id, sid).token;
    expect((await t.app.inject({ url: '/knowledge_collection', headers: { authorization: `Bearer ${fresh}` } })).statusCode).toBe(200);
    // Signed here, but naming another user's session, or another user for this session: refused.
    const other = await signIn(t);
    expect((await t.app.inject({ url: '/knowledge_collection', headers: { authorization: `Bearer ${ours.issue(me.id, sessionOf(other.jwt)).token}` } })).statusCode).toBe(401);
    expect((await t.app.inject({ url: '/knowledge_collection', headers: { authorization: `Bearer ${ours.issue(other.id, sid).token}` } })).statusCode).toBe(401);
  });

  it('ends with the session it was issued from: logout, disable, password reset', async () => {
    const collections = (who: Who) => call(t, who, 'GET', '/knowledge_collection');
    const admin = await createSignedInUser(t.app, t.database, { userType: 'ADMIN' });

    const out = await signIn(t);
    expect((await collections(out)).statusCode).toBe(200);
    await t.app.inject({ url: '/api/logout', headers: out.headers });
    const afterLogout = await collections(out);
    expect(afterLogout.statusCode).toBe(401);
    expect(afterLogout.json()).toMatchObject({ failReason: FailReason.InvalidToken });

    const disabled = await signIn(t);
    expect((await collections(disabled)).statusCode).toBe(200);
    await t.app.inject({ method: 'POST', url: '/api/admin/users/status', headers: admin.headers, payload: { userId: disabled.id, status: 'DISABLED' } });
    expect((await collections(disabled)).statusCode).toBe(401);
    // Enabling the account again does not bring old credentials back.
    await t.app.inject({ method: 'POST', url: '/api/admin/users/status', headers: admin.headers, payload: { userId: disabled.id, status: 'ACTIVE' } });
    expect((await collections(disabled)).statusCode).toBe(401);

    const reset = await signIn(t);
    expect((await collections(reset)).statusCode).toBe(200);
    await t.app.inject({ method: 'POST', url: '/api/forgot_password', headers: keyHeader, payload: { email: reset.email } });
    await flush();
    const code = /reset-password\/([\w-]+)/.exec(t.mail.sent.filter((m) => m.to === reset.email).at(-1)!.text)![1]!;
    const done = await t.app.inject({ method: 'POST', url: '/api/reset_password', headers: keyHeader, payload: { resetToken: code, newPassword: 'a brand new password', mode: 'reset' } });
    expect(done.statusCode).toBe(200);
    expect((await collections(reset)).statusCode).toBe(401);
  });

  it("from an administrator's login-as session, ends with the administrator's session", async () => {
    const admin = await createSignedInUser(t.app, t.database, { userType: 'ADMIN' });
    const user = await createSignedInUser(t.app, t.database);
    const proxy = await loginAs(t.app, admin.headers, user);
    const jwt = (await t.app.inject({ url: '/api/token/jwt', headers: proxy.headers })).json().jwtToken as string;
    const bearer = { authorization: `Bearer ${jwt}` };
    expect((await t.app.inject({ url: '/knowledge_collection', headers: bearer })).statusCode).toBe(200);
    await t.app.inject({ url: '/api/logout', headers: admin.headers });
    expect((await t.app.inject({ url: '/knowledge_collection', headers: bearer })).statusCode).toBe(401);
    // The customer's own session is not the administrator's: it goes on.
    expect((await t.app.inject({ url: '/api/account_info', headers: user.headers })).statusCode).toBe(200);
  });
});

describe('collections', () => {
  it('are created, listed, renamed and deleted, with the spec message for a missing name', async () => {
    const me = await signIn(t);
    for (const payload of [{}, { name: '' }, { name: '   ' }]) {
      const res = await call(t, me, 'POST', '/knowledge_collection', payload);
      expect(res.statusCode).toBe(400);
      expect(res.json().errors).toEqual([KnowledgeMessages.collectionNameRequired]);
    }
    const c = await newCollection(t, me, '  Museum facts ');
    expect(c.name).toBe('Museum facts');
    const renamed = await call(t, me, 'PUT', `/knowledge_collection/${c.id}`, { name: 'Museum' });
    expect(renamed.json().data).toMatchObject({ id: c.id, name: 'Museum', item_count: 0 });
    const list = await call(t, me, 'GET', '/knowledge_collection');
    expect(list.json().data.map((x: { name: string }) => x.name)).toEqual(['Museum']);
    expect((await call(t, me, 'DELETE', `/knowledge_collection/${c.id}`)).json()).toMatchObject({ status: 'OK', id: c.id });
    expect((await call(t, me, 'GET', '/knowledge_collection')).json().data).toEqual([]);
  });

  it("answers 404 for another account's collection on every call", async () => {
    const owner = await signIn(t);
    const other = await signIn(t);
    const c = await newCollection(t, owner);
    const attempts = [
      call(t, other, 'PUT', `/knowledge_collection/${c.id}`, { name: 'Mine now' }),
      call(t, other, 'DELETE', `/knowledge_collection/${c.id}`),
      call(t, other, 'GET', `/knowledge?collection_id=${c.id}`),
      call(t, other, 'POST', '/knowledge', { collection_id: c.id, name: 'x', knowledge_type: 'text', content: 'hello' }),
      search(t, other, [c.id], 'anything'),
      call(t, other, 'PUT', `/knowledge_collection/999999`, { name: 'Nope' }),
    ];
    for (const res of await Promise.all(attempts)) expect(res.statusCode).toBe(404);
    const batch = await call(t, other, 'POST', '/knowledge', [{ collection_id: c.id, name: 'x', knowledge_type: 'text', content: 'hello' }]);
    expect(batch.statusCode).toBe(400);
    expect(batch.json().data[0]).toMatchObject({ status: 'FAIL', errors: [KnowledgeMessages.collectionNotFound] });
    expect((await call(t, owner, 'GET', '/knowledge_collection')).json().data).toHaveLength(1);
    // An item of another account is not found either.
    const item = (await call(t, owner, 'POST', '/knowledge', { collection_id: c.id, name: 'Note', knowledge_type: 'text', content: 'Private note.' })).json().data;
    for (const res of await Promise.all([call(t, other, 'PUT', `/knowledge/${item.id}`, { name: 'x' }), call(t, other, 'DELETE', `/knowledge/${item.id}`)])) {
      expect(res.statusCode).toBe(404);
    }
    await t.app.knowledge.ingestion.idle();
  });

  it('deleting one removes it from linked avatars and deletes its items, chunks and files', async () => {
    const me = await signIn(t);
    const keep = await newCollection(t, me, 'Keep');
    const gone = await newCollection(t, me, 'Gone');
    const a1 = await createAvatar(t.database, me.id, 'One');
    const a2 = await createAvatar(t.database, me.id, 'Two');
    const a3 = await createAvatar(t.database, me.id, 'Three');
    await t.database.db.update(avatars).set({ config: { customData: { collection_ids: [keep.id, gone.id], other: 1 }, name: 'x' } }).where(eq(avatars.id, a1.id));
    await t.database.db.update(avatars).set({ config: { customData: { collection_ids: [String(gone.id)] } } }).where(eq(avatars.id, a2.id));
    await t.database.db.update(avatars).set({ config: { customData: { collection_ids: [keep.id] } } }).where(eq(avatars.id, a3.id));
    await call(t, me, 'POST', '/knowledge', { collection_id: gone.id, name: 'Text', knowledge_type: 'text', content: 'The granite lighthouse was built in 1854.' });
    const { res: up, final_url } = await upload(t, me, TXT, Buffer.from('A text file about herring drifters.'));
    expect(up.statusCode).toBe(204);
    await call(t, me, 'POST', '/knowledge', { collection_id: gone.id, name: 'File', knowledge_type: 'file', file_name: 'notes.txt', file_type: TXT, url: final_url });
    await settled(t, me, gone.id);
    expect(storedFiles(t).length).toBeGreaterThan(0);
    const before = storedFiles(t).length;

    const res = await call(t, me, 'DELETE', `/knowledge_collection/${gone.id}`);
    expect(res.json()).toMatchObject({ status: 'OK', avatars_updated: 2 });
    const rows = await t.database.db.select().from(avatars).where(sql`${avatars.id} in (${a1.id}, ${a2.id}, ${a3.id})`).orderBy(avatars.id);
    expect(rows.map((r) => (r.config as { customData: { collection_ids: unknown[] } }).customData.collection_ids)).toEqual([[keep.id], [], [keep.id]]);
    expect((rows[0]!.config as { customData: { other: number } }).customData.other).toBe(1);
    expect(rows[0]!.version).toBe(a1.version + 1);
    expect(rows[2]!.version).toBe(a3.version);
    const items = await t.database.db.select().from(knowledgeItems).where(eq(knowledgeItems.collectionId, gone.id));
    expect(items).toEqual([]);
    const chunks = await t.database.db.select().from(knowledgeChunks).where(eq(knowledgeChunks.collectionId, gone.id));
    expect(chunks).toEqual([]);
    expect(storedFiles(t).length).toBe(before - 1);
  });
});

describe('items and retrieval', () => {
  it('ingests text in the background and finds the right chunk (full-text, vector and fused)', async () => {
    const me = await signIn(t);
    const c = await newCollection(t, me);
    const texts = {
      Lighthouse: '# The lighthouse\n\nThe lighthouse was built in 1854 from island granite. Its Fresnel lens was visible twenty-two nautical miles out to sea.\n\n# Keepers\n\nAgnes Morrow was the last keeper; she left in 1962 when the light was automated.',
      Fleet: 'In 1910 the harbour sheltered one hundred and forty herring drifters. The herring stocks collapsed in the 1950s and the fleet declined.',
      Cafe: 'The café on the quay serves crab sandwiches and hot chowder. Tickets cost eight pounds for adults.',
    };
    for (const [name, content] of Object.entries(texts)) {
      const res = await call(t, me, 'POST', '/knowledge', { collection_id: c.id, name, description: 'About the harbour', knowledge_type: 'text', content });
      expect(res.statusCode).toBe(200);
      expect(res.json().data).toMatchObject({ name, knowledge_type: 'text', status: 'processing', content });
    }
    const items = await settled(t, me, c.id);
    expect(items.map((i) => [i.name, i.status])).toEqual([
      ['Lighthouse', 'ready'],
      ['Fleet', 'ready'],
      ['Cafe', 'ready'],
    ]);
    expect(items[0]!.chunk_count).toBe(2);
    const listed = (await call(t, me, 'GET', '/knowledge_collection')).json().data;
    expect(listed.find((x: { id: number }) => x.id === c.id).item_count).toBe(3);

    const expectedMode = testDriver === 'pglite' ? 'fused' : 'fulltext';
    const res = await search(t, me, [c.id], 'Who was the last keeper of the lighthouse?');
    expect(res.statusCode).toBe(200);
    expect(res.json().mode).toBe(expectedMode);
    const top = res.json().data[0];
    expect(top).toMatchObject({ item_name: 'Lighthouse', heading: 'Keepers', collection_id: c.id, knowledge_type: 'text' });
    expect(top.text).toContain('Agnes Morrow');
    expect(top.score).toBeGreaterThan(0);

    const ft = await search(t, me, [c.id], 'how many herring drifters', { mode: 'fulltext', k: 1 });
    expect(ft.json()).toMatchObject({ mode: 'fulltext', data: [{ item_name: 'Fleet', vector_rank: null }] });
    if (testDriver === 'pglite') {
      // Semantic: no word in common with the answer beyond stop words.
      const vec = await search(t, me, [c.id], 'What food can I eat there?', { mode: 'vector', k: 1 });
      expect(vec.json()).toMatchObject({ mode: 'vector', data: [{ item_name: 'Cafe', fulltext_rank: null }] });
    }
    // Validation.
    for (const body of [{ collection_ids: [], query: 'x' }, { collection_ids: [c.id], query: '  ' }]) {
      expect((await call(t, me, 'POST', '/knowledge/similarity-search', body)).statusCode).toBe(400);
    }
  });

  it('validates items with the spec messages and answers a batch item by item', async () => {
    const me = await signIn(t);
    const c = await newCollection(t, me);
    const bad = [
      [{ collection_id: c.id, knowledge_type: 'text', content: 'x' }, KnowledgeMessages.nameRequired],
      [{ collection_id: c.id, name: 'n', knowledge_type: 'text', content: '   ' }, KnowledgeMessages.contentRequired],
      [{ collection_id: c.id, name: 'n', knowledge_type: 'url', url: '' }, KnowledgeMessages.urlRequired],
      [{ collection_id: c.id, name: 'n', knowledge_type: 'url', url: 'https://' }, KnowledgeMessages.urlInvalid],
      [{ collection_id: c.id, name: 'n', knowledge_type: 'url', url: 'ftp://example.com/x' }, KnowledgeMessages.urlInvalid],
      [{ collection_id: c.id, name: 'n', knowledge_type: 'file', file_type: PDF, url: '' }, KnowledgeMessages.fileRequired],
    ] as const;
    for (const [payload, message] of bad) {
      const res = await call(t, me, 'POST', '/knowledge', payload);
      expect(res.statusCode, JSON.stringify(payload)).toBe(400);
      expect(res.json().errors).toContain(message);
    }
    const batch = await call(t, me, 'POST', '/knowledge', [
      { collection_id: c.id, name: 'Ok', knowledge_type: 'text', content: 'Fine text.' },
      { collection_id: c.id, name: 'Bad', knowledge_type: 'url', url: 'not a url' },
    ]);
    expect(batch.statusCode).toBe(200);
    expect(batch.json().data).toMatchObject([
      { index: 0, status: 'OK', data: { name: 'Ok' } },
      { index: 1, status: 'FAIL', errors: [KnowledgeMessages.urlInvalid] },
    ]);
    expect((await call(t, me, 'POST', '/knowledge', [])).statusCode).toBe(400);
    await t.app.knowledge.ingestion.idle();
  });

  it('updates: a rename keeps the chunks, new content is processed again, and deleting removes the chunks', async () => {
    const me = await signIn(t);
    const c = await newCollection(t, me);
    const item = (await call(t, me, 'POST', '/knowledge', { collection_id: c.id, name: 'Note', knowledge_type: 'text', content: 'Seals sleep on the breakwater.' })).json().data;
    await settled(t, me, c.id);
    const renamed = await call(t, me, 'PUT', `/knowledge/${item.id}`, { name: 'Seals' });
    expect(renamed.json().data).toMatchObject({ name: 'Seals', status: 'ready' });
    const changed = await call(t, me, 'PUT', `/knowledge/${item.id}`, { content: 'Puffins nest on the cliffs in May.' });
    expect(changed.json().data).toMatchObject({ status: 'processing' });
    await settled(t, me, c.id);
    expect((await search(t, me, [c.id], 'puffins', { mode: 'fulltext' })).json().data).toHaveLength(1);
    expect((await search(t, me, [c.id], 'seals breakwater', { mode: 'fulltext' })).json().data).toHaveLength(0);
    expect((await call(t, me, 'PUT', `/knowledge/${item.id}`, { url: 'https://example.com/' })).statusCode).toBe(400);
    expect((await call(t, me, 'PUT', `/knowledge/${item.id}`, {})).json().errors).toEqual([KnowledgeMessages.noChanges]);
    expect((await call(t, me, 'DELETE', `/knowledge/${item.id}`)).json()).toEqual({ status: 'OK', id: item.id });
    expect((await search(t, me, [c.id], 'puffins', { mode: 'fulltext' })).json().data).toHaveLength(0);
    expect((await call(t, me, 'DELETE', `/knowledge/${item.id}`)).statusCode).toBe(404);
  });
});

describe("the vocabulary of an avatar's speech model (ADR 105)", () => {
  it("is the owner's items' names, headings and text, each sentence once (no chunk overlaps), in a fixed order, capped; never another account's", async () => {
    const me = await signIn(t);
    const other = await signIn(t);
    const c = await newCollection(t, me);
    const theirs = await newCollection(t, other, 'Private');
    const sentences = Array.from({ length: 60 }, (_, i) => `Sentence number ${i + 1} tells of the harbour wall.`);
    for (const [name, content] of [
      ['Lighthouse', '# The lighthouse\n\nThe lighthouse was built in 1854 from island granite.\n\n# Keepers\n\nAgnes Morrow was the last keeper.'],
      ['Long', sentences.join(' ')],
    ]) {
      expect((await call(t, me, 'POST', '/knowledge', { collection_id: c.id, name, knowledge_type: 'text', content })).statusCode).toBe(200);
    }
    expect((await call(t, other, 'POST', '/knowledge', { collection_id: theirs.id, name: 'Secret', knowledge_type: 'text', content: 'The vault code is zebra.' })).statusCode).toBe(200);
    expect((await settled(t, me, c.id)).map((i) => [i.name, i.status])).toEqual([
      ['Lighthouse', 'ready'],
      ['Long', 'ready'],
    ]);
    await settled(t, other, theirs.id);
    const [long] = (await t.database.db.select({ n: sql<number>`count(*)::int` }).from(knowledgeChunks).innerJoin(knowledgeItems, eq(knowledgeItems.id, knowledgeChunks.itemId)).where(eq(knowledgeItems.name, 'Long')));
    expect(Number(long!.n)).toBeGreaterThan(1); // several chunks, each after the first repeating the end of the one before

    const items = await t.app.knowledge.vocabulary(me.id, [c.id, theirs.id], 200_000);
    expect(items.map((i) => i.title)).toEqual(['Lighthouse', 'Long']);
    expect(items[0]!.text).toBe('The lighthouse\n\nThe lighthouse was built in 1854 from island granite.\n\nKeepers\n\nAgnes Morrow was the last keeper.');
    for (const sentence of sentences) expect(items[1]!.text.split(sentence).length - 1, sentence).toBe(1);
    expect(JSON.stringify(items)).not.toContain('zebra');
    expect(await t.app.knowledge.vocabulary(me.id, [theirs.id], 200_000)).toEqual([]);
    expect(await t.app.knowledge.vocabulary(me.id, [c.id], 200_000)).toEqual(items);

    const capped = await t.app.knowledge.vocabulary(me.id, [c.id], 300);
    expect(capped.reduce((n, i) => n + i.title.length + i.text.length, 0)).toBeLessThanOrEqual(300);
    expect(capped[0]).toEqual(items[0]);
  });
});

describe('outbound fetches', () => {
  it('refuse private, loopback, link-local, metadata and IPv6-mapped addresses (URL items fail with the reason; crawls answer 400)', async () => {
    const me = await signIn(t);
    const c = await newCollection(t, me);
    const targets = [
      `${site.url}/lighthouse`,
      'http://10.1.2.3/internal',
      'http://169.254.169.254/latest/meta-data/',
      `http://[::ffff:127.0.0.1]:${site.port}/lighthouse`,
      `http://[::ffff:7f00:1]:${site.port}/lighthouse`,
      `http://localhost.localdomain:${site.port}/lighthouse`,
    ];
    const res = await call(t, me, 'POST', '/knowledge', targets.filter((u) => !u.includes('localhost')).map((url, i) => ({ collection_id: c.id, name: `U${i}`, knowledge_type: 'url', url })));
    expect(res.statusCode).toBe(200);
    const items = await settled(t, me, c.id);
    for (const item of items) {
      expect(item.status, item.name).toBe('failed');
      expect(item.status_reason).toMatch(/private, local or reserved address/);
    }
    for (const url of targets.filter((u) => !u.includes('localhost'))) {
      const crawl = await call(t, me, 'POST', '/knowledge/crawl', { url });
      expect(crawl.statusCode, url).toBe(400);
      expect(crawl.json().errors[0]).toBe(KnowledgeMessages.crawlUnable);
      expect(crawl.json().errors[1]).toMatch(/private, local or reserved address/);
    }
    expect(site.hits).not.toContain('/lighthouse');
  });

  it('refuse a host name that resolves to loopback and a redirect to a private address', async () => {
    const { safeFetch } = await import('./safe-fetch.js');
    await expect(safeFetch(`http://localhost:${site.port}/lighthouse`, { allowPrivate: false, timeoutMs: 3000, maxBytes: 1e6 })).rejects.toThrow("localhost does not resolve to a public internet address.");
    // Treat 127.0.0.1 as public for this one test: the redirect hop to 169.254.169.254 is still refused.
    site.routes.set('/to-metadata', (_req, res) => {
      res.writeHead(302, { location: 'http://169.254.169.254/latest/meta-data/' });
      res.end();
    });
    const onlyLinkLocal = (a: string) => a.startsWith('169.254.');
    await expect(safeFetch(`${site.url}/to-metadata`, { allowPrivate: false, timeoutMs: 3000, maxBytes: 1e6, isBlockedAddress: onlyLinkLocal })).rejects.toThrow(/169\.254\.169\.254 is a private/);
    // The same server's own redirect to a page that is allowed is followed.
    const ok = await safeFetch(`${site.url}/old-lighthouse`, { allowPrivate: false, timeoutMs: 3000, maxBytes: 1e6, isBlockedAddress: onlyLinkLocal });
    expect(ok.url).toBe(`${site.url}/lighthouse`);
    await expect(safeFetch(`${site.url}/lighthouse`, { allowPrivate: true, timeoutMs: 3000, maxBytes: 100 })).rejects.toThrow(/larger than/);
  });
});

describe('URL items and crawling (ALLOW_PRIVATE_URLS=true, a site the test serves)', () => {
  it('reduces a page to its main text: no navigation, scripts or footer', async () => {
    const me = await signIn(p);
    const c = await newCollection(p, me);
    const res = await call(p, me, 'POST', '/knowledge', [
      { collection_id: c.id, name: 'Lighthouse', knowledge_type: 'url', url: `${site.url}/old-lighthouse` },
      { collection_id: c.id, name: 'Missing', knowledge_type: 'url', url: `${site.url}/nope` },
    ]);
    expect(res.json().data.map((r: { status: string }) => r.status)).toEqual(['OK', 'OK']);
    const items = await settled(p, me, c.id);
    expect(items.map((i) => i.status)).toEqual(['ready', 'failed']);
    expect(items[1]!.status_reason).toBe('The page answered HTTP 404.');
    const chunks = await p.database.db.select().from(knowledgeChunks).where(eq(knowledgeChunks.itemId, items[0]!.id));
    const all = chunks.map((ch) => `${ch.heading ?? ''}\n${ch.text}`).join('\n');
    expect(all).toContain('Agnes Morrow');
    expect(all).toContain('Fresnel lens');
    for (const noise of ['SCRIPT-NOISE', 'FOOTER-NOISE', 'NAVIGATION-NOISE', 'Partner site', 'color:red']) expect(all).not.toContain(noise);
    const hit = (await search(p, me, [c.id], 'When was the lighthouse automated?')).json().data[0];
    expect(hit).toMatchObject({ item_name: 'Lighthouse', url: `${site.url}/old-lighthouse` });
    expect(hit.text).toContain('1962');

    // Retry a failed item once the page exists.
    site.routes.set('/nope', (_req, r) => {
      r.writeHead(200, { 'content-type': 'text/plain' });
      r.end('Now there is a page about kittiwakes.');
    });
    const retried = await call(p, me, 'PUT', `/knowledge/${items[1]!.id}`, { reprocess: true });
    expect(retried.json().data.status).toBe('processing');
    expect((await settled(p, me, c.id)).map((i) => i.status)).toEqual(['ready', 'ready']);
  });

  it('crawls same-site links with titles, respecting robots.txt and the limit', async () => {
    const me = await signIn(p);
    const res = await call(p, me, 'POST', '/knowledge/crawl', { url: `${site.url}/` });
    expect(res.statusCode).toBe(200);
    const data = res.json().data as { url: string; title: string }[];
    expect(data[0]).toEqual({ url: `${site.url}/`, title: 'Harbour Museum' });
    expect(data.map((d) => d.url).sort()).toEqual([`${site.url}/`, `${site.url}/fleet`, `${site.url}/lighthouse`, `${site.url}/visit`].sort());
    expect(data.find((d) => d.url.endsWith('/lighthouse'))?.title).toBe('The Old Lighthouse');
    expect(site.hits).not.toContain('/private/staff');
    expect(site.hits).toContain('/robots.txt');
    const limited = await call(p, me, 'POST', '/knowledge/crawl', { url: `${site.url}/`, limit: 2 });
    expect(limited.json().data).toHaveLength(2);
    expect((await call(p, me, 'POST', '/knowledge/crawl', { url: `${site.url}/`, limit: 26 })).statusCode).toBe(400);
    expect((await call(p, me, 'POST', '/knowledge/crawl', { url: '' })).json().errors).toContain(KnowledgeMessages.urlRequired);
    const refused = await call(p, me, 'POST', '/knowledge/crawl', { url: `${site.url}/private/staff` });
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors).toEqual([KnowledgeMessages.crawlUnable, 'The site’s robots.txt does not allow crawling this page.']);
    const dead = await call(p, me, 'POST', '/knowledge/crawl', { url: 'http://127.0.0.1:9/' });
    expect(dead.statusCode).toBe(400);
    expect(dead.json().errors[0]).toBe(KnowledgeMessages.crawlUnable);

    // Crawled pages become crawl items.
    const c = await newCollection(p, me);
    await call(p, me, 'POST', '/knowledge', data.map((d) => ({ collection_id: c.id, name: d.title, knowledge_type: 'crawl', url: d.url })));
    const items = await settled(p, me, c.id);
    expect(items.every((i) => i.status === 'ready' && i.knowledge_type === 'crawl')).toBe(true);
    expect((await search(p, me, [c.id], 'How much is a ticket for an adult?')).json().data[0].item_name).toBe('Plan Your Visit');
  });
});

describe('files (the presigned POST on local storage)', () => {
  it('uploads PDF, DOCX and text files with the signed form and extracts their text', async () => {
    const me = await signIn(t);
    const c = await newCollection(t, me);
    const pdf = makePdf(['# The Harbour Wall\nThe harbour wall was rebuilt in stone after the great storm of 1881.\nIt is four hundred metres long.', '# Tides\nSpring tides flood the lower quay twice a month.']);
    const docx = makeDocx(['# Museum Shop', 'The shop sells hand-knitted gansey jumpers & tide tables.', 'It closes at half past four.']);
    const txt = Buffer.from('Opening hours\n\nThe archive reading room opens on Thursdays by appointment.');
    for (const [type, data, fileName] of [[PDF, pdf, 'wall.pdf'], [DOCX, docx, 'shop.docx'], [TXT, txt, 'archive.txt']] as const) {
      const { res, final_url, form, url } = await upload(t, me, type, data);
      expect(res.statusCode, fileName).toBe(204);
      // Relative: the browser posts to the address it opened the portal at, whatever PUBLIC_URL says.
      expect(url).toBe('/knowledge/upload');
      expect(Object.keys(form)).toEqual(['key', 'Content-Type', 'x-amz-algorithm', 'x-amz-credential', 'x-amz-date', 'policy', 'x-amz-signature']);
      expect(final_url).toBe(`/files/${form.key}`);
      // The stored file is private: not served by its bare URL, but served back as it was by the
      // owner's signed link (private-files.test.ts has the rest).
      expect((await t.app.inject({ url: final_url })).statusCode).toBe(403);
      const created = await call(t, me, 'POST', '/knowledge', { collection_id: c.id, name: fileName, knowledge_type: 'file', file_name: fileName, file_type: type, url: final_url });
      expect(created.json().data).toMatchObject({ file_name: fileName, file_type: type, url: final_url, status: 'processing' });
      const link = new URL(created.json().data.file_url as string, 'http://portal.test');
      const served = await t.app.inject({ url: `${link.pathname}${link.search}` });
      expect(served.rawPayload.equals(data)).toBe(true);
      // The same upload cannot back a second item.
      expect((await call(t, me, 'POST', '/knowledge', { collection_id: c.id, name: 'again', knowledge_type: 'file', file_name: fileName, file_type: type, url: final_url })).statusCode).toBe(400);
    }
    const items = await settled(t, me, c.id);
    expect(items.map((i) => [i.name, i.status])).toEqual([
      ['wall.pdf', 'ready'],
      ['shop.docx', 'ready'],
      ['archive.txt', 'ready'],
    ]);
    const q = async (query: string) => (await search(t, me, [c.id], query, { mode: 'fulltext', k: 1 })).json().data[0];
    expect(await q('When was the harbour wall rebuilt?')).toMatchObject({ item_name: 'wall.pdf', heading: 'The Harbour Wall' });
    expect((await q('When was the harbour wall rebuilt?')).text).toContain('great storm of 1881');
    expect(await q('jumpers sold in the shop')).toMatchObject({ item_name: 'shop.docx', heading: 'Museum Shop' });
    expect((await q('jumpers sold in the shop')).text).toContain('gansey jumpers & tide tables');
    expect((await q('reading room appointment')).item_name).toBe('archive.txt');
    // Another user's upload cannot be attached.
    const other = await signIn(t);
    const oc = await newCollection(t, other);
    const mine = await upload(t, me, TXT, Buffer.from('mine'));
    expect((await call(t, other, 'POST', '/knowledge', { collection_id: oc.id, name: 'x', knowledge_type: 'file', file_name: 'x.txt', file_type: TXT, url: mine.final_url })).json().errors).toEqual([KnowledgeMessages.uploadFailed]);
  });

  it('rejects disguised and oversize files, and forged, changed, reused or expired forms, storing nothing', async () => {
    const me = await signIn(t);
    const before = storedFiles(t).length;
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(4000, 7)]);
    const zipNotDocx = (await import('./zip.js')).writeZip({ 'hello.txt': 'not a word document' });
    const cases: [string, Buffer, number, string][] = [
      [PDF, png, 400, KnowledgeMessages.invalidFile],
      [PDF, Buffer.from('just text pretending to be a PDF'), 400, KnowledgeMessages.invalidFile],
      [DOCX, zipNotDocx, 400, KnowledgeMessages.invalidFile],
      [DOCX, makePdf(['hello']), 400, KnowledgeMessages.invalidFile],
      [TXT, png, 400, KnowledgeMessages.invalidFile],
      [TXT, makePdf(['hello']), 400, KnowledgeMessages.invalidFile],
      [TXT, Buffer.alloc(5 * 1024 * 1024 + 1, 'a'), 413, KnowledgeMessages.fileTooLarge(5, 'TXT')],
    ];
    for (const [type, data, status, message] of cases) {
      const { res } = await upload(t, me, type, data);
      expect(res.statusCode, `${type} ${data.length}`).toBe(status);
      expect(res.json().errors).toEqual([message]);
    }
    // Forms: a changed key or type, a forged signature, reuse, expiry.
    const forged: ((f: Record<string, string>) => void)[] = [
      (f) => (f.key = f.key!.replace(/u\d+/, 'u1')),
      (f) => (f['Content-Type'] = PDF),
      (f) => (f['x-amz-signature'] = '0'.repeat(64)),
      (f) => (f.policy = Buffer.from(JSON.stringify({ expiration: '2999-01-01T00:00:00Z', conditions: [['content-length-range', 1, 1e9]] })).toString('base64')),
    ];
    for (const mutate of forged) {
      const { res } = await upload(t, me, TXT, Buffer.from('hello'), mutate);
      expect(res.statusCode).toBe(403);
      expect(res.json().errors[0]).toBe(KnowledgeMessages.uploadPolicyInvalid);
    }
    const first = await upload(t, me, TXT, Buffer.from('hello'));
    expect(first.res.statusCode).toBe(204);
    const again = await t.app.inject({ method: 'POST', url: '/knowledge/upload', ...multipart(first.form, [{ field: 'file', filename: 'x', data: Buffer.from('overwrite'), type: TXT }]) });
    expect(again.statusCode).toBe(403);
    expect(storedFiles(t).length).toBe(before + 1);
    const late = await createTestApp({}, { now: () => new Date(Date.now() - 20 * 60 * 1000) });
    try {
      const lateUser = await signIn(late);
      const presigned = (await late.app.inject({ method: 'POST', url: '/knowledge/generate-s3-url', headers: lateUser.bearer, payload: { file_type: TXT } })).json();
      // The policy was made 20 minutes "ago" by that server's clock; this server checks it now.
      const res = await t.app.inject({ method: 'POST', url: '/knowledge/upload', ...multipart(presigned.form, [{ field: 'file', filename: 'x', data: Buffer.from('late'), type: TXT }]) });
      expect(res.statusCode).toBe(403);
    } finally {
      await late.close();
    }
    expect((await call(t, me, 'POST', '/knowledge/generate-s3-url', { file_type: 'image/png' })).json().errors).toEqual([KnowledgeMessages.fileTypeUnsupported]);
  });
});

describe('ingestion across restarts', () => {
  it('takes up items left processing when the server stopped', async () => {
    const me = await signIn(t);
    const c = await newCollection(t, me);
    // As a crash would leave it: processing, with a lease that has run out.
    const [row] = await t.database.db
      .insert(knowledgeItems)
      .values({ userId: me.id, collectionId: c.id, name: 'Left over', knowledgeType: 'text', content: 'Cormorants dry their wings on the pier.', leaseUntil: new Date(Date.now() - 1000), attempts: 1 })
      .returning();
    const second = await buildApp({ config: t.config, database: t.database, mailer: t.mail, logger: false });
    try {
      await second.ready();
      await second.knowledge.ingestion.idle();
      const [after] = await t.database.db.select().from(knowledgeItems).where(eq(knowledgeItems.id, row!.id));
      expect(after).toMatchObject({ status: 'ready', chunkCount: 1 });
    } finally {
      await second.close();
    }
  });
});
