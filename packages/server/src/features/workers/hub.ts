import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { WebSocket } from 'ws';
import { AdminMessages, WorkerProtocol, ZWorkerMessage, type TServerToWorker, type TVps, type TWorkerRpcRequest, type TVpsRef } from '@persona/contract';
import { AppError } from '../../lib/app-error.js';
import type { WorkerRow, WorkersRepository } from './repository.js';

export interface WorkerHubOptions {
  repo: WorkersRepository;
  log: FastifyBaseLogger;
  pingTimeoutMs?: number;
  sweepIntervalMs?: number;
  now?: () => Date;
  /**
   * Other instances of the portal share the database (REDIS_URL set): a starting instance must
   * not mark their workers disconnected — only rows nobody pinged for pingTimeoutMs are.
   */
  shared?: boolean;
  /** With several instances: which workers (of any instance) hold the operator's realtime key. */
  redis?: Redis;
}

/** Sorted set: worker id → time of its last register or ping, for workers holding the operator's realtime key. */
const PRODUCT_REALTIME_KEY = 'persona:workers:product-realtime';

export type RpcHandler = (workerId: number, method: TWorkerRpcRequest['method'], params: unknown) => Promise<{ ok: true; result: unknown } | { ok: false; error: string }>;

interface Connection {
  socket: WebSocket;
  workerId: number | null;
  sessionId: string;
  /** Registered with the operator's key for the product's realtime. */
  productRealtime: boolean;
}

export function presentWorker(row: WorkerRow): TVps {
  return {
    id: row.id,
    vpsId: row.vpsId,
    name: row.name,
    vpsName: row.name,
    sessionId: row.sessionId,
    vpsAddress: row.address,
    dockerPrivateIp: row.privateIp,
    remoteIp: row.remoteIp,
    status: row.status,
    assignedUserId: row.assignedUserId,
    webSocket: row.webSocket,
    created: row.createdAt.toISOString(),
    lastConnectTime: row.lastConnectTime?.toISOString() ?? null,
    lastPingTime: row.lastPingTime?.toISOString() ?? null,
    lastUsedTime: row.lastUsedTime?.toISOString() ?? null,
  };
}

/**
 * Keeps the live worker connections: registration, pings, the 30 s silence rule, and
 * disconnect on delete. The database holds what the admin pages show.
 */
export function createWorkerHub(opts: WorkerHubOptions) {
  const { repo, log } = opts;
  const now = opts.now ?? (() => new Date());
  const pingTimeoutMs = opts.pingTimeoutMs ?? WorkerProtocol.pingTimeoutMs;
  const byWorker = new Map<number, Connection>();
  let rpcHandler: RpcHandler | null = null;
  let sweeper: NodeJS.Timeout | undefined;

  /** A worker by the `vpsId` list_vps shows (a string) or by its numeric id; a numeric string no worker registered as is an id. */
  async function find(ref: TVpsRef): Promise<WorkerRow | undefined> {
    if (typeof ref === 'number') return repo.find(ref);
    const byName = await repo.findByVpsId(ref);
    if (byName || !/^[1-9]\d{0,9}$/.test(ref) || Number(ref) > 2_147_483_647) return byName;
    return repo.find(Number(ref));
  }

  const send = (socket: WebSocket, message: TServerToWorker) => {
    if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
  };

  /**
   * The end of the last database outage the sweep met: pings could not be written during it, so
   * a worker is silent only once it has had the whole timeout since to ping (ADR 078).
   */
  let readableSince = Number.NEGATIVE_INFINITY;
  let sweepFailed = false;

  /** Tells the other instances (Redis) that this worker holds the operator's realtime key, or no longer does. */
  function shareRealtime(conn: Connection, present: boolean) {
    if (!opts.redis || !conn.productRealtime || conn.workerId === null) return;
    const done = present ? opts.redis.zadd(PRODUCT_REALTIME_KEY, now().getTime(), String(conn.workerId)) : opts.redis.zrem(PRODUCT_REALTIME_KEY, String(conn.workerId));
    void done.catch((err: unknown) => log.warn({ err }, 'could not share the realtime key holder'));
  }

  async function sweep() {
    let silent: WorkerRow[];
    try {
      silent = await repo.silentSince(new Date(now().getTime() - pingTimeoutMs));
    } catch (err) {
      sweepFailed = true;
      throw err;
    }
    if (sweepFailed) {
      sweepFailed = false;
      readableSince = now().getTime();
    }
    if (now().getTime() - readableSince < pingTimeoutMs) return;
    for (const row of silent) {
      log.warn({ workerId: row.id, name: row.name }, 'worker missed its pings: disconnected');
      if (row.sessionId) await repo.disconnect(row.id, row.sessionId);
      const conn = byWorker.get(row.id);
      if (conn) {
        byWorker.delete(row.id);
        conn.socket.terminate();
      }
    }
  }

  return {
    /** A connected worker holds the operator's realtime key: one of this instance's, or (Redis) of another's that pinged lately. */
    async hasProductRealtime(): Promise<boolean> {
      for (const c of byWorker.values()) if (c.productRealtime) return true;
      if (!opts.redis) return false;
      try {
        return (await opts.redis.zcount(PRODUCT_REALTIME_KEY, now().getTime() - pingTimeoutMs, '+inf')) > 0;
      } catch {
        return false;
      }
    },
    async start() {
      // Alone, nothing is connected to a fresh process; beside other instances, the sweep closes
      // what is really gone (a worker of ours from before a restart reconnects and re-registers).
      if (opts.shared) await sweep();
      else await repo.disconnectAll();
      sweeper = setInterval(() => void sweep().catch((err: unknown) => log.error({ err }, 'worker sweep failed')), opts.sweepIntervalMs ?? 5_000);
      sweeper.unref();
    },
    async stop() {
      if (sweeper) clearInterval(sweeper);
      for (const conn of byWorker.values()) conn.socket.close(1001, 'server shutting down');
      byWorker.clear();
    },
    sweep,

    /** Handles one authenticated websocket from a worker. */
    accept(socket: WebSocket, remoteIp: string) {
      const conn: Connection = { socket, workerId: null, sessionId: randomUUID(), productRealtime: false };
      socket.on('message', (data) => {
        void (async () => {
          let parsed;
          try {
            parsed = ZWorkerMessage.safeParse(JSON.parse(String(data)));
          } catch {
            parsed = undefined;
          }
          if (!parsed?.success) {
            send(socket, { type: 'error', message: 'Unrecognised message' });
            return;
          }
          const msg = parsed.data;
          if (msg.type === 'register') {
            const row = await repo.register(
              { vpsId: msg.vpsId, name: msg.name, address: msg.address, privateIp: msg.privateIp, remoteIp, webSocket: msg.webSocket, status: msg.status, sessionId: conn.sessionId },
              now(),
            );
            const previous = byWorker.get(row.id);
            if (previous && previous !== conn) previous.socket.close(WorkerProtocol.closeReplaced, 'replaced by a newer connection');
            conn.workerId = row.id;
            conn.productRealtime = msg.productRealtime === true;
            byWorker.set(row.id, conn);
            shareRealtime(conn, true);
            log.info({ workerId: row.id, name: row.name, remoteIp }, 'worker registered');
            send(socket, { type: 'registered', id: row.id, sessionId: conn.sessionId });
          } else if (conn.workerId === null) {
            send(socket, { type: 'error', message: 'Register first' });
          } else if (msg.type === 'ping') {
            await repo.ping(conn.workerId, conn.sessionId, msg.status, now());
            shareRealtime(conn, true);
            send(socket, { type: 'pong', at: now().getTime() });
          } else if (msg.type === 'rpc') {
            // Live-session calls: answered by the live-sessions feature.
            const workerId = conn.workerId;
            const answer = rpcHandler ? await rpcHandler(workerId, msg.method, msg.params) : { ok: false as const, error: 'unsupported' };
            send(socket, answer.ok ? { type: 'rpc-result', id: msg.id, ok: true, result: answer.result } : { type: 'rpc-result', id: msg.id, ok: false, error: answer.error });
          } else {
            send(socket, { type: 'error', message: 'Register first' });
          }
        })().catch((err: unknown) => log.error({ err }, 'worker message failed'));
      });
      socket.on('close', () => {
        if (conn.workerId === null) return;
        if (byWorker.get(conn.workerId) === conn) {
          byWorker.delete(conn.workerId);
          shareRealtime(conn, false);
        }
        void repo.disconnect(conn.workerId, conn.sessionId).catch((err: unknown) => log.error({ err }, 'worker disconnect failed'));
        log.info({ workerId: conn.workerId }, 'worker disconnected');
      });
    },

    async list(): Promise<TVps[]> {
      return (await repo.list()).map(presentWorker);
    },

    async get(ref: TVpsRef): Promise<TVps> {
      const row = await find(ref);
      if (!row || row.deletedAt) throw new AppError(404, AdminMessages.vpsInvalid);
      return presentWorker(row);
    },

    /** Removes a worker from the list and disconnects it (it is told not to reconnect). */
    async remove(ref: TVpsRef): Promise<void> {
      const row = await find(ref);
      if (!row) throw new AppError(404, AdminMessages.vpsInvalid);
      const id = row.id;
      if (row.deletedAt || !(await repo.markDeleted(id, now()))) throw new AppError(409, AdminMessages.vpsAlreadyDisconnected);
      const conn = byWorker.get(id);
      if (conn) {
        byWorker.delete(id);
        conn.socket.close(WorkerProtocol.closeDeleted, 'deleted by an administrator');
      }
      log.info({ workerId: id }, 'worker deleted');
    },

    connectedCount: () => byWorker.size,

    /** Who answers the workers' RPC calls (the live-sessions feature). */
    setRpcHandler(handler: RpcHandler) {
      rpcHandler = handler;
    },
  };
}

export type WorkerHub = ReturnType<typeof createWorkerHub>;
