import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AnalyticsPaths, PrivacyPaths, type TAnalytics, type TLiveHistoryEntry } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createAvatar, createSignedInUser, insertLiveSession } from '../../test/factories.js';
import { workers } from '../../db/schema/index.js';
import { hashToken } from '../../lib/tokens.js';
import { groupQuestions } from './questions.js';

// The most frequent questions grouped by meaning (issue 30, ADR 102), with the knowledge base's
// embedding model — here an OpenAI-compatible endpoint answered by a small local server whose
// vectors say what a text is about. PGlite and PostgreSQL alike.

const TOPICS: [RegExp, number][] = [
  [/open|hours|close/, 0],
  [/refund|money back|return/, 1],
  [/park/, 2],
];
/** A text's vector: one axis per topic it mentions, a small own axis so unrelated texts differ. */
function vectorOf(text: string): number[] {
  const v = [0, 0, 0, 0.05, 0, 0, 0, 0];
  for (const [re, axis] of TOPICS) if (re.test(text)) v[axis] = 1;
  if (v.slice(0, 3).every((x) => x === 0)) v[3] = 1;
  return v;
}
const fakeEmbed = async (texts: string[]) => texts.map(vectorOf);

describe('grouping questions by meaning', () => {
  it('puts phrasings of one meaning together, led by the most frequent, counted by turns and sessions', async () => {
    const turns = [
      ...['What are your opening hours?', 'What are your opening hours', 'when do you open today', 'When do you close on Sunday?'].map((text, i) => ({ text, sessionId: `s${i}` })),
      { text: 'What are your opening hours?', sessionId: 's0' },
      { text: 'How do I get a refund?', sessionId: 's5' },
      { text: 'Can I have my money back please', sessionId: 's6' },
      { text: 'Where can I park my car?', sessionId: 's7' },
      { text: 'ok', sessionId: 's8' },
      { text: 'yes please', sessionId: 's8' },
    ];
    expect(await groupQuestions(turns, fakeEmbed)).toEqual([
      { text: 'What are your opening hours?', count: 5, sessions: 4, variants: ['When do you close on Sunday?', 'when do you open today'] },
      { text: 'Can I have my money back please', count: 2, sessions: 2, variants: ['How do I get a refund?'] },
      { text: 'Where can I park my car?', count: 1, sessions: 1, variants: [] },
    ]);
    expect(await groupQuestions([{ text: 'hi', sessionId: 'a' }], fakeEmbed)).toEqual([]);
  });
});

const T0 = Date.UTC(2026, 5, 1, 12, 0, 0);
let t: TestContext;
let server: http.Server;
let embedded: string[] = [];
let failEmbeddings = false;
type Signed = Awaited<ReturnType<typeof createSignedInUser>>;
let alice: Signed;
let bob: Signed;
let workerId: number;

function session(avatarId: number, owner: number, minutes: number, history: TLiveHistoryEntry[]) {
  const startedAt = new Date(T0 + minutes * 60_000);
  return insertLiveSession(t.database, { avatarId, ownerUserId: owner, workerId, avatarName: 'A', clientIp: '203.0.113.9', resumeHash: hashToken(randomUUID()), history, startedAt, endedAt: new Date(startedAt.getTime() + 60_000) });
}
const user = (text: string): TLiveHistoryEntry => ({ role: 'user', text, at: T0 });
const bot = (text: string): TLiveHistoryEntry => ({ role: 'assistant', text, at: T0 });
const range = { from: new Date(T0 - 3_600_000).toISOString(), to: new Date(T0 + 86_400_000).toISOString() };
const questionsOf = async (who: Signed, query: Record<string, string> = {}) => {
  const res = await t.app.inject({ method: 'GET', url: AnalyticsPaths.get, query: { ...range, ...query }, headers: who.headers });
  expect(res.statusCode, res.body).toBe(200);
  return (res.json().analytics as TAnalytics).questions!;
};

beforeAll(async () => {
  server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (failEmbeddings) return res.writeHead(503).end();
      const { input } = JSON.parse(body) as { input: string[] };
      embedded.push(...input);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data: input.map((text, index) => ({ index, embedding: vectorOf(text) })) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  t = await createTestApp({ EMBEDDINGS_URL: `${origin}/v1`, EMBEDDINGS_DIMENSIONS: '8' }, { now: () => new Date(T0 + 3_600_000) });
  alice = await createSignedInUser(t.app, t.database);
  bob = await createSignedInUser(t.app, t.database);
  const [w] = await t.database.db.insert(workers).values({ vpsId: `q-${randomUUID()}`, name: 'q', status: 'AVAILABLE', webSocket: 'ws://127.0.0.1:9/avatar-ws', lastPingTime: new Date() }).returning();
  workerId = w!.id;
});

afterAll(async () => {
  await t?.close();
  await new Promise((r) => server.close(r));
});

describe('frequent questions in analytics', () => {
  it('groups the scope’s visitor turns by meaning, never another account’s, embedding each phrasing once', async () => {
    const reception = (await createAvatar(t.database, alice.id, 'Reception')).id;
    const sales = (await createAvatar(t.database, alice.id, 'Sales')).id;
    const bobs = (await createAvatar(t.database, bob.id, 'Bob')).id;
    await session(reception, alice.id, 0, [bot('Hello! How can I help you today?'), user('What are your opening hours?'), bot('Nine to five.'), user('Where can I park my car?')]);
    await session(reception, alice.id, 5, [user('When do you open on Monday?'), user('ok')]);
    await session(reception, alice.id, 10, [user('what are your opening hours')]);
    await session(sales, alice.id, 15, [user('How do I get a refund?')]);
    await session(bobs, bob.id, 20, [user('Bob secret refund question here'), user('Bob secret refund question here')]);

    const all = await questionsOf(alice);
    expect(all.available).toBe(true);
    expect(all.sampled).toBe(6);
    expect(all.groups).toEqual([
      // A phrasing is shown as it was last written (the latest turns are read first).
      { text: 'what are your opening hours', count: 3, sessions: 3, variants: ['When do you open on Monday?'] },
      { text: 'How do I get a refund?', count: 1, sessions: 1, variants: [] },
      { text: 'Where can I park my car?', count: 1, sessions: 1, variants: [] },
    ]);
    expect(JSON.stringify(all)).not.toContain('Bob secret');
    // An avatar's own; the embeddings already made are not asked for again.
    embedded = [];
    const one = await questionsOf(alice, { avatarId: String(sales) });
    expect(one.groups).toEqual([{ text: 'How do I get a refund?', count: 1, sessions: 1, variants: [] }]);
    expect(embedded).toEqual([]);
  });

  it('reads the stored, redacted text; an embedding model that fails leaves the other figures', async () => {
    const avatarId = (await createAvatar(t.database, alice.id, 'Private')).id;
    const set = await t.app.inject({ method: 'POST', url: PrivacyPaths.set, headers: alice.headers, payload: { avatarId, redaction: { email: true }, retention: { mode: 'forever' } } });
    expect(set.statusCode, set.body).toBe(200);
    // Stored through the workers' door would be redacted; stored here as it would be.
    await session(avatarId, alice.id, 30, [user('Please mail the refund to [email] today')]);
    const q = await questionsOf(alice, { avatarId: String(avatarId) });
    expect(q.groups.map((g) => g.text)).toEqual(['Please mail the refund to [email] today']);
    failEmbeddings = true;
    await session(avatarId, alice.id, 40, [user('A brand new question about parking')]);
    const res = await t.app.inject({ method: 'GET', url: AnalyticsPaths.get, query: { ...range, avatarId: String(avatarId) }, headers: alice.headers });
    expect(res.statusCode).toBe(200);
    const a = res.json().analytics as TAnalytics;
    expect(a.sessions).toBe(2);
    expect(a.questions).toEqual({ available: false, sampled: 2, groups: [] });
    failEmbeddings = false;
  });
});
