import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SubscriptionType } from '@persona/contract';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createSignedInUser, validAvatar } from '../../test/factories.js';

// How an avatar links to functions, encryption keys and OAuth configs of its owner.
let t: TestContext;
let admin: Awaited<ReturnType<typeof createSignedInUser>>;
beforeAll(async () => {
  t = await createTestApp();
  admin = await createSignedInUser(t.app, t.database, { userType: 'ADMIN' });
});
afterAll(async () => {
  await t.close();
});

type User = Awaited<ReturnType<typeof createSignedInUser>>;
const owner = () => createSignedInUser(t.app, t.database, { subscriptionType: SubscriptionType.ENTERPRISE });
const save = (user: User, payload: object) => t.app.inject({ method: 'POST', url: '/api/add_avatar', headers: user.headers, payload });

async function newFunction(user: User, name: string, approve: boolean) {
  const code = `def ${name}(x: int = 1) -> int:\n    """Does ${name}."""\n    return x\n`;
  const res = await t.app.inject({ method: 'POST', url: '/api/functions', headers: user.headers, payload: { functions: [{ action: 'new', name, code, template: 'example' }] } });
  const fn = res.json().results[0].function;
  if (!approve) return fn;
  const reviewed = await t.app.inject({ method: 'POST', url: '/api/admin/functions/review', headers: admin.headers, payload: { id: fn.id, version: fn.version, decision: 'approve' } });
  return reviewed.json().function;
}

describe('avatar links', () => {
  it('links only approved functions of the owner', async () => {
    const user = await owner();
    const other = await owner();
    const approved = await newFunction(user, 'get_time', true);
    const pending = await newFunction(user, 'get_date', false);
    const theirs = await newFunction(other, 'get_theirs', true);
    const { agent } = (await save(user, validAvatar())).json();

    const bad = await save(user, validAvatar({ id: agent.id, version: agent.version, functions: [approved.id, pending.id] }));
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0]).toContain('get_date');
    expect((await save(user, validAvatar({ id: agent.id, version: agent.version, functions: [theirs.id] }))).statusCode).toBe(400);

    const ok = await save(user, validAvatar({ id: agent.id, version: agent.version, functions: [approved.id] }));
    expect(ok.statusCode).toBe(200);
    expect(ok.json().agent.functions).toEqual([approved.id]);
  });

  it('links only knowledge collections of the owner (customData.collection_ids)', async () => {
    const user = await owner();
    const other = await owner();
    const collection = async (who: User, name: string) => {
      const jwt = (await t.app.inject({ url: '/api/token/jwt', headers: who.headers })).json().jwtToken as string;
      const res = await t.app.inject({ method: 'POST', url: '/knowledge_collection', headers: { authorization: `Bearer ${jwt}` }, payload: { name } });
      return res.json().data.id as number;
    };
    const mine = await collection(user, 'Mine');
    const theirs = await collection(other, 'Theirs');
    const { agent } = (await save(user, validAvatar())).json();
    const withCollections = (ids: number[]) => validAvatar({ id: agent.id, version: agent.version, customData: { collection_ids: ids } });

    for (const ids of [[theirs], [mine, theirs], [999_999_999]]) {
      const bad = await save(user, withCollections(ids));
      expect(bad.statusCode).toBe(400);
      expect(bad.json().errors).toEqual(['The knowledge collection was not found.']);
    }
    // Not an id at all (above int32): refused by the schema before any look-up.
    const outOfRange = await save(user, withCollections([3_000_000_000]));
    expect(outOfRange.statusCode).toBe(400);
    expect(outOfRange.json().errors.join(' ')).toMatch(/whole number between 1 and 2147483647/);
    const ok = await save(user, withCollections([mine, mine]));
    expect(ok.statusCode).toBe(200);
    expect(ok.json().agent.customData.collection_ids).toEqual([mine, mine]);
  });

  it('uses only the owner’s encryption keys, shows the key and gives Connect a token', async () => {
    const user = await owner();
    const other = await owner();
    const created = await t.app.inject({ method: 'POST', url: '/api/add_encryption_key', headers: user.headers, payload: { name: 'Website' } });
    const key = created.json().encKey;
    const theirs = (await t.app.inject({ method: 'POST', url: '/api/add_encryption_key', headers: other.headers, payload: { name: 'Theirs' } })).json().encKey;
    const { agent } = (await save(user, validAvatar())).json();
    expect(agent.token).toBeUndefined();

    expect((await save(user, validAvatar({ id: agent.id, version: agent.version, encKeyId: theirs.id }))).statusCode).toBe(400);
    const res = await save(user, validAvatar({ id: agent.id, version: agent.version, encKeyId: key.id }));
    expect(res.statusCode).toBe(200);
    expect(res.json().agent.encKey).toEqual({ id: key.id, name: 'Website', defaultKey: false });
    const token = res.json().agent.token as string;
    expect(token.split('.')).toHaveLength(3);

    const info = await t.app.inject({ url: '/api/account_info', headers: user.headers });
    expect(info.json().accountDetails.encKeys.map((k: { id: number }) => k.id)).toContain(key.id);
  });

  it('requires OAuth configs of the owner', async () => {
    const user = await owner();
    const other = await owner();
    const app = {
      appName: 'Staff sign-in',
      partner: 'Google',
      clientId: 'client-id-123',
      clientSecret: 'client-secret-456',
      oauthURL: 'https://accounts.google.com/o/oauth2/v2/auth',
      tokenIssueURL: 'https://oauth2.googleapis.com/token',
    };
    const theirs = (await t.app.inject({ method: 'POST', url: '/api/add_oauthapp', headers: other.headers, payload: app })).json();
    const mine = (await t.app.inject({ method: 'POST', url: '/api/add_oauthapp', headers: user.headers, payload: app })).json();
    const theirId = theirs.oauthApp.appId;
    const myId = mine.oauthApp.appId;
    const refused = await save(user, validAvatar({ oauthEnabled: 1, partnerOauthAppId: theirId }));
    expect(refused.statusCode).toBe(400);
    expect(refused.json().errors).toEqual(['The OAuth config was not found.']);
    expect((await save(user, validAvatar({ oauthEnabled: 1, partnerOauthAppId: myId }))).statusCode).toBe(200);
  });
});
