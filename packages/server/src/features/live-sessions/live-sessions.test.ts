import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { AvatarMessages, FailReason, LiveCode, LiveMessages, LivePaths, LiveProtocol, type TLiveStartAnswer } from '@persona/contract';
import type { LiveWorkerHandle } from '@persona/worker';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createSignedInUser, multipart, validAvatar } from '../../test/factories.js';
import { PageClient, startBillingFake, startEmbeddedWorker, startSeparateWorker, until } from '../../test/live.js';
import { avatars, callRecords, liveSessions, oauthApps, oauthGrants } from '../../db/schema/index.js';

let t: TestContext;
let base: string;
let owner: Awaited<ReturnType<typeof createSignedInUser>>;
let admin: Awaited<ReturnType<typeof createSignedInUser>>;
let embedded: LiveWorkerHandle;
const extraWorkers: LiveWorkerHandle[] = [];
const pages: PageClient[] = [];
let nextIp = 1;

beforeAll(async () => {
  // ALLOW_PRIVATE_URLS: the billing-auth fake listens on 127.0.0.1.
  t = await createTestApp({ ALLOW_PRIVATE_URLS: 'true', PLAN_MAX_AVATARS: 'FREE=unlimited,STARTER=unlimited,PRO=unlimited,ENTERPRISE=unlimited' }, { liveTimings: { staleSessionSeconds: 1, sweepIntervalMs: 150 } });
  base = await t.app.listen({ port: 0, host: '127.0.0.1' });
  owner = await createSignedInUser(t.app, t.database);
  admin = await createSignedInUser(t.app, t.database, { userType: 'ADMIN' });
  embedded = await startEmbeddedWorker(t, base);
});
afterAll(async () => {
  for (const p of pages) p.close();
  await Promise.all([embedded, ...extraWorkers].map((w) => w.stop()));
  await t.close();
});

async function avatar(config: Record<string, unknown> = {}, values: { nlpEngine?: number; name?: string } = {}) {
  const [row] = await t.database.db
    .insert(avatars)
    .values({ userId: owner.id, name: values.name ?? 'Ava', nlpEngine: values.nlpEngine ?? 0, config: { wakeUpMessage: 'Hello! How can I help?', idleTimeout: 300, dailyLimitPerSession: -1, dailyLimitPerIP: -1, dailyLimits: { Demo: -1 }, ...config } })
    .returning();
  return row!;
}

/** Each test speaks from its own address (per-IP rules), as the visitor's browser would. */
const ipHeaders = () => ({ 'x-forwarded-for': `198.51.100.${nextIp++}` });

async function start(body: Record<string, unknown>, headers: Record<string, string> = ipHeaders()) {
  const res = await t.app.inject({ method: 'POST', url: LivePaths.start, payload: body, headers, remoteAddress: headers['x-forwarded-for'] });
  return { status: res.statusCode, body: res.json() as TLiveStartAnswer };
}

function page(answer: TLiveStartAnswer, opts?: { hello?: boolean; voice?: boolean }) {
  const p = new PageClient(answer, opts);
  pages.push(p);
  return p;
}

async function callRecordOf(sessionId: string) {
  const [row] = await t.database.db.select().from(callRecords).where(eq(callRecords.sessionId, sessionId));
  return row;
}

describe('live sessions: page config and admission', () => {
  it('page config: public facts only; 404 with the code for an unknown avatar', async () => {
    const a = await avatar({ encKeyId: 5, restApiKey: 'secret-value', customData: { agent_pipeline_config: { llm: { api_key: 'sk-secret' } } } }, { nlpEngine: 10, name: 'Maya' });
    const res = await t.app.inject({ url: LivePaths.pageConfig(a.id) });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      status: 'OK',
      avatar: { id: a.id, name: 'Maya', photoUrl: null, dhType: 2, avatarConfigUrl: null, tokenRequired: true, oauth: null, engineName: 'Large Language Model' },
    });
    expect(res.body).not.toContain('secret');
    const missing = await t.app.inject({ url: LivePaths.pageConfig(999_999) });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ status: 'FAIL', code: LiveCode.avatarNotFound, errors: [LiveMessages['avatar-not-found']] });
    expect((await start({ avatarId: 999_999 })).body).toMatchObject({ status: 'FAIL', code: 'avatar-not-found', failReason: FailReason.RoomNotFoundError });
  });

  it("page config: the product's own URLs are same-origin paths (the page works at any address it is opened at), others as stored", async () => {
    const own = await avatar({ avatarConfigURL: 'http://portal.test/config/avatars/42.json', avatarPhotoURL: 'https://cdn.example/maya.png' });
    const a = (await t.app.inject({ url: LivePaths.pageConfig(own.id) })).json().avatar;
    expect(a.avatarConfigUrl).toBe('/config/avatars/42.json');
    expect(a.photoUrl).toBe('https://cdn.example/maya.png');
    const foreign = await avatar({ avatarConfigURL: 'https://portal.test.evil.example/config/avatars/42.json' });
    expect((await t.app.inject({ url: LivePaths.pageConfig(foreign.id) })).json().avatar.avatarConfigUrl).toBe('https://portal.test.evil.example/config/avatars/42.json');
  });

  it('echo avatar: ticket → worker socket → wake-up message → echo round trip → bye → call record with its duration', async () => {
    const a = await avatar();
    const { status, body } = await start({ avatarId: a.id, visitorId: 'visitor-echo-1', client: { deviceOS: 'Linux', locale: 'en-GB' } });
    expect(status).toBe(200);
    expect(body).toMatchObject({ status: 'OK', wsUrl: `${base.replace('http', 'ws')}/avatar-ws`, ui: { wakeUpMessage: 'Hello! How can I help?', idleTimeoutSeconds: 300, demoSeconds: -1 } });
    expect(body.ticket).toMatch(/^[\w-]+\.[\w-]+$/);
    const p = page(body);
    const ready = await p.waitFor('ready');
    // ready.echo is the daily limit's echo-back (the page says so), not the EchoTest engine.
    expect(ready).toMatchObject({ sessionId: body.sessionId, echo: false, resumed: false, history: [] });
    await p.waitFor('assistant', (f) => f.final && f.text === 'Hello! How can I help?');

    // Presence: the owner's My Online Users, the avatar card's count, the admin's Online Users.
    const mine = await t.app.inject({ method: 'POST', url: '/api/list_avatar_users', headers: owner.headers, payload: { agentId: a.id, mode: 'get' } });
    expect(mine.json().onlineUsers).toEqual([expect.objectContaining({ sessionId: body.sessionId, deviceOS: 'Linux', locale: 'en-GB', onlineStatus: 'ONLINE' })]);
    const all = await t.app.inject({ method: 'POST', url: '/api/list_online_users', headers: admin.headers, payload: { mode: 'get' } });
    expect(all.json().onlineUsers.map((u: { sessionId: string }) => u.sessionId)).toContain(body.sessionId);

    p.text('Is anybody there?', 'm1');
    await p.waitFor('transcript', (f) => f.id === 'm1' && f.final && f.text === 'Is anybody there?');
    await p.waitFor('assistant', (f) => f.final && f.text === 'Is anybody there?');
    expect(p.of('assistant').some((f) => !f.final && f.delta === 'Is anybody there?')).toBe(true);
    await new Promise((r) => setTimeout(r, 1100));
    p.send({ type: 'bye' });
    await until(async () => (await callRecordOf(body.sessionId!)) !== undefined);
    const record = (await callRecordOf(body.sessionId!))!;
    expect(record).toMatchObject({ userId: owner.id, avatarId: a.id, avatarName: 'Ava' });
    expect(record.durationSeconds).toBeGreaterThanOrEqual(1);
    expect(record.durationSeconds).toBeLessThan(10);
    await until(async () => (await t.app.inject({ method: 'POST', url: '/api/list_avatar_users', headers: owner.headers, payload: { agentId: a.id, mode: 'get' } })).json().onlineUsers.length === 0);
    const [row] = await t.database.db.select().from(liveSessions).where(eq(liveSessions.id, body.sessionId!));
    expect(row).toMatchObject({ endCode: LiveCode.hangUp });
    expect(row!.history.map((h) => [h.role, h.text])).toEqual([
      ['assistant', 'Hello! How can I help?'],
      ['user', 'Is anybody there?'],
      ['assistant', 'Is anybody there?'],
    ]);
  });

  it('voice: an avatar with no TTS keys speaks with the offline voice, audio as long as its words', async () => {
    const a = await avatar({ wakeUpMessage: 'Hello there, nice to meet you.' });
    const { body } = await start({ avatarId: a.id, visitorId: 'visitor-voice-1' });
    const p = page(body, { voice: true });
    const ready = await p.waitFor('ready');
    expect(ready.audioSampleRate).toBeGreaterThan(0);
    await p.waitFor('utterance', (f) => f.phase === 'start', 20_000);
    await p.waitFor('utterance', (f) => f.phase === 'end', 30_000);
    expect(p.of('visemes').length).toBeGreaterThan(0);
    const samples = p.audio.reduce((n, frame) => n + (frame.length - 8) / 2, 0);
    const seconds = samples / ready.audioSampleRate;
    // Six words of speech: about 1.5-4 s, not silence and not a runaway.
    expect(seconds).toBeGreaterThan(1);
    expect(seconds).toBeLessThan(6);
    // Every audio frame is the avatar's (kind 2) for that utterance.
    expect(new Set(p.audio.map((f) => `${f[0]}:${f.readUInt16LE(2)}`))).toEqual(new Set(['2:1']));
    p.send({ type: 'bye' });
  });

  it('a ticket works once: a replay, a forged and a garbled ticket are refused with ticket-invalid', async () => {
    const a = await avatar();
    const { body } = await start({ avatarId: a.id });
    const first = page(body);
    await first.waitFor('ready');
    const replay = page(body);
    expect(await replay.waitClosed()).toBe(LiveProtocol.close.ticketRefused);
    expect(replay.of('error')[0]).toMatchObject({ code: LiveCode.ticketInvalid, fatal: true });
    const [claims] = body.ticket!.split('.');
    const forged = page({ ...body, ticket: `${claims}.${'A'.repeat(43)}` });
    expect(await forged.waitClosed()).toBe(LiveProtocol.close.ticketRefused);
    const garbled = page(body, { hello: false });
    await garbled.open;
    garbled.send({ type: 'hello', protocol: 1 });
    expect(await garbled.waitClosed()).toBe(LiveProtocol.close.badFrame);
    first.send({ type: 'bye' });
    await first.waitClosed();
  });

  it('token: required when the avatar has an encryption key; a bad one is refused; the owner\u2019s key signs a valid one', async () => {
    const key = await t.app.inject({ method: 'POST', url: '/api/add_encryption_key', headers: owner.headers, payload: { name: 'site key' } });
    expect(key.statusCode).toBe(200);
    const { id: keyId, encKey } = key.json().encKey as { id: number; encKey: string };
    const a = await avatar({ encKeyId: keyId });
    // The page learns it from its config before anything is offered (issue 26, item 14: no Connect
    // that can only fail), and the refusal is the spec's InvalidToken.
    expect((await t.app.inject({ url: LivePaths.pageConfig(a.id) })).json().avatar.tokenRequired).toBe(true);
    expect((await start({ avatarId: a.id })).body).toMatchObject({ status: 'FAIL', code: LiveCode.tokenRequired, failReason: FailReason.InvalidToken, errors: [LiveMessages['token-required']] });
    expect((await start({ avatarId: a.id, token: 'a.b.c' })).body).toMatchObject({ code: LiveCode.tokenInvalid });
    const { mintAvatarToken } = await import('../encryption-keys/avatar-token.js');
    const expired = mintAvatarToken(encKey, { avatarId: a.id, expiresInSeconds: 60 }, new Date(Date.now() - 3600_000));
    expect((await start({ avatarId: a.id, token: expired })).body).toMatchObject({ code: LiveCode.tokenExpired });
    const otherAvatar = mintAvatarToken(encKey, { avatarId: a.id + 1, expiresInSeconds: 60 });
    expect((await start({ avatarId: a.id, token: otherAvatar })).body).toMatchObject({ code: LiveCode.tokenInvalid });
    const good = mintAvatarToken(encKey, { avatarId: a.id, expiresInSeconds: 60 });
    const ok = await start({ avatarId: a.id, token: good });
    expect(ok.body.status).toBe('OK');
    await t.app.inject({ method: 'POST', url: LivePaths.end, payload: { sessionId: ok.body.sessionId, resumeToken: ok.body.resumeToken } });
  });

  it('OAuth: a grant is required and works once', async () => {
    const [app] = await t.database.db
      .insert(oauthApps)
      .values({ userId: owner.id, name: 'Staff sign-in', partner: 'Google', clientId: 'cid', clientSecretSealed: 'x', oauthUrl: 'https://accounts.example.com/auth', tokenIssueUrl: 'https://accounts.example.com/token' })
      .returning();
    const a = await avatar({ oauthEnabled: 1, partnerOauthAppId: app!.id });
    const oauth = (await t.app.inject({ url: LivePaths.pageConfig(a.id) })).json().avatar.oauth as { startUrl: string };
    // The start link is signed (issue 26): it opens the sign-in; the bare route does not.
    expect(oauth).toEqual({ appId: app!.id, startUrl: expect.stringMatching(new RegExp(`^/api/oauth/start/${app!.id}\\?start=v1%3A`)), provider: 'Staff sign-in' });
    expect((await t.app.inject({ url: oauth.startUrl })).headers.location).toMatch(/^https:\/\/accounts\.example\.com\/auth\?/);
    expect((await t.app.inject({ url: `/api/oauth/start/${app!.id}` })).statusCode).toBe(400);
    expect((await start({ avatarId: a.id })).body).toMatchObject({ code: LiveCode.oauthRequired, failReason: FailReason.AuthenticationFailed });
    const grant = 'g'.repeat(43);
    await t.database.db.insert(oauthGrants).values({ appId: app!.id, sessionHash: createHash('sha256').update(grant).digest('hex'), subject: 'staff-1', tokensSealed: 'x', expiresAt: new Date(Date.now() + 3600_000) });
    const ok = await start({ avatarId: a.id, oauthGrant: grant });
    expect(ok.body.status).toBe('OK');
    expect((await start({ avatarId: a.id, oauthGrant: grant })).body).toMatchObject({ code: LiveCode.oauthFailed });
    await t.app.inject({ method: 'POST', url: LivePaths.end, payload: { sessionId: ok.body.sessionId, resumeToken: ok.body.resumeToken } });
  });

  it('allowed origins: other embedding sites are refused; the page carries frame-ancestors from the list and the portal (* when empty)', async () => {
    const a = await avatar({ allowedOrigins: ['https://shop.example.com'] });
    expect((await start({ avatarId: a.id, hostOrigin: 'https://evil.example.net' })).body).toMatchObject({ code: LiveCode.originNotAllowed });
    expect((await start({ avatarId: a.id }, { ...ipHeaders(), origin: 'https://evil.example.net' })).body).toMatchObject({ code: LiveCode.originNotAllowed });
    const ok = await start({ avatarId: a.id, hostOrigin: 'https://shop.example.com' }, { ...ipHeaders(), origin: 'http://portal.test' });
    expect(ok.body.status).toBe('OK');
    await t.app.inject({ method: 'POST', url: LivePaths.end, payload: { sessionId: ok.body.sessionId, resumeToken: ok.body.resumeToken } });
    const open = await avatar();
    const [pageOf, pageOpen] = await Promise.all([t.app.inject({ url: LivePaths.page(a.id) }), t.app.inject({ url: LivePaths.page(open.id) })]);
    // The test app has no web build: the page answers 503, with the same headers a build gets.
    expect(pageOf.statusCode).toBe(503);
    const cspOf = String(pageOf.headers['content-security-policy']);
    // The portal itself may always frame it: the editor's Live Preview (issue 26, item 13).
    expect(cspOf).toContain("frame-ancestors 'self' http://portal.test https://shop.example.com;");
    expect(String(pageOpen.headers['content-security-policy'])).toContain('frame-ancestors *');
    expect(pageOpen.headers['x-frame-options']).toBeUndefined();

    // A frame of a site not on the list (Sec-Fetch-Dest, Referer) gets the refusal page: frameable
    // anywhere, no connections, nothing to post. Frames of the listed site or of the portal, and the
    // page opened in a tab, get the avatar page with the list.
    const pageAs = async (headers: Record<string, string>) => String((await t.app.inject({ url: LivePaths.page(a.id), headers })).headers['content-security-policy']);
    const refusal = await pageAs({ 'sec-fetch-dest': 'iframe', referer: 'https://evil.example.net/some/page' });
    expect(refusal).toContain('frame-ancestors *');
    expect(refusal).toContain("connect-src 'none'");
    expect(refusal).toContain("form-action 'none'");
    const notRefused: Record<string, string>[] = [
      { 'sec-fetch-dest': 'iframe', referer: 'https://shop.example.com/checkout' },
      { 'sec-fetch-dest': 'iframe', referer: 'http://portal.test/react/avatars' },
      { 'sec-fetch-dest': 'document', referer: 'https://evil.example.net/' },
      // No Referer (referrerpolicy=no-referrer) or no Sec-Fetch-Dest (an older browser): the browser's check decides.
      { 'sec-fetch-dest': 'iframe' },
      { referer: 'https://evil.example.net/' },
    ];
    for (const headers of notRefused) {
      expect(await pageAs(headers), JSON.stringify(headers)).toContain("frame-ancestors 'self' http://portal.test https://shop.example.com;");
    }
    // An avatar open to every site never gets the refusal.
    expect(String((await t.app.inject({ url: LivePaths.page(open.id), headers: { 'sec-fetch-dest': 'iframe', referer: 'https://evil.example.net/' } })).headers['content-security-policy'])).toContain('frame-ancestors *');

    // The list is saved with the avatar (validated: origins only).
    const save = (allowedOrigins: string[]) => {
      const body = multipart({ json: JSON.stringify(validAvatar({ allowedOrigins })) });
      return t.app.inject({ method: 'POST', url: '/api/add_avatar_v2', payload: body.payload, headers: { ...owner.headers, ...body.headers } });
    };
    const bad = await save(['https://shop.example.com/path']);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors).toContain(AvatarMessages.allowedOrigin);
    const saved = await save(['https://shop.example.com', 'http://localhost:8080']);
    expect(saved.statusCode).toBe(200);
    // The editor reads the list back (Advanced tab, Allowed origins).
    expect(saved.json().agent.allowedOrigins).toEqual(['https://shop.example.com', 'http://localhost:8080']);
    const got = await t.app.inject({ url: `/api/get_avatar?agentId=${saved.json().agent.id}`, headers: owner.headers });
    expect(got.json().agent.allowedOrigins).toEqual(['https://shop.example.com', 'http://localhost:8080']);
    const csp = String((await t.app.inject({ url: LivePaths.page(saved.json().agent.id) })).headers['content-security-policy']);
    expect(csp).toContain("frame-ancestors 'self' http://portal.test https://shop.example.com http://localhost:8080");
  });

  it('billing-auth: called with the header at start; a refusal or an outage is its own code; a refusal mid-session ends it', async () => {
    const billing = await startBillingFake();
    try {
      const a = await avatar({ billingAuthURL: billing.url, billingAuthHeader: 'X-Billing-Key: k-123', billingAuthPingTime: 1 });
      billing.setStatus(403);
      expect((await start({ avatarId: a.id })).body).toMatchObject({ code: LiveCode.billingRefused, errors: [LiveMessages['billing-refused']] });
      billing.setStatus(500);
      expect((await start({ avatarId: a.id })).body).toMatchObject({ code: LiveCode.billingUnavailable });
      billing.setStatus(200);
      const ok = await start({ avatarId: a.id, visitorId: 'visitor-billing' });
      expect(ok.body.status).toBe('OK');
      expect(billing.requests.at(-1)).toMatchObject({ headers: { 'x-billing-key': 'k-123' }, body: { event: 'start', avatarId: a.id, sessionId: ok.body.sessionId, visitorId: 'visitor-billing' } });
      const p = page(ok.body);
      await p.waitFor('ready');
      await until(() => billing.requests.some((r) => r.body.event === 'ping' && r.body.sessionId === ok.body.sessionId), 5000, 'a billing ping');
      billing.setStatus(402);
      const bye = await p.waitFor('bye', undefined, 5000);
      expect(bye).toEqual({ type: 'bye', code: LiveCode.billingRefused, message: LiveMessages['billing-refused'] });
      expect(await p.waitClosed()).toBe(LiveProtocol.close.ended);
      await until(async () => (await callRecordOf(ok.body.sessionId!)) !== undefined);
    } finally {
      await billing.close();
    }
  });

  it('sessions per IP: the next one is refused with ip-concurrency', async () => {
    // A portal of its own with the product's stale time: this file's 1 s sweep would free the first
    // of ten sessions that no page ever joins before a busy machine has admitted the tenth.
    const own = await createTestApp({ ALLOW_PRIVATE_URLS: 'true' }, {});
    try {
      const ownBase = await own.app.listen({ port: 0, host: '127.0.0.1' });
      const worker = await startEmbeddedWorker(own, ownBase);
      try {
        const ownOwner = await createSignedInUser(own.app, own.database);
        const [a] = await own.database.db
          .insert(avatars)
          .values({ userId: ownOwner.id, name: 'Ava', nlpEngine: 0, config: { wakeUpMessage: 'Hello!', dailyLimitPerSession: -1, dailyLimitPerIP: -1, dailyLimits: { Demo: -1 } } })
          .returning();
        const headers = ipHeaders();
        const ownStart = async () => {
          const res = await own.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId: a!.id }, headers, remoteAddress: headers['x-forwarded-for'] });
          return { status: res.statusCode, body: res.json() as TLiveStartAnswer };
        };
        const answers: TLiveStartAnswer[] = [];
        for (let i = 0; i < 10; i++) answers.push((await ownStart()).body);
        expect(answers.every((b) => b.status === 'OK'), JSON.stringify(answers.find((b) => b.status !== 'OK'))).toBe(true);
        const refused = await ownStart();
        expect(refused.status).toBe(429);
        expect(refused.body).toMatchObject({ code: LiveCode.ipConcurrency, failReason: FailReason.MaxConcurrencyPerIPReached });
        for (const b of answers) await own.app.inject({ method: 'POST', url: LivePaths.end, payload: { sessionId: b.sessionId, resumeToken: b.resumeToken } });
        expect((await ownStart()).body.status).toBe('OK');
      } finally {
        await worker.stop();
      }
    } finally {
      await own.close();
    }
  });

  it('daily limits: a visitor over its seconds of the last 24 h gets echo-back, told by a notice', async () => {
    const a = await avatar({ dailyLimitPerSession: 60 }, { nlpEngine: 10 });
    const past = new Date(Date.now() - 3600_000);
    await t.database.db.insert(liveSessions).values({
      id: 'past-session-1', avatarId: a.id, ownerUserId: owner.id, avatarName: 'Ava', workerId: 0, visitorId: 'visitor-over', clientIp: '203.0.113.9',
      resumeHash: 'x', ticketJti: 'x', startedAt: past, lastHeartbeatAt: past, endedAt: new Date(past.getTime() + 61_000), endCode: 'hang-up',
    });
    const { body } = await start({ avatarId: a.id, visitorId: 'visitor-over' });
    const p = page(body);
    expect(await p.waitFor('ready')).toMatchObject({ echo: true });
    expect(await p.waitFor('notice')).toEqual({ type: 'notice', code: LiveCode.dailyLimitEcho, message: LiveMessages['daily-limit-echo'] });
    p.text('Say it back');
    await p.waitFor('assistant', (f) => f.final && f.text === 'Say it back');
    p.send({ type: 'bye' });

    // Per IP, and reached during the session: the heartbeat switches the brain to echo.
    const b = await avatar({ dailyLimitPerIP: 1 }, { nlpEngine: 10 });
    const fresh = await start({ avatarId: b.id, visitorId: 'visitor-ip' });
    const q = page(fresh.body);
    expect(await q.waitFor('ready')).toMatchObject({ echo: false });
    // A patient bound: the heartbeat's check comes every few seconds, later on a loaded machine.
    await q.waitFor('notice', (f) => f.code === LiveCode.dailyLimitEcho, 20_000);
    q.text('Now echo');
    await q.waitFor('assistant', (f) => f.final && f.text === 'Now echo');
    q.send({ type: 'bye' });
  });

  it('Simple mode without a platform model: a clear "not configured" answer, the session goes on', async () => {
    const a = await avatar({}, { nlpEngine: 10 });
    const { body } = await start({ avatarId: a.id });
    const p = page(body);
    await p.waitFor('ready');
    p.text('Hello?');
    await p.waitFor('assistant', (f) => f.final && f.text === LiveMessages['platform-not-configured']);
    p.text('Still there?');
    await until(() => p.answers().filter((x) => x === LiveMessages['platform-not-configured']).length === 2);
    p.send({ type: 'bye' });
  });

  it('idle timeout and demo duration end the session with their codes and bill it', async () => {
    const idle = await avatar({ idleTimeout: 1 });
    const s1 = (await start({ avatarId: idle.id })).body;
    const p1 = page(s1);
    expect(await p1.waitFor('bye', undefined, 5000)).toMatchObject({ code: LiveCode.idleTimeout, message: LiveMessages['idle-timeout'] });
    await until(async () => (await callRecordOf(s1.sessionId!)) !== undefined);

    const demo = await avatar({ dailyLimits: { Demo: 1 } });
    const s2 = (await start({ avatarId: demo.id })).body;
    expect(s2.ui?.demoSeconds).toBe(1);
    const p2 = page(s2);
    expect(await p2.waitFor('bye', undefined, 5000)).toMatchObject({ code: LiveCode.demoEnded });
    await until(async () => (await callRecordOf(s2.sessionId!)) !== undefined);
    const [row] = await t.database.db.select().from(liveSessions).where(eq(liveSessions.id, s2.sessionId!));
    expect(row!.endCode).toBe(LiveCode.demoEnded);
  });
});

describe('live sessions: separate workers, resume and the sweep', () => {
  it('picks the worker with the fewest sessions; a worker killed mid-session → resume on another with the history', async () => {
    // Only separate workers from here on: the embedded one leaves.
    await embedded.stop();
    await until(async () => (await t.app.inject({ url: '/api/list_vps', headers: admin.headers })).json().vpsList.find((v: { name: string }) => v.name === 'embedded').status === 'DISCONNECTED');
    const w1 = await startSeparateWorker(base, 'alpha');
    const w2 = await startSeparateWorker(base, 'beta');
    extraWorkers.push(w1, w2);
    const a = await avatar();
    const s1 = (await start({ avatarId: a.id })).body;
    const s2 = (await start({ avatarId: a.id })).body;
    expect(new Set([s1.wsUrl, s2.wsUrl]).size).toBe(2);
    expect([s1.wsUrl, s2.wsUrl].sort()).toEqual([`ws://127.0.0.1:${w1.port}/avatar-ws`, `ws://127.0.0.1:${w2.port}/avatar-ws`].sort());
    await t.app.inject({ method: 'POST', url: LivePaths.end, payload: { sessionId: s2.sessionId, resumeToken: s2.resumeToken } });

    const p = page(s1);
    await p.waitFor('ready');
    p.text('Remember this');
    await p.waitFor('assistant', (f) => f.final && f.text === 'Remember this');
    await until(async () => ((await t.database.db.select().from(liveSessions).where(eq(liveSessions.id, s1.sessionId!)))[0]?.history.length ?? 0) === 3);
    const victim = s1.wsUrl === `ws://127.0.0.1:${w1.port}/avatar-ws` ? w1 : w2;
    const survivor = victim === w1 ? w2 : w1;
    await victim.stop();
    expect(await p.waitClosed()).toBe(LiveProtocol.close.goingAway);
    await until(async () => (await t.app.inject({ url: '/api/list_vps', headers: admin.headers })).json().vpsList.find((v: { webSocket: string }) => v.webSocket === s1.wsUrl).status === 'DISCONNECTED');

    const resumed = await t.app.inject({ method: 'POST', url: LivePaths.resume, payload: { sessionId: s1.sessionId, resumeToken: s1.resumeToken } });
    expect(resumed.json()).toMatchObject({ status: 'OK', sessionId: s1.sessionId, wsUrl: `ws://127.0.0.1:${survivor.port}/avatar-ws` });
    const again = page(resumed.json());
    const ready = await again.waitFor('ready');
    expect(ready.resumed).toBe(true);
    expect(ready.history.map((h) => h.text)).toEqual(['Hello! How can I help?', 'Remember this', 'Remember this']);
    expect(again.answers()).not.toContain('Hello! How can I help?'); // no second wake-up
    again.text('And this');
    await again.waitFor('assistant', (f) => f.final && f.text === 'And this');
    const badResume = await t.app.inject({ method: 'POST', url: LivePaths.resume, payload: { sessionId: s1.sessionId, resumeToken: 'wrong' } });
    expect(badResume.json()).toMatchObject({ code: LiveCode.sessionNotFound });
    again.send({ type: 'bye' });
    await until(async () => (await callRecordOf(s1.sessionId!)) !== undefined);
  });

  it('a page that comes while its worker is between two portal connections is taken once the worker has registered again', async () => {
    const a = await avatar();
    const { body } = await start({ avatarId: a.id });
    expect(body.status).toBe('OK');
    // The portal drops every worker (an instance dying): they come back after their backoff.
    await t.app.workerHub.stop();
    const p = page(body);
    const ready = await p.waitFor('ready', () => true, 8000);
    expect(ready.sessionId).toBe(body.sessionId);
    await p.waitFor('assistant', (f) => f.final && f.text === 'Hello! How can I help?');
    expect(p.of('error')).toEqual([]);
    p.send({ type: 'bye' });
  });

  it('a session whose worker stopped reporting is closed and billed once by the sweep, up to its last heartbeat', async () => {
    const w = await startSeparateWorker(base, 'gamma');
    extraWorkers.push(w);
    const a = await avatar();
    const s = (await start({ avatarId: a.id })).body;
    const p = page(s);
    await p.waitFor('ready');
    await new Promise((r) => setTimeout(r, 600));
    // Killed: no goodbye to the portal or the page, no more heartbeats.
    for (const other of extraWorkers) if (other !== w) await other.stop();
    await w.stop();
    await until(async () => (await callRecordOf(s.sessionId!)) !== undefined, 6000, 'the sweep billing the session');
    const [row] = await t.database.db.select().from(liveSessions).where(eq(liveSessions.id, s.sessionId!));
    expect(row!.endCode).toBe(LiveCode.workerLost);
    expect(row!.endedAt!.getTime()).toBe(row!.lastHeartbeatAt.getTime());
    const records = await t.database.db.select().from(callRecords).where(eq(callRecords.sessionId, s.sessionId!));
    expect(records).toHaveLength(1);
    expect((await t.app.inject({ method: 'POST', url: LivePaths.resume, payload: { sessionId: s.sessionId, resumeToken: s.resumeToken } })).json()).toMatchObject({ code: LiveCode.sessionNotFound });
    expect((await start({ avatarId: a.id })).body).toMatchObject({ code: LiveCode.noWorker, errors: [LiveMessages['no-worker']] });
  });
});
