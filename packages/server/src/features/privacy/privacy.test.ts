import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq, inArray } from 'drizzle-orm';
import {
  ConversationPaths,
  LiveCode,
  LivePaths,
  PrivacyMessages,
  PrivacyPaths,
  WebhookPaths,
  type TAvatarPrivacy,
  type TConversationSummary,
} from '@persona/contract';
import { listen, readBody, type FakeServer } from '../../../../net/src/test/http-fake.js';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createAvatar, createSignedInUser } from '../../test/factories.js';
import { avatarMemories, avatars, liveSessions, webhookDeliveries, workers } from '../../db/schema/index.js';

// Issue 30, privacy (ADR 097): redaction at rest on every path the conversation's text takes
// (history, summary, memory, webhooks, export), per-avatar retention by a sweep on a fake clock,
// per-visitor erasure. PGlite and PostgreSQL alike.

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
let clock = T0;
const at = () => new Date(clock);
const DAY = 86_400_000;

let t: TestContext;
type Signed = Awaited<ReturnType<typeof createSignedInUser>>;
let alice: Signed;
let bob: Signed;
let workerId: number;

const post = (who: Signed, url: string, payload: unknown) => t.app.inject({ method: 'POST', url, payload: payload as object, headers: who.headers });
const get = (who: Signed, url: string, query: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, query, headers: who.headers });

/** An avatar that keeps a memory of returning visitors (the model's summary). */
async function memoryAvatar(userId: number, name: string) {
  const a = await createAvatar(t.database, userId, name);
  await t.database.db
    .update(avatars)
    .set({ config: { customData: { summaryEnabled: true, agent_pipeline_config: { llm: { base_url: 'http://127.0.0.1:9/v1', api_key: 'k', model: 'm', summary_enabled: true } } } } })
    .where(eq(avatars.id, a.id));
  return a.id;
}

async function setPrivacy(who: Signed, body: Omit<TAvatarPrivacy, 'redaction'> & { redaction?: Partial<TAvatarPrivacy['redaction']> }) {
  const res = await post(who, PrivacyPaths.set, { redaction: {}, ...body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().privacy as TAvatarPrivacy;
}

/** An ended session written straight into the table (times of the test's choosing). */
async function storedSession(o: { avatarId: number; ownerUserId: number; visitorId?: string | null; clientIp?: string; startedAt: number; endedAt?: number | null; summary?: string }) {
  const id = randomUUID();
  const history = [
    { role: 'assistant' as const, text: 'Hello, how can I help?', at: o.startedAt + 1_000 },
    { role: 'user' as const, text: 'I am Jane, jane@example.com', at: o.startedAt + 2_000 },
    { role: 'assistant' as const, text: 'Thanks Jane.', at: o.startedAt + 3_000 },
    { role: 'user' as const, text: 'Bye', at: o.startedAt + 4_000 },
  ];
  await t.database.db.insert(liveSessions).values({
    id,
    avatarId: o.avatarId,
    ownerUserId: o.ownerUserId,
    avatarName: 'A',
    workerId,
    visitorId: o.visitorId ?? null,
    clientIp: o.clientIp ?? '203.0.113.7',
    resumeHash: 'x',
    ticketJti: randomUUID(),
    history,
    voiceTurns: [{ at: o.startedAt + 2_000, endOfUtteranceMs: 300, sttMs: 100, llmFirstTokenMs: 200, ttsFirstByteMs: 150, endToEndMs: 800, interrupted: false }],
    voiceP50Ms: 800,
    summary: o.summary ?? 'Jane asked for help.',
    startedAt: new Date(o.startedAt),
    lastHeartbeatAt: new Date(o.startedAt),
    endedAt: o.endedAt === null ? null : new Date(o.endedAt ?? o.startedAt + 60_000),
    endCode: o.endedAt === null ? null : LiveCode.hangUp,
  });
  return id;
}

const sessionRow = async (id: string) => (await t.database.db.select().from(liveSessions).where(eq(liveSessions.id, id)))[0];

beforeAll(async () => {
  t = await createTestApp({ ALLOW_PRIVATE_URLS: 'true' }, { now: at, webhookTimings: { pollMs: 0, random: () => 0.5 } });
  alice = await createSignedInUser(t.app, t.database);
  bob = await createSignedInUser(t.app, t.database);
  const [w] = await t.database.db.insert(workers).values({ vpsId: `privacy-${randomUUID()}`, name: 'privacy', status: 'AVAILABLE', webSocket: 'ws://127.0.0.1:9/avatar-ws', lastPingTime: new Date(T0 + 3_650 * DAY) }).returning();
  workerId = w!.id;
});

afterAll(async () => {
  await t?.close();
});

describe('settings', () => {
  it('are off and forever by default, saved for the owner only, validated strictly', async () => {
    const avatarId = (await createAvatar(t.database, alice.id, 'Settings')).id;
    const fresh = await get(alice, PrivacyPaths.get, { avatarId: String(avatarId) });
    expect(fresh.statusCode, fresh.body).toBe(200);
    expect(fresh.json().privacy).toEqual({ avatarId, redaction: { email: false, phone: false, card: false, iban: false, patterns: [] }, retention: { mode: 'forever', days: null } });

    const saved = await setPrivacy(alice, { avatarId, redaction: { email: true, card: true, patterns: ['ORD-[0-9]{6}'] }, retention: { mode: 'days', days: 30 } });
    expect(saved).toEqual({ avatarId, redaction: { email: true, phone: false, card: true, iban: false, patterns: ['ORD-[0-9]{6}'] }, retention: { mode: 'days', days: 30 } });
    expect((await get(alice, PrivacyPaths.get, { avatarId: String(avatarId) })).json().privacy).toEqual(saved);

    // Another account's avatar: 404 like a missing one, and nothing changed.
    expect((await get(bob, PrivacyPaths.get, { avatarId: String(avatarId) })).statusCode).toBe(404);
    expect((await post(bob, PrivacyPaths.set, { avatarId, redaction: {}, retention: { mode: 'counts' } })).statusCode).toBe(404);
    expect((await post(alice, PrivacyPaths.set, { avatarId: 99_999_999, redaction: {}, retention: { mode: 'counts' } })).statusCode).toBe(404);
    expect((await get(alice, PrivacyPaths.get, { avatarId: String(avatarId) })).json().privacy.retention).toEqual({ mode: 'days', days: 30 });

    const bad: [unknown, string | null][] = [
      [{ avatarId, redaction: { patterns: ['(a)\\1'] }, retention: { mode: 'forever' } }, PrivacyMessages.badPattern(1, PrivacyMessages.patternNotLinear)],
      [{ avatarId, redaction: { patterns: ['ok', '(?=x)y'] }, retention: { mode: 'forever' } }, PrivacyMessages.badPattern(2, PrivacyMessages.patternNotLinear)],
      [{ avatarId, redaction: { patterns: ['x*'] }, retention: { mode: 'forever' } }, PrivacyMessages.badPattern(1, PrivacyMessages.patternMatchesEmpty)],
      [{ avatarId, redaction: { patterns: Array.from({ length: 11 }, (_, i) => `p${i}`) }, retention: { mode: 'forever' } }, PrivacyMessages.tooManyPatterns],
      [{ avatarId, redaction: { patterns: ['a'.repeat(201)] }, retention: { mode: 'forever' } }, PrivacyMessages.patternTooLong],
      [{ avatarId, redaction: {}, retention: { mode: 'days' } }, PrivacyMessages.badDays],
      [{ avatarId, redaction: {}, retention: { mode: 'days', days: 0 } }, PrivacyMessages.badDays],
      [{ avatarId, redaction: {}, retention: { mode: 'days', days: 3651 } }, PrivacyMessages.badDays],
      [{ avatarId, redaction: {}, retention: { mode: 'days', days: 1.5 } }, PrivacyMessages.badDays],
      [{ avatarId, redaction: {}, retention: { mode: 'sometimes' } }, null],
      [{ avatarId, redaction: { email: 'yes' }, retention: { mode: 'forever' } }, null],
      [{ avatarId, redaction: {}, retention: { mode: 'forever' }, extra: 1 }, null],
    ];
    for (const [body, message] of bad) {
      const res = await post(alice, PrivacyPaths.set, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      if (message) expect(res.body, JSON.stringify(body)).toContain(JSON.stringify(message).slice(1, -1));
    }
  });
});

describe('redaction at rest', () => {
  let h: { server: FakeServer; got: { raw: string }[] };
  beforeAll(async () => {
    const got: { raw: string }[] = [];
    h = {
      got,
      server: await listen(async (req, res) => {
        got.push({ raw: await readBody(req) });
        res.writeHead(204).end();
      }),
    };
  });
  afterAll(async () => h.server.close());

  const secrets = ['jane.doe@example.com', '4111 1111 1111 1111', 'DE89 3704 0044 0532 0130 00', '+49 30 1234567', 'ORD-123456'];
  const said = 'Mail jane.doe@example.com, card 4111 1111 1111 1111, IBAN DE89 3704 0044 0532 0130 00, call +49 30 1234567, order ORD-123456. Not a card: 4111 1111 1111 1112.';
  const redacted = 'Mail [email], card [card], IBAN [iban], call [phone], order [redacted]. Not a card: 4111 1111 1111 1112.';

  /** One session held on `avatarId` through the workers' RPC, as the worker stores it: history, a failed function, the end with its summary. */
  async function converse(avatarId: number, visitorId: string) {
    const start = await t.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId, textOnly: true, visitorId } });
    expect(start.statusCode, start.body).toBe(200);
    const sessionId = start.json().sessionId as string;
    const history = [
      { role: 'assistant' as const, text: 'Hello!', at: clock + 1_000 },
      { role: 'user' as const, text: said, at: clock + 2_000 },
      { role: 'assistant' as const, text: 'So that is jane.doe@example.com and ORD-123456?', at: clock + 3_000 },
    ];
    expect(await t.app.live.handleRpc(workerId, 'session.history', { sessionId, history })).toEqual({ ok: true, result: {} });
    expect(await t.app.live.handleRpc(workerId, 'session.function_failed', { sessionId, name: 'lookup_order', error: 'No order ORD-123456 for jane.doe@example.com' })).toEqual({ ok: true, result: {} });
    clock += 30_000;
    expect(await t.app.live.handleRpc(workerId, 'session.end', { sessionId, code: LiveCode.hangUp, summary: `Visitor ${said}` })).toEqual({ ok: true, result: {} });
    await t.app.webhooks.dispatchDue();
    return sessionId;
  }

  it('stores, remembers, sends and exports only the redacted text; an avatar without redaction keeps it (the control)', async () => {
    const redacting = await memoryAvatar(alice.id, 'Redacting');
    const plain = await memoryAvatar(alice.id, 'Plain');
    await setPrivacy(alice, { avatarId: redacting, redaction: { email: true, phone: true, card: true, iban: true, patterns: ['ORD-[0-9]{6}'] }, retention: { mode: 'forever', days: null } });
    const hook = await post(alice, WebhookPaths.add, { url: `${h.server.origin}/hooks`, avatarId: null, events: ['session.ended', 'transcript.ready', 'function.failed'] });
    expect(hook.statusCode, hook.body).toBe(200);

    const results: Record<string, { stored: string; sent: string; exported: string; answered: string }> = {};
    for (const [name, avatarId] of [['redacting', redacting], ['plain', plain]] as const) {
      h.got.length = 0;
      const sessionId = await converse(avatarId, `visitor-${name}-0001`);
      const row = (await sessionRow(sessionId))!;
      const [memory] = await t.database.db.select().from(avatarMemories).where(and(eq(avatarMemories.avatarId, avatarId), eq(avatarMemories.visitorId, `visitor-${name}-0001`)));
      expect(memory, 'memory saved').toBeDefined();
      const deliveries = await t.database.db.select({ body: webhookDeliveries.body, status: webhookDeliveries.status }).from(webhookDeliveries).where(eq(webhookDeliveries.sessionId, sessionId));
      expect(deliveries.map((d) => d.status).sort()).toEqual(['delivered', 'delivered', 'delivered']);
      expect(h.got).toHaveLength(3);
      const json = await get(alice, ConversationPaths.export, { id: sessionId, format: 'json' });
      const csv = await get(alice, ConversationPaths.export, { id: sessionId, format: 'csv' });
      expect(json.statusCode).toBe(200);
      expect(csv.statusCode).toBe(200);
      results[name] = {
        stored: JSON.stringify([row.history, row.summary, memory!.summary, deliveries.map((d) => d.body)]),
        sent: h.got.map((g) => g.raw).join('\n'),
        exported: json.body + csv.body,
        answered: (await get(alice, ConversationPaths.get, { id: sessionId })).body,
      };
      if (name === 'redacting') {
        expect(row.history[1]!.text).toBe(redacted);
        expect(row.history[2]!.text).toBe('So that is [email] and [redacted]?');
        expect(row.summary).toBe(`Visitor ${redacted}`);
        expect(memory!.summary).toBe(`Visitor ${redacted}`);
        const failed = h.got.map((g) => JSON.parse(g.raw)).find((e) => e.type === 'function.failed');
        expect(failed.data.error).toBe('No order [redacted] for [email]');
        const ended = h.got.map((g) => JSON.parse(g.raw)).find((e) => e.type === 'session.ended');
        expect(ended.data.summary).toBe(`Visitor ${redacted}`);
      }
    }
    for (const where of ['stored', 'sent', 'exported', 'answered'] as const) {
      for (const secret of secrets) {
        expect(results.redacting![where], `${where}: ${secret}`).not.toContain(secret);
        expect(results.plain![where], `control ${where}: ${secret}`).toContain(secret);
      }
      // The near miss (an invalid Luhn number) is not touched.
      expect(results.redacting![where]).toContain('4111 1111 1111 1112');
    }
    await post(alice, WebhookPaths.delete, { id: hook.json().webhook.id });
  });
});

describe('retention', () => {
  it('removes the text after the avatar’s days, keeps the counts, the billing and newer conversations', async () => {
    const avatarId = await memoryAvatar(alice.id, 'Thirty days');
    const forever = await memoryAvatar(alice.id, 'Forever');
    await setPrivacy(alice, { avatarId, retention: { mode: 'days', days: 30 } });
    const old = await storedSession({ avatarId, ownerUserId: alice.id, startedAt: clock - 31 * DAY });
    const young = await storedSession({ avatarId, ownerUserId: alice.id, startedAt: clock - 30 * DAY + 3_600_000 });
    const open = await storedSession({ avatarId, ownerUserId: alice.id, startedAt: clock - 40 * DAY, endedAt: null });
    const kept = await storedSession({ avatarId: forever, ownerUserId: alice.id, startedAt: clock - 400 * DAY });
    await t.database.db.insert(avatarMemories).values([
      { avatarId, visitorId: 'old-visitor-1', summary: 'old', updatedAt: new Date(clock - 31 * DAY) },
      { avatarId, visitorId: 'new-visitor-1', summary: 'new', updatedAt: new Date(clock - DAY) },
    ]);

    expect(await t.app.privacy.sweep()).toBe(1);
    const gone = (await sessionRow(old))!;
    expect(gone).toMatchObject({ history: [], summary: null, voiceTurns: [], visitorTurns: 2, voiceP50Ms: 800, endCode: LiveCode.hangUp });
    expect(gone.textRemovedAt?.getTime()).toBe(clock);
    for (const id of [young, open, kept]) expect((await sessionRow(id))!.history).toHaveLength(4);
    expect((await t.database.db.select().from(avatarMemories).where(eq(avatarMemories.avatarId, avatarId))).map((m) => m.visitorId)).toEqual(['new-visitor-1']);

    // The list still counts its turns; the transcript says why it is empty.
    const list = (await get(alice, ConversationPaths.list, { avatarId: String(avatarId) })).json().conversations as TConversationSummary[];
    expect(list.find((c) => c.id === old)).toMatchObject({ turns: 2, outcome: 'hang-up' });
    const detail = (await get(alice, ConversationPaths.get, { id: old })).json().conversation;
    expect(detail).toMatchObject({ turnList: [], textRemoved: true, turns: 2 });
    expect((await get(alice, ConversationPaths.get, { id: young })).json().conversation.textRemoved).toBe(false);

    // Two hours later the next one is due; a second sweep finds nothing more.
    clock += 2 * 3_600_000;
    expect(await t.app.privacy.sweep()).toBe(1);
    expect((await sessionRow(young))!.history).toEqual([]);
    expect(await t.app.privacy.sweep()).toBe(0);
  });

  it('“keep nothing but counts” drops the text once the end’s webhooks are made, keeps no memory, and empties the sent bodies', async () => {
    const avatarId = await memoryAvatar(alice.id, 'Counts only');
    await setPrivacy(alice, { avatarId, retention: { mode: 'counts', days: null } });
    const got: string[] = [];
    const server = await listen(async (req, res) => {
      got.push(await readBody(req));
      res.writeHead(204).end();
    });
    const hook = await post(alice, WebhookPaths.add, { url: `${server.origin}/counts`, avatarId, events: ['session.ended', 'transcript.ready'] });
    try {
      const start = await t.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId, textOnly: true, visitorId: 'counts-visitor-1' } });
      const sessionId = start.json().sessionId as string;
      await t.app.live.handleRpc(workerId, 'session.history', { sessionId, history: [{ role: 'user', text: 'My name is Jane', at: clock }] });
      clock += 10_000;
      await t.app.live.handleRpc(workerId, 'session.end', { sessionId, code: LiveCode.hangUp, summary: 'Jane said hello.' });
      // The visitor's memory is not written for such an avatar.
      expect(await t.database.db.select().from(avatarMemories).where(eq(avatarMemories.avatarId, avatarId))).toEqual([]);
      // The receiver gets the text: the customer keeps it, the portal does not.
      await t.app.webhooks.dispatchDue();
      expect(got.join()).toContain('Jane said hello.');
      expect(got.join()).toContain('My name is Jane');

      // Within the grace the text is still there; after it, gone, with the delivered bodies.
      expect(await t.app.privacy.sweep()).toBe(0);
      clock += 61_000;
      expect(await t.app.privacy.sweep()).toBe(1);
      expect(await sessionRow(sessionId)).toMatchObject({ history: [], summary: null, visitorTurns: 1 });
      const bodies = await t.database.db.select({ body: webhookDeliveries.body }).from(webhookDeliveries).where(eq(webhookDeliveries.sessionId, sessionId));
      expect(bodies).toHaveLength(2);
      expect(bodies.every((b) => b.body === null)).toBe(true);
      // A late report brings nothing back.
      const late = await t.app.live.handleRpc(workerId, 'session.end', { sessionId, code: LiveCode.hangUp, summary: 'Jane again.', turns: [{ at: clock, endOfUtteranceMs: 1, sttMs: 1, llmFirstTokenMs: 1, ttsFirstByteMs: 1, endToEndMs: 1, interrupted: false }] });
      expect(late).toEqual({ ok: true, result: {} });
      expect(await sessionRow(sessionId)).toMatchObject({ summary: null, voiceTurns: [] });
    } finally {
      await post(alice, WebhookPaths.delete, { id: hook.json().webhook.id });
      await server.close();
    }
  });
});

describe('apply to stored conversations', () => {
  it('redacts what was stored before, page by page: transcripts with their details, summaries, the search index, webhook bodies and memories; the owner only, redaction on only', async () => {
    const avatarId = await memoryAvatar(alice.id, 'Redact later');
    const control = await memoryAvatar(alice.id, 'Never redacted');
    // 205 conversations stored before redaction was on: more than a page (PrivacyLimits.redactStoredPage).
    const secret = 'jane.doe@example.com';
    const rows = Array.from({ length: 205 }, (_, i) => ({
      id: randomUUID(),
      avatarId,
      ownerUserId: alice.id,
      avatarName: 'A',
      workerId,
      visitorId: `visitor-r-${i}`,
      clientIp: '203.0.113.7',
      resumeHash: 'x',
      ticketJti: randomUUID(),
      history: [
        { role: 'user' as const, text: i % 2 ? `write to ${secret} please` : 'hello there', at: clock - DAY + i },
        { role: 'assistant' as const, text: 'Done.', at: clock - DAY + i + 1, detail: { calls: [{ name: 'send_mail', arguments: `{"to":"${secret}"}`, ok: true, result: `sent to ${secret}` }] } },
      ],
      summary: `The visitor asked to write to ${secret}.`,
      startedAt: new Date(clock - DAY + i * 1000),
      lastHeartbeatAt: new Date(clock - DAY + i * 1000),
      endedAt: new Date(clock - DAY + i * 1000 + 60_000),
      endCode: LiveCode.hangUp,
    }));
    await t.database.db.insert(liveSessions).values(rows);
    const kept = await storedSession({ avatarId: control, ownerUserId: alice.id, startedAt: clock - DAY });
    await t.database.db.insert(avatarMemories).values([
      { avatarId, visitorId: 'visitor-r-1', summary: `Writes from ${secret}.`, updatedAt: at() },
      { avatarId: control, visitorId: 'visitor-r-1', summary: 'Kept: jane@example.com', updatedAt: at() },
    ]);
    const hook = await post(alice, WebhookPaths.add, { url: 'http://127.0.0.1:9/r', avatarId: null, events: ['transcript.ready'] });
    await t.database.db.insert(webhookDeliveries).values({ endpointId: hook.json().webhook.id, eventId: 'evt_r', eventType: 'transcript.ready', sessionId: rows[1]!.id, body: JSON.stringify({ version: 1, turns: [{ text: `write to ${secret}` }] }), status: 'delivered', createdAt: at() });
    const found = async (q: string) => ((await get(alice, ConversationPaths.list, { q, limit: '100', avatarId: String(avatarId) })).json().conversations as unknown[]).length;
    expect(await found(secret)).toBeGreaterThan(0);

    // Redaction off: nothing to apply. Another account's avatar: not found. A forged cursor: refused.
    const redact = (who: Signed, body: object) => post(who, PrivacyPaths.redactStored, body);
    expect((await redact(alice, { avatarId })).statusCode).toBe(409);
    await setPrivacy(alice, { avatarId, redaction: { email: true }, retention: { mode: 'forever', days: null } });
    expect((await redact(bob, { avatarId })).statusCode).toBe(404);
    for (const after of ['s:abc:x', 'x:1', 'm:***', '', 's:1:' + 'a'.repeat(70)]) expect((await redact(alice, { avatarId, after })).statusCode, after).toBe(400);

    const calls: { phase: string; looked: number; changed: number; nextCursor: string | null }[] = [];
    let after: string | undefined;
    do {
      const res = await redact(alice, { avatarId, ...(after ? { after } : {}) });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      calls.push(body);
      after = body.nextCursor ?? undefined;
    } while (after);
    expect(calls.map((c) => [c.phase, c.looked, c.changed])).toEqual([
      ['conversations', 200, 200],
      ['conversations', 5, 5],
      ['memories', 1, 1],
    ]);

    const dump = JSON.stringify(await t.database.db.select().from(liveSessions).where(eq(liveSessions.avatarId, avatarId)));
    expect(dump).not.toContain(secret);
    expect(dump).toContain('[email]');
    expect(JSON.stringify(await t.database.db.select().from(avatarMemories).where(eq(avatarMemories.avatarId, avatarId)))).not.toContain(secret);
    const [delivery] = await t.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.sessionId, rows[1]!.id));
    expect(JSON.parse(delivery!.body!)).toEqual({ version: 1, turns: [{ text: 'write to [email]' }] });
    expect(await found(secret)).toBe(0);
    // The other avatar keeps its text; a second pass changes nothing.
    expect(JSON.stringify(await sessionRow(kept))).toContain('jane@example.com');
    expect((await t.database.db.select().from(avatarMemories).where(eq(avatarMemories.avatarId, control)))[0]!.summary).toContain('jane@example.com');
    expect((await redact(alice, { avatarId })).json()).toMatchObject({ looked: 200, changed: 0 });
    await post(alice, WebhookPaths.delete, { id: hook.json().webhook.id });
  });
});

describe('retention forgets addresses', () => {
  it('replaces the address of a session whose text went by its pseudonym once the per-address limits no longer count it; the visitor keeps their name and can be erased', async () => {
    const avatarId = await memoryAvatar(alice.id, 'Counts, addresses');
    await setPrivacy(alice, { avatarId, retention: { mode: 'counts', days: null } });
    const byIp = await storedSession({ avatarId, ownerUserId: alice.id, visitorId: null, clientIp: '198.51.100.77', startedAt: clock - 2 * DAY });
    const byVisitor = await storedSession({ avatarId, ownerUserId: alice.id, visitorId: 'visitor-addr-001', clientIp: '198.51.100.78', startedAt: clock - 2 * DAY });
    const recent = await storedSession({ avatarId, ownerUserId: alice.id, visitorId: null, clientIp: '198.51.100.79', startedAt: clock - 3_600_000 });
    const forever = await memoryAvatar(alice.id, 'Forever, addresses');
    const kept = await storedSession({ avatarId: forever, ownerUserId: alice.id, visitorId: null, clientIp: '198.51.100.80', startedAt: clock - 400 * DAY });
    const names = async () => {
      const of = async (a: number) => (await get(alice, ConversationPaths.list, { limit: '100', avatarId: String(a) })).json().conversations as TConversationSummary[];
      return new Map([...(await of(avatarId)), ...(await of(forever))].map((c) => [c.id, c.visitor]));
    };
    const before = await names();

    await t.app.privacy.sweep();
    for (const id of [byIp, byVisitor]) {
      const row = (await sessionRow(id))!;
      expect(row.history).toEqual([]);
      expect(row.clientIp).toBe(before.get(id));
      expect(row.clientIp).toMatch(/^v-[0-9a-f]{10}$/);
    }
    // Its text went too, but the last 24 h still count it against its address; the forever avatar keeps everything.
    expect((await sessionRow(recent))!).toMatchObject({ history: [], clientIp: '198.51.100.79' });
    expect((await sessionRow(kept))!.clientIp).toBe('198.51.100.80');
    expect(await names()).toEqual(before);

    clock += 25 * 3_600_000;
    await t.app.privacy.sweep();
    expect((await sessionRow(recent))!.clientIp).toBe(before.get(recent));
    expect(await names()).toEqual(before);

    // Erasure by the pseudonym still reaches a visitor known only by a forgotten address.
    const res = await post(alice, PrivacyPaths.eraseVisitor, { visitor: before.get(byIp) });
    expect(res.json()).toMatchObject({ sessions: 1, open: 0 });
    expect(await sessionRow(byIp)).toBeUndefined();
    expect(await sessionRow(byVisitor)).toBeDefined();
  });
});

describe('retention of webhook bodies still being retried', () => {
  it('keeps a pending delivery’s body until it has finished, then drops it', async () => {
    const avatarId = (await createAvatar(t.database, alice.id, 'Counts, receiver down')).id;
    await setPrivacy(alice, { avatarId, retention: { mode: 'counts', days: null } });
    const id = await storedSession({ avatarId, ownerUserId: alice.id, startedAt: clock - 600_000, endedAt: clock - 120_000 });
    const hook = await post(alice, WebhookPaths.add, { url: 'http://127.0.0.1:9/down', avatarId, events: ['transcript.ready'] });
    const endpointId = hook.json().webhook.id as number;
    await t.database.db.insert(webhookDeliveries).values([
      { endpointId, eventId: 'evt_retrying', eventType: 'transcript.ready', sessionId: id, body: '{"text":"Jane"}', status: 'pending', attempts: 2, nextAttemptAt: new Date(clock + 60_000), createdAt: at() },
      { endpointId, eventId: 'evt_done', eventType: 'session.ended', sessionId: id, body: '{"summary":"Jane"}', status: 'delivered', attempts: 1, createdAt: at() },
    ]);
    const bodies = async () => Object.fromEntries((await t.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.sessionId, id))).map((d) => [d.eventId, d.body]));

    expect(await t.app.privacy.sweep()).toBe(1);
    expect(await bodies()).toEqual({ evt_retrying: '{"text":"Jane"}', evt_done: null });
    // Still retrying: kept; delivered at last: the next sweep drops it.
    expect(await t.app.privacy.sweep()).toBe(0);
    expect((await bodies()).evt_retrying).not.toBeNull();
    await t.database.db.update(webhookDeliveries).set({ status: 'delivered' }).where(eq(webhookDeliveries.eventId, 'evt_retrying'));
    expect(await t.app.privacy.sweep()).toBe(0);
    expect(await bodies()).toEqual({ evt_retrying: null, evt_done: null });
    await post(alice, WebhookPaths.delete, { id: endpointId });
  });
});

describe('per-visitor erasure', () => {
  it('erases every ended conversation and memory of one pseudonymous visitor of the account, nothing else', async () => {
    const a1 = await memoryAvatar(alice.id, 'Erase one');
    const a2 = await memoryAvatar(alice.id, 'Erase two');
    const bobs = await memoryAvatar(bob.id, 'Bob’s');
    const x1 = await storedSession({ avatarId: a1, ownerUserId: alice.id, visitorId: 'visitor-x-00001', startedAt: clock - 3_000_000 });
    const x2 = await storedSession({ avatarId: a2, ownerUserId: alice.id, visitorId: 'visitor-x-00001', startedAt: clock - 2_000_000 });
    const xOpen = await storedSession({ avatarId: a2, ownerUserId: alice.id, visitorId: 'visitor-x-00001', startedAt: clock - 1_000, endedAt: null });
    const y = await storedSession({ avatarId: a1, ownerUserId: alice.id, visitorId: 'visitor-y-00001', startedAt: clock - 1_500_000 });
    const byIp = await storedSession({ avatarId: a1, ownerUserId: alice.id, visitorId: null, clientIp: '198.51.100.9', startedAt: clock - 1_400_000 });
    const bobX = await storedSession({ avatarId: bobs, ownerUserId: bob.id, visitorId: 'visitor-x-00001', startedAt: clock - 1_000_000 });
    await t.database.db.insert(avatarMemories).values([
      { avatarId: a1, visitorId: 'visitor-x-00001', summary: 'x on one', updatedAt: at() },
      { avatarId: a2, visitorId: 'visitor-x-00001', summary: 'x on two', updatedAt: at() },
      { avatarId: a1, visitorId: 'visitor-y-00001', summary: 'y', updatedAt: at() },
      { avatarId: bobs, visitorId: 'visitor-x-00001', summary: 'x at bob', updatedAt: at() },
    ]);
    const hook = await post(alice, WebhookPaths.add, { url: 'http://127.0.0.1:9/x', avatarId: null, events: ['transcript.ready'] });
    await t.database.db.insert(webhookDeliveries).values({ endpointId: hook.json().webhook.id, eventId: 'evt_x', eventType: 'transcript.ready', sessionId: x1, body: '{"jane":1}', status: 'delivered', createdAt: at() });

    const list = (await get(alice, ConversationPaths.list, { limit: '100' })).json().conversations as TConversationSummary[];
    const pseudonym = list.find((c) => c.id === x1)!.visitor;
    expect(list.find((c) => c.id === x2)!.visitor).toBe(pseudonym);
    expect(list.find((c) => c.id === y)!.visitor).not.toBe(pseudonym);

    // Bob cannot reach Alice's visitor (his own visitor of the same page id has another pseudonym).
    expect((await post(bob, PrivacyPaths.eraseVisitor, { visitor: pseudonym })).statusCode).toBe(404);
    for (const bad of [{ visitor: 'v-123' }, { visitor: 'x-0123456789' }, { visitor: pseudonym, extra: 1 }, {}]) {
      expect((await post(alice, PrivacyPaths.eraseVisitor, bad)).statusCode, JSON.stringify(bad)).toBe(400);
    }

    const res = await post(alice, PrivacyPaths.eraseVisitor, { visitor: pseudonym });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ status: 'OK', visitor: pseudonym, sessions: 2, memories: 2, open: 1 });
    const left = (await t.database.db.select({ id: liveSessions.id }).from(liveSessions).where(inArray(liveSessions.id, [x1, x2, xOpen, y, byIp, bobX]))).map((r) => r.id).sort();
    expect(left).toEqual([xOpen, y, byIp, bobX].sort());
    const memories = await t.database.db.select().from(avatarMemories).where(inArray(avatarMemories.avatarId, [a1, a2, bobs]));
    expect(memories.map((m) => m.summary).sort()).toEqual(['x at bob', 'y']);
    const erasedBodies = await t.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.sessionId, x1));
    expect(erasedBodies).toHaveLength(1);
    expect(erasedBodies[0]!.body).toBeNull();
    await post(alice, WebhookPaths.delete, { id: hook.json().webhook.id });

    // A visitor known by address only is erased by its pseudonym too.
    const ipPseudonym = list.find((c) => c.id === byIp)!.visitor;
    expect((await post(alice, PrivacyPaths.eraseVisitor, { visitor: ipPseudonym })).json()).toMatchObject({ sessions: 1, memories: 0, open: 0 });
    expect(await sessionRow(byIp)).toBeUndefined();
  });

  it('deleting one conversation drops its webhook bodies too', async () => {
    const a = await createAvatar(t.database, alice.id, 'One session');
    const id = await storedSession({ avatarId: a.id, ownerUserId: alice.id, startedAt: clock - 5_000_000 });
    const hook = await post(alice, WebhookPaths.add, { url: 'http://127.0.0.1:9/x', avatarId: null, events: ['transcript.ready'] });
    const endpointId = hook.json().webhook.id as number;
    await t.database.db.insert(webhookDeliveries).values({ endpointId, eventId: 'evt_one', eventType: 'transcript.ready', sessionId: id, body: '{"text":"Jane"}', status: 'delivered', createdAt: at() });
    expect((await post(alice, ConversationPaths.delete, { id })).statusCode).toBe(200);
    const [d] = await t.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.eventId, 'evt_one'));
    expect(d).toMatchObject({ body: null, status: 'delivered' });
    await post(alice, WebhookPaths.delete, { id: endpointId });
  });
});
