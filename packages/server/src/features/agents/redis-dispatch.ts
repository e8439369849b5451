import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { AgentApi, ZAgentDispatchSession, type TAgentDispatchSession } from '@persona/contract';
import type { AgentDispatch, AgentLinkRef, DeliverLocally } from './dispatch.js';
import { keepSubscribed } from '../../plugins/redis.js';

export interface RedisAgentDispatchOptions {
  /** Commands and publishing. */
  redis: Redis;
  /** The subscription (a connection of its own); defaults to a duplicate of `redis`, closed with the dispatch. */
  subscriber?: Redis;
  /** Prefix of the keys and channels (default `persona:agents`). */
  prefix?: string;
  /** An entry not refreshed for this long is gone: its instance died (default 30 s). */
  ttlMs?: number;
  /** How often this instance refreshes its entries (default a third of the TTL). */
  heartbeatMs?: number;
  /** How long a holding instance has to answer an offer before the next agent is tried (default 2.5 s: a busy instance is slow, not gone — a gone one is noticed at once, nobody listens on its channel). */
  answerTimeoutMs?: number;
  /** How long one offer may take in all, every holder it asks included (default 6 s; the worker's RPC waits 10 s). */
  offerTimeoutMs?: number;
  log: { warn(obj: object, msg: string): void };
}

// Every script reads the clock of Redis, so instances on machines whose clocks differ agree on expiry.
const CLOCK = `local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local function purge(live, links)
  local gone = redis.call('ZRANGEBYSCORE', live, '-inf', now)
  for _, id in ipairs(gone) do redis.call('HDEL', links, id) end
  if #gone > 0 then redis.call('ZREMRANGEBYSCORE', live, '-inf', now) end
end
local function keep(ttl)
  redis.call('PEXPIRE', KEYS[1], ttl * 2)
  redis.call('PEXPIRE', KEYS[2], ttl * 2)
end
`;

/** KEYS live, links, seq; ARGV linkId, instanceId, ttl, max → 1 added, 0 the avatar has enough agents. */
const ADD = `${CLOCK}
purge(KEYS[1], KEYS[2])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
local ttl = tonumber(ARGV[3])
redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
redis.call('HSET', KEYS[2], ARGV[1], cjson.encode({i = ARGV[2], o = 0, s = redis.call('INCR', KEYS[3])}))
keep(ttl)
return 1`;

/** KEYS live, links, seq; ARGV ttl, then pairs linkId, instanceId: refreshes (or puts back) this instance's entries. */
const TOUCH = `${CLOCK}
local ttl = tonumber(ARGV[1])
for k = 2, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[2], ARGV[k]) == 0 then
    redis.call('HSET', KEYS[2], ARGV[k], cjson.encode({i = ARGV[k + 1], o = 0, s = redis.call('INCR', KEYS[3])}))
  end
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[k])
end
keep(ttl)
return 1`;

/**
 * KEYS live, links; ARGV linkIds to skip (JSON), instances to skip (JSON) → {linkId, instanceId}
 * of the live agent with the fewest offers (ties: the first connected), its offer counted; or nil.
 */
const PICK = `${CLOCK}
purge(KEYS[1], KEYS[2])
local skipLink, skipInstance = {}, {}
for _, id in ipairs(cjson.decode(ARGV[1])) do skipLink[id] = true end
for _, id in ipairs(cjson.decode(ARGV[2])) do skipInstance[id] = true end
local best, bestInfo
for _, id in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local raw = redis.call('HGET', KEYS[2], id)
  if raw and not skipLink[id] then
    local info = cjson.decode(raw)
    if not skipInstance[info.i] and (not best or info.o < bestInfo.o or (info.o == bestInfo.o and info.s < bestInfo.s)) then
      best, bestInfo = id, info
    end
  end
end
if not best then return nil end
bestInfo.o = bestInfo.o + 1
redis.call('HSET', KEYS[2], best, cjson.encode(bestInfo))
return {best, bestInfo.i}`;

/** KEYS live, links → live entries. */
const COUNT = `${CLOCK}
purge(KEYS[1], KEYS[2])
return redis.call('ZCARD', KEYS[1])`;

type Message = { type: 'offer'; id: string; from: string; linkId: string; frame: unknown } | { type: 'answer'; id: string; ok: boolean };

/**
 * The agent dispatch registry in Redis, shared by every portal instance.
 * - Per avatar, a sorted set of its dispatch sockets (score: when the entry expires) and a hash
 *   of who holds each (instance id, offers so far, join order). Each instance refreshes its own
 *   entries every heartbeat; a socket that closes is removed at once; the entries of an instance
 *   that died without saying so expire after the TTL (and the keys themselves after twice that).
 * - An offer picks the agent atomically in Redis (the one-instance rule: fewest offers, then first
 *   connected), then goes to the holding instance over its pub/sub channel; the holder sends it on
 *   the socket and answers on the asker's channel. No subscriber (the holder is gone), a refusal
 *   (the socket just closed) or no answer in time: the entry is removed and the next agent tried.
 */
export async function createRedisAgentDispatch(opts: RedisAgentDispatchOptions): Promise<AgentDispatch> {
  const { redis, log } = opts;
  const prefix = opts.prefix ?? 'persona:agents';
  const ttlMs = opts.ttlMs ?? 30_000;
  const heartbeatMs = opts.heartbeatMs ?? Math.max(50, Math.floor(ttlMs / 3));
  const answerTimeoutMs = opts.answerTimeoutMs ?? 2500;
  const offerTimeoutMs = opts.offerTimeoutMs ?? 6000;
  const instanceId = randomUUID();
  const keys = (avatarId: number) => [`${prefix}:avatar:${avatarId}:live`, `${prefix}:avatar:${avatarId}:links`];
  const seqKey = `${prefix}:seq`;
  const channel = (instance: string) => `${prefix}:instance:${instance}`;

  /** This instance's sockets, per avatar (what the heartbeat refreshes). */
  const mine = new Map<number, Set<string>>();
  const waiting = new Map<string, (ok: boolean) => void>();
  let deliver: DeliverLocally = () => false;
  let isClosed = false;

  const sub = opts.subscriber ?? redis.duplicate({ lazyConnect: true });
  const ownsSubscriber = !opts.subscriber;
  sub.on('message', (from: string, raw: string) => {
    if (from !== channel(instanceId)) return;
    let message: Message;
    try {
      message = JSON.parse(raw) as Message;
    } catch {
      return;
    }
    if (message.type === 'answer') return waiting.get(message.id)?.(message.ok === true);
    if (message.type !== 'offer' || typeof message.from !== 'string' || typeof message.id !== 'string') return;
    const frame = ZAgentDispatchSession.safeParse(message.frame);
    const ok = frame.success && typeof message.linkId === 'string' && deliver(message.linkId, frame.data);
    const answer: Message = { type: 'answer', id: message.id, ok };
    redis.publish(channel(message.from), JSON.stringify(answer)).catch((err: unknown) => log.warn({ err }, 'agent dispatch: answer not sent'));
  });
  // Subscribed once Redis answers: at start, or when it comes back if it was unreachable then
  // (until then, offers for this instance's agents find no subscriber and go to other agents).
  const subscription = await keepSubscribed(sub, channel(instanceId), {
    log,
    name: 'agent dispatch',
    meanwhile: 'offers for this instance’s agents go to other agents until it is',
    connect: ownsSubscriber,
    wait: !ownsSubscriber || redis.status === 'ready',
  });

  const heartbeat = setInterval(() => {
    for (const [avatarId, links] of mine) {
      const args = [...links].flatMap((linkId) => [linkId, instanceId]);
      redis.eval(TOUCH, 3, ...keys(avatarId), seqKey, ttlMs, ...args).catch((err: unknown) => log.warn({ err, avatarId }, 'agent dispatch: heartbeat failed'));
    }
  }, heartbeatMs);
  heartbeat.unref();

  const forget = async ({ linkId, avatarId }: AgentLinkRef) => {
    const [live, links] = keys(avatarId);
    await redis.multi().zrem(live!, linkId).hdel(links!, linkId).exec();
  };

  /**
   * Asks the holding instance to send the offer on its socket: `sent`, `refused` (that socket is
   * not there any more) or `silent` (nobody listens on its channel, or no answer in time).
   */
  const ask = async (holder: string, linkId: string, frame: TAgentDispatchSession, waitMs: number): Promise<'sent' | 'refused' | 'silent'> => {
    const id = randomUUID();
    let timer: NodeJS.Timeout | undefined;
    const answered = new Promise<'sent' | 'refused' | 'silent'>((resolve) => {
      waiting.set(id, (ok) => resolve(ok ? 'sent' : 'refused'));
      timer = setTimeout(() => resolve('silent'), waitMs);
    });
    try {
      const message: Message = { type: 'offer', id, from: instanceId, linkId, frame };
      const listeners = await redis.publish(channel(holder), JSON.stringify(message));
      if (listeners === 0) return 'silent';
      return await answered;
    } finally {
      clearTimeout(timer);
      waiting.delete(id);
    }
  };

  return {
    kind: 'redis',
    instanceId,
    serve: (fn) => void (deliver = fn),

    async add(link) {
      const added = await redis.eval(ADD, 3, ...keys(link.avatarId), seqKey, link.linkId, instanceId, ttlMs, AgentApi.maxAgentsPerAvatar);
      if (added !== 1) return false;
      const links = mine.get(link.avatarId) ?? new Set<string>();
      links.add(link.linkId);
      mine.set(link.avatarId, links);
      return true;
    },

    async remove(link) {
      const links = mine.get(link.avatarId);
      links?.delete(link.linkId);
      if (links?.size === 0) mine.delete(link.avatarId);
      await forget(link);
    },

    async offer(frame) {
      const deadline = Date.now() + offerTimeoutMs;
      const skipLinks: string[] = [];
      const skipInstances: string[] = [];
      while (Date.now() < deadline) {
        const picked = (await redis.eval(PICK, 2, ...keys(frame.avatarId), JSON.stringify(skipLinks), JSON.stringify(skipInstances))) as [string, string] | null;
        if (!picked) return false;
        const [linkId, holder] = picked;
        skipLinks.push(linkId);
        const outcome = holder === instanceId ? (deliver(linkId, frame) ? 'sent' : 'refused') : await ask(holder, linkId, frame, Math.max(1, Math.min(answerTimeoutMs, deadline - Date.now())));
        if (outcome === 'sent') return true;
        // A silent instance is not asked again during this offer. The entry goes either way (if
        // that instance is alive after all, its next heartbeat puts the entry back).
        if (outcome === 'silent') skipInstances.push(holder);
        await forget({ linkId, avatarId: frame.avatarId });
      }
      return false;
    },

    count: async (avatarId) => Number(await redis.eval(COUNT, 2, ...keys(avatarId))),

    async close() {
      if (isClosed) return;
      isClosed = true;
      clearInterval(heartbeat);
      subscription.stop();
      for (const resolve of waiting.values()) resolve(false);
      const entries = [...mine].flatMap(([avatarId, links]) => [...links].map((linkId) => ({ avatarId, linkId })));
      mine.clear();
      await Promise.all(entries.map(forget)).catch((err: unknown) => log.warn({ err }, 'agent dispatch: entries not removed on close'));
      if (ownsSubscriber) await sub.quit().catch(() => sub.disconnect());
      else await sub.unsubscribe(channel(instanceId)).catch(() => undefined);
    },
  };
}
