import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FailReason, OAuthMessages } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { dumpDatabaseText } from '../../test/db-dump.js';
import { sql } from 'drizzle-orm';
import { createAvatar, createSignedInUser } from '../../test/factories.js';

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

describe('the authorization-code flow', () => {
  async function startFlow(appId: number, returnTo?: string) {
    const start = await t.app.inject({ url: `/api/oauth/start/${appId}${returnTo ? `?returnTo=${encodeURIComponent(returnTo)}` : ''}` });
    expect(start.statusCode, start.body).toBe(302);
    return new URL(start.headers.location as string);
  }

  /** Follows the provider's redirect as a browser would and returns the callback path. */
  async function consent(authorizeUrl: URL): Promise<URL> {
    const res = await fetch(authorizeUrl, { redirect: 'manual' });
    expect(res.status).toBe(302);
    return new URL(res.headers.get('location')!);
  }

  it('redirects to the OAuth URL, exchanges the code at the Token Issue URL and records the sign-in', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const app = await create(me.headers);
    const authorize = await startFlow(app.appId, '/avatar/10001?lang=en');
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${base}/authorize`);
    expect(authorize.searchParams.get('response_type')).toBe('code');
    expect(authorize.searchParams.get('client_id')).toBe(config().clientId);
    expect(authorize.searchParams.get('redirect_uri')).toBe(app.callbackURL);
    const state = authorize.searchParams.get('state')!;
    expect(state.length).toBeGreaterThan(40);
    expect(state).not.toContain('avatar');

    const callback = await consent(authorize);
    expect(`${callback.origin}${callback.pathname}`).toBe(app.callbackURL);
    const res = await t.app.inject({ url: `${callback.pathname}${callback.search}` });
    expect(res.statusCode, res.body).toBe(302);
    const back = new URL(res.headers.location as string, 'http://portal.test');
    expect(back.pathname).toBe('/avatar/10001');
    expect(back.searchParams.get('lang')).toBe('en');
    const session = back.searchParams.get('oauthSession')!;
    expect(session).toMatch(/^[\w-]{40,}$/);

    // The token endpoint got the code with the client's credentials and the same redirect URI.
    const exchange = provider.exchanges.at(-1)!;
    expect(exchange.get('client_secret')).toBe(SECRET);
    expect(exchange.get('redirect_uri')).toBe(app.callbackURL);

    // The avatar page can check the visitor's sign-in; the provider's tokens are stored sealed.
    const { createOAuthService } = await import('./service.js');
    const { createOAuthRepository } = await import('./repository.js');
    const service = createOAuthService({ repo: createOAuthRepository(t.database.db), secretBox: t.app.secretBox, publicUrl: 'http://portal.test', allowPrivateUrls: true, log: t.app.log });
    expect(await service.verifySession(app.appId, session)).toMatchObject({ subject: 'visitor-42', email: 'visitor@example.com' });
    expect(await service.verifySession(app.appId, 'not-a-session')).toBeNull();
    expect(await service.verifySession(app.appId + 1, session)).toBeNull();
    const dump = await dumpDatabaseText(t.database);
    expect(dump).not.toContain('provider-access-token-abcdef');
    expect(dump).not.toContain(session);

    // The state is single-use: replaying the callback is refused.
    const replay = await t.app.inject({ url: `${callback.pathname}${callback.search}` });
    expect(replay.statusCode).toBe(400);
    expect(replay.headers['content-type']).toContain('text/html');
    expect(replay.body).toContain(OAuthMessages.stateInvalid);
  });

  it('shows a page of its own when no returnTo was given', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const app = await create(me.headers);
    const callback = await consent(await startFlow(app.appId));
    const res = await t.app.inject({ url: `${callback.pathname}${callback.search}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain('You are signed in');
  });

  it('refuses forged, foreign or missing state, and reports a provider refusal back to the page', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const a = await create(me.headers);
    const b = await create(me.headers, { appName: 'Other' });
    const forged = await t.app.inject({ url: `/api/oauth/callback/${a.appId}?code=x&state=${encodeURIComponent('v1:abc:def:ghi')}` });
    expect(forged.statusCode).toBe(400);
    expect((await t.app.inject({ url: `/api/oauth/callback/${a.appId}?code=x` })).statusCode).toBe(400);

    // A state made for config b is not accepted by config a's callback.
    const stateForB = (await startFlow(b.appId)).searchParams.get('state')!;
    expect((await t.app.inject({ url: `/api/oauth/callback/${a.appId}?code=x&state=${encodeURIComponent(stateForB)}` })).statusCode).toBe(400);

    const authorize = await startFlow(a.appId, '/avatar/10002');
    const denied = await t.app.inject({ url: `/api/oauth/callback/${a.appId}?error=access_denied&state=${encodeURIComponent(authorize.searchParams.get('state')!)}` });
    expect(denied.statusCode).toBe(302);
    expect(denied.headers.location).toBe('/avatar/10002?oauthError=access_denied');
  });

  it('reports a code the token endpoint refuses', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const app = await create(me.headers);
    const authorize = await startFlow(app.appId, '/avatar/10003');
    const res = await t.app.inject({ url: `/api/oauth/callback/${app.appId}?code=never-issued&state=${encodeURIComponent(authorize.searchParams.get('state')!)}` });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('/avatar/10003?oauthError=exchange_failed');
  });

  it('refuses an open redirect and an unknown config', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const app = await create(me.headers);
    for (const returnTo of ['https://evil.example/', '//evil.example/x', '/\\evil.example']) {
      const res = await t.app.inject({ url: `/api/oauth/start/${app.appId}?returnTo=${encodeURIComponent(returnTo)}` });
      expect(res.statusCode, returnTo).toBe(400);
      expect(res.json().errors).toContain(OAuthMessages.returnToInvalid);
    }
    expect((await t.app.inject({ url: '/api/oauth/start/999999' })).statusCode).toBe(404);
  });
});

describe('the token endpoint on a private address', () => {
  it('is refused unless ALLOW_PRIVATE_URLS is set', async () => {
    const strict = await createTestApp();
    try {
      const me = await createSignedInUser(strict.app, strict.database);
      const created = await strict.app.inject({ method: 'POST', url: '/api/add_oauthapp', headers: me.headers, payload: config() });
      const appId = created.json().oauthApp.appId as number;
      const start = await strict.app.inject({ url: `/api/oauth/start/${appId}` });
      const authorize = new URL(start.headers.location as string);
      const before = provider.exchanges.length;
      const res = await strict.app.inject({ url: `/api/oauth/callback/${appId}?code=code-x&state=${encodeURIComponent(authorize.searchParams.get('state')!)}` });
      expect(res.statusCode).toBe(400);
      expect(res.body).toContain('private or local address');
      expect(provider.exchanges.length).toBe(before);
    } finally {
      await strict.close();
    }
  });
});
