import { Redis } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { AgentApi, type TAgentDispatchSession } from '@persona/contract';
import { createMemoryAgentDispatch, type AgentDispatch } from './dispatch.js';
import { createRedisAgentDispatch, type RedisAgentDispatchOptions } from './redis-dispatch.js';
import { REDIS_OPTIONS } from '../../plugins/redis.js';
import { startTcpProxy, targetOf } from '../../test/tcp-proxy.js';
import { until } from '../../test/live.js';

const redisUrl = process.env.TEST_REDIS_URL;
const quiet = { warn() {} };

/** An instance's dispatch and what its sockets received, per link id. */
interface Instance {
  dispatch: AgentDispatch;
  received: Map<string, TAgentDispatchSession[]>;
  /** Link ids whose socket is closed (the local delivery refuses them). */
  gone: Set<string>;
}

function serveOn(dispatch: AgentDispatch): Instance {
  const received = new Map<string, TAgentDispatchSession[]>();
  const gone = new Set<string>();
  dispatch.serve((linkId, frame) => {
    if (gone.has(linkId)) return false;
    received.set(linkId, [...(received.get(linkId) ?? []), frame]);
    return true;
  });
  return { dispatch, received, gone };
}

let n = 0;
const session = (avatarId: number): TAgentDispatchSession => ({ type: 'session', sessionId: `s${++n}`, avatarId, wsUrl: 'ws://worker.test/avatar-ws', ticket: 't' });
/** Which link got each of `count` offers of the avatar (null: not offered). */
async function offers(from: Instance, holders: Instance[], avatarId: number, count: number): Promise<(string | null)[]> {
  const out: (string | null)[] = [];
  for (let i = 0; i < count; i++) {
    const frame = session(avatarId);
    const isOffered = await from.dispatch.offer(frame);
    const holder = holders.flatMap((h) => [...h.received]).find(([, frames]) => frames.some((f) => f.sessionId === frame.sessionId));
    expect(isOffered).toBe(holder !== undefined);
    out.push(holder?.[0] ?? null);
  }
  return out;
}

// The registry contract, for one instance's memory and for Redis.
const kinds: [string, () => Promise<Instance>][] = [['memory', async () => serveOn(createMemoryAgentDispatch())]];
const connections: Redis[] = [];
const prefix = `test:agents:${process.pid}:${Date.now()}:${Math.random().toString(36).slice(2)}`;
async function redisInstance(over: Partial<RedisAgentDispatchOptions> = {}): Promise<Instance & { redis: Redis; subscriber: Redis }> {
  const redis = new Redis(redisUrl!, { maxRetriesPerRequest: 1 });
  const subscriber = new Redis(redisUrl!, { maxRetriesPerRequest: 1 });
  connections.push(redis, subscriber);
  const dispatch = await createRedisAgentDispatch({ redis, subscriber, prefix, log: quiet, ...over });
  return { ...serveOn(dispatch), redis, subscriber };
}
if (redisUrl) kinds.push(['redis', () => redisInstance()]);

const opened: AgentDispatch[] = [];
afterEach(async () => {
  for (const d of opened.splice(0)) await d.close().catch(() => undefined);
});
afterAll(async () => {
  if (!redisUrl) return;
  const redis = new Redis(redisUrl);
  const keys = await redis.keys(`${prefix}:*`);
  if (keys.length) await redis.del(...keys);
  await redis.quit();
  for (const c of connections) c.disconnect();
});
const open = async <I extends Instance>(make: () => Promise<I>): Promise<I> => {
  const i = await make();
  opened.push(i.dispatch);
  return i;
};

describe.each(kinds)('%s agent dispatch', (_kind, make) => {
  it('offers to the agent with the fewest offers (ties: the first connected); a removed agent gets none', async () => {
    const one = await open(make);
    const avatarId = 100 + ++n;
    await one.dispatch.add({ linkId: 'x', avatarId });
    await one.dispatch.add({ linkId: 'y', avatarId });
    expect(await offers(one, [one], avatarId, 3)).toEqual(['x', 'y', 'x']);
    await one.dispatch.add({ linkId: 'z', avatarId });
    expect(await offers(one, [one], avatarId, 3)).toEqual(['z', 'y', 'z']);
    await one.dispatch.remove({ linkId: 'z', avatarId });
    expect(await one.dispatch.count(avatarId)).toBe(2);
    expect(await offers(one, [one], avatarId, 2)).toEqual(['x', 'y']);
    // Another avatar's agents are never offered this avatar's sessions.
    expect(await offers(one, [one], avatarId + 1000, 1)).toEqual([null]);
  });

  it('a socket found closed is dropped and the next agent is offered the session', async () => {
    const one = await open(make);
    const avatarId = 100 + ++n;
    await one.dispatch.add({ linkId: 'x', avatarId });
    await one.dispatch.add({ linkId: 'y', avatarId });
    one.gone.add('x');
    expect(await offers(one, [one], avatarId, 2)).toEqual(['y', 'y']);
    expect(await one.dispatch.count(avatarId)).toBe(1);
    one.gone.add('y');
    expect(await offers(one, [one], avatarId, 1)).toEqual([null]);
    expect(await one.dispatch.count(avatarId)).toBe(0);
  });

  it(`at most ${AgentApi.maxAgentsPerAvatar} agents per avatar`, async () => {
    const one = await open(make);
    const avatarId = 100 + ++n;
    for (let i = 0; i < AgentApi.maxAgentsPerAvatar; i++) expect(await one.dispatch.add({ linkId: `l${i}`, avatarId })).toBe(true);
    expect(await one.dispatch.add({ linkId: 'one-more', avatarId })).toBe(false);
    await one.dispatch.remove({ linkId: 'l0', avatarId });
    expect(await one.dispatch.add({ linkId: 'one-more', avatarId })).toBe(true);
  });
});

// Several portal instances on one Redis (issue 16).
describe.skipIf(!redisUrl)('redis agent dispatch across instances', () => {
  it('an offer made on B reaches the agent held by A, and A’s acceptance comes back; the rule is the same across instances', async () => {
    const a = await open(() => redisInstance());
    const b = await open(() => redisInstance());
    const avatarId = 100 + ++n;
    await a.dispatch.add({ linkId: 'a1', avatarId });
    await b.dispatch.add({ linkId: 'b1', avatarId });
    await a.dispatch.add({ linkId: 'a2', avatarId });
    expect(await b.dispatch.count(avatarId)).toBe(3);
    expect(await a.dispatch.count(avatarId)).toBe(3);
    // Fewest offers first, ties in the order they connected, whichever instance asks.
    expect(await offers(b, [a, b], avatarId, 3)).toEqual(['a1', 'b1', 'a2']);
    expect(await offers(a, [a, b], avatarId, 3)).toEqual(['a1', 'b1', 'a2']);
    // A's socket just closed (A refuses): B offers the next agent, and A's entry is gone.
    a.gone.add('a1');
    expect(await offers(b, [a, b], avatarId, 1)).toEqual(['b1']);
    expect(await b.dispatch.count(avatarId)).toBe(2);
    // Disconnected agents are removed at once, for every instance.
    await a.dispatch.remove({ linkId: 'a2', avatarId });
    await b.dispatch.remove({ linkId: 'b1', avatarId });
    expect(await b.dispatch.count(avatarId)).toBe(0);
    expect(await offers(b, [a, b], avatarId, 1)).toEqual([null]);
  });

  it('the agents limit counts every instance', async () => {
    const a = await open(() => redisInstance());
    const b = await open(() => redisInstance());
    const avatarId = 100 + ++n;
    for (let i = 0; i < AgentApi.maxAgentsPerAvatar; i++) expect(await (i % 2 ? a : b).dispatch.add({ linkId: `l${i}`, avatarId })).toBe(true);
    expect(await a.dispatch.add({ linkId: 'one-more', avatarId })).toBe(false);
    expect(await b.dispatch.add({ linkId: 'one-more', avatarId })).toBe(false);
  });

  it('entries outlive their TTL while their instance beats; a killed instance’s expire, and offers skip it at once', async () => {
    // A TTL far above the heartbeat and above the longest pause of a loaded machine (0.35 s
    // measured; at 400 ms a late heartbeat let a live entry expire: issue 26, item 16).
    const TTL = 1500;
    const a = await open(() => redisInstance({ ttlMs: TTL, heartbeatMs: 100 }));
    const b = await open(() => redisInstance({ ttlMs: TTL, heartbeatMs: 100 }));
    const avatarId = 100 + ++n;
    await a.dispatch.add({ linkId: 'a1', avatarId });
    await b.dispatch.add({ linkId: 'b1', avatarId });
    await new Promise((r) => setTimeout(r, TTL + 500));
    expect(await b.dispatch.count(avatarId)).toBe(2);

    // A dies without a word: its connections drop, nothing is cleaned up.
    a.redis.disconnect();
    a.subscriber.disconnect();
    expect(await b.dispatch.count(avatarId)).toBe(2);
    // Nobody listens on A's channel any more: B's offer goes to B's own agent without waiting.
    const started = Date.now();
    expect(await offers(b, [a, b], avatarId, 1)).toEqual(['b1']);
    // Not after waiting for A's answer (answerTimeoutMs, 2.5 s by default).
    expect(Date.now() - started).toBeLessThan(1500);
    // a1 was dropped by that offer; with nobody left on B, A's entries would expire anyway:
    await b.dispatch.remove({ linkId: 'b1', avatarId });
    const c = await open(() => redisInstance({ ttlMs: TTL, heartbeatMs: 100 }));
    const d = await open(() => redisInstance({ ttlMs: TTL }));
    const other = 100 + ++n;
    await c.dispatch.add({ linkId: 'c1', avatarId: other });
    c.redis.disconnect();
    c.subscriber.disconnect();
    expect(await d.dispatch.count(other)).toBe(1);
    // Expired by Redis once its TTL passed with no beat (an event: polled, however late).
    const end = Date.now() + 20_000;
    while ((await d.dispatch.count(other)) !== 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect(await d.dispatch.count(other)).toBe(0);
    expect(await offers(d, [c, d], other, 1)).toEqual([null]);
  });

  it('an instance that hears the offer but never answers: the next agent gets it after the timeout', async () => {
    const a = await open(() => redisInstance());
    const b = await open(() => redisInstance({ answerTimeoutMs: 1000 }));
    const avatarId = 100 + ++n;
    await a.dispatch.add({ linkId: 'a1', avatarId });
    await b.dispatch.add({ linkId: 'b1', avatarId });
    await offers(b, [a, b], avatarId, 2); // one offer each: a1 is first again
    // A's subscription still listens, but it cannot answer (its command connection is gone).
    a.redis.disconnect();
    const started = Date.now();
    expect(await offers(b, [b], avatarId, 1)).toEqual(['b1']);
    // After the answer timeout (a timer never fires early), and not for ever.
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(Date.now() - started).toBeLessThan(10_000);
    // Only b1 is left: A was silent and its entry was removed.
    expect(await b.dispatch.count(avatarId)).toBe(1);
  });
});

describe.skipIf(!redisUrl)('redis agent dispatch started while Redis is unreachable', () => {
  it('starts, then subscribes when Redis answers: an offer made on another instance reaches its agent', async () => {
    const proxy = await startTcpProxy(targetOf(redisUrl!));
    try {
      await proxy.cut('refuse');
      // The app's client: not connected at first, no offline queue; the subscriber is its duplicate.
      const redis = new Redis(proxy.urlFor(redisUrl!), REDIS_OPTIONS);
      connections.push(redis);
      redis.on('error', () => undefined);
      // As plugins/redis.ts: the first attempt fails, ioredis goes on trying.
      await expect(redis.connect()).rejects.toThrow();
      const a = await open(async () => serveOn(await createRedisAgentDispatch({ redis, prefix, log: quiet })));
      const ours = `${prefix}:instance:${a.dispatch.instanceId}`;
      const direct = new Redis(redisUrl!);
      connections.push(direct);
      expect(await direct.pubsub('NUMSUB', ours)).toEqual([ours, 0]);

      await proxy.restore();
      await until(async () => ((await direct.pubsub('NUMSUB', ours)) as [string, number])[1] === 1, 8000, 'A subscribed once Redis answers');
      await until(() => redis.status === 'ready', 8000, 'A connected');
      const b = await open(() => redisInstance());
      const avatarId = 100 + ++n;
      expect(await a.dispatch.add({ linkId: 'a1', avatarId })).toBe(true);
      expect(await offers(b, [a, b], avatarId, 1)).toEqual(['a1']);
    } finally {
      await proxy.close();
    }
  });
});
