import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { ApiKeyPaths, ConversationLimits, ConversationMessages, ConversationPaths, LiveCode, type TConversationDetail, type TConversationListItem, type TLiveHistoryEntry } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createAvatar, createSignedInUser, insertLiveSession } from '../../test/factories.js';
import { liveSessions, workers } from '../../db/schema/index.js';
import { snippetParts } from './repository.js';

// The conversation search (ADR 098): `q` on the list, the admin list, the export and one transcript;
// words of either speaker, every one of them, with the other filters and keyset paging; the index
// (migration 0017's trigger) follows what is stored, erasure included; hostile text is only words.
let t: TestContext;
type Signed = Awaited<ReturnType<typeof createSignedInUser>>;
let alice: Signed;
let bob: Signed;
let admin: Signed;
let aliceAvatar: number;
let aliceOther: number;
let bobAvatar: number;
let workerId: number;

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);
const minutes = (n: number) => new Date(T0 + n * 60_000);
const said = (visitor: string, avatar: string, at = T0): TLiveHistoryEntry[] => [
  { role: 'assistant', text: 'Hello! How can I help?', at: at + 1_000 },
  { role: 'user', text: visitor, at: at + 5_000 },
  { role: 'assistant', text: avatar, at: at + 6_000 },
];

function session(values: { avatarId: number; owner: number; startedAt: Date; history: TLiveHistoryEntry[]; endCode?: string | null; endedAt?: Date | null; id?: string }) {
  const { owner, ...row } = values;
  return insertLiveSession(t.database, { ...row, ownerUserId: owner, workerId });
}

type ListBody = { conversations: TConversationListItem[]; nextCursor: string | null };
const list = async (who: { headers: Record<string, string> }, query: Record<string, string>, path: string = ConversationPaths.list) =>
  t.app.inject({ method: 'GET', url: path, query, headers: who.headers });
const found = async (who: { headers: Record<string, string> }, query: Record<string, string>, path?: string) => {
  const res = await list(who, query, path);
  expect(res.statusCode, res.body).toBe(200);
  return (res.json() as ListBody).conversations.map((c) => c.id);
};

let refund: string;
let refundsAvatar: string;
let shipping: string;
let errorRefund: string;
let openRefund: string;
let bobRefund: string;
let paged: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  alice = await createSignedInUser(t.app, t.database);
  bob = await createSignedInUser(t.app, t.database);
  admin = await createSignedInUser(t.app, t.database, { userType: 'ADMIN' });
  aliceAvatar = (await createAvatar(t.database, alice.id, 'Reception')).id;
  aliceOther = (await createAvatar(t.database, alice.id, 'Sales')).id;
  bobAvatar = (await createAvatar(t.database, bob.id, 'Bob bot')).id;
  const [w] = await t.database.db.insert(workers).values({ vpsId: `search-${randomUUID()}`, name: 'search', status: 'AVAILABLE', webSocket: 'ws://127.0.0.1:9/avatar-ws', lastPingTime: new Date() }).returning();
  workerId = w!.id;

  refund = await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: minutes(0), history: said('Can I get a refund for the blue kettle?', 'Yes, within thirty days.') });
  // The avatar said it, and in another form ("refunds"): English stemming finds it.
  refundsAvatar = await session({ avatarId: aliceOther, owner: alice.id, startedAt: minutes(1), history: said('Is the kettle still in stock?', 'Refunds are paid to the card you used.') });
  shipping = await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: minutes(2), history: said('Do you ship to Norway?', 'We ship everywhere in Europe.') });
  errorRefund = await session({ avatarId: aliceOther, owner: alice.id, startedAt: minutes(3), endCode: LiveCode.serverError, history: said('refund please', 'Sorry, something went wrong.') });
  openRefund = await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: minutes(4), endedAt: null, endCode: null, history: said('I want my refund now', 'Let me check.') });
  bobRefund = await session({ avatarId: bobAvatar, owner: bob.id, startedAt: minutes(5), history: said('refund for the blue kettle', 'No.') });
  // 7 more of Alice's with the word, an hour later, to page through (newest first).
  paged = [];
  for (let i = 0; i < 7; i++) paged.unshift(await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: minutes(60 + i), history: said(`Order ${i}: where is my parcel?`, 'It is on its way.') }));
});
afterAll(async () => {
  await t?.close();
});

describe('searching what was said', () => {
  it("finds the words of the visitor or the avatar, in the caller's account only, newest first", async () => {
    expect(await found(alice, { q: 'refund' })).toEqual([openRefund, errorRefund, refundsAvatar, refund]);
    expect(await found(bob, { q: 'refund' })).toEqual([bobRefund]);
    // Every word must be said in the conversation (here by the visitor, across two of its words).
    expect(await found(alice, { q: 'refund kettle' })).toEqual([refundsAvatar, refund]);
    expect(await found(alice, { q: 'NORWAY' })).toEqual([shipping]);
    expect(await found(alice, { q: 'xylophone' })).toEqual([]);
    // Stop words alone name nothing: no conversation matches them.
    expect(await found(alice, { q: 'the and' })).toEqual([]);
    // Administrators search every account's.
    expect(await found(admin, { q: 'blue kettle' }, ConversationPaths.adminList)).toEqual([bobRefund, refund]);
  });

  it('combines with the other filters', async () => {
    expect(await found(alice, { q: 'refund', avatarId: String(aliceOther) })).toEqual([errorRefund, refundsAvatar]);
    expect(await found(alice, { q: 'refund', outcome: 'error' })).toEqual([errorRefund]);
    expect(await found(alice, { q: 'refund', hasErrors: 'true' })).toEqual([errorRefund]);
    expect(await found(alice, { q: 'refund', hasErrors: 'false' })).toEqual([openRefund, refundsAvatar, refund]);
    expect(await found(alice, { q: 'refund', outcome: 'open' })).toEqual([openRefund]);
    expect(await found(alice, { q: 'refund', from: minutes(1).toISOString(), to: minutes(3).toISOString() })).toEqual([errorRefund, refundsAvatar]);
  });

  it('pages by keyset through the matches', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await list(alice, { q: 'parcel', limit: '3', ...(cursor ? { cursor } : {}) });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json() as ListBody;
      seen.push(...body.conversations.map((c) => c.id));
      cursor = body.nextCursor;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(3);
    expect(seen).toEqual(paged);
  });

  it('shows the turn that matched, the words marked', async () => {
    const res = await list(alice, { q: 'refunds kettle' });
    const rows = (res.json() as ListBody).conversations;
    // Both words in one visitor turn.
    expect(rows.find((c) => c.id === refund)!.match).toEqual({
      turn: 1,
      role: 'visitor',
      snippet: [
        { text: 'Can I get a ', hit: false },
        { text: 'refund', hit: true },
        { text: ' for the blue ', hit: false },
        { text: 'kettle', hit: true },
        { text: '?', hit: false },
      ],
    });
    // Spread over two turns: the first that holds one of them.
    expect(rows.find((c) => c.id === refundsAvatar)!.match).toMatchObject({ turn: 1, role: 'visitor' });
    // A long turn is cut to a fragment around the word.
    const long = `${'We talk about many things here. '.repeat(10)}The warranty lasts two years. ${'And then some more talk follows. '.repeat(10)}`;
    const id = await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: minutes(20), history: said('Tell me everything', long) });
    const cut = ((await list(alice, { q: 'warranty' })).json() as ListBody).conversations.find((c) => c.id === id)!.match!;
    expect(cut).toMatchObject({ turn: 2, role: 'avatar' });
    expect(cut.snippet.filter((p) => p.hit).map((p) => p.text)).toEqual(['warranty']);
    expect(cut.snippet.map((p) => p.text).join('').length).toBeLessThan(200);
    await t.database.db.delete(liveSessions).where(eq(liveSessions.id, id));
    // Stems that are not the word's beginning ("happy" → "happi", "policies" → "polici") still find their turn.
    const stems = await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: minutes(21), history: said('Hi', 'We are so happy with the policy.') });
    const stemmed = ((await list(alice, { q: 'happiness policies' })).json() as ListBody).conversations;
    expect(stemmed.map((c) => c.id)).toEqual([stems]);
    expect(stemmed[0]!.match).toMatchObject({ turn: 2, role: 'avatar' });
    expect(stemmed[0]!.match!.snippet.filter((p) => p.hit).map((p) => p.text)).toEqual(['happy', 'policy']);
    await t.database.db.delete(liveSessions).where(eq(liveSessions.id, stems));
    // Without q there is no match field.
    const plain = (await list(alice, {})).json() as ListBody;
    expect(plain.conversations.every((c) => c.match === undefined)).toBe(true);
  });

  it('marks the matching turns of one transcript', async () => {
    const res = await t.app.inject({ method: 'GET', url: ConversationPaths.get, query: { id: refundsAvatar, q: 'refund' }, headers: alice.headers });
    expect(res.statusCode, res.body).toBe(200);
    const c = (res.json() as { conversation: TConversationDetail }).conversation;
    expect(c.matches).toEqual([{ turn: 2, parts: [{ text: 'Refunds', hit: true }, { text: ' are paid to the card you used.', hit: false }] }]);
    // Another account's conversation is a 404 with or without q.
    const other = await t.app.inject({ method: 'GET', url: ConversationPaths.get, query: { id: bobRefund, q: 'refund' }, headers: alice.headers });
    expect(other.statusCode).toBe(404);
  });

  it('reads only words: operators, quotes and wildcards cannot change the query', async () => {
    for (const q of ["refund' | 'parcel", 'refund | parcel', "!refund & 'x", 'refun:*', '(refund', 'refund <-> kettle', "'; drop table live_sessions; --", '\\', 'a\\\\\'b']) {
      const res = await list(alice, { q });
      expect(res.statusCode, `${q}: ${res.body}`).toBe(200);
    }
    // "refund | parcel" is the two words, both required: no conversation has both.
    expect(await found(alice, { q: 'refund | parcel' })).toEqual([]);
    // A prefix is not a wildcard.
    expect(await found(alice, { q: 'refun:*' })).toEqual([]);
    expect(await found(alice, { q: 'refund\\' })).toEqual([openRefund, errorRefund, refundsAvatar, refund]);
    // Control characters are refused, as in every query of the API.
    expect((await list(alice, { q: '\u0000refund' })).statusCode).toBe(400);
    // The table is still there: "drop table" was two words.
    const counted = (await t.database.db.execute(sql`select count(*)::int as n from live_sessions`)).rows as { n: number }[];
    expect(counted[0]!.n).toBeGreaterThan(10);
  });

  it('bounds the text; blank is no filter', async () => {
    const long = await list(alice, { q: 'a'.repeat(ConversationLimits.searchMaxChars + 1) });
    expect(long.statusCode).toBe(400);
    expect(long.body).toContain(ConversationMessages.searchTooLong);
    expect((await list(alice, { q: 'a'.repeat(ConversationLimits.searchMaxChars) })).statusCode).toBe(200);
    expect(await found(alice, { q: '   ' })).toHaveLength(5 + 7);
    expect(await found(alice, { q: '' })).toHaveLength(5 + 7);
    // The words after the twelfth are not read.
    expect(await found(alice, { q: `${'kettle '.repeat(12)}xylophone` })).toEqual([refundsAvatar, refund]);
  });

  it('follows the stored text: a history rewritten or erased leaves nothing to find', async () => {
    const id = await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: minutes(30), history: said('my mail is jo@example.com, call 0612345678', 'Noted.') });
    expect(await found(alice, { q: '0612345678' })).toEqual([id]);
    // Text redacted after the fact (or written redacted), then erased: the index follows each write.
    await t.database.db.update(liveSessions).set({ history: said('my mail is [email], call [phone]', 'Noted.') }).where(eq(liveSessions.id, id));
    expect(await found(alice, { q: '0612345678' })).toEqual([]);
    expect(await found(alice, { q: 'mail' })).toEqual([id]);
    await t.database.db.update(liveSessions).set({ history: [] }).where(eq(liveSessions.id, id));
    expect(await found(alice, { q: 'mail' })).toEqual([]);
    // Other writes of the row (heartbeats) keep the index as it is.
    await t.database.db.update(liveSessions).set({ history: said('a heartbeat question', 'ok') }).where(eq(liveSessions.id, id));
    await t.database.db.update(liveSessions).set({ lastHeartbeatAt: minutes(31) }).where(eq(liveSessions.id, id));
    expect(await found(alice, { q: 'heartbeat' })).toEqual([id]);
    // A deleted conversation is gone from the search with its row.
    const del = await t.app.inject({ method: 'POST', url: ConversationPaths.delete, payload: { id }, headers: alice.headers });
    expect(del.statusCode).toBe(200);
    expect(await found(alice, { q: 'heartbeat' })).toEqual([]);
  });

  it('indexes a hostile history without failing its write (at most 100 000 characters read)', async () => {
    // 60 turns of 20 000 characters of distinct words: far more than a tsvector holds if read whole.
    const words = (i: number) => Array.from({ length: 2_000 }, (_, j) => `w${i}x${j}q`).join(' ').slice(0, 20_000);
    const history: TLiveHistoryEntry[] = Array.from({ length: 60 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', text: i === 0 ? `zebracorn ${words(i)}` : words(i), at: T0 + i }));
    const id = await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: minutes(40), history });
    expect(await found(alice, { q: 'zebracorn' })).toEqual([id]);
    await t.database.db.delete(liveSessions).where(eq(liveSessions.id, id));
  });

  it('exports the matches only', async () => {
    const res = await t.app.inject({ method: 'GET', url: ConversationPaths.export, query: { format: 'json', q: 'refund', hasErrors: 'false' }, headers: alice.headers });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json() as { conversations: { id: string }[] };
    expect(body.conversations.map((c) => c.id)).toEqual([openRefund, refundsAvatar, refund]);
    const csv = await t.app.inject({ method: 'GET', url: ConversationPaths.export, query: { format: 'csv', q: 'norway' }, headers: alice.headers });
    expect(csv.body).toContain(shipping);
    expect(csv.body).not.toContain(refund);
  });

  it('answers API keys with conversations:read', async () => {
    const add = await t.app.inject({ method: 'POST', url: ApiKeyPaths.add, headers: alice.headers, payload: { name: 'search', scopes: ['conversations:read'] } });
    expect(add.statusCode, add.body).toBe(200);
    const key = { headers: { authorization: `Bearer ${(add.json() as { secret: string }).secret}` } };
    expect(await found(key, { q: 'blue kettle' })).toEqual([refund]);
    const other = await t.app.inject({ method: 'POST', url: ApiKeyPaths.add, headers: alice.headers, payload: { name: 'avatars', scopes: ['avatars:read'] } });
    const res = await list({ headers: { authorization: `Bearer ${(other.json() as { secret: string }).secret}` } }, { q: 'refund' });
    expect(res.statusCode).toBe(403);
  });
});

describe('snippet parts', () => {
  it("cuts ts_headline's marks into parts", () => {
    expect(snippetParts('a \u0001b\u0002 c \u0001d\u0002')).toEqual([
      { text: 'a ', hit: false },
      { text: 'b', hit: true },
      { text: ' c ', hit: false },
      { text: 'd', hit: true },
    ]);
    expect(snippetParts('plain')).toEqual([{ text: 'plain', hit: false }]);
    expect(snippetParts('')).toEqual([]);
  });
});
