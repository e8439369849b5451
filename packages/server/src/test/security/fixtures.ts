// Shared by the security suite (route-matrix.test.ts, schema-fuzz.test.ts): the roles (two
// accounts, an administrator, an administrator signed in as account A) and each account's objects,
// named with a marker that an answer to anybody else must never contain.
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { avatars, workers } from '../../db/schema/index.js';
import { createAvatar, createSignedInUser, createUser, keyHeader, login, loginAs, multipart, sessionHeader } from '../factories.js';
import type { Call, Fixtures } from './route-table.js';

export type Headers = Record<string, string>;
export type AccountName = 'A' | 'B';
export type Role = 'anonymous' | 'A' | 'B' | 'admin' | 'proxy';

let ipCounter = 0;
/** Every request from its own address: per-IP rate limits and session caps never get in the way. */
export const nextIp = () => {
  ipCounter += 1;
  return `10.${(ipCounter >> 16) & 255}.${(ipCounter >> 8) & 255}.${ipCounter & 255}`;
};

export const functionCode = (name: string, body = 'return 1') => `def ${name}(x: int = 1) -> int:\n    """Does ${name}."""\n    ${body}\n`;

interface Credentials {
  headers: Headers;
  jwt: Headers;
}

export interface Security {
  app: FastifyInstance;
  accounts: Record<AccountName, { id: number; email: string; password: string; marker: string }>;
  /** The credentials a role sends: the session header, or the knowledge JWT. */
  credentials(role: Role, kind: 'session' | 'jwt'): Headers;
  /** Signs every role in again (after a call that ended a session). */
  refresh(): Promise<void>;
  /** Account A's or B's objects: cached, or fresh ones (each call makes new objects). */
  fixtures(account: AccountName, fresh?: boolean): Fixtures;
  /** The account a role acts as (admin-proxy acts as A; the administrator is neither). */
  ownerOf(role: Role): AccountName | null;
  /** Sends a table Call. */
  send(method: string, call: Call, headers: Headers): Promise<{ statusCode: number; body: string }>;
  workerId: number;
  /** One digest per table (see VOLATILE), to tell whether a call changed what is stored. */
  snapshot(): Promise<Map<string, string>>;
}

/**
 * Tables a refused call may still write: the sessions' last-seen time (any signed-in call) and
 * the failed sign-ins that lock an account out.
 */
const VOLATILE = new Set(['sessions', 'login_failures']);

/** Names of the tables whose digest differs. */
export const changedTables = (a: Map<string, string>, b: Map<string, string>) => [...a].filter(([n, d]) => b.get(n) !== d).map(([n]) => n);

export async function setUpSecurity(app: FastifyInstance, database: Database): Promise<Security> {
  const marker = (name: string) => `zq${name}${randomBytes(5).toString('hex')}`;
  const a = await createUser(database, { subscriptionType: 4 });
  const b = await createUser(database, { subscriptionType: 4 });
  const adminUser = await createUser(database, { userType: 'ADMIN', subscriptionType: 4 });
  const accounts = { A: { ...a, marker: marker('A') }, B: { ...b, marker: marker('B') } };
  const creds = {} as Record<Exclude<Role, 'anonymous'>, Credentials>;

  const jwtOf = async (headers: Headers) => {
    const res = await app.inject({ method: 'GET', url: '/api/token/jwt', headers });
    if (res.statusCode !== 200) throw new Error(`knowledge token refused: ${res.statusCode} ${res.body}`);
    return { authorization: `Bearer ${res.json().jwtToken as string}` };
  };
  const signIn = async (user: { email: string; password: string }) => {
    const headers = sessionHeader(await login(app, user));
    return { headers, jwt: await jwtOf(headers) };
  };
  async function refresh() {
    creds.A = await signIn(a);
    creds.B = await signIn(b);
    creds.admin = await signIn(adminUser);
    const proxy = await loginAs(app, creds.admin.headers, a);
    creds.proxy = { headers: proxy.headers, jwt: await jwtOf(proxy.headers) };
  }
  await refresh();

  // A worker the admission can pick (nothing listens at its address: sessions are never joined).
  const [worker] = await database.db.insert(workers).values({ vpsId: `matrix-${marker('w')}`, name: 'matrix', status: 'AVAILABLE', webSocket: 'ws://127.0.0.1:9/avatar-ws', lastPingTime: new Date() }).returning();

  const post = async (url: string, payload: unknown, headers: Headers) => {
    const res = await app.inject({ method: 'POST', url, payload: payload as object, headers, remoteAddress: nextIp() });
    if (res.statusCode !== 200) throw new Error(`fixture ${url} failed: ${res.statusCode} ${res.body.slice(0, 300)}`);
    return res.json();
  };

  const cache = new Map<string, Promise<unknown>>();
  function fixtures(account: AccountName, fresh = false): Fixtures {
    const owner = accounts[account];
    const once = <T>(name: string, make: () => Promise<T>): Promise<T> => {
      if (fresh) return make();
      const key = `${account}:${name}`;
      if (!cache.has(key)) cache.set(key, make());
      return cache.get(key) as Promise<T>;
    };
    const headers = () => creds[account].headers;
    const jwt = () => creds[account].jwt;
    const f: Fixtures = {
      userId: owner.id,
      email: owner.email,
      avatar: () => once('avatar', async () => (await createAvatar(database, owner.id, `Avatar ${owner.marker}`)).id),
      fn: () =>
        once('fn', async () => {
          const name = `fn_${owner.marker}_${randomBytes(3).toString('hex')}`;
          const body = await post('/api/functions', { functions: [{ action: 'new', name, code: functionCode(name), template: 'example' }] }, headers());
          const created = body.results[0].function as { id: number; version: number };
          return { id: created.id, version: created.version, name };
        }),
      collection: () => once('collection', async () => (await post('/knowledge_collection', { name: `Collection ${owner.marker}` }, jwt())).data.id as number),
      item: () =>
        once('item', async () => {
          const collection = await fixtures(account).collection();
          return (await post('/knowledge', { collection_id: collection, name: `Note ${owner.marker}`, knowledge_type: 'text', content: `Private note ${owner.marker}.` }, jwt())).data.id as number;
        }),
      key: () => once('key', async () => (await post('/api/add_encryption_key', { name: `Key ${owner.marker}` }, headers())).encKey.id as number),
      oauthApp: () =>
        once('oauth', async () => {
          const body = await post(
            '/api/add_oauthapp',
            { appName: `OAuth ${owner.marker}`, partner: 'Google', clientId: `client-${owner.marker}`, clientSecret: `secret-${owner.marker}`, oauthURL: 'https://accounts.example.com/authorize', tokenIssueURL: 'https://accounts.example.com/token' },
            headers(),
          );
          return body.oauthApp.appId as number;
        }),
      liveSession: () =>
        once('live', async () => {
          const avatarId = await fixtures(account).avatar();
          const body = await post('/api/live/sessions', { avatarId, textOnly: true }, {});
          return { sessionId: body.sessionId as string, resumeToken: body.resumeToken as string };
        }),
      conversation: () =>
        once('conversation', async () => {
          const avatarId = await fixtures(account).avatar();
          const body = await post('/api/live/sessions', { avatarId, textOnly: true }, {});
          await post('/api/live/sessions/end', { sessionId: body.sessionId, resumeToken: body.resumeToken }, {});
          return body.sessionId as string;
        }),
      visitor: () =>
        once('visitor', async () => {
          // A visitor of its own (a page's visitor id): erasing it leaves the account's other conversations.
          const avatarId = await fixtures(account).avatar();
          const body = await post('/api/live/sessions', { avatarId, textOnly: true, visitorId: `erase-${randomBytes(8).toString('hex')}` }, {});
          await post('/api/live/sessions/end', { sessionId: body.sessionId, resumeToken: body.resumeToken }, {});
          const res = await app.inject({ method: 'GET', url: `/api/get_conversation?id=${body.sessionId}`, headers: headers() });
          return res.json().conversation.visitor as string;
        }),
      webhook: () =>
        once('webhook', async () => (await post('/api/add_webhook', { url: `https://hooks.invalid/${owner.marker}`, avatarId: null, events: ['session.ended'] }, headers())).webhook.id as number),
      webhookDelivery: () =>
        once('webhookDelivery', async () => (await post('/api/test_webhook', { id: await fixtures(account).webhook() }, headers())).delivery.id as number),
      protectedAvatar: () =>
        once('protected', async () => {
          const keyId = await fixtures(account).key();
          const [row] = await database.db.insert(avatars).values({ userId: owner.id, name: `Protected ${owner.marker}`, config: { encKeyId: keyId } }).returning();
          return row!.id;
        }),
      apiKey: () => once('apiKey', async () => (await post('/api/add_api_key', { name: `Key ${owner.marker}`, scopes: ['avatars:read'] }, headers())).apiKey.id as string),
      spareUser: () => once('spare', () => createUser(database)),
      planRequest: () =>
        once('plan', async () => {
          const spare = await createSignedInUser(app, database);
          return (await post('/api/account_upgrade', { subType: 2 }, spare.headers)).request.id as number;
        }),
      vps: () =>
        once('vps', async () => {
          const [row] = await database.db.insert(workers).values({ vpsId: `spare-${marker('v')}`, name: 'spare', status: 'DISCONNECTED' }).returning();
          return row!.id;
        }),
    };
    return f;
  }

  async function send(method: string, call: Call, headers: Headers) {
    if (call.multipart) {
      const m = multipart(call.multipart);
      const res = await app.inject({ method: method as 'POST', url: call.url, payload: m.payload, headers: { ...headers, ...m.headers }, remoteAddress: nextIp() });
      return { statusCode: res.statusCode, body: res.body };
    }
    const hasBody = call.payload !== undefined;
    const res = await app.inject({
      method: method as 'POST',
      url: call.url,
      headers: hasBody ? { ...headers, 'content-type': 'application/json' } : headers,
      ...(hasBody ? { payload: JSON.stringify(call.payload) } : {}),
      remoteAddress: nextIp(),
    });
    return { statusCode: res.statusCode, body: res.body };
  }

  const tables = ((await database.db.execute(sql`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`)).rows as { name: string }[])
    .map((r) => r.name)
    .filter((n) => !VOLATILE.has(n));
  const digestQuery = sql.join(
    tables.map((n) => sql`select ${n}::text as name, coalesce(md5(string_agg(t::text, ',' order by t::text)), '') as digest from ${sql.identifier(n)} t`),
    sql` union all `,
  );
  async function snapshot(): Promise<Map<string, string>> {
    const rows = (await database.db.execute(digestQuery)).rows as { name: string; digest: string }[];
    return new Map(rows.map((r) => [r.name, r.digest]));
  }

  return {
    app,
    snapshot,
    accounts,
    credentials: (role, kind) => (role === 'anonymous' ? keyHeader : creds[role][kind === 'jwt' ? 'jwt' : 'headers']),
    refresh,
    fixtures,
    ownerOf: (role) => (role === 'A' || role === 'proxy' ? 'A' : role === 'B' ? 'B' : null),
    send,
    workerId: worker!.id,
  };
}
