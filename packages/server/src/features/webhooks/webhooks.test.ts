import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { LiveCode, LivePaths, WebhookLimits, WebhookPaths, type TWebhookDelivery, type TWebhookEndpoint, type TWebhookEvent } from '@persona/contract';
import { listen, readBody, type FakeServer } from '../../../../net/src/test/http-fake.js';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createAvatar, createSignedInUser } from '../../test/factories.js';
import { liveSessions, webhookDeliveries, webhookEndpoints, workers } from '../../db/schema/index.js';

// Issue 30, webhooks (ADR 093): signed events of an account's live sessions from a durable queue
// in the database; retries on a fake clock (no sleeps), the delivery log, the outbound URL rules.

type Receiver = {
  verifySignature(secret: string, header: unknown, raw: Buffer | string, nowSeconds?: number): string | null;
  createReceiver(opts: { secret: string; onEvent(e: TWebhookEvent): void; now?: () => number }): http.Server;
};
// The example receiver of docs/webhooks.md, run here against real deliveries.
const receiverFile = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../../../docs/webhooks/receiver.mjs');
const docs = (await import(pathToFileURL(receiverFile).href)) as Receiver;

/** An independent check of the header: parsed and recomputed here, not with the server's code. */
function independentlyVerified(secret: string, header: string, raw: string): { t: number } {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header);
  expect(m, header).not.toBeNull();
  const mac = createHmac('sha256', Buffer.from(secret, 'utf8')).update(Buffer.from(`${m![1]}.${raw}`, 'utf8')).digest();
  expect(timingSafeEqual(mac, Buffer.from(m![2]!, 'hex'))).toBe(true);
  return { t: Number(m![1]) };
}

const T0 = Date.UTC(2026, 10, 29, 12, 0, 0);
let clock = T0;
const at = () => new Date(clock);

let t: TestContext;
type Signed = Awaited<ReturnType<typeof createSignedInUser>>;
let alice: Signed;
let bob: Signed;
let aliceAvatar: number;
let workerId: number;

/** A receiver whose answers the test scripts; it keeps what it got. */
interface Hooked {
  server: FakeServer;
  got: { headers: http.IncomingHttpHeaders; raw: string; url: string }[];
  answers: number[];
}
async function hooked(fallback = 204): Promise<Hooked> {
  const h: Hooked = { got: [], answers: [], server: undefined as never };
  h.server = await listen(async (req, res) => {
    h.got.push({ headers: req.headers, raw: await readBody(req), url: req.url ?? '' });
    const status = h.answers.shift() ?? fallback;
    if (status >= 300 && status < 400) res.writeHead(status, { location: `${h.server.origin}/elsewhere` }).end();
    else res.writeHead(status).end(status >= 400 ? 'not now' : '');
  });
  return h;
}

const post = (who: Signed, url: string, payload: unknown, app = t) => app.app.inject({ method: 'POST', url, payload: payload as object, headers: who.headers });
const get = (who: Signed, url: string, query: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, query, headers: who.headers });

async function addEndpoint(who: Signed, url: string, events: string[] = ['session.started', 'session.ended', 'transcript.ready'], avatarId: number | null = null) {
  const res = await post(who, WebhookPaths.add, { url, avatarId, events });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { webhook: TWebhookEndpoint; secret: string };
}

const deliveriesOf = async (endpointId: number): Promise<TWebhookDelivery[]> => t.app.webhooks.deliveries(alice.id, endpointId, 100);

beforeAll(async () => {
  // ALLOW_PRIVATE_URLS: the receivers listen on 127.0.0.1 (development and tests, like the rest of the product).
  t = await createTestApp({ ALLOW_PRIVATE_URLS: 'true' }, { now: at, webhookTimings: { pollMs: 0, random: () => 0.5 } });
  alice = await createSignedInUser(t.app, t.database);
  bob = await createSignedInUser(t.app, t.database);
  aliceAvatar = (await createAvatar(t.database, alice.id, 'Reception')).id;
  const [w] = await t.database.db.insert(workers).values({ vpsId: `hooks-${randomUUID()}`, name: 'hooks', status: 'AVAILABLE', webSocket: 'ws://127.0.0.1:9/avatar-ws', lastPingTime: new Date(T0 + 3_600_000) }).returning();
  workerId = w!.id;
});

afterAll(async () => {
  await t?.close();
});

it('docs/webhooks.md shows the example receiver’s verifySignature as the file has it', async () => {
  const fs = await import('node:fs/promises');
  const fn = (text: string) => /^export function verifySignature[\s\S]*?^}$/m.exec(text)?.[0].split('\n').filter((l) => !/^\s*\/\//.test(l)).join('\n');
  const file = fn(await fs.readFile(receiverFile, 'utf8'));
  expect(file).toBeTruthy();
  expect(fn(await fs.readFile(path.resolve(path.dirname(receiverFile), '../webhooks.md'), 'utf8'))).toBe(file);
});

describe('endpoints', () => {
  it('shows the secret once, keeps it sealed and never lists it; validates strictly', async () => {
    const { webhook, secret } = await addEndpoint(alice, 'https://hooks.example.com/persona');
    expect(secret).toMatch(/^whsec_[\w-]{43}$/);
    const list = await get(alice, WebhookPaths.list);
    expect(list.statusCode).toBe(200);
    expect(list.body).not.toContain(secret);
    expect(list.body).not.toContain('whsec_');
    expect(list.json().webhooks.map((w: TWebhookEndpoint) => w.id)).toContain(webhook.id);
    const [row] = await t.database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, webhook.id));
    expect(row!.secretSealed).not.toContain(secret.slice(6));
    expect(t.app.secretBox.open(row!.secretSealed)).toBe(secret);

    const rolled = await post(alice, WebhookPaths.rollSecret, { id: webhook.id });
    expect(rolled.json().secret).toMatch(/^whsec_/);
    expect(rolled.json().secret).not.toBe(secret);

    for (const bad of [
      { url: 'ftp://hooks.example.com/', avatarId: null, events: ['session.ended'] },
      { url: 'https://hooks.example.com/', avatarId: null, events: [] },
      { url: 'https://hooks.example.com/', avatarId: null, events: ['session.exploded'] },
      { url: 'https://hooks.example.com/', avatarId: null, events: ['session.ended'], secret: 'mine' },
      { url: 'https://user:pw@hooks.example.com/', avatarId: null, events: ['session.ended'] },
    ]) {
      const res = await post(alice, WebhookPaths.add, bad);
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
    }
    // Another account's avatar is not one of yours.
    const bobAvatar = (await createAvatar(t.database, bob.id, 'Bob')).id;
    expect((await post(alice, WebhookPaths.add, { url: 'https://hooks.example.com/', avatarId: bobAvatar, events: ['session.ended'] })).statusCode).toBe(404);
    expect((await post(alice, WebhookPaths.delete, { id: webhook.id })).statusCode).toBe(200);
    expect((await get(alice, WebhookPaths.list)).json().webhooks).toEqual([]);
  });

  it("answers 404 for another account's endpoint and delivery, like a missing one", async () => {
    const { webhook } = await addEndpoint(alice, 'https://hooks.example.com/alice');
    const ping = (await post(alice, WebhookPaths.test, { id: webhook.id })).json().delivery as TWebhookDelivery;
    const calls: [string, unknown][] = [
      [WebhookPaths.update, { id: webhook.id, enabled: false }],
      [WebhookPaths.delete, { id: webhook.id }],
      [WebhookPaths.rollSecret, { id: webhook.id }],
      [WebhookPaths.test, { id: webhook.id }],
      [WebhookPaths.resend, { id: ping.id }],
    ];
    for (const [url, payload] of calls) expect((await post(bob, url, payload)).statusCode, url).toBe(404);
    expect((await get(bob, WebhookPaths.deliveries, { endpointId: String(webhook.id) })).statusCode).toBe(404);
    expect((await get(bob, WebhookPaths.list)).json().webhooks).toEqual([]);
    expect((await get(alice, WebhookPaths.deliveries, { endpointId: String(webhook.id) })).json().deliveries).toHaveLength(1);
    await post(alice, WebhookPaths.delete, { id: webhook.id });
  });
});

describe('deliveries', () => {
  it("signs a live session's events; the docs' receiver verifies them", async () => {
    const events: TWebhookEvent[] = [];
    const placeholder = await addEndpoint(alice, 'http://127.0.0.1:9/placeholder');
    const receiver = docs.createReceiver({ secret: placeholder.secret, onEvent: (e) => events.push(e), now: () => Math.floor(clock / 1000) });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    try {
      const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      await post(alice, WebhookPaths.update, { id: placeholder.webhook.id, url, avatarId: aliceAvatar });

      const start = await t.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId: aliceAvatar, textOnly: true } });
      expect(start.statusCode, start.body).toBe(200);
      const sessionId = start.json().sessionId as string;
      // Queued with the session's row, sent by the next dispatch.
      expect(await t.app.webhooks.dispatchDue()).toBe(1);
      expect(events.map((e) => e.type)).toEqual(['session.started']);
      expect(events[0]).toMatchObject({ version: 1, type: 'session.started', data: { sessionId, avatarId: aliceAvatar, channel: 'chat-widget' } });

      const history = [
        { role: 'assistant' as const, text: 'Hello!', at: clock + 1_000 },
        { role: 'user' as const, text: 'When do you open?', at: clock + 5_000 },
        { role: 'assistant' as const, text: 'At nine.', at: clock + 6_000 },
      ];
      await t.database.db.update(liveSessions).set({ history }).where(eq(liveSessions.id, sessionId));
      clock += 95_000;
      // The worker's end report: it records the end (the events queued in its transaction) and is the report they wait for.
      const rpc = await t.app.live.handleRpc(workerId, 'session.end', { sessionId, code: LiveCode.hangUp, summary: 'Asked for the opening hours.' });
      expect(rpc).toEqual({ ok: true, result: {} });
      expect(await t.app.webhooks.dispatchDue()).toBe(2);
      const ended = events.find((e) => e.type === 'session.ended');
      expect(ended).toMatchObject({
        version: 1,
        type: 'session.ended',
        data: { sessionId, avatarId: aliceAvatar, durationSeconds: 95, turns: 1, outcome: 'hang-up', endCode: LiveCode.hangUp, summary: 'Asked for the opening hours.' },
      });
      expect(ended!.id).toMatch(/^evt_/);
      const transcript = events.find((e) => e.type === 'transcript.ready');
      expect(transcript?.type === 'transcript.ready' && transcript.data.turns.map((x) => [x.role, x.text])).toEqual([
        ['avatar', 'Hello!'],
        ['visitor', 'When do you open?'],
        ['avatar', 'At nine.'],
      ]);
      const log = await deliveriesOf(placeholder.webhook.id);
      expect(log.map((d) => [d.type, d.status, d.attempts, d.responseStatus])).toEqual(
        expect.arrayContaining([
          ['session.started', 'delivered', 1, 204],
          ['session.ended', 'delivered', 1, 204],
          ['transcript.ready', 'delivered', 1, 204],
        ]),
      );
    } finally {
      receiver.close();
      await post(alice, WebhookPaths.delete, { id: placeholder.webhook.id });
    }
  });

  it('sends function.failed when the worker reports a failed function, at most 20 a session', async () => {
    const h = await hooked();
    const { webhook, secret } = await addEndpoint(alice, `${h.server.origin}/functions`, ['function.failed'], aliceAvatar);
    try {
      const start = (await t.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId: aliceAvatar, textOnly: true } })).json();
      expect(await t.app.live.handleRpc(workerId, 'session.function_failed', { sessionId: start.sessionId, name: 'get_weather', error: 'KeyError: city' })).toEqual({ ok: true, result: {} });
      expect(await t.app.webhooks.dispatchDue()).toBe(1);
      const body = JSON.parse(h.got[0]!.raw) as TWebhookEvent;
      expect(body).toMatchObject({ version: 1, type: 'function.failed', data: { sessionId: start.sessionId, avatarId: aliceAvatar, avatarName: 'Reception', function: 'get_weather', error: 'KeyError: city' } });
      independentlyVerified(secret, String(h.got[0]!.headers['persona-signature']), h.got[0]!.raw);
      for (let i = 0; i < 25; i++) await t.app.live.handleRpc(workerId, 'session.function_failed', { sessionId: start.sessionId, name: 'loop', error: null });
      expect(await t.app.webhooks.dispatchDue()).toBe(WebhookLimits.functionFailuresPerSession - 1);
      // Another worker's report about this session is refused.
      expect(await t.app.live.handleRpc(workerId + 1000, 'session.function_failed', { sessionId: start.sessionId, name: 'x', error: null })).toMatchObject({ ok: false });
      await t.app.inject({ method: 'POST', url: LivePaths.end, payload: { sessionId: start.sessionId, resumeToken: start.resumeToken } });
    } finally {
      await h.server.close();
      await post(alice, WebhookPaths.delete, { id: webhook.id });
    }
  });

  it('waits for the worker’s report after a hang-up, then sends session.ended without a summary', async () => {
    const h = await hooked();
    const { webhook, secret } = await addEndpoint(alice, `${h.server.origin}/ended`, ['session.ended']);
    try {
      const start = (await t.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId: aliceAvatar, textOnly: true } })).json();
      expect(await t.app.webhooks.dispatchDue()).toBe(0);
      clock += 30_000;
      expect((await t.app.inject({ method: 'POST', url: LivePaths.end, payload: { sessionId: start.sessionId, resumeToken: start.resumeToken } })).statusCode).toBe(200);
      expect(await t.app.webhooks.dispatchDue()).toBe(0);
      clock += 15_000;
      expect(await t.app.webhooks.dispatchDue()).toBe(1);
      const body = JSON.parse(h.got[0]!.raw) as TWebhookEvent;
      expect(body).toMatchObject({ type: 'session.ended', data: { sessionId: start.sessionId, outcome: 'hang-up', durationSeconds: 30, turns: 0, summary: null } });
      const { t: ts } = independentlyVerified(secret, String(h.got[0]!.headers['persona-signature']), h.got[0]!.raw);
      expect(ts).toBe(Math.floor(clock / 1000));
      expect(h.got[0]!.headers['content-type']).toBe('application/json');
    } finally {
      await h.server.close();
      await post(alice, WebhookPaths.delete, { id: webhook.id });
    }
  });

  it('retries a receiver that fails twice with backoff, then logs it delivered; resend sends the same event again', async () => {
    const h = await hooked();
    h.answers.push(500, 503);
    const { webhook, secret } = await addEndpoint(alice, `${h.server.origin}/flaky`);
    try {
      const queued = (await post(alice, WebhookPaths.test, { id: webhook.id })).json().delivery as TWebhookDelivery;
      expect(queued).toMatchObject({ type: 'ping', status: 'pending', attempts: 0 });
      const t0 = clock;
      await t.app.webhooks.dispatchDue();
      let [d] = await deliveriesOf(webhook.id);
      // First retry 30 s later (the jitter is fixed at its middle here), then 60 s.
      expect(d).toMatchObject({ status: 'pending', attempts: 1, responseStatus: 500, lastError: 'HTTP 500', nextAttemptAt: new Date(t0 + 30_000).toISOString() });
      clock = t0 + 29_999;
      expect(await t.app.webhooks.dispatchDue()).toBe(0);
      clock = t0 + 30_000;
      expect(await t.app.webhooks.dispatchDue()).toBe(1);
      [d] = await deliveriesOf(webhook.id);
      expect(d).toMatchObject({ status: 'pending', attempts: 2, responseStatus: 503, nextAttemptAt: new Date(t0 + 90_000).toISOString() });
      clock = t0 + 90_000;
      expect(await t.app.webhooks.dispatchDue()).toBe(1);
      [d] = await deliveriesOf(webhook.id);
      expect(d).toMatchObject({ status: 'delivered', attempts: 3, responseStatus: 204, lastError: null, nextAttemptAt: null, deliveredAt: new Date(t0 + 90_000).toISOString() });
      // The log as the portal reads it.
      const log = (await get(alice, WebhookPaths.deliveries, { endpointId: String(webhook.id) })).json().deliveries as TWebhookDelivery[];
      expect(log[0]).toMatchObject({ id: d!.id, status: 'delivered', attempts: 3 });
      // Every attempt the same body, each signed at its own time.
      expect(new Set(h.got.map((g) => g.raw)).size).toBe(1);
      expect(h.got.map((g) => independentlyVerified(secret, String(g.headers['persona-signature']), g.raw).t)).toEqual([t0, t0 + 30_000, t0 + 90_000].map((ms) => Math.floor(ms / 1000)));
      expect(docs.verifySignature(secret, h.got[2]!.headers['persona-signature'], h.got[2]!.raw, Math.floor(clock / 1000))).toBeNull();
      // Stale: the documented receiver refuses it 5 minutes later.
      expect(docs.verifySignature(secret, h.got[2]!.headers['persona-signature'], h.got[2]!.raw, Math.floor(clock / 1000) + 301)).toBe('stale timestamp');
      expect(docs.verifySignature(secret, h.got[2]!.headers['persona-signature'], h.got[2]!.raw.replace('test', 'tost'), Math.floor(clock / 1000))).toBe('bad signature');

      const again = (await post(alice, WebhookPaths.resend, { id: d!.id })).json().delivery as TWebhookDelivery;
      expect(again).toMatchObject({ eventId: d!.eventId, status: 'pending' });
      expect(await t.app.webhooks.dispatchDue()).toBe(1);
      expect(JSON.parse(h.got[3]!.raw).id).toBe(d!.eventId);
    } finally {
      await h.server.close();
      await post(alice, WebhookPaths.delete, { id: webhook.id });
    }
  });

  it('gives up after 24 h: the last attempt at the window’s end, then failed', async () => {
    const h = await hooked(503);
    const { webhook } = await addEndpoint(alice, `${h.server.origin}/down`);
    try {
      await post(alice, WebhookPaths.test, { id: webhook.id });
      const t0 = clock;
      const gaps: number[] = [];
      let d: TWebhookDelivery | undefined;
      for (let i = 0; i < 40; i++) {
        await t.app.webhooks.dispatchDue();
        [d] = await deliveriesOf(webhook.id);
        if (d!.status !== 'pending') break;
        gaps.push(Date.parse(d!.nextAttemptAt!) - clock);
        clock = Date.parse(d!.nextAttemptAt!);
      }
      expect(d).toMatchObject({ status: 'failed', responseStatus: 503, nextAttemptAt: null });
      expect(Date.parse(d!.lastAttemptAt!)).toBe(t0 + WebhookLimits.retryWindowMs);
      expect(gaps.slice(0, 5)).toEqual([30_000, 60_000, 120_000, 240_000, 480_000]);
      expect(Math.max(...gaps)).toBeLessThanOrEqual(WebhookLimits.retryMaxDelayMs);
      expect(h.got).toHaveLength(d!.attempts);
      expect(d!.attempts).toBeGreaterThan(10);
      expect(await t.app.webhooks.dispatchDue()).toBe(0);
    } finally {
      await h.server.close();
      await post(alice, WebhookPaths.delete, { id: webhook.id });
    }
  });

  it('two instances sending from one queue send each delivery once (claims skip locked rows)', async () => {
    const h = await hooked();
    const { webhook } = await addEndpoint(alice, `${h.server.origin}/shared`);
    const second = await createTestApp({ ALLOW_PRIVATE_URLS: 'true' }, { now: at, database: t.database, webhookTimings: { pollMs: 0 } });
    try {
      for (let i = 0; i < 40; i++) await post(alice, WebhookPaths.test, { id: webhook.id });
      const [a, b] = await Promise.all([t.app.webhooks.dispatchDue(), second.app.webhooks.dispatchDue()]);
      expect(a + b).toBe(40);
      expect(h.got).toHaveLength(40);
      expect(new Set(h.got.map((g) => JSON.parse(g.raw).id)).size).toBe(40);
      expect((await deliveriesOf(webhook.id)).every((d) => d.status === 'delivered' && d.attempts === 1)).toBe(true);
    } finally {
      await second.close();
      await h.server.close();
      await post(alice, WebhookPaths.delete, { id: webhook.id });
    }
  });

  it('does not follow a redirect: a 3xx is a failed attempt', async () => {
    const h = await hooked();
    h.answers.push(302);
    const { webhook } = await addEndpoint(alice, `${h.server.origin}/moved`);
    try {
      await post(alice, WebhookPaths.test, { id: webhook.id });
      await t.app.webhooks.dispatchDue();
      const [d] = await deliveriesOf(webhook.id);
      expect(d).toMatchObject({ status: 'pending', attempts: 1, responseStatus: 302 });
      expect(d!.lastError).toMatch(/not followed/);
      expect(h.got.map((g) => g.url)).toEqual(['/moved']);
    } finally {
      await h.server.close();
      await post(alice, WebhookPaths.delete, { id: webhook.id });
    }
  });
});

describe('outbound URL rules without ALLOW_PRIVATE_URLS (production)', () => {
  let prod: TestContext;
  let carol: Signed;
  beforeAll(async () => {
    prod = await createTestApp({}, { now: at, webhookTimings: { pollMs: 0 } });
    carol = await createSignedInUser(prod.app, prod.database);
  });
  afterAll(async () => {
    await prod?.close();
  });

  it('refuses http and private addresses at save, and a private address at send', async () => {
    for (const url of ['http://hooks.example.com/', 'https://127.0.0.1/x', 'https://10.1.2.3/x', 'https://[::1]/x', 'https://localhost/x', 'https://169.254.169.254/latest']) {
      const res = await post(carol, WebhookPaths.add, { url, avatarId: null, events: ['session.ended'] }, prod);
      expect(res.statusCode, url).toBe(400);
    }
    // A row that names a loopback address anyway (saved before, or a name that resolves to one): refused when sending.
    const h = await hooked();
    try {
      const ok = (await post(carol, WebhookPaths.add, { url: 'https://hooks.example.com/x', avatarId: null, events: ['session.ended'] }, prod)).json();
      await prod.database.db.update(webhookEndpoints).set({ url: `${h.server.origin}/private` }).where(eq(webhookEndpoints.id, ok.webhook.id));
      await post(carol, WebhookPaths.test, { id: ok.webhook.id }, prod);
      expect(await prod.app.webhooks.dispatchDue()).toBe(1);
      const [d] = await prod.database.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, ok.webhook.id));
      expect(d).toMatchObject({ status: 'pending', attempts: 1, responseStatus: null });
      expect(d!.lastError).toMatch(/private|public/);
      expect(h.got).toHaveLength(0);
    } finally {
      await h.server.close();
    }
  });
});
