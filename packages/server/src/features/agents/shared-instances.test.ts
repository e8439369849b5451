import { Redis } from 'ioredis';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentApi, LiveCode, LiveMessages, LivePaths, type TLiveStartAnswer } from '@persona/contract';
import type { LiveWorkerHandle } from '@persona/worker';
import { createTestApp, type TestContext } from '../../test/build-app.js';
import { createSignedInUser } from '../../test/factories.js';
import { testDriver } from '../../test/db.js';
import { PageClient, startEmbeddedWorker, until } from '../../test/live.js';
import { avatars, encryptionKeys } from '../../db/schema/index.js';
import { generateEs256KeyPair, mintAvatarToken, type KeyPairPem } from '../encryption-keys/avatar-token.js';
import { createRedisAgentDispatch } from './redis-dispatch.js';
// The example agent of docs/agent-api.md, run as customers would run it.
import { signAgentToken, startEchoAgent } from '../../../../../docs/examples/echo-agent.mjs';

// A Redis database of its own per driver: the PGlite and PostgreSQL runs of this file overlap, and
// the apps keep presence, limits and workers under the product's own key names (CI: the twin run's
// state made B's offer find no agent). As shared-workers.test.ts does with 11 and 12.
const redisUrl = (() => {
  if (!process.env.TEST_REDIS_URL) return undefined;
  const u = new URL(process.env.TEST_REDIS_URL);
  u.pathname = testDriver === 'postgres' ? '/14' : '/13';
  return u.toString();
})();
const quiet = { info() {}, warn() {} };
/** A short TTL, so that an instance that dies is forgotten within the test. */
// Short, so that a dead instance's entry expires within the test — but not so short that a heartbeat
// delayed by a loaded machine (both DB runs of the suite at once) lets a live agent's entry lapse.
const TTL_MS = 2000;

// Two portal instances sharing one database and one Redis (issue 16). The agent keeps its
// dispatch socket on A; the worker is connected to B, so B is asked to offer its sessions.
describe.skipIf(!redisUrl)('external agents across portal instances', () => {
  const prefix = `test:agents:${process.pid}:${Date.now()}:${Math.random().toString(36).slice(2)}`;
  // A's registry has connections of its own, so that the test can kill them the way a crash would.
  const connections: Redis[] = [];
  const connect = () => {
    const c = new Redis(redisUrl!, { maxRetriesPerRequest: 1 });
    connections.push(c);
    return c;
  };
  const [aRedis, aSubscriber] = [connect(), connect()];
  let a: TestContext;
  let b: TestContext;
  let baseA: string;
  let baseB: string;
  let worker: LiveWorkerHandle;
  let owner: Awaited<ReturnType<typeof createSignedInUser>>;
  const closers: (() => void)[] = [];

  beforeAll(async () => {
    const env = { REDIS_URL: redisUrl!, ALLOW_PRIVATE_URLS: 'true', EMBEDDINGS: 'off' };
    const dispatchA = await createRedisAgentDispatch({ redis: aRedis, subscriber: aSubscriber, prefix, ttlMs: TTL_MS, heartbeatMs: 250, log: quiet });
    const dispatchB = await createRedisAgentDispatch({ redis: connect(), subscriber: connect(), prefix, ttlMs: TTL_MS, heartbeatMs: 250, log: quiet });
    a = await createTestApp(env, { agentDispatch: dispatchA });
    b = await createTestApp(env, { agentDispatch: dispatchB, database: a.database });
    baseA = await a.app.listen({ port: 0, host: '127.0.0.1' });
    baseB = await b.app.listen({ port: 0, host: '127.0.0.1' });
    owner = await createSignedInUser(a.app, a.database);
    worker = await startEmbeddedWorker(b, baseB);
  });
  afterAll(async () => {
    for (const c of closers) c();
    await worker?.stop();
    await b?.close();
    await a?.close();
    const keys = await connections[2]!.keys(`${prefix}:*`);
    if (keys.length) await connections[2]!.del(...keys);
    for (const c of connections) c.disconnect();
  });

  async function avatarWithKey(name: string): Promise<{ id: number; key: KeyPairPem }> {
    const key = generateEs256KeyPair();
    const [k] = await a.database.db.insert(encryptionKeys).values({ userId: owner.id, name: `${name} key`, publicKey: key.publicKey, privateKeySealed: null, isDefault: false }).returning();
    const [row] = await a.database.db
      .insert(avatars)
      .values({ userId: owner.id, name, nlpEngine: 12, setupMode: 3, config: { wakeUpMessage: 'Hello, I am the agent.', idleTimeout: 300, encKeyId: k!.id } })
      .returning();
    return { id: row!.id, key };
  }

  /** A visitor admitted by B (whose worker runs the session). */
  async function visitOnB(avatar: { id: number; key: KeyPairPem }) {
    const token = mintAvatarToken(avatar.key.privateKey, { avatarId: avatar.id, expiresInSeconds: 600 });
    const res = await b.app.inject({ method: 'POST', url: LivePaths.start, payload: { avatarId: avatar.id, token } });
    const answer = res.json() as TLiveStartAnswer;
    expect(answer.status).toBe('OK');
    const page = new PageClient(answer, { voice: false });
    closers.push(() => page.close());
    await page.waitFor('ready');
    return page;
  }

  it('an app given REDIS_URL keeps its agents in Redis', async () => {
    const c = await createTestApp({ REDIS_URL: redisUrl! }, { database: a.database });
    try {
      expect(c.app.agents.dispatchKind).toBe('redis');
    } finally {
      await c.close();
    }
  });

  it('the agent connected to A is offered a session of B’s worker, joins it and answers; when it leaves, B’s visitors are told nobody is connected', async () => {
    const avatar = await avatarWithKey('Agent on A');
    const agent = startEchoAgent({ portalUrl: baseA, avatarId: avatar.id, privateKeyPem: avatar.key.privateKey, log: quiet });
    closers.push(() => agent.close());
    await agent.welcomed;
    expect(a.app.agents.connected(avatar.id)).toBe(1);
    expect(b.app.agents.connected(avatar.id)).toBe(0);
    expect(await b.app.agents.connectedEverywhere(avatar.id)).toBe(1);

    // B's worker asks B; B forwards the offer to A, A hands it to the agent and says so to B.
    const page = await visitOnB(avatar);
    // Four hops (B's worker → B → Redis → A → the agent, who joins): generous on a loaded machine (CI once took over 8 s).
    await page.waitFor('assistant', (f) => f.final && f.text === 'Hello, I am the agent.', 20_000);
    page.text('Can you hear me from the other instance?');
    await page.waitFor('assistant', (f) => f.final && f.text === 'You said: Can you hear me from the other instance?');
    expect(agent.stats.sessions).toBe(1);
    expect(agent.stats.joined).toBe(1);
    expect(page.of('notice')).toEqual([]);
    page.send({ type: 'bye' });

    // The agent leaves: gone from the registry at once, for B too.
    agent.close();
    await until(async () => (await b.app.agents.connectedEverywhere(avatar.id)) === 0, 2000, 'the agent removed');
    expect(a.app.agents.connected(avatar.id)).toBe(0);
    const next = await visitOnB(avatar);
    expect(await next.waitFor('notice')).toEqual({ type: 'notice', code: LiveCode.agentNotConnected, message: LiveMessages['agent-not-connected'] });
    expect(agent.stats.sessions).toBe(1);
    next.send({ type: 'bye' });
  });

  it('an instance that dies without cleaning up: its agents expire from the registry, and B’s visitors are told nobody is connected', async () => {
    const avatar = await avatarWithKey('Agent on a dying A');
    const frames: Record<string, unknown>[] = [];
    const socket = new WebSocket(`${baseA.replace(/^http/, 'ws')}${AgentApi.dispatchPath}`, { headers: { authorization: `Bearer ${signAgentToken(avatar.key.privateKey, avatar.id)}` } });
    closers.push(() => socket.terminate());
    socket.on('message', (d) => frames.push(JSON.parse(String(d)) as Record<string, unknown>));
    socket.on('error', () => undefined);
    await until(() => frames.some((f) => f.type === 'welcome'));
    // A's heartbeat keeps the entry past its TTL.
    await new Promise((r) => setTimeout(r, TTL_MS * 1.5));
    expect(await b.app.agents.connectedEverywhere(avatar.id)).toBe(1);

    // A crashes: its Redis connections drop, nothing is removed (its agent's socket is even still open).
    aRedis.disconnect();
    aSubscriber.disconnect();
    expect(socket.readyState).toBe(WebSocket.OPEN);
    await until(async () => (await b.app.agents.connectedEverywhere(avatar.id)) === 0, TTL_MS * 3, 'A’s entry expired');

    const page = await visitOnB(avatar);
    expect(await page.waitFor('notice')).toEqual({ type: 'notice', code: LiveCode.agentNotConnected, message: LiveMessages['agent-not-connected'] });
    expect(frames.filter((f) => f.type === 'session')).toEqual([]);
    page.send({ type: 'bye' });
  });
});
