import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KnowledgeMessages } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createSignedInUser, multipart } from '../../test/factories.js';

/**
 * Issue 9, item 6: a per-account quota of knowledge files (KNOWLEDGE_QUOTA_MB), checked when the
 * form is issued and when the file arrives, and a clean-up of uploads no item uses.
 */
const MB = 1024 * 1024;
const TXT = 'text/plain';
let t: TestContext;
let clock = Date.now();
beforeAll(async () => {
  t = await createTestApp({ EMBEDDINGS: 'off', KNOWLEDGE_QUOTA_MB: '1' }, { now: () => new Date(clock) });
});
afterAll(async () => {
  await t?.close();
});

async function signIn(ctx: TestContext) {
  const user = await createSignedInUser(ctx.app, ctx.database);
  const jwt = (await ctx.app.inject({ url: '/api/token/jwt', headers: user.headers })).json().jwtToken as string;
  const bearer = { authorization: `Bearer ${jwt}` };
  const collection = (await ctx.app.inject({ method: 'POST', url: '/knowledge_collection', headers: bearer, payload: { name: 'Quota' } })).json().data as { id: number };
  return { ...user, bearer, collection };
}
type Who = Awaited<ReturnType<typeof signIn>>;
/** A new knowledge token after the clock moved past the old one's 15 minutes. */
const renew = async (ctx: TestContext, who: Who) => {
  who.bearer = { authorization: `Bearer ${(await ctx.app.inject({ url: '/api/token/jwt', headers: who.headers })).json().jwtToken as string}` };
};

const presign = (ctx: TestContext, who: Who) => ctx.app.inject({ method: 'POST', url: '/knowledge/generate-s3-url', headers: who.bearer, payload: { file_type: TXT } });
const post = (ctx: TestContext, form: Record<string, string>, bytes: number) =>
  ctx.app.inject({ method: 'POST', url: '/knowledge/upload', ...multipart(form, [{ field: 'file', filename: 'a.txt', data: Buffer.alloc(bytes, 'a'), type: TXT }]) });
const createItem = (ctx: TestContext, who: Who, finalUrl: string) =>
  ctx.app.inject({ method: 'POST', url: '/knowledge', headers: who.bearer, payload: { collection_id: who.collection.id, name: 'File', knowledge_type: 'file', url: finalUrl, file_name: 'a.txt', file_type: TXT } });
const storedKeys = (ctx: TestContext) => {
  const root = path.join(ctx.config.dataDir, 'files', 'knowledge');
  return fs.existsSync(root) ? fs.readdirSync(root, { recursive: true }).map(String).filter((f) => f.endsWith('.txt')) : [];
};

describe('the knowledge quota', () => {
  it('caps each form at what is left, refuses forms when nothing is left, and frees space when items are deleted', async () => {
    const me = await signIn(t);
    const first = await presign(t, me);
    expect(first.statusCode).toBe(200);
    // A text file may be 5 MB, but the account has 1 MB.
    expect(first.json().max_bytes).toBe(MB);
    // While that form is valid it holds its megabyte: a second form is refused with a clear message.
    const held = await presign(t, me);
    expect(held.statusCode).toBe(413);
    expect(held.json().errors).toEqual([KnowledgeMessages.quotaExceeded(1)]);

    expect((await post(t, first.json().form, 700 * 1024)).statusCode).toBe(204);
    const item = await createItem(t, me, first.json().final_url);
    expect(item.statusCode).toBe(200);

    // Now the file's real size counts: 324 KB are left.
    const second = await presign(t, me);
    expect(second.json().max_bytes).toBe(MB - 700 * 1024);
    const over = await post(t, second.json().form, 400 * 1024);
    expect(over.statusCode).toBe(413);
    expect(over.json().errors).toEqual([KnowledgeMessages.quotaTooSmall(0.3)]);

    // Another account has its own quota.
    const other = await signIn(t);
    expect((await presign(t, other)).json().max_bytes).toBe(MB);

    await t.app.inject({ method: 'DELETE', url: `/knowledge/${item.json().data.id}`, headers: me.bearer });
    clock += 16 * 60 * 1000; // the second form expired unused
    await renew(t, me);
    expect((await presign(t, me)).json().max_bytes).toBe(MB);
  });

  it('checks the quota again when the file arrives', async () => {
    const me = await signIn(t);
    // An instance with a larger quota issued the form; this one, with 1 MB, receives the file.
    const large = await createTestApp({ EMBEDDINGS: 'off', KNOWLEDGE_QUOTA_MB: '100' }, { database: t.database, now: () => new Date(clock) });
    try {
      const form = (await presign(large, me)).json() as { form: Record<string, string>; max_bytes: number };
      expect(form.max_bytes).toBe(5 * MB);
      const res = await post(t, form.form, 2 * MB);
      expect(res.statusCode).toBe(413);
      expect(res.json().errors).toEqual([KnowledgeMessages.quotaTooSmall(1)]);
      expect(storedKeys(t).some((k) => k.endsWith(form.form.key!.split('/').pop()!))).toBe(false);
    } finally {
      await large.close();
    }
    // A second instance is built inside the test (its plugins, the extraction pool): awaited,
    // not timed; the project's 30 s was met on a loaded machine (issue 26, item 16).
  }, 120_000);
});

describe('orphaned uploads', () => {
  it('are removed after the grace period: forms used but never made into an item; files of items stay', async () => {
    const me = await signIn(t);
    const kept = (await presign(t, me)).json();
    expect((await post(t, kept.form, 1000)).statusCode).toBe(204);
    expect((await createItem(t, me, kept.final_url)).statusCode).toBe(200);
    await t.app.knowledge.ingestion.idle();
    const orphan = (await presign(t, me)).json();
    expect((await post(t, orphan.form, 1000)).statusCode).toBe(204);
    const keyOf = (form: { form: Record<string, string> }) => form.form.key!.replace(/^knowledge\//, '');
    expect(storedKeys(t)).toEqual(expect.arrayContaining([keyOf(kept), keyOf(orphan)]));

    // Within the grace period nothing is removed.
    expect(await t.app.knowledge.service.removeOrphanedUploads()).toBe(0);
    clock += 7 * 60 * 60 * 1000;
    await renew(t, me);
    expect(await t.app.knowledge.service.removeOrphanedUploads()).toBeGreaterThanOrEqual(1);
    expect(storedKeys(t)).toContain(keyOf(kept));
    expect(storedKeys(t)).not.toContain(keyOf(orphan));
    // Its space is free again, and the late form can no longer be made into an item.
    const late = await createItem(t, me, orphan.final_url);
    expect(late.statusCode).toBe(400);
    expect(late.json().errors).toEqual([KnowledgeMessages.fileNotUploaded]);
    expect((await presign(t, me)).json().max_bytes).toBe(MB - 1000);
  });
});
