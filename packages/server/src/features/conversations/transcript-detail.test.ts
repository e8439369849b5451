import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { ConversationCsvColumns, ConversationPaths, LiveCode, LivePaths, LiveTurnDetailLimits, PrivacyPaths, type TLiveHistoryEntry } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createAvatar, createSignedInUser } from '../../test/factories.js';
import { liveSessions, workers } from '../../db/schema/index.js';
import { parseCsv } from '../../test/csv.js';

// Issue 30, the transcript's detail (ADR 102): corrections, how much of an interrupted answer was
// heard, function calls with arguments and results, knowledge passages, provider errors — stored
// through the workers' RPC redacted like the text (ADR 097), answered by get_conversation and in the
// JSON and CSV exports, bounded by the contract, never indexed for search. PGlite and PostgreSQL alike.

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
let clock = T0;
let t: TestContext;
type Signed = Awaited<ReturnType<typeof createSignedInUser>>;
let alice: Signed;
let workerId: number;

const get = (who: Signed, url: string, query: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, query, headers: who.headers });

const secrets = ['jane.doe@example.com', '4111 1111 1111 1111', '+49 30 1234567', 'ORD-123456'];

/** A history whose every detail field quotes a secret. */
function historyWithDetail(): TLiveHistoryEntry[] {
  return [
    { role: 'assistant', text: 'Hello!', at: clock + 1_000 },
    { role: 'user', text: 'Where is my order?', at: clock + 2_000, detail: { interims: ['Where is my order ORD-123456 jane.doe@example.com'], errors: [{ provider: 'deepgram', code: 'http-503', phase: 'listening' }] } },
    {
      role: 'assistant',
      text: 'It ships tomorrow.',
      at: clock + 3_000,
      interrupted: true,
      detail: {
        heardMs: 1_250,
        fullChars: 80,
        calls: [{ name: 'lookup_order', arguments: '{"order":"ORD-123456","email":"jane.doe@example.com"}', ok: true, result: '{"card":"4111 1111 1111 1111","phone":"+49 30 1234567"}' }],
        passages: [{ title: 'Orders of jane.doe@example.com', snippet: 'Call +49 30 1234567 about zanzibarquux shipping.' }],
        errors: [{ provider: 'openai-compatible', code: 'http-429', phase: 'reply' }],
      },
    },
  ];
}

async function converse(avatarId: number, history: TLiveHistoryEntry[]) {
  const start = await t.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId, textOnly: true, visitorId: `v-${randomUUID()}` } });
  expect(start.statusCode, start.body).toBe(200);
  const sessionId = start.json().sessionId as string;
  const stored = await t.app.live.handleRpc(workerId, 'session.history', { sessionId, history });
  return { sessionId, stored };
}

beforeAll(async () => {
  t = await createTestApp({}, { now: () => new Date(clock) });
  alice = await createSignedInUser(t.app, t.database);
  const [w] = await t.database.db.insert(workers).values({ vpsId: `detail-${randomUUID()}`, name: 'detail', status: 'AVAILABLE', webSocket: 'ws://127.0.0.1:9/avatar-ws', lastPingTime: new Date(T0 + 86_400_000) }).returning();
  workerId = w!.id;
});

afterAll(async () => {
  await t?.close();
});

describe('a turn’s detail', () => {
  it('is stored redacted like the text — corrections, arguments, results, passages —, answered and exported as JSON and CSV; the control keeps it', async () => {
    const redacting = (await createAvatar(t.database, alice.id, 'Redacting')).id;
    const plain = (await createAvatar(t.database, alice.id, 'Plain')).id;
    const set = await t.app.inject({ method: 'POST', url: PrivacyPaths.set, headers: alice.headers, payload: { avatarId: redacting, redaction: { email: true, phone: true, card: true, iban: true, patterns: ['ORD-[0-9]{6}'] }, retention: { mode: 'forever' } } });
    expect(set.statusCode, set.body).toBe(200);

    const seen: Record<string, { stored: string; answered: string; exported: string; csv: string }> = {};
    for (const [name, avatarId] of [['redacting', redacting], ['plain', plain]] as const) {
      const { sessionId, stored } = await converse(avatarId, historyWithDetail());
      expect(stored).toEqual({ ok: true, result: {} });
      clock += 30_000;
      expect(await t.app.live.handleRpc(workerId, 'session.end', { sessionId, code: LiveCode.hangUp, summary: null })).toEqual({ ok: true, result: {} });
      const [row] = await t.database.db.select().from(liveSessions).where(eq(liveSessions.id, sessionId));
      const answered = await get(alice, ConversationPaths.get, { id: sessionId });
      expect(answered.statusCode, answered.body).toBe(200);
      const exported = await get(alice, ConversationPaths.export, { id: sessionId, format: 'json' });
      expect(exported.statusCode).toBe(200);
      const csv = await get(alice, ConversationPaths.export, { id: sessionId, format: 'csv' });
      expect(csv.statusCode).toBe(200);
      seen[name] = { stored: JSON.stringify(row!.history), answered: answered.body, exported: exported.body, csv: csv.body };

      // The CSV: the detail flattened into its last columns, one row per turn, redacted as stored.
      const [header, ...rows] = parseCsv(csv.body.slice(1));
      expect(header).toEqual([...ConversationCsvColumns]);
      const cell = (turn: number, column: (typeof ConversationCsvColumns)[number]) => rows[turn]![ConversationCsvColumns.indexOf(column)];
      expect(rows).toHaveLength(3);
      expect(ConversationCsvColumns.slice(-6).map((c) => cell(0, c))).toEqual(['', '', '', '', '', '']);
      expect(cell(1, 'errors')).toBe('deepgram:http-503 (listening)');
      expect(cell(2, 'heard_ms')).toBe('1250');
      expect(cell(2, 'full_chars')).toBe('80');
      expect(cell(2, 'errors')).toBe('openai-compatible:http-429 (reply)');
      if (name === 'redacting') {
        expect(cell(1, 'corrections')).toBe('Where is my order [redacted] [email]');
        expect(cell(2, 'functions')).toBe('lookup_order({"order":"[redacted]","email":"[email]"}) \u2192 {"card":"[card]","phone":"[phone]"}');
        expect(cell(2, 'passages')).toBe('Orders of [email]');
      } else {
        expect(cell(1, 'corrections')).toBe('Where is my order ORD-123456 jane.doe@example.com');
        expect(cell(2, 'functions')).toBe('lookup_order({"order":"ORD-123456","email":"jane.doe@example.com"}) \u2192 {"card":"4111 1111 1111 1111","phone":"+49 30 1234567"}');
        expect(cell(2, 'passages')).toBe('Orders of jane.doe@example.com');
      }

      const turns = answered.json().conversation.turnList;
      const exportedTurns = JSON.parse(exported.body).conversations[0].turnList;
      expect(exportedTurns.map((x: { detail?: unknown }) => x.detail)).toEqual(turns.map((x: { detail?: unknown }) => x.detail));
      expect(turns[0].detail).toBeUndefined();
      expect(turns[1].detail.errors).toEqual([{ provider: 'deepgram', code: 'http-503', phase: 'listening' }]);
      expect(turns[2].detail.heardMs).toBe(1_250);
      expect(turns[2].detail.fullChars).toBe(80);
      expect(turns[2].detail.errors).toEqual([{ provider: 'openai-compatible', code: 'http-429', phase: 'reply' }]);
      if (name === 'redacting') {
        expect(turns[1].detail.interims).toEqual(['Where is my order [redacted] [email]']);
        expect(turns[2].detail.calls).toEqual([{ name: 'lookup_order', arguments: '{"order":"[redacted]","email":"[email]"}', ok: true, result: '{"card":"[card]","phone":"[phone]"}' }]);
        expect(turns[2].detail.passages).toEqual([{ title: 'Orders of [email]', snippet: 'Call [phone] about zanzibarquux shipping.' }]);
      } else {
        expect(turns[2].detail).toEqual(historyWithDetail()[2]!.detail);
      }
    }
    for (const where of ['stored', 'answered', 'exported', 'csv'] as const) {
      for (const secret of secrets) {
        expect(seen.redacting![where], `${where}: ${secret}`).not.toContain(secret);
        expect(seen.plain![where], `control ${where}: ${secret}`).toContain(secret);
      }
    }
    // The search index is the turns' text only (ADR 098): a word said only in a passage finds nothing.
    const found = await get(alice, ConversationPaths.list, { q: 'zanzibarquux' });
    expect(found.statusCode).toBe(200);
    expect(found.json().conversations).toEqual([]);
    const text = await get(alice, ConversationPaths.list, { q: 'ships tomorrow' });
    expect(text.json().conversations).toHaveLength(2);
  });

  it('over its bounds is refused and nothing is stored; the history cap keeps the last turns with their detail', async () => {
    const avatarId = (await createAvatar(t.database, alice.id, 'Bounds')).id;
    const over: [string, TLiveHistoryEntry['detail']][] = [
      ['arguments', { calls: [{ name: 'f', arguments: 'x'.repeat(LiveTurnDetailLimits.callChars + 1), ok: true, result: null }] }],
      ['result', { calls: [{ name: 'f', arguments: '{}', ok: true, result: 'x'.repeat(LiveTurnDetailLimits.callChars + 1) }] }],
      ['calls', { calls: Array.from({ length: LiveTurnDetailLimits.calls + 1 }, () => ({ name: 'f', arguments: '{}', ok: true, result: null })) }],
      ['passages', { passages: Array.from({ length: LiveTurnDetailLimits.passages + 1 }, () => ({ title: 't', snippet: 's' })) }],
      ['snippet', { passages: [{ title: 't', snippet: 's'.repeat(LiveTurnDetailLimits.snippetChars + 1) }] }],
      ['errors', { errors: Array.from({ length: LiveTurnDetailLimits.errors + 1 }, () => ({ provider: 'p', code: 'c' })) }],
      ['interims', { interims: Array.from({ length: LiveTurnDetailLimits.interims + 1 }, () => 'i') }],
      ['heardMs', { heardMs: -1 }],
    ];
    for (const [what, detail] of over) {
      const { sessionId, stored } = await converse(avatarId, [{ role: 'assistant', text: 'Hi', at: clock, detail }]);
      expect(stored.ok, what).toBe(false);
      const [row] = await t.database.db.select().from(liveSessions).where(eq(liveSessions.id, sessionId));
      expect(row!.history, what).toEqual([]);
    }
    // A full history (historyMaxTurns × 2 entries): every entry keeps its own detail.
    const { sessionId } = await converse(avatarId, []);
    const long: TLiveHistoryEntry[] = Array.from({ length: 200 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', text: `turn ${i}`, at: clock + i, detail: { errors: [{ provider: 'p', code: `c${i}` }] } }));
    expect(await t.app.live.handleRpc(workerId, 'session.history', { sessionId, history: long })).toEqual({ ok: true, result: {} });
    const [row] = await t.database.db.select().from(liveSessions).where(eq(liveSessions.id, sessionId));
    const kept = row!.history as TLiveHistoryEntry[];
    expect(kept).toHaveLength(200);
    expect(kept.at(-1)!.detail!.errors![0]!.code).toBe('c199');
    expect(kept[0]!.detail!.errors![0]!.code).toBe('c0');
  });
});
