import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { EncryptionKeyMessages, FailReason } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { dumpDatabaseText } from '../../test/db-dump.js';
import { createAvatar, createSignedInUser, keyHeader, loginAs, sessionHeader } from '../../test/factories.js';
import { mintAvatarToken } from './avatar-token.js';
import { createEncryptionKeysRepository } from './repository.js';
import { createEncryptionKeysService } from './service.js';
import { createAuthRepository } from '../auth/repository.js';
import { createAuthService } from '../auth/service.js';
import { createMemoryRevocationBus } from '../../plugins/revocations.js';

let t: TestContext;
beforeAll(async () => {
  t = await createTestApp();
});
afterAll(async () => {
  await t.close();
});

const list = async (headers: Record<string, string>) => (await t.app.inject({ url: '/api/list_encryption_keys', headers })).json();
const add = (headers: Record<string, string>, payload: Record<string, unknown>) => t.app.inject({ method: 'POST', url: '/api/add_encryption_key', headers, payload });
const del = (headers: Record<string, string>, id: number) => t.app.inject({ method: 'POST', url: '/api/del_encryption_key', headers, payload: { id, mode: 'delete' } });
/** The service as the live runtime will use it: sessions read from the same database. */
const service = () =>
  createEncryptionKeysService({
    repo: createEncryptionKeysRepository(t.database.db),
    secretBox: t.app.secretBox,
    sessionOf: createAuthService({ repo: createAuthRepository(t.database.db), mailer: t.mail, log: t.app.log, publicUrl: '', allowRegistration: false, revocations: createMemoryRevocationBus(), sessionCacheMs: 0 }).resolveSessionById,
  });

describe('encryption keys', () => {
  it('gives every account exactly one default key, made on first need', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const [first, second] = await Promise.all([list(me.headers), list(me.headers)]);
    expect(first.status).toBe('OK');
    expect(first.encKeys).toHaveLength(1);
    expect(second.encKeys).toEqual(first.encKeys);
    expect(first.encKeys[0]).toMatchObject({ name: EncryptionKeyMessages.defaultKeyName, defaultKey: true });
    expect(first.encKeys[0].publicKey).toMatch(/BEGIN PUBLIC KEY/);
    expect(first.encKeys[0].encKey).toBeUndefined();
  });

  it('creates a key pair and returns the private key once; list never returns it', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const res = await add(me.headers, { name: '  Website  ' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const key = res.json().encKey;
    expect(key).toMatchObject({ name: 'Website', defaultKey: false });
    expect(key.encKey).toMatch(/^-----BEGIN PRIVATE KEY-----\n[\s\S]+-----END PRIVATE KEY-----\n$/);
    const keys = (await list(me.headers)).encKeys;
    expect(keys.map((k: { name: string }) => k.name)).toEqual([EncryptionKeyMessages.defaultKeyName, 'Website']);
    expect(JSON.stringify(keys)).not.toContain('PRIVATE KEY');

    // The private key is not stored at all; the default key's is stored sealed.
    const body = key.encKey.split('\n')[1];
    const dump = await dumpDatabaseText(t.database);
    expect(dump).toContain('encryption_keys');
    expect(dump).not.toContain(body);
    expect(dump).not.toContain('PRIVATE KEY');
  });

  it('answers the spec messages for a missing name, and refuses an edit', async () => {
    const me = await createSignedInUser(t.app, t.database);
    for (const payload of [{}, { name: '' }, { name: '   ' }]) {
      const res = await add(me.headers, payload);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ status: 'FAIL', errors: [EncryptionKeyMessages.nameRequired], failReason: FailReason.InvalidOrMissingParams });
    }
    const edit = await add(me.headers, { id: 5, name: 'Renamed' });
    expect(edit.statusCode).toBe(400);
    expect(edit.json().errors).toEqual([EncryptionKeyMessages.noEdit]);
    expect((await add(me.headers, { id: null, name: 'Fine' })).statusCode).toBe(200);
  });

  it('refuses to delete the default key with a clear error, and deletes others', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const created = (await add(me.headers, { name: 'Temporary' })).json().encKey;
    const defaultKey = (await list(me.headers)).encKeys.find((k: { defaultKey: boolean }) => k.defaultKey);
    const refused = await del(me.headers, defaultKey.id);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors).toEqual([EncryptionKeyMessages.defaultCannotBeDeleted]);
    const ok = await del(me.headers, created.id);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toEqual({ status: 'OK', id: created.id });
    expect((await list(me.headers)).encKeys).toHaveLength(1);
    expect((await del(me.headers, created.id)).statusCode).toBe(404);
  });

  it("answers 404 for another account's key", async () => {
    const owner = await createSignedInUser(t.app, t.database);
    const other = await createSignedInUser(t.app, t.database);
    const key = (await add(owner.headers, { name: 'Mine' })).json().encKey;
    const res = await del(other.headers, key.id);
    expect(res.statusCode).toBe(404);
    expect((await list(owner.headers)).encKeys.map((k: { id: number }) => k.id)).toContain(key.id);
    expect((await list(other.headers)).encKeys.map((k: { id: number }) => k.id)).not.toContain(key.id);
  });

  it('refuses to delete a key an avatar uses, naming the avatar', async () => {
    const me = await createSignedInUser(t.app, t.database);
    const key = (await add(me.headers, { name: 'Kiosk' })).json().encKey;
    const avatar = await createAvatar(t.database, me.id, 'Receptionist');
    await t.database.db.execute(sql`update avatars set config = config || ${JSON.stringify({ encKeyId: key.id })}::jsonb where id = ${avatar.id}`);
    const res = await del(me.headers, key.id);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([EncryptionKeyMessages.inUse([`Receptionist (${avatar.id})`])]);
  });

  it('needs a session', async () => {
    expect((await t.app.inject({ url: '/api/list_encryption_keys', headers: { authorization: 'Bearer test-app-key' } })).statusCode).toBe(401);
  });
});

describe('token verification for an avatar', () => {
  it("accepts a token signed with the avatar's key or minted by the portal, and refuses others", async () => {
    const me = await createSignedInUser(t.app, t.database);
    const stranger = await createSignedInUser(t.app, t.database);
    const key = (await add(me.headers, { name: 'Site' })).json().encKey;
    const strangersKey = (await add(stranger.headers, { name: 'Theirs' })).json().encKey;
    const keys = service();
    const exp = { expiresInSeconds: 300 };

    const mine = mintAvatarToken(key.encKey, { avatarId: 10001, userId: 'u-1', ...exp });
    expect(await keys.verifyToken(me.id, key.id, 10001, mine)).toMatchObject({ ok: true, claims: { avatarId: 10001, userId: 'u-1' } });
    expect(await keys.verifyToken(me.id, key.id, 10002, mine)).toEqual({ ok: false, reason: 'wrong-avatar' });

    const portal = await keys.mintPortalToken(me.id, 10001);
    expect(await keys.verifyToken(me.id, key.id, 10001, portal)).toMatchObject({ ok: true });
    expect(await keys.verifyToken(me.id, null, 10001, portal)).toMatchObject({ ok: true });

    const theirs = mintAvatarToken(strangersKey.encKey, { avatarId: 10001, ...exp });
    expect(await keys.verifyToken(me.id, key.id, 10001, theirs)).toEqual({ ok: false, reason: 'signature' });
    // A stranger cannot use their own key id on my avatar either.
    expect(await keys.verifyToken(me.id, strangersKey.id, 10001, theirs)).toEqual({ ok: false, reason: 'signature' });
    const expired = mintAvatarToken(key.encKey, { avatarId: 10001, expiresInSeconds: -120 });
    expect(await keys.verifyToken(me.id, key.id, 10001, expired)).toEqual({ ok: false, reason: 'expired' });
  });
});

describe('the tokens the portal mints for Connect and the preview', () => {
  const avatarToken = async (headers: Record<string, string>, avatarId: number) =>
    (await t.app.inject({ url: `/api/get_avatar?agentId=${avatarId}`, headers })).json().agent.token as string;

  it('end with the session they were minted for: logout, disable, and an administrator session ending', async () => {
    const admin = await createSignedInUser(t.app, t.database, { userType: 'ADMIN' });
    const me = await createSignedInUser(t.app, t.database);
    const key = (await add(me.headers, { name: 'Site' })).json().encKey;
    const avatar = await createAvatar(t.database, me.id);
    await t.database.db.execute(sql`update avatars set config = jsonb_build_object('encKeyId', ${key.id}::int) where id = ${avatar.id}`);
    const keys = service();
    const verify = (token: string) => keys.verifyToken(me.id, key.id, avatar.id, token);

    const token = await avatarToken(me.headers, avatar.id);
    expect(await verify(token)).toMatchObject({ ok: true });
    await t.app.inject({ url: '/api/logout', headers: me.headers });
    expect(await verify(token)).toEqual({ ok: false, reason: 'session-ended' });

    const relogged = await t.app.inject({ method: 'POST', url: '/api/login', headers: keyHeader, payload: { email: me.email, password: me.password } });
    const fresh = await avatarToken(sessionHeader(relogged.json().sessionId), avatar.id);
    expect(await verify(fresh)).toMatchObject({ ok: true });
    await t.app.inject({ method: 'POST', url: '/api/admin/users/status', headers: admin.headers, payload: { userId: me.id, status: 'DISABLED' } });
    expect(await verify(fresh)).toEqual({ ok: false, reason: 'session-ended' });
    await t.app.inject({ method: 'POST', url: '/api/admin/users/status', headers: admin.headers, payload: { userId: me.id, status: 'ACTIVE' } });
    expect(await verify(fresh)).toEqual({ ok: false, reason: 'session-ended' });

    // Minted for an administrator acting as the customer: ends with the administrator's session.
    const proxy = await loginAs(t.app, admin.headers, me);
    const proxied = await avatarToken(proxy.headers, avatar.id);
    expect(await verify(proxied)).toMatchObject({ ok: true });
    await t.app.inject({ url: '/api/logout', headers: admin.headers });
    expect(await verify(proxied)).toEqual({ ok: false, reason: 'session-ended' });
  });
});
