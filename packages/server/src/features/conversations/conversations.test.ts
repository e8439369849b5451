import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { ConversationPaths, LiveCode, ZListConversationsQuery, LivePaths, type TConversationDetail, type TConversationSummary, type TLiveHistoryEntry, type TLiveVoiceTurnMetrics } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createAvatar, createSignedInUser, insertLiveSession } from '../../test/factories.js';
import { liveSessions, workers } from '../../db/schema/index.js';
import { createConversationsRepository } from './repository.js';
import { createConversationsService } from './service.js';

// Issue 30, first slice (ADR 092): the account's conversations, one transcript, delete — always
// scoped to the caller's account; administrators read every account's at the admin paths.
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

async function session(values: {
  avatarId: number;
  owner: number;
  startedAt: Date;
  endedAt?: Date | null;
  endCode?: string | null;
  history?: TLiveHistoryEntry[];
  voiceTurns?: TLiveVoiceTurnMetrics[];
  voiceP50Ms?: number | null;
  visitorId?: string | null;
  clientIp?: string;
  channel?: 'avatar-page' | 'embed' | 'chat-widget' | 'agent-api' | null;
  origin?: string | null;
  id?: string;
}): Promise<string> {
  const { owner, ...row } = values;
  return insertLiveSession(t.database, { ...row, ownerUserId: owner, workerId, client: { locale: 'en-GB' } });
}

const list = async (who: Signed, query: Record<string, string> = {}, path: string = ConversationPaths.list) =>
  t.app.inject({ method: 'GET', url: path, query, headers: who.headers });
const ids = (body: { conversations: TConversationSummary[] }) => body.conversations.map((c) => c.id);

let aliceIds: string[] = [];
let bobId: string;
let openId: string;
let errorId: string;
let voiceId: string;

beforeAll(async () => {
  t = await createTestApp();
  alice = await createSignedInUser(t.app, t.database);
  bob = await createSignedInUser(t.app, t.database);
  admin = await createSignedInUser(t.app, t.database, { userType: 'ADMIN' });
  aliceAvatar = (await createAvatar(t.database, alice.id, 'Reception')).id;
  aliceOther = (await createAvatar(t.database, alice.id, 'Sales')).id;
  bobAvatar = (await createAvatar(t.database, bob.id, 'Bob bot')).id;
  const [w] = await t.database.db.insert(workers).values({ vpsId: `conv-${randomUUID()}`, name: 'conv', status: 'AVAILABLE', webSocket: 'ws://127.0.0.1:9/avatar-ws', lastPingTime: new Date() }).returning();
  workerId = w!.id;

  // Alice: 6 sessions at minutes 0..5 (two at the same instant, told apart by id), one open, one error.
  const history: TLiveHistoryEntry[] = [
    { role: 'assistant', text: 'Hello! How can I help?', at: T0 + 1_000 },
    { role: 'user', text: 'What are your opening hours?', at: T0 + 10_000 },
    { role: 'assistant', text: 'We are open from nine', at: T0 + 11_500, interrupted: true },
    { role: 'user', text: 'Thanks', at: T0 + 20_000 },
    { role: 'assistant', text: 'You are welcome.', at: T0 + 21_000 },
  ];
  const voiceTurns: TLiveVoiceTurnMetrics[] = [
    { at: T0 + 9_990, endOfUtteranceMs: 400, sttMs: 180, llmFirstTokenMs: 350, ttsFirstByteMs: 120, endToEndMs: 900, interrupted: true },
    { at: T0 + 19_995, endOfUtteranceMs: 380, sttMs: 150, llmFirstTokenMs: 300, ttsFirstByteMs: 100, endToEndMs: 700, interrupted: false },
  ];
  voiceId = await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: minutes(0), history, voiceTurns, voiceP50Ms: 700, visitorId: 'visitor-aaaa-1111', channel: 'avatar-page' });
  const sameA = await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: minutes(1), endCode: LiveCode.idleTimeout, id: '00000000-0000-4000-8000-000000000001' });
  const sameB = await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: minutes(1), endCode: LiveCode.demoEnded, id: '00000000-0000-4000-8000-000000000002' });
  errorId = await session({ avatarId: aliceOther, owner: alice.id, startedAt: minutes(2), endCode: LiveCode.serverError, origin: 'https://shop.example', channel: 'embed' });
  const limit = await session({ avatarId: aliceOther, owner: alice.id, startedAt: minutes(3), endCode: LiveCode.tooManyMessages, channel: 'chat-widget' });
  openId = await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: minutes(5), endedAt: null, endCode: null, visitorId: 'visitor-aaaa-1111' });
  // Newest first; the two at minute 1 by id, descending.
  aliceIds = [openId, limit, errorId, sameB, sameA, voiceId];
  bobId = await session({ avatarId: bobAvatar, owner: bob.id, startedAt: minutes(4), clientIp: '198.51.100.99' });
});
afterAll(async () => {
  await t?.close();
});

describe('the conversation list', () => {
  it("shows the caller's account's sessions only, newest first, with their facts", async () => {
    const res = await list(alice);
    expect(res.statusCode).toBe(200);
    const body = res.json() as { conversations: TConversationSummary[]; nextCursor: string | null };
    expect(ids(body)).toEqual(aliceIds);
    expect(body.nextCursor).toBeNull();
    const voice = body.conversations.find((c) => c.id === voiceId)!;
    expect(voice).toMatchObject({ avatarId: aliceAvatar, ownerUserId: alice.id, durationSeconds: 90, channel: 'avatar-page', locale: 'en-GB', turns: 2, outcome: 'hang-up', endCode: 'hang-up', voiceP50Ms: 700 });
    const embed = body.conversations.find((c) => c.id === errorId)!;
    expect(embed).toMatchObject({ channel: 'embed', hostOrigin: 'https://shop.example', outcome: 'error', endCode: 'server-error', turns: 0, voiceP50Ms: null });
    expect(body.conversations.find((c) => c.id === openId)).toMatchObject({ outcome: 'open', endedAt: null, durationSeconds: null });
    // A row from before the channel was stored is told by what it kept (no origin, not text-only).
    expect(body.conversations.find((c) => c.outcome === 'idle')!.channel).toBe('avatar-page');

    const bobs = (await list(bob)).json() as { conversations: TConversationSummary[] };
    expect(ids(bobs)).toEqual([bobId]);
  });

  it('names visitors by a pseudonym: stable per visitor, never their address', async () => {
    const body = (await list(alice)).json() as { conversations: TConversationSummary[] };
    const byId = new Map(body.conversations.map((c) => [c.id, c.visitor]));
    expect(byId.get(voiceId)).toMatch(/^v-[0-9a-f]{10}$/);
    expect(byId.get(voiceId)).toBe(byId.get(openId));
    expect(byId.get(voiceId)).not.toBe(byId.get(errorId));
    const raw = (await list(alice)).body + (await list(bob)).body;
    expect(raw).not.toContain('203.0.113.7');
    expect(raw).not.toContain('198.51.100.99');
    expect(raw).not.toContain('visitor-aaaa-1111');
  });

  it('shows the address beside the pseudonym only where the operator turned it on (CONVERSATIONS_SHOW_IP)', async () => {
    const service = (showIp: boolean) => createConversationsService({ repo: createConversationsRepository(t.database.db), pseudonymKey: Buffer.alloc(32, 7), showIp });
    const query = ZListConversationsQuery.parse({});
    const on = await service(true).list({ ownerUserId: alice.id }, query);
    expect(on.conversations.find((c) => c.id === voiceId)?.clientIp).toBe('203.0.113.7');
    const off = await service(false).list({ ownerUserId: alice.id }, query);
    expect(off.conversations.every((c) => c.clientIp === undefined)).toBe(true);
  });

  it('pages by (start, id) with a cursor, ties included, to the end', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await list(alice, { limit: '2', ...(cursor ? { cursor } : {}) });
      expect(res.statusCode).toBe(200);
      const body = res.json() as { conversations: TConversationSummary[]; nextCursor: string | null };
      seen.push(...ids(body));
      cursor = body.nextCursor;
      pages += 1;
    } while (cursor && pages < 10);
    expect(seen).toEqual(aliceIds);
    expect(pages).toBe(3);
  });

  it('filters by avatar, date range, outcome and errors', async () => {
    const get = async (q: Record<string, string>) => ids((await list(alice, q)).json() as { conversations: TConversationSummary[] });
    expect(await get({ avatarId: String(aliceOther) })).toEqual([aliceIds[1], errorId]);
    expect(await get({ from: minutes(1).toISOString(), to: minutes(2).toISOString() })).toEqual([errorId, aliceIds[3], aliceIds[4]]);
    expect(await get({ outcome: 'idle' })).toEqual([aliceIds[4]]);
    expect(await get({ outcome: 'demo-end' })).toEqual([aliceIds[3]]);
    expect(await get({ outcome: 'limit' })).toEqual([aliceIds[1]]);
    expect(await get({ outcome: 'open' })).toEqual([openId]);
    expect(await get({ outcome: 'hang-up' })).toEqual([voiceId]);
    expect(await get({ hasErrors: 'true' })).toEqual([errorId]);
    expect(await get({ hasErrors: 'false' })).toEqual(aliceIds.filter((id) => id !== errorId));
    // Another account's avatar as the filter: nothing, never its sessions.
    expect(await get({ avatarId: String(bobAvatar) })).toEqual([]);
  });

  it('refuses hostile queries with 400: page size, range, cursor, unknown fields, bad values', async () => {
    for (const q of [
      { limit: '101' },
      { limit: '0' },
      { limit: '1e9' },
      { from: '2020-01-01T00:00:00Z', to: '2022-01-01T00:00:00Z' },
      { from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' },
      { from: 'yesterday' },
      // Both malformed: the range check must not run on unparsed values (it answered 500).
      { from: 'Ab1!abcdefgh', to: 'Ab1!abcdefgh' },
      { from: '2026-01-01T00:00:00Z', to: 'later' },
      { from: '1900-01-01T00:00:00Z' },
      { cursor: "1' or 1=1 --" },
      { cursor: '12.x' },
      { outcome: 'exploded' },
      { hasErrors: 'maybe' },
      { avatarId: '-1' },
      { ownerUserId: String(bob.id) },
    ] as Record<string, string>[]) {
      const res = await list(alice, q);
      expect(res.statusCode, JSON.stringify(q)).toBe(400);
      expect(res.json()).toMatchObject({ status: 'FAIL' });
    }
  });

  it('gives administrators every account at the admin path, and refuses users there', async () => {
    const res = await list(admin, {}, ConversationPaths.adminList);
    expect(res.statusCode).toBe(200);
    const all = ids(res.json() as { conversations: TConversationSummary[] });
    expect(all).toEqual(expect.arrayContaining([...aliceIds, bobId]));
    // Their own path is their own account's (none).
    expect(ids((await list(admin)).json() as { conversations: TConversationSummary[] })).toEqual([]);
    expect((await list(alice, {}, ConversationPaths.adminList)).statusCode).toBe(403);
    expect((await t.app.inject({ method: 'GET', url: ConversationPaths.adminGet, query: { id: bobId }, headers: alice.headers })).statusCode).toBe(403);
    const one = await t.app.inject({ method: 'GET', url: ConversationPaths.adminGet, query: { id: bobId }, headers: admin.headers });
    expect(one.statusCode).toBe(200);
    // Read, not theirs to delete.
    expect((one.json() as { conversation: TConversationDetail }).conversation).toMatchObject({ id: bobId, ownerUserId: bob.id, canDelete: false });
  });
});

describe('a transcript', () => {
  const get = (who: Signed, id: string) => t.app.inject({ method: 'GET', url: ConversationPaths.get, query: { id }, headers: who.headers });

  it('gives each turn with its time, speaker, interruption and the spoken turns’ latencies', async () => {
    const res = await get(alice, voiceId);
    expect(res.statusCode).toBe(200);
    const c = (res.json() as { conversation: TConversationDetail }).conversation;
    expect(c).toMatchObject({ id: voiceId, turns: 2, outcome: 'hang-up', voiceP50Ms: 700, canDelete: true });
    expect(c.turnList.map((x) => [x.role, x.text, x.interrupted])).toEqual([
      ['avatar', 'Hello! How can I help?', false],
      ['visitor', 'What are your opening hours?', false],
      ['avatar', 'We are open from nine', true],
      ['visitor', 'Thanks', false],
      ['avatar', 'You are welcome.', false],
    ]);
    expect(c.turnList[1]!.at).toBe(new Date(T0 + 10_000).toISOString());
    expect(c.turnList[1]!.latency).toEqual({ endOfUtteranceMs: 400, sttMs: 180, llmFirstTokenMs: 350, ttsFirstByteMs: 120, endToEndMs: 900 });
    expect(c.turnList[3]!.latency?.endToEndMs).toBe(700);
    expect(c.turnList[0]!.latency).toBeNull();
  });

  it("is a 404 for another account's id, a made-up id and a guessed one; a 400 for a malformed id", async () => {
    expect((await get(bob, voiceId)).statusCode).toBe(404);
    expect((await get(alice, bobId)).statusCode).toBe(404);
    expect((await get(alice, randomUUID())).statusCode).toBe(404);
    // The ids of the two sessions at minute 1 are guessable: guessing does not cross accounts.
    expect((await get(bob, '00000000-0000-4000-8000-000000000001')).statusCode).toBe(404);
    for (const id of ['1', "' or 1=1 --", 'x'.repeat(500), '../etc/passwd']) expect((await get(alice, id)).statusCode).toBe(400);
  });
});

describe('deleting a conversation', () => {
  const del = (who: Signed, id: string) => t.app.inject({ method: 'POST', url: ConversationPaths.delete, payload: { id }, headers: who.headers });
  const exists = async (id: string) => (await t.database.db.select({ id: liveSessions.id }).from(liveSessions).where(eq(liveSessions.id, id))).length === 1;

  it("deletes the owner's ended conversation; another account's is a 404 and stays; an open one is a 409", async () => {
    expect((await del(bob, errorId)).statusCode).toBe(404);
    expect((await del(admin, errorId)).statusCode).toBe(404);
    expect(await exists(errorId)).toBe(true);
    const open = await del(alice, openId);
    expect(open.statusCode).toBe(409);
    expect(await exists(openId)).toBe(true);
    const ok = await del(alice, errorId);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ status: 'OK', id: errorId });
    expect(await exists(errorId)).toBe(false);
    expect((await del(alice, errorId)).statusCode).toBe(404);
    expect(ids((await list(alice)).json() as { conversations: TConversationSummary[] })).not.toContain(errorId);
  });
});

describe('what admission and the worker store for it', () => {
  it('stores the channel at admission and the spoken turns’ figures with the end', async () => {
    const avatar = await createAvatar(t.database, alice.id, 'Widget');
    const ip = '192.0.2.44';
    const start = await t.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId: avatar.id, textOnly: true }, remoteAddress: ip });
    expect(start.statusCode).toBe(200);
    const sessionId = (start.json() as { sessionId: string }).sessionId;
    const turns: TLiveVoiceTurnMetrics[] = [300, 900, 500].map((ms, i) => ({ at: Date.now() + i, endOfUtteranceMs: 100, sttMs: 50, llmFirstTokenMs: 200, ttsFirstByteMs: 80, endToEndMs: ms, interrupted: false }));
    await t.app.live.handleRpc(workerId, 'session.end', { sessionId, code: LiveCode.hangUp, summary: null, turns });
    const [row] = await t.database.db.select().from(liveSessions).where(eq(liveSessions.id, sessionId));
    expect(row).toMatchObject({ channel: 'chat-widget', voiceP50Ms: 500, endCode: 'hang-up' });
    expect(row!.voiceTurns).toHaveLength(3);
    const listed = (await list(alice, { avatarId: String(avatar.id) })).json() as { conversations: TConversationSummary[] };
    expect(listed.conversations.map((c) => [c.channel, c.voiceP50Ms, c.outcome])).toEqual([['chat-widget', 500, 'hang-up']]);
  });
});
