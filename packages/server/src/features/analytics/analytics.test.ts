import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { AnalyticsPaths, ConversationPaths, LiveCode, LivePaths, PageFigureLimits, type TAnalytics, type TConversationDetail, type TLiveHistoryEntry, type TLiveVoiceTurnMetrics } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createAvatar, createSignedInUser, insertLiveSession } from '../../test/factories.js';
import { liveSessions, workers } from '../../db/schema/index.js';
import { hashToken } from '../../lib/tokens.js';
import { createLiveSessionsRepository } from '../live-sessions/repository.js';
import { daysOf } from './service.js';

// Issue 30 (ADR 099): the page's own figures (once, for its own session, in range), the summary
// with the transcript, and the analytics of an account, an avatar and (administrators) everyone.
let t: TestContext;
type Signed = Awaited<ReturnType<typeof createSignedInUser>>;
let alice: Signed;
let bob: Signed;
let admin: Signed;
let aliceAvatar: number;
let aliceOther: number;
let bobAvatar: number;
let workerId: number;

const T0 = Date.UTC(2026, 5, 1, 22, 0, 0);
const clock = T0 + 30 * 86_400_000;
const at = (minutes: number) => new Date(T0 + minutes * 60_000);

const voice = (endToEndMs: number, stage: number): TLiveVoiceTurnMetrics => ({
  at: T0,
  endOfUtteranceMs: stage,
  sttMs: stage / 2,
  llmFirstTokenMs: stage * 2,
  ttsFirstByteMs: stage / 4,
  endToEndMs,
  interrupted: false,
});
const user = (text: string): TLiveHistoryEntry => ({ role: 'user', text, at: T0 });
const bot = (text: string): TLiveHistoryEntry => ({ role: 'assistant', text, at: T0 });

async function session(v: {
  avatarId: number;
  owner: number;
  startedAt: Date;
  seconds?: number | null;
  endCode?: string;
  history?: TLiveHistoryEntry[];
  voiceTurns?: TLiveVoiceTurnMetrics[];
  figures?: { firstFrameMs: number | null; avOffsetMs: number | null; droppedFrames: number | null };
  resumeToken?: string;
  summary?: string;
}): Promise<string> {
  return insertLiveSession(t.database, {
    avatarId: v.avatarId,
    ownerUserId: v.owner,
    workerId,
    clientIp: '203.0.113.9',
    resumeHash: hashToken(v.resumeToken ?? randomUUID()),
    history: v.history ?? [],
    startedAt: v.startedAt,
    endedAt: v.seconds === null ? null : new Date(v.startedAt.getTime() + (v.seconds ?? 60) * 1000),
    endCode: v.seconds === null ? null : (v.endCode ?? LiveCode.hangUp),
    voiceTurns: v.voiceTurns ?? [],
    summary: v.summary ?? null,
    ...(v.figures ? { pageFiguresAt: v.startedAt, ...v.figures } : {}),
  });
}

const getAnalytics = async (who: Signed, query: Record<string, string> = {}, path: string = AnalyticsPaths.get) =>
  t.app.inject({ method: 'GET', url: path, query, headers: who.headers });
const report = (payload: object) => t.app.inject({ method: 'POST', url: AnalyticsPaths.pageFigures, payload });
const range = { from: new Date(T0 - 3_600_000).toISOString(), to: new Date(T0 + 3 * 86_400_000).toISOString() };

beforeAll(async () => {
  t = await createTestApp({}, { now: () => new Date(clock) });
  alice = await createSignedInUser(t.app, t.database);
  bob = await createSignedInUser(t.app, t.database);
  admin = await createSignedInUser(t.app, t.database, { userType: 'ADMIN' });
  aliceAvatar = (await createAvatar(t.database, alice.id, 'Reception')).id;
  aliceOther = (await createAvatar(t.database, alice.id, 'Sales')).id;
  bobAvatar = (await createAvatar(t.database, bob.id, 'Bob bot')).id;
  const [w] = await t.database.db.insert(workers).values({ vpsId: `an-${randomUUID()}`, name: 'an', status: 'AVAILABLE', webSocket: 'ws://127.0.0.1:9/avatar-ws', lastPingTime: new Date() }).returning();
  workerId = w!.id;

  // Alice, day 1 (22:00 UTC = the next day at UTC+3): three sessions of Reception.
  await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: at(0), seconds: 60, history: [bot('Hi'), user('a'), bot('b'), user('c')], voiceTurns: [voice(700, 100), voice(900, 200)], figures: { firstFrameMs: 800, avOffsetMs: 20, droppedFrames: 0 } });
  await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: at(10), seconds: 120, endCode: LiveCode.idleTimeout, history: [user('x')], voiceTurns: [voice(1100, 300)], figures: { firstFrameMs: 1200, avOffsetMs: -40, droppedFrames: 10 } });
  await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: at(20), seconds: 180, endCode: LiveCode.serverError, figures: { firstFrameMs: null, avOffsetMs: null, droppedFrames: null } });
  // Day 2 (UTC): Sales, an error of another code and an open one.
  await session({ avatarId: aliceOther, owner: alice.id, startedAt: at(24 * 60 + 60), seconds: 240, endCode: LiveCode.workerLost, history: [user('1'), user('2'), user('3')] });
  await session({ avatarId: aliceOther, owner: alice.id, startedAt: at(24 * 60 + 70), seconds: null });
  // Outside the range, and Bob's.
  await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: at(-2 * 24 * 60), seconds: 600 });
  await session({ avatarId: bobAvatar, owner: bob.id, startedAt: at(5), seconds: 3600, voiceTurns: [voice(5000, 1000)], figures: { firstFrameMs: 9000, avOffsetMs: 900, droppedFrames: 900 } });
});

afterAll(async () => {
  await t?.close();
});

describe('analytics of an account', () => {
  it('counts sessions, minutes per day, turns, durations, outcomes and error codes in SQL', async () => {
    const res = await getAnalytics(alice, range);
    expect(res.statusCode).toBe(200);
    const a = res.json<{ analytics: TAnalytics }>().analytics;
    expect(a.sessions).toBe(5);
    // The open session has no minutes yet: 60 + 120 + 180 + 240 seconds.
    expect(a.minutes).toBe(10);
    expect(a.days).toHaveLength(4);
    expect(a.days.map((d) => [d.day, d.sessions, d.minutes])).toEqual([
      ['2026-06-01', 3, 6],
      ['2026-06-02', 2, 4],
      ['2026-06-03', 0, 0],
      ['2026-06-04', 0, 0],
    ]);
    // Visitor turns 2, 1, 0, 3, 0.
    expect(a.turns).toEqual({ mean: 1.2, p50: 1, p95: 2.8, max: 3 });
    expect(a.durationSeconds).toEqual({ p50: 150, p90: 222, p95: 231, max: 240 });
    expect(a.outcomes).toEqual([
      { outcome: 'hang-up', count: 1 },
      { outcome: 'idle', count: 1 },
      { outcome: 'error', count: 2 },
      { outcome: 'open', count: 1 },
    ]);
    expect(a.errorCodes.map((e) => e.count)).toEqual([1, 1]);
    expect(a.errorCodes.map((e) => e.code).sort()).toEqual([LiveCode.serverError, LiveCode.workerLost].sort());
    // Voice to voice over the three spoken turns (700, 900, 1100), and its stages.
    expect(a.voice.endToEnd).toEqual({ count: 3, p50: 900, p95: 1080 });
    expect(a.voice.endOfSpeech).toEqual({ count: 3, p50: 200, p95: 290 });
    expect(a.voice.stt).toEqual({ count: 3, p50: 100, p95: 145 });
    expect(a.voice.firstToken).toEqual({ count: 3, p50: 400, p95: 580 });
    expect(a.voice.firstAudio).toEqual({ count: 3, p50: 50, p95: 73 });
    // The pages' figures: two sessions measured, the text-only one reported nulls.
    expect(a.page.firstFrame).toEqual({ count: 2, p50: 1000, p95: 1180 });
    expect(a.page.avOffset).toEqual({ count: 2, p50: -10, p95: 17 });
    expect(a.page.droppedFrames).toEqual({ count: 2, p50: 5, p95: 10 });
  });

  it('narrows to one avatar, counts days in the caller’s zone, and defaults to the last 30 days', async () => {
    const one = (await getAnalytics(alice, { ...range, avatarId: String(aliceOther) })).json<{ analytics: TAnalytics }>().analytics;
    expect(one.sessions).toBe(2);
    expect(one.voice.endToEnd).toEqual({ count: 0, p50: null, p95: null });
    // UTC+3: the day-1 sessions at 22:00 UTC fall on June 2nd.
    const east = (await getAnalytics(alice, { ...range, utcOffset: '180' })).json<{ analytics: TAnalytics }>().analytics;
    expect(east.days[0]!.day).toBe('2026-06-02');
    expect(east.days.find((d) => d.day === '2026-06-02')?.sessions).toBe(3);
    expect(east.days.find((d) => d.day === '2026-06-03')?.sessions).toBe(2);
    const recent = (await getAnalytics(alice)).json<{ analytics: TAnalytics }>().analytics;
    expect(Date.parse(recent.to) - Date.parse(recent.from)).toBe(30 * 86_400_000);
    expect(recent.sessions).toBe(5);
  });

  it('never shows another account: its avatar answers 404, its sessions are not counted', async () => {
    const bobs = (await getAnalytics(bob, range)).json<{ analytics: TAnalytics }>().analytics;
    expect(bobs.sessions).toBe(1);
    expect(bobs.voice.endToEnd.p50).toBe(5000);
    const res = await getAnalytics(bob, { ...range, avatarId: String(aliceAvatar) });
    expect(res.statusCode).toBe(404);
    expect(JSON.stringify(res.json())).not.toContain('Reception');
    expect((await getAnalytics(bob, { ...range, avatarId: '999999' })).statusCode).toBe(404);
  });

  it('gives administrators every account at the admin path, and refuses it to users', async () => {
    const all = (await getAnalytics(admin, range, AnalyticsPaths.adminGet)).json<{ analytics: TAnalytics }>().analytics;
    expect(all.sessions).toBe(6);
    expect(all.page.firstFrame.count).toBe(3);
    expect((await getAnalytics(alice, range, AnalyticsPaths.adminGet)).statusCode).toBe(403);
    // An administrator's own path is their own account (no sessions).
    expect((await getAnalytics(admin, range)).json<{ analytics: TAnalytics }>().analytics.sessions).toBe(0);
  });

  it('refuses bad ranges and unknown fields', async () => {
    const bad = async (q: Record<string, string>) => (await getAnalytics(alice, q)).statusCode;
    expect(await bad({ from: '2026-01-01T00:00:00Z', to: '2027-01-03T00:00:00Z' })).toBe(400);
    expect(await bad({ from: '2026-02-01T00:00:00Z', to: '2026-01-01T00:00:00Z' })).toBe(400);
    expect(await bad({ from: 'yesterday' })).toBe(400);
    expect(await bad({ utcOffset: '841' })).toBe(400);
    expect(await bad({ avatarId: '-1' })).toBe(400);
    expect(await bad({ ownerUserId: String(bob.id) })).toBe(400);
    expect((await t.app.inject({ method: 'GET', url: AnalyticsPaths.get, query: range })).statusCode).toBe(401);
  });

  it('counts the visitor turns stored with the history (the worker’s session.history), not the history itself', async () => {
    const id = await session({ avatarId: aliceOther, owner: alice.id, startedAt: at(3 * 24 * 60), seconds: null });
    await createLiveSessionsRepository(t.database.db).setHistory(id, [bot('Hi'), user('one'), bot('two'), user('three'), user('four')]);
    const [row] = await t.database.db.select().from(liveSessions).where(eq(liveSessions.id, id));
    expect(row!.visitorTurns).toBe(3);
    // The column wins over the history: a history cut later (redaction, retention) keeps its count.
    await t.database.db.update(liveSessions).set({ history: [] }).where(eq(liveSessions.id, id));
    const a = (await getAnalytics(alice, { from: at(3 * 24 * 60 - 1).toISOString(), to: at(3 * 24 * 60 + 1).toISOString() })).json<{ analytics: TAnalytics }>().analytics;
    expect(a.turns.max).toBe(3);
    await t.database.db.delete(liveSessions).where(eq(liveSessions.id, id));
  });

  it('counts provider failures by provider and phase, as the worker sends them with the end', async () => {
    const start = await t.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId: aliceOther, textOnly: true }, remoteAddress: '192.0.2.77' });
    expect(start.statusCode).toBe(200);
    const sessionId = start.json<{ sessionId: string }>().sessionId;
    // More than 20 entries is not a worker's report: refused, nothing stored.
    const tooMany = Array.from({ length: 21 }, (_, i) => ({ provider: `p${i}`, phase: 'speech', count: 1 }));
    expect(await t.app.live.handleRpc(workerId, 'session.end', { sessionId, code: LiveCode.hangUp, summary: null, providerErrors: tooMany })).toEqual({ ok: false, error: LiveCode.badFrame });
    const providerErrors = [
      { provider: 'elevenlabs', phase: 'speech', count: 3 },
      { provider: 'openai-compatible', phase: 'reply', count: 1 },
    ];
    expect((await t.app.live.handleRpc(workerId, 'session.end', { sessionId, code: LiveCode.hangUp, summary: null, providerErrors })).ok).toBe(true);
    const [row] = await t.database.db.select().from(liveSessions).where(eq(liveSessions.id, sessionId));
    expect(row!.providerErrors).toEqual(providerErrors);
    const other = await session({ avatarId: aliceOther, owner: alice.id, startedAt: new Date(clock - 60_000), seconds: 30 });
    await t.database.db.update(liveSessions).set({ providerErrors: [{ provider: 'elevenlabs', phase: 'speech', count: 2 }] }).where(eq(liveSessions.id, other));
    const a = (await getAnalytics(alice, { from: new Date(clock - 86_400_000).toISOString(), to: new Date(clock + 86_400_000).toISOString() })).json<{ analytics: TAnalytics }>().analytics;
    expect(a.providerErrors).toEqual([
      { provider: 'elevenlabs', phase: 'speech', count: 5, sessions: 2 },
      { provider: 'openai-compatible', phase: 'reply', count: 1, sessions: 1 },
    ]);
    // Bob's analytics never show them.
    expect((await getAnalytics(bob, { from: new Date(clock - 86_400_000).toISOString(), to: new Date(clock + 86_400_000).toISOString() })).json<{ analytics: TAnalytics }>().analytics.providerErrors).toEqual([]);
  });

  it('lists the days of a range in the caller’s zone', () => {
    expect(daysOf(new Date('2026-06-01T00:00:00Z'), new Date('2026-06-03T00:00:00Z'), 0)).toEqual(['2026-06-01', '2026-06-02']);
    expect(daysOf(new Date('2026-06-01T00:00:00Z'), new Date('2026-06-03T00:00:00Z'), -60)).toEqual(['2026-05-31', '2026-06-01', '2026-06-02']);
  });
});

describe('the page’s own figures', () => {
  const figures = { firstFrameMs: 950, avOffsetMs: -35, droppedFrames: 4 };

  it('are taken once, for the session the page holds, and shown with the transcript and its summary', async () => {
    const token = `tok-${randomUUID()}`;
    const id = await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: new Date(clock - 120_000), seconds: null, resumeToken: token });
    // Another session's token, a missing session: 404 alike; nothing stored.
    expect((await report({ sessionId: id, resumeToken: 'not-it', ...figures })).statusCode).toBe(404);
    expect((await report({ sessionId: randomUUID(), resumeToken: token, ...figures })).statusCode).toBe(404);
    expect((await report({ sessionId: id, resumeToken: token, ...figures })).statusCode).toBe(200);
    const again = await report({ sessionId: id, resumeToken: token, firstFrameMs: 1, avOffsetMs: 1, droppedFrames: 1 });
    expect(again.statusCode).toBe(409);
    const [row] = await t.database.db.select().from(liveSessions).where(eq(liveSessions.id, id));
    expect([row!.firstFrameMs, row!.avOffsetMs, row!.droppedFrames]).toEqual([950, -35, 4]);

    await t.database.db.update(liveSessions).set({ endedAt: new Date(clock), endCode: LiveCode.hangUp, summary: 'The visitor asked about opening hours.' }).where(eq(liveSessions.id, id));
    const detail = (await t.app.inject({ method: 'GET', url: ConversationPaths.get, query: { id }, headers: alice.headers })).json<{ conversation: TConversationDetail }>().conversation;
    expect(detail.pageFigures).toEqual(figures);
    expect(detail.summary).toBe('The visitor asked about opening hours.');
  });

  it('refuse numbers out of range, wrong types and extra fields', async () => {
    const token = `tok-${randomUUID()}`;
    const id = await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: new Date(clock - 60_000), seconds: null, resumeToken: token });
    const base = { sessionId: id, resumeToken: token };
    for (const bad of [
      { ...figures, firstFrameMs: -1 },
      { ...figures, firstFrameMs: PageFigureLimits.firstFrameMsMax + 1 },
      { ...figures, avOffsetMs: PageFigureLimits.avOffsetMsMax + 1 },
      { ...figures, droppedFrames: 1.5 },
      { ...figures, droppedFrames: '3' },
      { ...figures, droppedFrames: Number.MAX_SAFE_INTEGER },
      { firstFrameMs: 1 },
      { ...figures, ownerUserId: bob.id },
    ]) {
      expect((await report({ ...base, ...bad })).statusCode, JSON.stringify(bad)).toBe(400);
    }
    expect((await report({ ...base, resumeToken: 'x'.repeat(513), ...figures })).statusCode).toBe(400);
    const [row] = await t.database.db.select().from(liveSessions).where(eq(liveSessions.id, id));
    expect(row!.pageFiguresAt).toBeNull();
    // Nulls: nothing measured (a text-only session) is a report too.
    expect((await report({ ...base, firstFrameMs: null, avOffsetMs: null, droppedFrames: null })).statusCode).toBe(200);
  });

  it('are taken up to 10 minutes after the session ended, not later', async () => {
    const token = `tok-${randomUUID()}`;
    const late = await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: new Date(clock - PageFigureLimits.acceptAfterEndMs - 120_000), seconds: 60, resumeToken: token });
    expect((await report({ sessionId: late, resumeToken: token, ...figures })).statusCode).toBe(404);
    const recent = await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: new Date(clock - 5 * 60_000), seconds: 60, resumeToken: token });
    expect((await report({ sessionId: recent, resumeToken: token, ...figures })).statusCode).toBe(200);
  });

  it('leave the transcript without figures or summary when there are none', async () => {
    const id = await session({ avatarId: aliceAvatar, owner: alice.id, startedAt: at(1), seconds: 30 });
    const detail = (await t.app.inject({ method: 'GET', url: ConversationPaths.get, query: { id }, headers: alice.headers })).json<{ conversation: TConversationDetail }>().conversation;
    expect(detail.pageFigures).toBeNull();
    expect(detail.summary).toBeNull();
  });
});
