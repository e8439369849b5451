import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import { API_KEY_PATTERN, ApiKeyLimits, ApiKeyMessages, ApiKeyPaths, ApiKeyScopes, ConversationPaths, LivePaths, type TApiKey } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createAvatar, createSignedInUser, createUser, login, loginAs, sessionHeader } from '../../test/factories.js';
import { apiKeys, avatars, users, workers } from '../../db/schema/index.js';
import { hashToken } from '../../lib/tokens.js';

// Issue 30 (ADR 094): account API keys — made, listed and revoked with a portal session only;
// `Bearer ps_live_…` on the routes of their scopes; visitor tokens minted for a key's server.
let t: TestContext;
type Signed = Awaited<ReturnType<typeof createSignedInUser>>;
let alice: Signed;
let bob: Signed;
// The test's clock, moved by hand; it starts at the real time (live admission checks tokens against it).
let clock = new Date(Math.floor(Date.now() / 1000) * 1000);

beforeAll(async () => {
  t = await createTestApp({}, { now: () => clock });
  alice = await createSignedInUser(t.app, t.database);
  bob = await createSignedInUser(t.app, t.database);
});
afterAll(async () => {
  await t?.close();
});

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
async function addKey(who: Signed, body: Record<string, unknown>) {
  const res = await t.app.inject({ method: 'POST', url: ApiKeyPaths.add, headers: who.headers, payload: body });
  expect(res.statusCode, res.body).toBe(200);
  return res.json() as { apiKey: TApiKey; secret: string };
}

describe('API keys', () => {
  it('is shown once, stored as its SHA-256 only, listed without its secret', async () => {
    const made = await addKey(alice, { name: 'CRM sync', scopes: ['conversations:read', 'conversations:read', 'avatars:read'], expiresInDays: 30 });
    expect(made.secret).toMatch(API_KEY_PATTERN);
    expect(made.secret.slice(8, 20)).toBe(made.apiKey.prefix);
    expect(made.apiKey).toMatchObject({ name: 'CRM sync', scopes: ['conversations:read', 'avatars:read'], lastUsedAt: null, expiresAt: new Date(clock.getTime() + 30 * 86_400_000).toISOString() });
    const [row] = await t.database.db.select().from(apiKeys).where(eq(apiKeys.id, made.apiKey.id));
    expect(row!.hash).toBe(hashToken(made.secret));
    expect(JSON.stringify(row)).not.toContain(made.secret.slice(21));
    const list = await t.app.inject({ method: 'GET', url: ApiKeyPaths.list, headers: alice.headers });
    expect(list.json().apiKeys.map((k: TApiKey) => k.id)).toContain(made.apiKey.id);
    expect(list.body).not.toContain(made.secret.slice(21));
    // Another account sees none of them.
    const bobs = await t.app.inject({ method: 'GET', url: ApiKeyPaths.list, headers: bob.headers });
    expect(bobs.json().apiKeys).toEqual([]);
  });

  it('is not made by an administrator signed in as the account (it would outlive the visit); revoking is allowed', async () => {
    const admin = await createUser(t.database, { userType: 'ADMIN' });
    const owner = await createUser(t.database);
    const proxy = await loginAs(t.app, sessionHeader(await login(t.app, admin)), owner);
    const refused = await t.app.inject({ method: 'POST', url: ApiKeyPaths.add, headers: proxy.headers, payload: { name: 'support', scopes: ['conversations:read'], expiresInDays: 30 } });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().errors).toEqual([ApiKeyMessages.notAsAdmin]);
    expect(await t.database.db.select().from(apiKeys).where(eq(apiKeys.ownerUserId, owner.id))).toEqual([]);
    // The owner's own key, revoked by the administrator on their behalf.
    const ownerHeaders = sessionHeader(await login(t.app, owner));
    const made = await t.app.inject({ method: 'POST', url: ApiKeyPaths.add, headers: ownerHeaders, payload: { name: 'server', scopes: ['conversations:read'], expiresInDays: 30 } });
    expect(made.statusCode).toBe(200);
    const revoked = await t.app.inject({ method: 'POST', url: ApiKeyPaths.del, headers: proxy.headers, payload: { id: made.json().apiKey.id } });
    expect(revoked.statusCode).toBe(200);
  });

  it('refuses bad input: no scopes, an unknown scope, an expiry not offered', async () => {
    for (const body of [{ name: 'x', scopes: [] }, { name: 'x', scopes: ['admin'] }, { name: 'x', scopes: ['avatars:read'], expiresInDays: 7 }, { name: '', scopes: ['avatars:read'] }]) {
      const res = await t.app.inject({ method: 'POST', url: ApiKeyPaths.add, headers: alice.headers, payload: body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
    }
  });

  it('acts as its account on the routes of its scopes only; a key never manages keys', async () => {
    const { secret } = await addKey(alice, { name: 'reader', scopes: ['conversations:read'], expiresInDays: null });
    expect((await t.app.inject({ method: 'GET', url: ConversationPaths.list, headers: bearer(secret) })).statusCode).toBe(200);
    const avatarsRes = await t.app.inject({ method: 'GET', url: '/api/list_avatar', headers: bearer(secret) });
    expect(avatarsRes.statusCode).toBe(403);
    expect(avatarsRes.json().errors[0]).toContain('avatars:read');
    for (const [method, url, payload] of [
      ['GET', ApiKeyPaths.list, undefined],
      ['POST', ApiKeyPaths.add, { name: 'escalate', scopes: [...ApiKeyScopes] }],
      ['GET', '/api/account_info', undefined],
      ['GET', '/api/token/jwt', undefined],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: bearer(secret), ...(payload ? { payload } : {}) });
      expect(res.statusCode, url).toBe(403);
    }
    // A key's bearer is never read as the app key.
    expect((await t.app.inject({ method: 'POST', url: '/api/login', headers: bearer(secret), payload: { email: alice.email, password: alice.password } })).statusCode).toBe(401);
    // A forged key of the right shape, a key with one character changed, a malformed one.
    const forged = `${secret.slice(0, -1)}${secret.endsWith('A') ? 'B' : 'A'}`;
    for (const token of [forged, 'ps_live_000000000000_' + 'a'.repeat(43), 'ps_live_nope']) {
      expect((await t.app.inject({ method: 'GET', url: ConversationPaths.list, headers: bearer(token) })).statusCode, token).toBe(401);
    }
  });

  it('expired, revoked and disabled-account keys answer 401; revoking is the owner’s only', async () => {
    const { secret, apiKey } = await addKey(alice, { name: 'short', scopes: ['avatars:read'], expiresInDays: 30 });
    const call = () => t.app.inject({ method: 'GET', url: '/api/list_avatar', headers: bearer(secret) });
    expect((await call()).statusCode).toBe(200);
    // Bob cannot revoke it (404), and it still works.
    expect((await t.app.inject({ method: 'POST', url: ApiKeyPaths.del, headers: bob.headers, payload: { id: apiKey.id } })).statusCode).toBe(404);
    expect((await call()).statusCode).toBe(200);
    // Expired a second after its expiry.
    const before = clock;
    clock = new Date(before.getTime() + 30 * 86_400_000 + 1_000);
    expect((await call()).statusCode).toBe(401);
    clock = before;
    expect((await call()).statusCode).toBe(200);
    // Disabled account.
    await t.database.db.update(users).set({ status: 'DISABLED' }).where(eq(users.id, alice.id));
    expect((await call()).statusCode).toBe(401);
    await t.database.db.update(users).set({ status: 'ACTIVE' }).where(eq(users.id, alice.id));
    // Revoked.
    const revoked = await t.app.inject({ method: 'POST', url: ApiKeyPaths.del, headers: alice.headers, payload: { id: apiKey.id } });
    expect(revoked.statusCode).toBe(200);
    expect((await call()).statusCode).toBe(401);
    expect((await t.app.inject({ method: 'GET', url: ApiKeyPaths.list, headers: alice.headers })).json().apiKeys.map((k: TApiKey) => k.id)).not.toContain(apiKey.id);
    expect((await t.app.inject({ method: 'POST', url: ApiKeyPaths.del, headers: alice.headers, payload: { id: apiKey.id } })).statusCode).toBe(404);
  });

  it('writes last_used_at at most once a minute', async () => {
    const { secret, apiKey } = await addKey(alice, { name: 'used', scopes: ['avatars:read'] });
    const lastUsed = async () => (await t.database.db.select({ at: apiKeys.lastUsedAt }).from(apiKeys).where(eq(apiKeys.id, apiKey.id)))[0]!.at;
    const call = async () => expect((await t.app.inject({ method: 'GET', url: '/api/list_avatar', headers: bearer(secret) })).statusCode).toBe(200);
    const settle = async (want: Date) => {
      // The write is not awaited by the call: wait for it (bounded), never a fixed sleep.
      for (let i = 0; i < 200 && (await lastUsed())?.getTime() !== want.getTime(); i++) await new Promise((r) => setImmediate(r));
      expect((await lastUsed())?.toISOString()).toBe(want.toISOString());
    };
    const start = clock;
    await call();
    await settle(start);
    clock = new Date(start.getTime() + 30_000);
    await call();
    await new Promise((r) => setImmediate(r));
    expect((await lastUsed())?.toISOString()).toBe(start.toISOString());
    clock = new Date(start.getTime() + 61_000);
    await call();
    await settle(clock);
    clock = start;
  });

  it(`limits a key to ${ApiKeyLimits.callsPerMinute} calls a minute`, async () => {
    const { secret } = await addKey(alice, { name: 'busy', scopes: ['conversations:read'] });
    let refused = 0;
    for (let i = 0; i < ApiKeyLimits.callsPerMinute + 5; i++) {
      const res = await t.app.inject({ method: 'GET', url: ConversationPaths.list, headers: bearer(secret), remoteAddress: `10.9.${i >> 8}.${i & 255}` });
      if (res.statusCode === 429) refused += 1;
      else expect(res.statusCode).toBe(200);
    }
    expect(refused).toBe(5);
    // Another key of the same account is not held back by it.
    const other = await addKey(alice, { name: 'calm', scopes: ['conversations:read'] });
    expect((await t.app.inject({ method: 'GET', url: ConversationPaths.list, headers: bearer(other.secret) })).statusCode).toBe(200);
  }, 60_000);
});

describe('visitor tokens', () => {
  let protectedAvatar: number;
  let openAvatar: number;
  let bobProtected: number;
  let minter: string;

  beforeAll(async () => {
    const keyRes = await t.app.inject({ method: 'POST', url: '/api/add_encryption_key', headers: alice.headers, payload: { name: 'site key' } });
    const keyId = keyRes.json().encKey.id as number;
    protectedAvatar = (await t.database.db.insert(avatars).values({ userId: alice.id, name: 'Members only', config: { encKeyId: keyId } }).returning())[0]!.id;
    openAvatar = (await createAvatar(t.database, alice.id, 'Open')).id;
    const bobKey = (await t.app.inject({ method: 'POST', url: '/api/add_encryption_key', headers: bob.headers, payload: { name: 'bob key' } })).json().encKey.id as number;
    bobProtected = (await t.database.db.insert(avatars).values({ userId: bob.id, name: 'Bob only', config: { encKeyId: bobKey } }).returning())[0]!.id;
    minter = (await addKey(alice, { name: 'backend', scopes: ['tokens:create'] })).secret;
    await t.database.db.insert(workers).values({ vpsId: `keys-${randomUUID()}`, name: 'keys', status: 'AVAILABLE', webSocket: 'ws://127.0.0.1:9/avatar-ws', lastPingTime: new Date() });
  });

  const mint = (payload: unknown, token = minter) => t.app.inject({ method: 'POST', url: ApiKeyPaths.visitorToken, headers: bearer(token), payload: payload as object });

  it('mints a token the avatar page is admitted with; none, no admission', async () => {
    const res = await mint({ avatarId: protectedAvatar, ttlSeconds: 900, userId: 'crm-42' });
    expect(res.statusCode, res.body).toBe(200);
    const { token, expiresAt } = res.json() as { token: string; expiresAt: string };
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
    expect(claims).toMatchObject({ avatarId: protectedAvatar, userId: 'crm-42', exp: Math.floor(clock.getTime() / 1000) + 900 });
    expect(claims.sid).toBeUndefined();
    expect(expiresAt).toBe(new Date(clock.getTime() + 900_000).toISOString());
    const start = (token?: string) => t.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId: protectedAvatar, textOnly: true, ...(token ? { token } : {}) }, remoteAddress: `10.8.0.${Math.floor(Math.random() * 200) + 1}` });
    const without = await start();
    expect(without.statusCode).not.toBe(200);
    const admitted = await start(token);
    expect(admitted.statusCode, admitted.body).toBe(200);
  });

  it("refuses another account's avatar (404), an open avatar (400), a TTL over an hour (400)", async () => {
    expect((await mint({ avatarId: bobProtected })).statusCode).toBe(404);
    expect((await mint({ avatarId: 99_999_999 })).statusCode).toBe(404);
    expect((await mint({ avatarId: openAvatar })).statusCode).toBe(400);
    expect((await mint({ avatarId: protectedAvatar, ttlSeconds: 3601 })).statusCode).toBe(400);
    const reader = (await addKey(alice, { name: 'no tokens', scopes: ['avatars:read'] })).secret;
    expect((await mint({ avatarId: protectedAvatar }, reader)).statusCode).toBe(403);
  });
});

describe('OpenAPI', () => {
  it('documents the bearer schemes and the scope of every route a key may call', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/api/docs' });
    const doc = res.json() as { components: { securitySchemes: Record<string, { scheme: string; description: string }> }; paths: Record<string, Record<string, { security?: unknown; 'x-api-key-scope'?: string }>> };
    expect(doc.components.securitySchemes.apiKey!.scheme).toBe('bearer');
    for (const scope of ApiKeyScopes) expect(doc.components.securitySchemes.apiKey!.description).toContain(scope);
    expect(doc.paths[ConversationPaths.export]!.get!['x-api-key-scope']).toBe('conversations:read');
    expect(doc.paths[ConversationPaths.delete]!.post!['x-api-key-scope']).toBe('conversations:delete');
    expect(doc.paths[ApiKeyPaths.visitorToken]!.post!['x-api-key-scope']).toBe('tokens:create');
    expect(doc.paths['/api/list_avatar']!.get!.security).toEqual([{ portalSession: [] }, { apiKey: [] }]);
    expect(doc.paths[ApiKeyPaths.add]!.post!['x-api-key-scope']).toBeUndefined();
  });
});
