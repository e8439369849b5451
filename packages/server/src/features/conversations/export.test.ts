import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq, inArray } from 'drizzle-orm';
import { ConversationCsvColumns, ConversationLimits, ConversationPaths, LiveCode, ZExportConversationsQuery, type TLiveHistoryEntry } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createAvatar, createSignedInUser, insertLiveSession } from '../../test/factories.js';
import { liveSessions, workers } from '../../db/schema/index.js';
import { parseCsv } from '../../test/csv.js';
import { csvCell, detailCells } from './export.js';
import { createConversationsService } from './service.js';
import type { ConversationsRepository } from './repository.js';

// Issue 30 (ADR 094): export (JSON and CSV, streamed a keyset page at a time, bounded) and delete many.
let t: TestContext;
type Signed = Awaited<ReturnType<typeof createSignedInUser>>;
let alice: Signed;
let bob: Signed;
let aliceAvatar: number;
let bobAvatar: number;
let workerId: number;
const T0 = Date.UTC(2026, 3, 1, 8, 0, 0);

function session(v: { avatarId: number; owner: number; startedAt: Date; history?: TLiveHistoryEntry[]; open?: boolean }): Promise<string> {
  return insertLiveSession(t.database, {
    avatarId: v.avatarId,
    ownerUserId: v.owner,
    workerId,
    clientIp: '203.0.113.9',
    client: {},
    startedAt: v.startedAt,
    history: v.history ?? [],
    endedAt: v.open ? null : new Date(v.startedAt.getTime() + 60_000),
    endCode: v.open ? null : LiveCode.hangUp,
  });
}

const HOSTILE: TLiveHistoryEntry[] = [
  { role: 'user', text: '=HYPERLINK("http://evil.example","click")', at: T0 + 1_000 },
  { role: 'assistant', text: 'He said "hi", then, left\nand came back\r\nlater', at: T0 + 2_000 },
  { role: 'user', text: '+1 555', at: T0 + 3_000 },
  { role: 'user', text: '-2+3', at: T0 + 4_000 },
  { role: 'user', text: '@SUM(A1)', at: T0 + 5_000 },
  { role: 'user', text: '\tcmd', at: T0 + 6_000 },
  { role: 'assistant', text: 'plain answer', at: T0 + 7_000, interrupted: true },
];

let hostileId: string;
const bulk: string[] = [];

beforeAll(async () => {
  t = await createTestApp();
  alice = await createSignedInUser(t.app, t.database);
  bob = await createSignedInUser(t.app, t.database);
  aliceAvatar = (await createAvatar(t.database, alice.id, 'Reception')).id;
  bobAvatar = (await createAvatar(t.database, bob.id, 'Bob bot')).id;
  const [w] = await t.database.db.insert(workers).values({ vpsId: `export-${randomUUID()}`, name: 'export', status: 'AVAILABLE', webSocket: 'ws://127.0.0.1:9/avatar-ws', lastPingTime: new Date() }).returning();
  workerId = w!.id;
  hostileId = await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: new Date(T0), history: HOSTILE });
  // 130 more, one a minute later each: three export pages of 50.
  const rows = Array.from({ length: 130 }, (_, i) => ({ i, at: new Date(T0 + (i + 1) * 60_000) }));
  for (const r of rows) bulk.push(await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: r.at, history: [{ role: 'user', text: `question ${r.i}`, at: r.at.getTime() + 500 }] }));
  await session({ avatarId: bobAvatar, owner: bob.id, startedAt: new Date(T0 + 30_000), history: [{ role: 'user', text: 'bob secret', at: T0 + 31_000 }] });
});
afterAll(async () => {
  await t?.close();
});

const exportOf = (who: Signed, query: Record<string, string>) => t.app.inject({ method: 'GET', url: ConversationPaths.export, query, headers: who.headers });

describe('CSV cells', () => {
  it('quotes quotes, commas and line breaks, and defuses formulas', () => {
    expect(csvCell('plain')).toBe('plain');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    for (const bad of ['=1+1', '+1', '-1', '@x', '\tx', '\rx']) expect(csvCell(bad).replace(/^"/, '').startsWith(`'${bad[0]}`)).toBe(true);
    expect(csvCell(-5)).toBe('-5');
    expect(csvCell(null)).toBe('');
    expect(csvCell(true)).toBe('true');
  });
});

describe('CSV detail cells (ADR 102)', () => {
  it('flatten a turn’s detail: lists joined, failures named, formulas still defused', () => {
    expect(detailCells(undefined)).toEqual([null, null, null, null, null, null]);
    const cells = detailCells({
      heardMs: 2_350,
      fullChars: 118,
      calls: [
        { name: 'add_numbers', arguments: '{"a":2,"b":3}', ok: true, result: '5' },
        { name: 'lookup', arguments: '{}', ok: false, result: '{"error":"timeout"}' },
        { name: 'stopped', arguments: '{}', ok: false, result: null },
      ],
      passages: [{ title: 'Prices', snippet: 'x' }, { title: 'Hours', snippet: 'y' }],
      errors: [{ provider: 'openai', code: 'http-429', phase: 'reply' }, { provider: 'deepgram', code: 'timeout' }],
      interims: ['I want to by', 'I want a bye'],
    });
    expect(cells).toEqual([2_350, 118, 'add_numbers({"a":2,"b":3}) \u2192 5 | lookup({}) \u2192 FAILED: {"error":"timeout"} | stopped({}) \u2192 FAILED', 'Prices | Hours', 'openai:http-429 (reply) | deepgram:timeout', 'I want to by | I want a bye']);
    const [, , functions, passages] = detailCells({ calls: [{ name: '=cmd', arguments: '', ok: true, result: null }], passages: [{ title: '@SUM(A1)', snippet: '' }] });
    expect(csvCell(functions!)).toBe("'=cmd() \u2192 OK");
    expect(csvCell(passages!)).toBe("'@SUM(A1)");
  });
});

describe('export', () => {
  it('CSV: one row per turn, every cell read back as written, formulas prefixed', async () => {
    const res = await exportOf(alice, { format: 'csv', id: hostileId });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="conversation-${hostileId}.csv"`);
    expect(res.body.startsWith('\uFEFF')).toBe(true);
    const rows = parseCsv(res.body.slice(1));
    expect(rows[0]).toEqual([...ConversationCsvColumns]);
    expect(rows).toHaveLength(1 + HOSTILE.length);
    const col = (name: (typeof ConversationCsvColumns)[number]) => ConversationCsvColumns.indexOf(name);
    const texts = rows.slice(1).map((r) => r[col('text')]);
    expect(texts).toEqual([`'=HYPERLINK("http://evil.example","click")`, 'He said "hi", then, left\nand came back\r\nlater', `'+1 555`, `'-2+3`, `'@SUM(A1)`, `'\tcmd`, 'plain answer']);
    for (const r of rows.slice(1)) {
      expect(r).toHaveLength(ConversationCsvColumns.length);
      expect(r[col('session_id')]).toBe(hostileId);
      // No cell of any row starts a formula.
      for (const cell of r) expect(/^[=+@\t\r]/.test(cell) || (/^-/.test(cell) && !/^-?\d/.test(cell))).toBe(false);
    }
    expect(rows[1]![col('speaker')]).toBe('visitor');
    expect(rows[7]![col('interrupted')]).toBe('true');
  });

  it('the OpenAPI document names every CSV column, the detail’s included', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/api/docs' })).json() as { paths: Record<string, { get?: { description?: string } }> };
    const description = doc.paths[ConversationPaths.export]!.get!.description!;
    for (const column of ConversationCsvColumns) expect(description).toContain(column);
    expect(description).toContain('API keys: scope `conversations:read`.');
  });

  it('JSON: valid, the transcripts with the facts, newest first, only the caller’s', async () => {
    const res = await exportOf(alice, { format: 'json', limit: '5' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="conversations-\d{4}-\d{2}-\d{2}\.json"$/);
    const body = JSON.parse(res.body) as { status: string; conversations: { id: string; turnList: { text: string }[] }[]; nextCursor: string | null };
    expect(body.status).toBe('OK');
    expect(body.conversations.map((c) => c.id)).toEqual(bulk.slice(-5).reverse());
    expect(body.conversations[0]!.turnList[0]!.text).toBe('question 129');
    expect(body.nextCursor).not.toBeNull();
    expect(res.body).not.toContain('bob secret');
  });

  it('a big set comes in keyset pages, bounded per request; the cursor fetches the rest', async () => {
    const all = await exportOf(alice, { format: 'json' });
    const body = JSON.parse(all.body) as { conversations: { id: string }[]; nextCursor: string | null };
    expect(body.conversations).toHaveLength(131);
    expect(new Set(body.conversations.map((c) => c.id)).size).toBe(131);
    expect(body.nextCursor).toBeNull();
    // Bounded: 120 of 131, then the rest from the cursor.
    const first = JSON.parse((await exportOf(alice, { format: 'json', limit: '120' })).body) as typeof body;
    expect(first.conversations).toHaveLength(120);
    const rest = JSON.parse((await exportOf(alice, { format: 'json', cursor: first.nextCursor! })).body) as typeof body;
    expect([...first.conversations, ...rest.conversations].map((c) => c.id)).toEqual(body.conversations.map((c) => c.id));
    expect(rest.nextCursor).toBeNull();
    // The filters of the list apply.
    const filtered = JSON.parse((await exportOf(alice, { format: 'json', from: new Date(T0 + 100 * 60_000).toISOString() })).body) as typeof body;
    expect(filtered.conversations).toHaveLength(31);
    const csv = await exportOf(alice, { format: 'csv' });
    expect(parseCsv(csv.body.slice(1))).toHaveLength(1 + HOSTILE.length + 130);
  });

  it('the service reads one page, writes it, then reads the next (never the whole set at once)', async () => {
    const log: string[] = [];
    const fakeRow = (i: number) => ({
      id: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      avatarId: 1,
      avatarName: 'A',
      ownerUserId: 1,
      visitorId: null,
      clientIp: '192.0.2.1',
      origin: null,
      client: {},
      textOnly: false,
      channel: null,
      startedAt: new Date(T0 - i * 1000),
      endedAt: new Date(T0),
      endCode: 'hang-up',
      voiceP50Ms: null,
      turns: 0,
      history: [],
      voiceTurns: [],
    });
    const repo = {
      exportPage: async (_scope: unknown, f: { limit: number; cursor?: { id: string } }) => {
        const start = f.cursor ? Number(f.cursor.id.slice(-12)) + 1 : 0;
        log.push(`read ${start} +${f.limit}`);
        return Array.from({ length: Math.max(0, Math.min(f.limit, 170 - start)) }, (_, k) => fakeRow(start + k));
      },
    } as unknown as ConversationsRepository;
    const service = createConversationsService({ repo, pseudonymKey: Buffer.alloc(32) });
    let next: string | null = null;
    for await (const row of service.exportRows({ ownerUserId: 1 }, ZExportConversationsQuery.parse({ limit: '160' }), (c) => (next = c))) log.push(`row ${Number(row.id.slice(-12))}`);
    const reads = log.filter((l) => l.startsWith('read'));
    expect(reads).toEqual([`read 0 +${ConversationLimits.exportPage + 1}`, 'read 50 +51', 'read 100 +51', 'read 150 +11']);
    // Each page's rows are written before the next page is read.
    expect(log.indexOf('row 49')).toBeLessThan(log.indexOf('read 50 +51'));
    expect(log.filter((l) => l.startsWith('row'))).toHaveLength(160);
    expect(next).toMatch(/\.00000000-0000-4000-8000-000000000159$/);
  });

  it("another account's conversation is a 404; a bad query a 400", async () => {
    expect((await exportOf(bob, { id: hostileId })).statusCode).toBe(404);
    expect((await exportOf(alice, { format: 'xml' })).statusCode).toBe(400);
    expect((await exportOf(alice, { limit: String(ConversationLimits.exportMax + 1) })).statusCode).toBe(400);
    expect((await exportOf(alice, { nope: '1' })).statusCode).toBe(400);
  });
});

describe('delete many', () => {
  const del = (who: Signed, payload: unknown) => t.app.inject({ method: 'POST', url: ConversationPaths.delete, payload: payload as object, headers: who.headers });
  const exists = async (ids: string[]) => (await t.database.db.select({ id: liveSessions.id }).from(liveSessions).where(inArray(liveSessions.id, ids))).map((r) => r.id).sort();

  it('deletes every one named, or none when one is open or another account’s', async () => {
    const mine = [bulk[0]!, bulk[1]!, bulk[2]!];
    const open = await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: new Date(T0 - 60_000), open: true });
    const bobs = await session({ avatarId: bobAvatar, owner: bob.id, startedAt: new Date(T0 - 60_000) });

    const withOpen = await del(alice, { ids: [...mine, open] });
    expect(withOpen.statusCode).toBe(409);
    const withForeign = await del(alice, { ids: [...mine, bobs] });
    expect(withForeign.statusCode).toBe(404);
    expect(await exists([...mine, open, bobs])).toEqual([...mine, open, bobs].sort());

    const ok = await del(alice, { ids: [...mine, mine[0]] });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json()).toEqual({ status: 'OK', ids: mine });
    expect(await exists([...mine, open, bobs])).toEqual([open, bobs].sort());
    await t.database.db.delete(liveSessions).where(eq(liveSessions.id, open));
  });

  it('is bounded and takes id or ids, not both', async () => {
    const many = Array.from({ length: ConversationLimits.deleteManyMax + 1 }, () => randomUUID());
    expect((await del(alice, { ids: many })).statusCode).toBe(400);
    expect((await del(alice, { ids: [] })).statusCode).toBe(400);
    expect((await del(alice, { id: bulk[5], ids: [bulk[6]] })).statusCode).toBe(400);
    expect((await del(alice, {})).statusCode).toBe(400);
    expect((await del(alice, { ids: ['not-an-id'] })).statusCode).toBe(400);
    const one = await del(alice, { id: bulk[5] });
    expect(one.json()).toEqual({ status: 'OK', id: bulk[5] });
  });
});
