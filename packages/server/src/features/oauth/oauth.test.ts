import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FailReason, InputMessages, OAuthLimits, OAuthMessages, OAuthReturnParams } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { dumpDatabaseText } from '../../test/db-dump.js';
import { sql } from 'drizzle-orm';
import { createAvatar, createSignedInUser } from '../../test/factories.js';
import { createOAuthRepository } from './repository.js';
import { createOAuthService } from './service.js';

/** A small OAuth 2.0 provider: an authorization endpoint that hands out codes, and a token endpoint. */
function startProvider() {
  const codes = new Map<string, { clientId: string; redirectUri: string }>();
  const exchanges: URLSearchParams[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/authorize') {
      // A real provider shows a consent screen; this one consents at once.
      const code = `code-${codes.size + 1}`;
      codes.set(code, { clientId: url.searchParams.get('client_id') ?? '', redirectUri: url.searchParams.get('redirect_uri') ?? '' });
      const back = new URL(url.searchParams.get('redirect_uri')!);
      back.searchParams.set('code', code);
      back.searchParams.set('state', url.searchParams.get('state') ?? '');
      res.writeHead(302, { location: back.toString() }).end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/token') {
      let body = '';
      req.on('data', (chunk) => (body += chunk));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        exchanges.push(form);
        const issued = codes.get(form.get('code') ?? '');
        const isValid =
          issued &&
          form.get('grant_type') === 'authorization_code' &&
          form.get('client_id') === issued.clientId &&
          form.get('client_secret') === 'super-secret-value-of-the-client-0123456789' &&
          form.get('redirect_uri') === issued.redirectUri;
        if (!isValid) {
          res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: 'invalid_grant' }));
          return;
        }
        codes.delete(form.get('code')!);
        const idToken = [
          Buffer.from(JSON.stringify({ alg: 'RS256' })).toString('base64url'),
          Buffer.from(JSON.stringify({ sub: 'visitor-42', email: 'visitor@example.com' })).toString('base64url'),
          'sig',
        ].join('.');
        res
          .writeHead(200, { 'content-type': 'application/json' })
          .end(JSON.stringify({ access_token: 'provider-access-token-abcdef', id_token: idToken, expires_in: 3600, token_type: 'Bearer' }));
      });
      return;
    }
    res.writeHead(404).end();
  });
  return { server, codes, exchanges };
}

let t: TestContext;
let provider: ReturnType<typeof startProvider>;
let base: string;
const SECRET = 'super-secret-value-of-the-client-0123456789';

beforeAll(async () => {
  t = await createTestApp({ ALLOW_PRIVATE_URLS: 'true' });
  provider = startProvider();
  await new Promise<void>((resolve) => provider.server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(provider.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await t.close();
  await new Promise((resolve) => provider.server.close(resolve));
});

const config = (overrides: Record<string, unknown> = {}) => ({
  appName: 'Staff sign-in',
  partner: 'Google',
  clientId: '1234567890-abcdefghijklmnopqrstuvwxyz.apps.googleusercontent.com',
  clientSecret: SECRET,
  oauthURL: `${base}/authorize`,
  tokenIssueURL: `${base}/token`,
  ...overrides,
});

/**
 * The signed start link an avatar's page config carries for a config (minted by the service with
 * that app's key), with more query parameters (`returnTo`) added raw.
 */
function startPath(ctx: TestContext, appId: number, query = ''): string {
  const signer = createOAuthService({ repo: createOAuthRepository(ctx.database.db), secretBox: ctx.app.secretBox, publicUrl: 'http://portal.test', allowPrivateUrls: true, log: ctx.app.log });
  return `${signer.startUrl(appId, 10001)}${query ? `&${query}` : ''}`;
}

/** The signature of a start link the service mints (its `start` parameter). */
const signedStart = (service: ReturnType<typeof createOAuthService>, appId: number) => new URL(service.startUrl(appId, 10001), 'http://portal.test').searchParams.get(OAuthLimits.startParam)!;

async function create(headers: Record<string, string>, overrides: Record<string, unknown> = {}) {
  const res = await t.app.inject({ method: 'POST', url: '/api/add_oauthapp', headers, payload: config(overrides) });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().oauthApp as { appId: number; clientSecret: string; callbackURL: string; updated: string };
}

describe('OAuth configs', () => {
  it('creates, lists, gets, edits and deletes a config; the callback URL is set by the server', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const res = await t.app.inject({ method: 'POST', url: '/api/add_oauthapp', headers: me.headers, payload: config() });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.status).toBe('OK');
    expect(body.errors).toEqual([]);
    expect(new Date(body.updated).getTime()).toBeGreaterThan(0);
    const created = body.oauthApp;
    expect(created).toMatchObject({ appName: 'Staff sign-in', partner: 'Google', clientId: config().clientId, oauthURL: `${base}/authorize`, tokenIssueURL: `${base}/token` });
    expect(created.callbackURL).toBe(`http://portal.test/api/oauth/callback/${created.appId}`);
    expect(created.clientSecret).not.toContain(SECRET.slice(0, 10));
    expect(created.clientSecret.endsWith(SECRET.slice(-4))).toBe(true);

    const list = await t.app.inject({ url: '/api/list_oauthapp', headers: me.headers });
    expect(list.json()).toEqual({ status: 'OK', oauthApps: [created] });

    const get = await t.app.inject({ method: 'POST', url: '/api/get_oauthapp', headers: me.headers, payload: { appId: created.appId, mode: 'get' } });
    expect(get.json().oauthApp).toEqual(created);

    // An edit with an empty secret keeps the stored one; so does sending back the masked value.
    const edit = await t.app.inject({
      method: 'POST',
      url: '/api/add_oauthapp',
      headers: me.headers,
      payload: config({ appId: created.appId, appName: 'Renamed', partner: 'SmartPension', clientSecret: '' }),
    });
    expect(edit.statusCode).toBe(200);
    expect(edit.json().oauthApp).toMatchObject({ appId: created.appId, appName: 'Renamed', partner: 'SmartPension', clientSecret: created.clientSecret });
    const again = await t.app.inject({ method: 'POST', url: '/api/add_oauthapp', headers: me.headers, payload: config({ appId: created.appId, clientSecret: created.clientSecret }) });
    expect(again.json().oauthApp.clientSecret).toBe(created.clientSecret);
    const newSecret = await t.app.inject({ method: 'POST', url: '/api/add_oauthapp', headers: me.headers, payload: config({ appId: created.appId, clientSecret: 'another-secret-WXYZ' }) });
    expect(newSecret.json().oauthApp.clientSecret.endsWith('WXYZ')).toBe(true);

    const del = await t.app.inject({ method: 'POST', url: '/api/del_oauthapp', headers: me.headers, payload: { appId: created.appId, mode: 'delete' } });
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ status: 'OK', appId: created.appId, errors: [] });
    expect((await t.app.inject({ url: '/api/list_oauthapp', headers: me.headers })).json().oauthApps).toEqual([]);
  });

  it('answers every validation message of the spec, on the server too', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const res = await t.app.inject({ method: 'POST', url: '/api/add_oauthapp', headers: me.headers, payload: {} });
    expect(res.statusCode).toBe(400);
    expect(res.json().failReason).toBe(FailReason.InvalidOrMissingParams);
    expect(res.json().errors).toEqual(
      expect.arrayContaining([
        OAuthMessages.nameRequired,
        OAuthMessages.partnerRequired,
        OAuthMessages.clientIdRequired,
        OAuthMessages.oauthUrlRequired,
        OAuthMessages.tokenIssueUrlRequired,
      ]),
    );
    const blanks = await t.app.inject({
      method: 'POST',
      url: '/api/add_oauthapp',
      headers: me.headers,
      payload: { appName: '  ', partner: '', clientId: '', clientSecret: '', oauthURL: '', tokenIssueURL: '' },
    });
    expect(blanks.json().errors).toEqual(
      expect.arrayContaining([
        OAuthMessages.nameRequired,
        OAuthMessages.partnerRequired,
        OAuthMessages.clientIdRequired,
        OAuthMessages.clientSecretRequired,
        OAuthMessages.oauthUrlRequired,
        OAuthMessages.tokenIssueUrlRequired,
      ]),
    );
    const badUrls = await t.app.inject({ method: 'POST', url: '/api/add_oauthapp', headers: me.headers, payload: config({ oauthURL: 'javascript:alert(1)', tokenIssueURL: 'not a url', partner: 'Facebook' }) });
    expect(badUrls.json().errors).toEqual(expect.arrayContaining([OAuthMessages.oauthUrlInvalid, OAuthMessages.tokenIssueUrlInvalid, OAuthMessages.partnerRequired]));
    expect((await t.app.inject({ url: '/api/list_oauthapp', headers: me.headers })).json().oauthApps).toEqual([]);
  });

  it("answers 404 for another account's config on get, edit and delete, and keeps it intact", async () => {
    const owner = await createSignedInUser(t.app, t.database);
    const other = await createSignedInUser(t.app, t.database);
    const app = await create(owner.headers);
    for (const [url, payload] of [
      ['/api/get_oauthapp', { appId: app.appId, mode: 'get' }],
      ['/api/del_oauthapp', { appId: app.appId, mode: 'delete' }],
      ['/api/add_oauthapp', config({ appId: app.appId, appName: 'Hijacked' })],
    ] as const) {
      const res = await t.app.inject({ method: 'POST', url, headers: other.headers, payload });
      expect(res.statusCode, url).toBe(404);
      expect(res.json().status).toBe('FAIL');
    }
    expect((await t.app.inject({ url: '/api/list_oauthapp', headers: other.headers })).json().oauthApps).toEqual([]);
    const mine = (await t.app.inject({ url: '/api/list_oauthapp', headers: owner.headers })).json().oauthApps;
    expect(mine).toHaveLength(1);
    expect(mine[0].appName).toBe('Staff sign-in');
  });

  it('refuses to delete a config an avatar signs visitors in with, naming the avatar', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const app = await create(me.headers);
    const gated = await createAvatar(t.database, me.id, 'Members only');
    const off = await createAvatar(t.database, me.id, 'Open');
    await t.database.db.execute(sql`update avatars set config = ${JSON.stringify({ oauthEnabled: 1, partnerOauthAppId: app.appId })}::jsonb where id = ${gated.id}`);
    await t.database.db.execute(sql`update avatars set config = ${JSON.stringify({ oauthEnabled: 0, partnerOauthAppId: String(app.appId) })}::jsonb where id = ${off.id}`);
    const res = await t.app.inject({ method: 'POST', url: '/api/del_oauthapp', headers: me.headers, payload: { appId: app.appId, mode: 'delete' } });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([OAuthMessages.inUse([`Members only (${gated.id})`])]);
    await t.database.db.execute(sql`update avatars set config = '{}'::jsonb where id = ${gated.id}`);
    expect((await t.app.inject({ method: 'POST', url: '/api/del_oauthapp', headers: me.headers, payload: { appId: app.appId, mode: 'delete' } })).statusCode).toBe(200);
  });

  it('needs a session', async () => {
    expect((await t.app.inject({ url: '/api/list_oauthapp', headers: { authorization: 'Bearer test-app-key' } })).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'POST', url: '/api/add_oauthapp', payload: config() })).statusCode).toBe(401);
  });

  it('keeps the client secret encrypted: it never appears in clear text in the database', async () => {
    const me = await createSignedInUser(t.app, t.database);
    await create(me.headers);
    const dump = await dumpDatabaseText(t.database);
    expect(dump).toContain('oauth_apps');
    expect(dump).toContain(config().clientId);
    expect(dump).not.toContain(SECRET);
    expect(dump).not.toContain(SECRET.slice(0, 16));
  });
});

describe('editing the endpoints needs the client secret again', () => {
  it('refuses a changed OAuth URL or Token Issue URL with the kept or masked secret, and keeps the stored config', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const app = await create(me.headers);
    const attacker = 'https://collector.example/token';
    for (const [change, secret] of [
      [{ tokenIssueURL: attacker }, ''],
      [{ tokenIssueURL: attacker }, app.clientSecret],
      [{ tokenIssueURL: attacker }, undefined],
      [{ oauthURL: 'https://collector.example/authorize' }, ''],
      [{ oauthURL: `${base}/authorize?prompt=consent` }, app.clientSecret],
    ] as const) {
      const res = await t.app.inject({ method: 'POST', url: '/api/add_oauthapp', headers: me.headers, payload: config({ appId: app.appId, ...change, clientSecret: secret }) });
      expect(res.statusCode, JSON.stringify(change)).toBe(400);
      expect(res.json().errors).toEqual([OAuthMessages.clientSecretReenter]);
    }
    const stored = (await t.app.inject({ url: '/api/list_oauthapp', headers: me.headers })).json().oauthApps[0];
    expect(stored).toMatchObject({ oauthURL: `${base}/authorize`, tokenIssueURL: `${base}/token`, clientSecret: app.clientSecret });

    // With the secret typed again the change is saved; the same URLs (even with spaces around) need nothing.
    const same = await t.app.inject({ method: 'POST', url: '/api/add_oauthapp', headers: me.headers, payload: config({ appId: app.appId, tokenIssueURL: ` ${base}/token `, clientSecret: '' }) });
    expect(same.statusCode, same.body).toBe(200);
    const changed = await t.app.inject({ method: 'POST', url: '/api/add_oauthapp', headers: me.headers, payload: config({ appId: app.appId, tokenIssueURL: attacker, clientSecret: 'the-new-secret-1234' }) });
    expect(changed.statusCode, changed.body).toBe(200);
    expect(changed.json().oauthApp).toMatchObject({ tokenIssueURL: attacker, clientSecret: '••••1234' });
  });
});

/** A visitor's browser: keeps the cookies the portal sets and sends them back. */
let visitors = 0;
/** A fresh address per visitor: the sign-in routes are rate-limited per address. */
const nextIp = () => {
  visitors += 1;
  return `203.0.${visitors >> 8}.${visitors & 255}`;
};
function browser() {
  const jar = new Map<string, string>();
  return {
    jar,
    ip: nextIp(),
    get cookie() {
      return [...jar].map(([k, v]) => `${k}=${v}`).join('; ');
    },
    keep(setCookie: string | string[] | undefined) {
      for (const line of [setCookie ?? []].flat()) {
        const [pair] = line.split(';');
        const eq = pair!.indexOf('=');
        jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
      }
    },
  };
}
type Browser = ReturnType<typeof browser>;

/** Follows the provider's redirect as a browser would and returns the callback path. */
async function consent(authorizeUrl: URL): Promise<URL> {
  const res = await fetch(authorizeUrl, { redirect: 'manual' });
  expect(res.status).toBe(302);
  return new URL(res.headers.get('location')!);
}

describe('the authorization-code flow', () => {
  async function startFlow(appId: number, returnTo?: string, visitor: Browser = browser()) {
    const start = await t.app.inject({
      url: startPath(t, appId, returnTo ? `returnTo=${encodeURIComponent(returnTo)}` : ''),
      headers: { cookie: visitor.cookie },
      remoteAddress: visitor.ip,
    });
    expect(start.statusCode, start.body).toBe(302);
    visitor.keep(start.headers['set-cookie']);
    return new URL(start.headers.location as string);
  }

  const callback = (url: URL, visitor: Browser | null) =>
    t.app.inject({ url: `${url.pathname}${url.search}`, headers: visitor ? { cookie: visitor.cookie } : {}, remoteAddress: visitor?.ip ?? nextIp() });
  const redeem = (appId: number, code: string, visitor: Browser | null) =>
    t.app.inject({ method: 'POST', url: '/api/oauth/grant', headers: visitor ? { cookie: visitor.cookie } : {}, remoteAddress: visitor?.ip ?? nextIp(), payload: { appId, code } });

  it('redirects to the OAuth URL, exchanges the code, returns with a one-time code that this browser exchanges for the grant', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const app = await create(me.headers);
    const visitor = browser();
    const start = await t.app.inject({ url: startPath(t, app.appId, `returnTo=${encodeURIComponent('/avatar/10001?lang=en')}`), remoteAddress: visitor.ip });
    expect(start.statusCode).toBe(302);
    // The sign-in cookie: HttpOnly, SameSite=Lax, a random nonce.
    expect(start.headers['set-cookie']).toMatch(/^persona_oauth=[\w-]{43}; Max-Age=\d+; Path=\/; HttpOnly; SameSite=Lax$/);
    visitor.keep(start.headers['set-cookie']);
    const authorize = new URL(start.headers.location as string);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${base}/authorize`);
    expect(authorize.searchParams.get('response_type')).toBe('code');
    expect(authorize.searchParams.get('client_id')).toBe(config().clientId);
    expect(authorize.searchParams.get('redirect_uri')).toBe(app.callbackURL);
    const state = authorize.searchParams.get('state')!;
    expect(state.length).toBeGreaterThan(40);
    expect(state).not.toContain('avatar');
    expect(state).not.toContain(visitor.jar.get('persona_oauth'));

    const back = await consent(authorize);
    expect(`${back.origin}${back.pathname}`).toBe(app.callbackURL);
    const res = await callback(back, visitor);
    expect(res.statusCode, res.body).toBe(302);
    const landing = new URL(res.headers.location as string);
    expect(landing.origin).toBe('http://portal.test');
    expect(landing.pathname).toBe('/avatar/10001');
    expect(landing.searchParams.get('lang')).toBe('en');
    expect(landing.searchParams.has('oauthSession')).toBe(false);
    const code = landing.searchParams.get(OAuthReturnParams.code)!;
    expect(code).toMatch(/^[\w-]{40,}$/);

    // The token endpoint got the code with the client's credentials and the same redirect URI.
    const exchange = provider.exchanges.at(-1)!;
    expect(exchange.get('client_secret')).toBe(SECRET);
    expect(exchange.get('redirect_uri')).toBe(app.callbackURL);

    // Another browser (or none) cannot exchange the code; that does not use it up.
    expect((await redeem(app.appId, code, null)).json().errors).toEqual([OAuthMessages.codeInvalid]);
    const stranger = browser();
    stranger.keep(`persona_oauth=${'A'.repeat(43)}`);
    expect((await redeem(app.appId, code, stranger)).statusCode).toBe(400);
    expect((await redeem(app.appId + 1, code, visitor)).statusCode).toBe(400);

    const granted = await redeem(app.appId, code, visitor);
    expect(granted.statusCode, granted.body).toBe(200);
    expect(granted.headers['cache-control']).toBe('no-store');
    const { oauthGrant, expiresAt } = granted.json();
    expect(granted.json().status).toBe('OK');
    expect(oauthGrant).toMatch(/^[\w-]{40,}$/);
    expect(new Date(expiresAt).getTime()).toBeGreaterThan(Date.now() + 50 * 60_000);
    expect(res.headers.location).not.toContain(oauthGrant);
    // The code works once.
    const again = await redeem(app.appId, code, visitor);
    expect(again.statusCode).toBe(400);
    expect(again.json().errors).toEqual([OAuthMessages.codeInvalid]);

    // The avatar page can check the visitor's grant; the provider's tokens are stored sealed.
    const service = createOAuthService({ repo: createOAuthRepository(t.database.db), secretBox: t.app.secretBox, publicUrl: 'http://portal.test', allowPrivateUrls: true, log: t.app.log });
    expect(await service.verifySession(app.appId, oauthGrant)).toMatchObject({ subject: 'visitor-42', email: 'visitor@example.com' });
    expect(await service.verifySession(app.appId, code)).toBeNull();
    expect(await service.verifySession(app.appId, 'not-a-session')).toBeNull();
    expect(await service.verifySession(app.appId + 1, oauthGrant)).toBeNull();
    const dump = await dumpDatabaseText(t.database);
    expect(dump).not.toContain('provider-access-token-abcdef');
    expect(dump).not.toContain(oauthGrant);
    expect(dump).not.toContain(code);

    // The state is single-use: replaying the callback is refused.
    const replay = await callback(back, visitor);
    expect(replay.statusCode).toBe(400);
    expect(replay.headers['content-type']).toContain('text/html');
    expect(replay.body).toContain(OAuthMessages.stateInvalid);
  });

  it('exchanges a code only within its lifetime', async () => {
    let clock = Date.now();
    const service = createOAuthService({
      repo: createOAuthRepository(t.database.db),
      secretBox: t.app.secretBox,
      publicUrl: 'http://portal.test',
      allowPrivateUrls: true,
      log: t.app.log,
      now: () => new Date(clock),
    });
    const me = await createSignedInUser(t.app, t.database);
    const app = await create(me.headers);
    const started = await service.start(app.appId, '/avatar/1', undefined, signedStart(service, app.appId));
    const outcome = await service.callback(app.appId, Object.fromEntries(new URL((await consent(new URL(started.location))).href).searchParams), started.browserNonce);
    expect(outcome.kind).toBe('redirect');
    const code = new URL((outcome as { location: string }).location).searchParams.get(OAuthReturnParams.code)!;
    clock += (OAuthLimits.codeTtlSeconds + 1) * 1000;
    await expect(service.redeem(app.appId, code, started.browserNonce)).rejects.toMatchObject({ statusCode: 400, errors: [OAuthMessages.codeInvalid] });
  });

  it('refuses a callback from a browser other than the one that started the sign-in (login CSRF)', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const app = await create(me.headers);
    // The attacker starts a sign-in in their own browser and lures the victim to its callback.
    const attacker = browser();
    const back = await consent(await startFlow(app.appId, '/avatar/10009', attacker));
    const exchanges = provider.exchanges.length;
    const victim = browser();
    await startFlow(app.appId, '/avatar/10009', victim); // the victim has a sign-in cookie of their own
    for (const who of [null, victim]) {
      const res = await callback(back, who);
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain(OAuthMessages.stateInvalid);
      expect(res.headers.location).toBeUndefined();
    }
    expect(provider.exchanges.length).toBe(exchanges);
    // The state was not used up by the refused attempts: the browser that started it can finish.
    expect((await callback(back, attacker)).statusCode).toBe(302);
  });

  it('keeps one sign-in cookie per browser, so sign-ins in two tabs both finish', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const app = await create(me.headers);
    const visitor = browser();
    const first = await consent(await startFlow(app.appId, '/avatar/1', visitor));
    const cookie = visitor.cookie;
    const second = await consent(await startFlow(app.appId, '/avatar/2', visitor));
    expect(visitor.cookie).toBe(cookie);
    expect(new URL((await callback(second, visitor)).headers.location as string).pathname).toBe('/avatar/2');
    expect(new URL((await callback(first, visitor)).headers.location as string).pathname).toBe('/avatar/1');
  });

  it('starts only from the signed link an avatar page gets: without it, expired, tampered, of another config or a sealed state, no redirect (issue 26: an open redirect to any OAuth URL)', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const app = await create(me.headers, { oauthURL: 'https://evil.example/phish' });
    const other = await create(me.headers);
    const refusedStart = async (url: string) => {
      const res = await t.app.inject({ url, remoteAddress: nextIp() });
      expect(res.statusCode, url).toBe(400);
      expect(res.headers.location, url).toBeUndefined();
      expect(res.headers['set-cookie'], url).toBeUndefined();
      expect(res.json().errors, url).toEqual([OAuthMessages.startInvalid]);
    };
    await refusedStart(`/api/oauth/start/${app.appId}`);
    await refusedStart(`/api/oauth/start/${app.appId}?returnTo=%2Favatar%2F1`);
    await refusedStart(`/api/oauth/start/${app.appId}?start=garbage`);
    // Another config's start does not open this one.
    await refusedStart(startPath(t, other.appId).replace(`/start/${other.appId}`, `/start/${app.appId}`));
    // A tampered signature.
    const signed = new URL(startPath(t, app.appId), 'http://portal.test');
    const token = signed.searchParams.get(OAuthLimits.startParam)!;
    await refusedStart(`/api/oauth/start/${app.appId}?start=${encodeURIComponent(`${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`)}`);
    // A sealed sign-in state (same key, another purpose) is not a start.
    const visitor = browser();
    const started = await t.app.inject({ url: startPath(t, other.appId), remoteAddress: visitor.ip });
    const state = new URL(started.headers.location as string).searchParams.get('state')!;
    await refusedStart(`/api/oauth/start/${other.appId}?start=${encodeURIComponent(state)}`);
    // Expired: a link older than OAuthLimits.startTtlMinutes.
    let clock = Date.now();
    const service = createOAuthService({ repo: createOAuthRepository(t.database.db), secretBox: t.app.secretBox, publicUrl: 'http://portal.test', allowPrivateUrls: true, log: t.app.log, now: () => new Date(clock) });
    const old = service.startUrl(app.appId, 10001);
    const oldStart = new URL(old, 'http://portal.test').searchParams.get(OAuthLimits.startParam)!;
    await expect(service.start(app.appId, undefined, undefined, oldStart)).resolves.toMatchObject({ location: expect.stringContaining('https://evil.example/phish') });
    clock += OAuthLimits.startTtlMinutes * 60_000 + 1000;
    await expect(service.start(app.appId, undefined, undefined, oldStart)).rejects.toMatchObject({ errors: [OAuthMessages.startInvalid] });
    // The signed link of the avatar page opens it.
    const ok = await t.app.inject({ url: startPath(t, app.appId), remoteAddress: nextIp() });
    expect(ok.statusCode).toBe(302);
    expect(ok.headers.location).toMatch(/^https:\/\/evil\.example\/phish\?/);
  });

  it('marks the sign-in cookie Secure and __Host- when the portal is served over https', async () => {
    const secure = await createTestApp({ ALLOW_PRIVATE_URLS: 'true', PUBLIC_URL: 'https://portal.test' });
    try {
      const me = await createSignedInUser(secure.app, secure.database);
      const created = await secure.app.inject({ method: 'POST', url: '/api/add_oauthapp', headers: me.headers, payload: config() });
      const start = await secure.app.inject({ url: startPath(secure, created.json().oauthApp.appId) });
      expect(start.headers['set-cookie']).toMatch(/^__Host-persona_oauth=[\w-]{43}; Max-Age=\d+; Path=\/; HttpOnly; Secure; SameSite=Lax$/);
    } finally {
      await secure.close();
    }
  });

  it('shows a page of its own when no returnTo was given', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const app = await create(me.headers);
    const visitor = browser();
    const res = await callback(await consent(await startFlow(app.appId, undefined, visitor)), visitor);
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('You are signed in');
  });

  it('refuses forged, foreign or missing state, and reports a provider refusal back to the page', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const a = await create(me.headers);
    const b = await create(me.headers, { appName: 'Other' });
    const visitor = browser();
    const forged = await t.app.inject({ url: `/api/oauth/callback/${a.appId}?code=x&state=${encodeURIComponent('v1:abc:def:ghi')}`, headers: { cookie: visitor.cookie }, remoteAddress: visitor.ip });
    expect(forged.statusCode).toBe(400);
    expect((await t.app.inject({ url: `/api/oauth/callback/${a.appId}?code=x`, remoteAddress: nextIp() })).statusCode).toBe(400);

    // A state made for config b is not accepted by config a's callback.
    const stateForB = (await startFlow(b.appId, undefined, visitor)).searchParams.get('state')!;
    expect((await t.app.inject({ url: `/api/oauth/callback/${a.appId}?code=x&state=${encodeURIComponent(stateForB)}`, headers: { cookie: visitor.cookie }, remoteAddress: visitor.ip })).statusCode).toBe(400);

    const authorize = await startFlow(a.appId, '/avatar/10002', visitor);
    const denied = await t.app.inject({ url: `/api/oauth/callback/${a.appId}?error=access_denied&state=${encodeURIComponent(authorize.searchParams.get('state')!)}`, headers: { cookie: visitor.cookie }, remoteAddress: visitor.ip });
    expect(denied.statusCode).toBe(302);
    expect(denied.headers.location).toBe('http://portal.test/avatar/10002?oauthError=access_denied');
    // A provider's error text is not reflected unless it looks like an error code.
    const odd = await startFlow(a.appId, '/avatar/10002', visitor);
    const oddRes = await t.app.inject({ url: `/api/oauth/callback/${a.appId}?error=${encodeURIComponent('<b>hi</b> there')}&state=${encodeURIComponent(odd.searchParams.get('state')!)}`, headers: { cookie: visitor.cookie }, remoteAddress: visitor.ip });
    expect(oddRes.headers.location).toBe('http://portal.test/avatar/10002?oauthError=provider_error');
  });

  it('reports a code the token endpoint refuses', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const app = await create(me.headers);
    const visitor = browser();
    const authorize = await startFlow(app.appId, '/avatar/10003', visitor);
    const res = await t.app.inject({ url: `/api/oauth/callback/${app.appId}?code=never-issued&state=${encodeURIComponent(authorize.searchParams.get('state')!)}`, headers: { cookie: visitor.cookie }, remoteAddress: visitor.ip });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('http://portal.test/avatar/10003?oauthError=exchange_failed');
  });

  it('refuses every returnTo that leaves the portal, in whatever form, and an unknown config', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const app = await create(me.headers);
    // Raw query strings, as a browser would send them.
    const refused = [
      '%2F.%2F%2Fevil.example%2Fsteal', // the issue's URL: /.//evil.example/steal normalises to //evil.example/steal
      '/.//evil.example/steal',
      '%2F%2Fevil.example',
      '//evil.example/x',
      '/%5Cevil.example',
      '%2F%5C%2Fevil.example',
      '%5C%5Cevil.example',
      '/%5C/evil.example',
      'https:evil.example',
      'https%3Aevil.example',
      'http:evil.example',
      'https://evil.example/',
      'javascript:alert(1)',
      '/%09/evil.example',
      '%09//evil.example',
      '/%0A/evil.example',
      '/%0D%0A/evil.example',
      '%2F%0D%2Fevil.example',
      '%20//evil.example',
      '/%E3%80%80/evil.example',
      '/..//evil.example',
      '/a/..//evil.example',
      '/avatar/../..//evil.example',
      '/%00/evil.example',
      'evil.example',
    ];
    for (const raw of refused) {
      const res = await t.app.inject({ url: startPath(t, app.appId, `returnTo=${raw}`), remoteAddress: nextIp() });
      expect(res.statusCode, raw).toBe(400);
      // NUL is refused for every field before validation (plugins/input-guard.ts), with its own message.
      const reason = raw.includes('%00') ? `returnTo: ${InputMessages.controlChars}` : OAuthMessages.returnToInvalid;
      expect(res.json().errors, raw).toContain(reason);
      expect(res.headers['set-cookie'], raw).toBeUndefined();
    }
    expect((await t.app.inject({ url: startPath(t, 999999), remoteAddress: nextIp() })).statusCode).toBe(404);
  });

  it('returns to the portal itself for every returnTo it accepts, normalised', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const app = await create(me.headers);
    for (const [raw, landing] of [
      ['/avatar/10001', 'http://portal.test/avatar/10001'],
      ['/./avatar/10001', 'http://portal.test/avatar/10001'],
      ['/a/../avatar/10001?x=1', 'http://portal.test/avatar/10001?x=1'],
      ['/%252F%252Fevil.example', 'http://portal.test/%252F%252Fevil.example'],
      // Encoded slashes stay an (unknown) path on the portal: a browser does not read them as a host.
      ['/%2F%2Fevil.example', 'http://portal.test/%2F%2Fevil.example'],
      ['/%5Cevil.example', 'http://portal.test/%5Cevil.example'],
    ] as const) {
      const visitor = browser();
      const start = await t.app.inject({ url: startPath(t, app.appId, `returnTo=${encodeURIComponent(raw)}`), remoteAddress: visitor.ip });
      expect(start.statusCode, raw).toBe(302);
      visitor.keep(start.headers['set-cookie']);
      const res = await callback(await consent(new URL(start.headers.location as string)), visitor);
      const location = new URL(res.headers.location as string);
      expect(`${location.origin}${location.pathname}${location.search.replace(/[?&]oauthCode=[\w-]+/, '')}`, raw).toBe(landing);
    }
  });

  it('checks a stored returnTo again before redirecting to it', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const app = await create(me.headers);
    const visitor = browser();
    const back = await consent(await startFlow(app.appId, '/avatar/10001', visitor));
    // A row written before returnTo was normalised.
    await t.database.db.execute(sql`update oauth_states set return_to = '/.//evil.example/steal' where app_id = ${app.appId}`);
    const res = await callback(back, visitor);
    expect(res.headers.location).toBeUndefined();
    expect(res.statusCode).toBe(200);
    expect(res.body).not.toContain('evil.example');
  });
});

describe('the token endpoint', () => {
  it('is resolved once, by the connection itself (no second lookup that DNS could answer differently)', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const { port } = provider.server.address() as AddressInfo;
    const app = await create(me.headers, { tokenIssueURL: `http://token.provider.test:${port}/token` });
    const lookups: string[] = [];
    const service = createOAuthService({
      repo: createOAuthRepository(t.database.db),
      secretBox: t.app.secretBox,
      publicUrl: 'http://portal.test',
      allowPrivateUrls: false,
      log: t.app.log,
      outbound: {
        lookup: (hostname, callback) => {
          lookups.push(hostname);
          callback(null, [{ address: '127.0.0.1', family: 4 }]);
        },
        // Loopback stands in for the provider's public address.
        isBlockedAddress: (address) => address !== '127.0.0.1',
      },
    });
    const started = await service.start(app.appId, '/avatar/7', undefined, signedStart(service, app.appId));
    const back = await consent(new URL(started.location));
    const outcome = await service.callback(app.appId, Object.fromEntries(back.searchParams), started.browserNonce);
    expect(outcome.kind === 'redirect' ? new URL(outcome.location).searchParams.has(OAuthReturnParams.code) : outcome).toBe(true);
    expect(lookups).toEqual(['token.provider.test']);
  });

  it('is refused on a private address unless ALLOW_PRIVATE_URLS is set, and the page does not tell why', async () => {
    const strict = await createTestApp();
    try {
      const me = await createSignedInUser(strict.app, strict.database);
      const { port } = provider.server.address() as AddressInfo;
      const pages: { status: number; body: string }[] = [];
      for (const tokenIssueURL of [`http://127.0.0.1:${port}/token`, `http://localhost:${port}/token`, `http://no-such-host.invalid:${port}/token`]) {
        const created = await strict.app.inject({ method: 'POST', url: '/api/add_oauthapp', headers: me.headers, payload: config({ tokenIssueURL }) });
        const appId = created.json().oauthApp.appId as number;
        const start = await strict.app.inject({ url: startPath(strict, appId) });
        const cookie = (start.headers['set-cookie'] as string).split(';')[0]!;
        const authorize = new URL(start.headers.location as string);
        const before = provider.exchanges.length;
        const res = await strict.app.inject({ url: `/api/oauth/callback/${appId}?code=code-x&state=${encodeURIComponent(authorize.searchParams.get('state')!)}`, headers: { cookie } });
        expect(provider.exchanges.length).toBe(before);
        pages.push({ status: res.statusCode, body: res.body });
      }
      // One answer for "is a private address", "resolves to a private address" and "does not resolve".
      expect(pages[0]!.status).toBe(502);
      expect(pages[1]).toEqual(pages[0]);
      expect(pages[2]).toEqual(pages[0]);
      expect(pages[0]!.body).toContain(OAuthMessages.exchangeFailed);
      expect(pages[0]!.body).not.toMatch(/private|local|resolve|127\.0\.0\.1/);
    } finally {
      await strict.close();
    }
  });

  it('logs the precise reason', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const { port } = provider.server.address() as AddressInfo;
    const warnings: Record<string, unknown>[] = [];
    const log = { ...t.app.log, warn: (obj: Record<string, unknown>) => warnings.push(obj), info: () => {} } as unknown as typeof t.app.log;
    const service = createOAuthService({ repo: createOAuthRepository(t.database.db), secretBox: t.app.secretBox, publicUrl: 'http://portal.test', allowPrivateUrls: false, log });
    for (const tokenIssueURL of [`http://10.0.0.1:${port}/token`, `http://localhost:${port}/token`]) {
      const app = await create(me.headers, { tokenIssueURL });
      const started = await service.start(app.appId, undefined, undefined, signedStart(service, app.appId));
      const state = new URL(started.location).searchParams.get('state')!;
      await service.callback(app.appId, { code: 'c', state }, started.browserNonce);
    }
    expect(warnings.map((w) => String(w.reason))).toEqual([expect.stringContaining('10.0.0.1 is a private'), expect.stringMatching(/localhost: resolves to (127\.0\.0\.1|::1), not a public address/)]);
  });
});
