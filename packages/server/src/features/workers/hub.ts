import { randomUUID } from 'node:crypto';
import { hashToken } from '../../lib/tokens.js';
import { issueWorkerCredential, presentCredential } from './credentials.js';
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { WebSocket } from 'ws';
import { AdminMessages, WorkerProtocol, WorkerRefusals, ZWorkerMessage, type TServerToWorker, type TVps, type TWorkerCredential, type TWorkerRpcRequest, type TVpsRef } from '@persona/contract';
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
  /** The keys of the pages' and agents' tickets, given to each registered worker (it holds no shared secret). */
  ticketKeys?: { live: Buffer; agent: Buffer };
}

/**
 * Who is on a worker socket (ADR 086): a worker with its own credential (bound to a vpsId), or an
 * enrolment with the shared WORKER_SECRET, which may only register to be given a credential.
 */
export type WorkerAuth = { kind: 'credential'; credentialId: number; vpsId: string } | { kind: 'enrol' };



/** Sorted set: worker id → time of its last register or ping, for workers holding the operator's realtime key. */
const PRODUCT_REALTIME_KEY = 'persona:workers:product-realtime';

export type RpcHandler = (workerId: number, method: TWorkerRpcRequest['method'], params: unknown) => Promise<{ ok: true; result: unknown } | { ok: false; error: string }>;

interface Connection {
  socket: WebSocket;
  auth: WorkerAuth;
  workerId: number | null;
  sessionId: string;
  /** Registered with the operator's key for the product's realtime. */
  productRealtime: boolean;
  /** The vpsId it registered as. */
  workerVpsId?: string;
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
  /** The DISCONNECTED writes of connections that closed, not done yet. */
  const disconnecting = new Set<Promise<void>>();
  /** Every open worker socket of this instance (registered or not). */
  const connections = new Set<Connection>();
  /** Is a worker of this vpsId registered on another open connection of this instance? */
  const isLiveHere = (vpsId: string, self: Connection) => {
    for (const c of byWorker.values()) if (c !== self && c.socket.readyState === c.socket.OPEN && c.workerVpsId === vpsId) return true;
    return false;
  };
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

  /** Issues a credential bound to `vpsId` (shown once; stored as its hash). */
  async function issueCredential(vpsId: string, issuedBy: 'admin' | 'enrolment' = 'admin'): Promise<{ credential: string; row: TWorkerCredential }> {
    const issued = await issueWorkerCredential(repo, vpsId, issuedBy, now());
    log.info({ vpsId, credentialId: issued.row.id, issuedBy }, 'worker credential issued');
    return issued;
  }

  /** A fresh enrolment credential for `vpsId` (its earlier enrolment credentials revoked; an administrator's kept). */
  async function enrol(vpsId: string): Promise<string> {
    await repo.revokeCredentials({ vpsId, issuedBy: 'enrolment' }, now());
    return (await issueCredential(vpsId, 'enrolment')).credential;
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

    /** The worker credential a socket presents (not revoked), or undefined. */
    async authenticate(token: string): Promise<WorkerAuth | undefined> {
      const row = await repo.activeCredential(hashToken(token));
      if (!row) return undefined;
      await repo.touchCredential(row.id, now());
      return { kind: 'credential', credentialId: row.id, vpsId: row.vpsId };
    },

    issueCredential,
    enrol,

    /** Revokes a credential; a worker connected with it here is disconnected (elsewhere: at its next ping). */
    async revokeCredential(id: number): Promise<TWorkerCredential> {
      const row = await repo.findCredential(id);
      if (!row) throw new AppError(404, AdminMessages.vpsInvalid);
      await repo.revokeCredentials({ id }, now());
      for (const conn of connections) {
        if (conn.auth.kind === 'credential' && conn.auth.credentialId === id) conn.socket.close(WorkerProtocol.closeUnauthorized, WorkerRefusals.revoked);
      }
      log.info({ vpsId: row.vpsId, credentialId: id }, 'worker credential revoked');
      return presentCredential((await repo.findCredential(id))!);
    },

    async listCredentials(): Promise<TWorkerCredential[]> {
      return (await repo.listCredentials()).map(presentCredential);
    },

    /** Handles one authenticated websocket from a worker. */
    accept(socket: WebSocket, remoteIp: string, auth: WorkerAuth) {
      const conn: Connection = { socket, auth, workerId: null, sessionId: randomUUID(), productRealtime: false };
      connections.add(conn);
      const refuse = (message: string, code: number) => {
        send(socket, { type: 'error', message });
        socket.close(code, message.slice(0, 100));
      };
      // Registration and pings change the worker's row: they are handled one after another, in the
      // order they came (a status written out of order could put a draining worker back on the
      // list of free ones). Calls (rpc) run beside them: a slow one must not hold the pings up.
      let inOrder: Promise<void> = Promise.resolve();
      socket.on('message', (data) => {
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
        const handle = async () => {
          if (msg.type === 'register' && conn.workerId !== null) {
            send(socket, { type: 'error', message: 'Registered already' });
          } else if (msg.type === 'register') {
            // A live worker is never displaced: a second registration of its vpsId waits until it is gone.
            // (A connection of this instance that just closed is written DISCONNECTED first: a worker that reconnects at once is not refused.)
            // Another instance's recent ping refuses only the shared secret: a worker with the vpsId's own
            // credential is that worker, moving over from an instance that died (its row still looks live
            // for up to the ping timeout) — only the credential's holder can do that, and a copied
            // credential is revoked, not raced.
            await Promise.all([...disconnecting]);
            const liveElsewhere = async () => conn.auth.kind === 'enrol' && (await repo.isLive(msg.vpsId, new Date(now().getTime() - pingTimeoutMs), conn.sessionId));
            if (isLiveHere(msg.vpsId, conn) || (await liveElsewhere())) {
              log.warn({ vpsId: msg.vpsId, remoteIp }, 'worker registration refused: this vpsId is connected already');
              refuse(WorkerRefusals.duplicate, WorkerProtocol.closeDuplicate);
              return;
            }
            if (conn.auth.kind === 'enrol') {
              // The shared secret only enrols: this worker gets its own credential and reconnects with it.
              const credential = await enrol(msg.vpsId);
              send(socket, { type: 'enrolled', vpsId: msg.vpsId, credential });
              socket.close(WorkerProtocol.closeEnrolled, 'enrolled');
              return;
            }
            if (conn.auth.vpsId !== msg.vpsId) {
              log.warn({ vpsId: msg.vpsId, bound: conn.auth.vpsId, remoteIp }, 'worker registration refused: the credential is bound to another vpsId');
              refuse(WorkerRefusals.otherVpsId, WorkerProtocol.closeUnauthorized);
              return;
            }
            if (socket.readyState !== socket.OPEN) return; // closed while it waited: nothing to register
            const row = await repo.register(
              { vpsId: msg.vpsId, name: msg.name, address: msg.address, privateIp: msg.privateIp, remoteIp, webSocket: msg.webSocket, status: msg.status, sessionId: conn.sessionId },
              now(),
            );
            if (socket.readyState !== socket.OPEN) {
              // Closed while the row was written: its close handler saw no worker, so the row is undone here.
              await repo.disconnect(row.id, conn.sessionId);
              return;
            }
            conn.workerId = row.id;
            conn.workerVpsId = row.vpsId;
            conn.productRealtime = msg.productRealtime === true;
            byWorker.set(row.id, conn);
            shareRealtime(conn, true);
            log.info({ workerId: row.id, name: row.name, remoteIp }, 'worker registered');
            const keys = opts.ticketKeys;
            send(socket, { type: 'registered', id: row.id, sessionId: conn.sessionId, ...(keys ? { ticketKey: keys.live.toString('base64url'), agentTicketKey: keys.agent.toString('base64url') } : {}) });
          } else if (conn.workerId === null) {
            send(socket, { type: 'error', message: 'Register first' });
          } else if (msg.type === 'ping') {
            // A credential revoked on another instance: this connection ends at its next ping.
            if (conn.auth.kind === 'credential' && !(await repo.isCredentialActive(conn.auth.credentialId))) {
              refuse(WorkerRefusals.revoked, WorkerProtocol.closeUnauthorized);
              return;
            }
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
        };
        const failed = (err: unknown) => log.error({ err }, 'worker message failed');
        if (msg.type === 'rpc') void handle().catch(failed);
        else inOrder = inOrder.then(handle).catch(failed);
      });
      socket.on('close', () => {
        connections.delete(conn);
        if (conn.workerId === null) return;
        if (byWorker.get(conn.workerId) === conn) {
          byWorker.delete(conn.workerId);
          shareRealtime(conn, false);
        }
        const done = repo.disconnect(conn.workerId, conn.sessionId).catch((err: unknown) => log.error({ err }, 'worker disconnect failed'));
        disconnecting.add(done);
        void done.finally(() => disconnecting.delete(done));
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
