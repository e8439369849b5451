import type * as DnsModule from 'node:dns';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type * as IpRangesModule from '../../../net/src/ip-ranges.js';
import { KnowledgeLimits, LiveCode, LivePaths, OAuthMessages, OutboundUrlFields as F, SubscriptionType, ZCreateKnowledge } from '@persona/contract';
import { SSRF_PAYLOADS, SSRF_DNS, startSsrfRig, type SsrfPayload, type SsrfTargets } from '../../../net/src/test/ssrf-corpus.js';
import { createTestApp, type TestContext } from '../test/build-app.js';
import { createSignedInUser, validAvatar } from '../test/factories.js';
import { avatars } from '../db/schema/index.js';
import { guardedFetch, SafeFetchError } from '@persona/net';

/*
 * The SSRF corpus (issue 16; packages/net/src/test/ssrf-corpus.ts) against every URL a user can
 * make the server request, at the route where the URL enters, in production mode
 * (ALLOW_PRIVATE_URLS off): knowledge URL items and crawls, the OAuth Token Issue URL, the
 * billing-auth URL, the custom LLM base URL look-up, and the avatar's URL fields on save.
 * Each is refused, and the loopback canary sees no connection at all.
 */

// Names resolve through the corpus's resolver (no network); the redirector's address, and only
// it, stands in for a public address — every other address is judged by the production rule.
vi.mock('node:dns', async (importOriginal) => (await import('../../../net/src/test/ssrf-corpus.js')).mockedDns(await importOriginal<typeof DnsModule>()));
vi.mock('../../../net/src/ip-ranges.js', async (importOriginal) =>
  (await import('../../../net/src/test/ssrf-corpus.js')).withPublicStandIn(await importOriginal<typeof IpRangesModule>()),
);

let t: TestContext;
let rig: Awaited<ReturnType<typeof startSsrfRig>>;
let targets: SsrfTargets;
let nextIp = 1;
/** Each request from its own address: the per-IP rate limits are not what is tested here. */
const ip = () => `198.51.100.${(nextIp = (nextIp % 250) + 1)}`;

beforeAll(async () => {
  [t, rig] = await Promise.all([createTestApp({ PLAN_MAX_AVATARS: 'FREE=unlimited,STARTER=unlimited,PRO=unlimited,ENTERPRISE=unlimited' }), startSsrfRig()]);
  targets = rig.targets;
  expect(t.config.allowPrivateUrls).toBe(false);
});
afterAll(async () => {
  await t?.close();
  await rig?.close();
});
afterEach(() => {
  // Zero, after every test: not one connection reached the canary.
  expect(rig.canary.hits).toEqual([]);
});

const label = (p: SsrfPayload) => `${p.group}: ${p.id} — ${p.url(targets)}`;
const redirectorHits = () => rig.redirector.hits.length;

describe("the server's guarded request", () => {
  it('GET (follows redirects, each hop checked): every payload refused with the expected kind', async () => {
    const before = redirectorHits();
    for (const p of SSRF_PAYLOADS) {
      const err = await guardedFetch(p.url(targets), { allowPrivate: false, timeoutMs: 3000, maxBytes: 65536 }).catch((e: unknown) => e);
      expect(err, label(p)).toBeInstanceOf(SafeFetchError);
      expect((err as SafeFetchError).kind, `${label(p)}: ${(err as SafeFetchError).detail}`).toBe(p.refusal);
      // The visitor never learns which internal address a name resolves to.
      if (p.stage === 'dns') expect((err as Error).message, label(p)).toBe(`${new URL(p.url(targets)).hostname} does not resolve to a public internet address.`);
    }
    expect(redirectorHits() - before).toBeGreaterThanOrEqual(SSRF_PAYLOADS.filter((p) => p.stage === 'redirect').length);
  });

  it('POST (never follows a redirect): every payload refused', async () => {
    for (const p of SSRF_PAYLOADS) {
      const err = await guardedFetch(p.url(targets), { method: 'POST', body: '{}', allowPrivate: false, timeoutMs: 3000, maxBytes: 65536 }).catch((e: unknown) => e);
      expect(err, label(p)).toBeInstanceOf(SafeFetchError);
      expect((err as SafeFetchError).kind, label(p)).toBe(p.stage === 'redirect' ? 'http' : p.refusal);
    }
  });
});

describe('every server entry point of a user-supplied URL, every payload', () => {
  it('knowledge URL and crawl items: refused on POST, or failed by the ingestion (robots.txt and page)', async () => {
    const user = await createSignedInUser(t.app, t.database);
    const jwt = (await t.app.inject({ url: '/api/token/jwt', headers: user.headers })).json().jwtToken as string;
    const bearer = { authorization: `Bearer ${jwt}` };
    const collection = (await t.app.inject({ method: 'POST', url: '/knowledge_collection', headers: bearer, payload: { name: 'SSRF' } })).json().data as { id: number };
    const items = SSRF_PAYLOADS.flatMap((p, i) => (['url', 'crawl'] as const).map((type) => ({ collection_id: collection.id, name: `${type} ${i}`, knowledge_type: type, url: p.url(targets) })));
    // What the request's schema refuses is refused one by one (400); the rest go in batches.
    const valid = items.filter((item) => ZCreateKnowledge.safeParse(item).success);
    for (const item of items.filter((x) => !valid.includes(x))) {
      const res = await t.app.inject({ method: 'POST', url: '/knowledge', headers: bearer, payload: [item] });
      expect(res.statusCode, `${item.url}: ${res.body}`).toBe(400);
    }
    for (let i = 0; i < valid.length; i += KnowledgeLimits.batchMax) {
      const res = await t.app.inject({ method: 'POST', url: '/knowledge', headers: bearer, payload: valid.slice(i, i + KnowledgeLimits.batchMax) });
      expect(res.statusCode, res.body).toBe(200);
    }
    expect(valid.length).toBeGreaterThan(SSRF_PAYLOADS.length);
    await t.app.knowledge.ingestion.idle();
    const stored = (await t.app.inject({ url: `/knowledge?collection_id=${collection.id}`, headers: bearer })).json().data as { name: string; status: string; status_reason: string | null }[];
    expect(stored).toHaveLength(valid.length);
    for (const item of stored) expect(item.status, `${item.name} ${label(SSRF_PAYLOADS[Number(item.name.split(' ')[1])]!)}: ${item.status_reason}`).toBe('failed');
  });

  it('knowledge crawl: 400 for every payload', async () => {
    const user = await createSignedInUser(t.app, t.database);
    const jwt = (await t.app.inject({ url: '/api/token/jwt', headers: user.headers })).json().jwtToken as string;
    for (const p of SSRF_PAYLOADS) {
      const address = ip();
      const res = await t.app.inject({ method: 'POST', url: '/knowledge/crawl', headers: { authorization: `Bearer ${jwt}` }, payload: { url: p.url(targets) }, remoteAddress: address });
      expect(res.statusCode, `${label(p)}: ${res.body}`).toBe(400);
    }
  });

  it('OAuth Token Issue URL: the code exchange is refused with the one page, or the config is refused', async () => {
    const user = await createSignedInUser(t.app, t.database);
    let exchanges = 0;
    for (const p of SSRF_PAYLOADS) {
      const payload = { appName: 'SSRF', partner: 'Google', clientId: 'client-id-0123456789', clientSecret: 'client-secret-0123456789', oauthURL: 'https://idp.example/authorize', tokenIssueURL: p.url(targets) };
      const created = await t.app.inject({ method: 'POST', url: '/api/add_oauthapp', headers: user.headers, payload });
      if (created.statusCode !== 200) {
        expect(created.statusCode, `${label(p)}: ${created.body}`).toBe(400);
        continue;
      }
      const appId = created.json().oauthApp.appId as number;
      const address = ip();
      // The signed start link the page of an avatar signing visitors in with it gets.
      const [gated] = await t.database.db.insert(avatars).values({ userId: user.id, name: 'SSRF', config: { oauthEnabled: 1, partnerOauthAppId: appId } }).returning();
      const startUrl = (await t.app.inject({ url: LivePaths.pageConfig(gated!.id), remoteAddress: address })).json().avatar.oauth.startUrl as string;
      const start = await t.app.inject({ url: startUrl, remoteAddress: address });
      expect(start.statusCode, start.body).toBe(302);
      const cookie = String(start.headers['set-cookie']).split(';')[0]!;
      const state = new URL(String(start.headers.location)).searchParams.get('state')!;
      const res = await t.app.inject({ url: `/api/oauth/callback/${appId}?code=code-1&state=${encodeURIComponent(state)}`, headers: { cookie }, remoteAddress: address });
      expect(res.statusCode, `${label(p)}: ${res.body}`).toBe(502);
      expect(res.body).toContain(OAuthMessages.exchangeFailed);
      exchanges++;
    }
    expect(exchanges).toBeGreaterThan(SSRF_PAYLOADS.length / 2);
  });

  it('billing-auth URL (stored before the save-time rule, or a name): the session is refused as billing-unavailable', async () => {
    const owner = await createSignedInUser(t.app, t.database);
    for (const p of SSRF_PAYLOADS) {
      const [row] = await t.database.db
        .insert(avatars)
        .values({ userId: owner.id, name: 'Ava', nlpEngine: 0, config: { wakeUpMessage: 'Hi', idleTimeout: 300, dailyLimitPerSession: -1, dailyLimitPerIP: -1, dailyLimits: { Demo: -1 }, billingAuthURL: p.url(targets), billingAuthHeader: 'X-Key: k' } })
        .returning();
      const address = ip();
      const res = await t.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId: row!.id }, remoteAddress: address });
      expect(res.statusCode, `${label(p)}: ${res.body}`).toBe(503);
      expect(res.json().code, label(p)).toBe(LiveCode.billingUnavailable);
    }
  });

  it('custom LLM base URL look-ups (llm_models, llm_assistants): 400 blocked, invalid-url or redirect', async () => {
    let user = await createSignedInUser(t.app, t.database);
    let refusedByTheGuard = 0;
    for (const [i, p] of SSRF_PAYLOADS.entries()) {
      // The look-ups' budget is per user and minute.
      if (i > 0 && i % 25 === 0) user = await createSignedInUser(t.app, t.database);
      for (const lookup of ['llm_models', 'llm_assistants']) {
        const res = await t.app.inject({ method: 'POST', url: `/api/lookups/${lookup}`, headers: user.headers, payload: { url: p.url(targets), llmAPIKey: 'sk-test-0123456789' } });
        expect(res.statusCode, `${lookup} ${label(p)}: ${res.body}`).toBe(400);
        // Refused by the request's schema (no reason), or by the guarded request.
        expect([undefined, 'blocked', 'invalid-url', 'redirect'], `${lookup} ${label(p)}: ${res.body}`).toContain(res.json().reason);
        if (res.json().reason) refusedByTheGuard++;
      }
    }
    expect(refusedByTheGuard).toBeGreaterThan(SSRF_PAYLOADS.length);
  });

  it("avatar save: every URL field refuses every literal address and localhost name (other names are checked where they are resolved)", async () => {
    const user = await createSignedInUser(t.app, t.database, { subscriptionType: SubscriptionType.ENTERPRISE });
    const labels = [F.llmBaseUrl, F.restEndpointUrl, F.realtimeUrl, F.sttBaseUrl, F.ttsBaseUrl, F.billingAuthUrl];
    const isLocalhostName = (p: SsrfPayload) => {
      try {
        return /(^|\.)localhost$/.test(new URL(p.url(targets)).hostname.replace(/\.$/, ''));
      } catch {
        return false;
      }
    };
    for (const p of SSRF_PAYLOADS) {
      const url = p.url(targets);
      const res = await t.app.inject({
        method: 'POST',
        url: '/api/add_avatar',
        headers: user.headers,
        payload: validAvatar({
          restEndPointURL: url,
          billingAuthURL: url,
          billingAuthHeader: 'X-Key: k',
          customData: { agent_pipeline_config: { llm: { base_url: url }, speech_to_speech: { url }, stt: { base_url: url }, tts: { base_url: url } } },
        }),
      });
      if (p.stage === 'parse' || isLocalhostName(p)) {
        expect(res.statusCode, `${label(p)}: ${res.body}`).toBe(400);
        // A literal address: every field says so (an unparsable URL may stop at the first field).
        const errors = (res.json().errors as string[]).join('\n');
        if (p.refusal === 'blocked') for (const field of labels) expect(errors, `${label(p)}: ${field}`).toContain(field);
      } else {
        // A host name (or the public redirector) is saved; the connection checks what it resolves to.
        expect(SSRF_DNS[new URL(url).hostname] ?? SSRF_DNS[new URL(url).hostname.replace(/\.$/, '')], label(p)).toBeDefined();
      }
    }
  });
});
