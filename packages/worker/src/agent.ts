import os from 'node:os';
import WebSocket from 'ws';
import { LiveRpc, WorkerProtocol, ZServerToWorker, type TLiveRpcMethod, type TLiveRpcParams, type TLiveRpcResult, type TWorkerMessage } from '@persona/contract';

/** The portal refused an RPC call (the error is a LiveCode or a short reason), or it could not be made. */
export class RpcError extends Error {
  constructor(readonly code: string) {
    super(code);
    this.name = 'RpcError';
  }
}

export interface WorkerLogger {
  info(msg: string, data?: object): void;
  warn(msg: string, data?: object): void;
  error(msg: string, data?: object): void;
}

export interface WorkerOptions {
  /**
   * The portal server, e.g. http://127.0.0.1:3000 — or several instances of it: the worker holds
   * one connection, to the first that answers, and moves to the next when it is lost.
   */
  serverUrl: string | readonly string[];
  /**
   * The shared WORKER_SECRET: it only enrols (ADR 086) — the portal answers with this worker's own
   * credential, which the worker then connects with. Not needed with `credential`.
   */
  secret?: string;
  /** This worker's own credential (issued by an administrator for its vpsId, or by enrolment). */
  credential?: string;
  /** Told the credential enrolment gave (to keep it across restarts, if wanted). */
  onCredential?: (credential: string) => void;
  name?: string;
  /** Stable id across restarts; defaults to the name. */
  vpsId?: string;
  /** The websocket URL avatar clients will use to reach this worker. */
  webSocketUrl?: string;
  pingIntervalMs?: number;
  /** First reconnect delay; doubles up to maxBackoffMs. */
  minBackoffMs?: number;
  maxBackoffMs?: number;
  log?: WorkerLogger;
  /** It holds the operator's key for the product's own realtime (reported on register). */
  productRealtime?: boolean;
  /** Live sessions held now and at most (reported on register and in pings). */
  load?: () => { sessions: number; capacity: number };
}

export interface WorkerHandle {
  /** Resolves on the first successful registration. */
  readonly registered: Promise<{ id: number; sessionId: string }>;
  readonly state: () => 'connecting' | 'registered' | 'waiting' | 'stopped';
  readonly id: () => number | null;
  /** The ticket keys the portal gave at registration (null before, or from a portal that gives none). */
  readonly ticketKeys: () => { live: Buffer; agent: Buffer } | null;
  setStatus(status: 'AVAILABLE' | 'BUSY'): void;
  /** Says goodbye (closes the socket) and stops reconnecting. */
  stop(): Promise<void>;
  /** Called when an administrator deleted this worker; it stops on its own. */
  onDeleted?: () => void;
  /** Calls the portal (live sessions); rejects with RpcError on refusal, loss of the socket or timeout. */
  rpc<M extends TLiveRpcMethod>(method: M, params: TLiveRpcParams<M>, timeoutMs?: number): Promise<TLiveRpcResult<M>>;
  /** Called when the portal says a session must stop. */
  onSessionStop?: (sessionId: string, code: string) => void;
  /** Resolves when registered now (at once) or next: true; false when `timeoutMs` passed first or the agent stopped. */
  whenRegistered(timeoutMs?: number): Promise<boolean>;
}

const consoleLog: WorkerLogger = {
  info: (m, d) => console.log(`[worker] ${m}`, d ?? ''),
  warn: (m, d) => console.warn(`[worker] ${m}`, d ?? ''),
  error: (m, d) => console.error(`[worker] ${m}`, d ?? ''),
};

function privateIp(): string {
  for (const list of Object.values(os.networkInterfaces())) {
    for (const info of list ?? []) if (info.family === 'IPv4' && !info.internal) return info.address;
  }
  return '127.0.0.1';
}

/**
 * An avatar server ("VPS") agent: connects to the portal's worker websocket with its own
 * credential (or first enrols with the shared secret to get one, ADR 086), registers, pings every 10 s with its status, and reconnects with exponential backoff
 * when the connection drops. An administrator's delete (close code 4001) stops it for good.
 */
export function startWorker(opts: WorkerOptions): WorkerHandle {
  const log = opts.log ?? consoleLog;
  const name = opts.name ?? `worker-${os.hostname()}`;
  const vpsId = opts.vpsId ?? name;
  const wsUrls = (typeof opts.serverUrl === 'string' ? [opts.serverUrl] : opts.serverUrl).map((u) => new URL(WorkerProtocol.path, u.replace(/^http/, 'ws')).toString());
  if (wsUrls.length === 0) throw new Error('startWorker: no server URL');
  /** The instance tried now; a lost connection moves on to the next one. */
  let urlIndex = 0;
  let wsUrl = wsUrls[0]!;
  const pingIntervalMs = opts.pingIntervalMs ?? WorkerProtocol.pingIntervalMs;
  const minBackoff = opts.minBackoffMs ?? 500;
  const maxBackoff = opts.maxBackoffMs ?? 30_000;

  let status: 'AVAILABLE' | 'BUSY' = 'AVAILABLE';
  let state: ReturnType<WorkerHandle['state']> = 'connecting';
  let workerId: number | null = null;
  let keys: { live: Buffer; agent: Buffer } | null = null;
  /** What this worker connects with: its credential once it has one, else the shared secret (enrolment). */
  let credential = opts.credential;
  /** The credential came from enrolment (refused later: enrol again with the secret). */
  let enrolled = false;
  if (!credential && !opts.secret) throw new Error('startWorker: a credential or the shared secret is required');
  let socket: WebSocket | null = null;
  let pinger: NodeJS.Timeout | undefined;
  let retry: NodeJS.Timeout | undefined;
  let backoff = minBackoff;
  /** Connections lost or refused since the last registration (each instance tried once a round). */
  let failedInRow = 0;
  let resolveRegistered!: (v: { id: number; sessionId: string }) => void;
  const registered = new Promise<{ id: number; sessionId: string }>((r) => (resolveRegistered = r));
  let nextRpcId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void; timer: NodeJS.Timeout; method: TLiveRpcMethod }>();
  let registeredWaiters: (() => void)[] = [];
  const failPending = (reason: string) => {
    for (const [id, p] of pending) {
      clearTimeout(p.timer);
      pending.delete(id);
      p.reject(new RpcError(reason));
    }
  };
  const loadNow = () => opts.load?.();

  const send = (msg: TWorkerMessage) => {
    if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(msg));
  };

  function connect() {
    if (state === 'stopped') return;
    state = 'connecting';
    wsUrl = wsUrls[urlIndex]!;
    const ws = new WebSocket(wsUrl, { headers: { authorization: `Bearer ${credential ?? opts.secret}` }, handshakeTimeout: 10_000 });
    socket = ws;
    ws.on('open', () => {
      send({
        type: 'register',
        vpsId,
        name,
        address: os.hostname(),
        privateIp: privateIp(),
        webSocket: opts.webSocketUrl ?? wsUrl.replace(WorkerProtocol.path, '/avatar-ws'),
        status,
        ...(loadNow() ?? {}),
        ...(opts.productRealtime ? { productRealtime: true } : {}),
      });
    });
    ws.on('message', (data) => {
      let msg;
      try {
        msg = ZServerToWorker.safeParse(JSON.parse(String(data)));
      } catch {
        return;
      }
      if (!msg.success) return;
      if (msg.data.type === 'registered') {
        state = 'registered';
        workerId = msg.data.id;
        keys = msg.data.ticketKey && msg.data.agentTicketKey ? { live: Buffer.from(msg.data.ticketKey, 'base64url'), agent: Buffer.from(msg.data.agentTicketKey, 'base64url') } : null;
        backoff = minBackoff;
        failedInRow = 0;
        log.info('registered', { id: msg.data.id, name, server: wsUrl });
        resolveRegistered({ id: msg.data.id, sessionId: msg.data.sessionId });
        clearInterval(pinger);
        pinger = setInterval(() => send({ type: 'ping', status, ...(loadNow() ? { sessions: loadNow()!.sessions } : {}) }), pingIntervalMs);
        for (const waiter of registeredWaiters.splice(0)) waiter();
      } else if (msg.data.type === 'rpc-result') {
        const p = pending.get(msg.data.id);
        if (!p) return;
        pending.delete(msg.data.id);
        clearTimeout(p.timer);
        if (!msg.data.ok) {
          p.reject(new RpcError(msg.data.error ?? 'refused'));
          return;
        }
        const result = LiveRpc[p.method].result.safeParse(msg.data.result);
        if (result.success) p.resolve(result.data);
        else p.reject(new RpcError('bad-answer'));
      } else if (msg.data.type === 'enrolled') {
        // The shared secret enrolled this worker: from now on it is its own credential.
        credential = msg.data.credential;
        enrolled = true;
        log.info('enrolled: connecting with its own credential', { vpsId: msg.data.vpsId });
        opts.onCredential?.(msg.data.credential);
      } else if (msg.data.type === 'session-stop') {
        handle.onSessionStop?.(msg.data.sessionId, msg.data.code);
      } else if (msg.data.type === 'error') {
        log.warn('server said', { message: msg.data.message });
      }
    });
    ws.on('unexpected-response', (_req, res) => {
      if (res.statusCode === 401 && enrolled && opts.secret) {
        // Its enrolled credential was revoked: enrol again (only where the portal lets the secret enrol).
        credential = undefined;
        enrolled = false;
      }
      log.error(`server refused the connection (HTTP ${res.statusCode}); check the worker's credential (WORKER_CREDENTIAL) or WORKER_SECRET`);
    });
    ws.on('error', (err) => log.warn('connection error', { message: err.message }));
    ws.on('close', (code, reason) => {
      clearInterval(pinger);
      socket = null;
      failPending('disconnected');
      if (state === 'stopped') return;
      if (code === WorkerProtocol.closeDeleted) {
        log.warn('deleted by an administrator; stopping');
        state = 'stopped';
        handle.onDeleted?.();
        return;
      }
      if (code === WorkerProtocol.closeEnrolled && credential) {
        state = 'connecting';
        retry = setTimeout(connect, 0);
        return;
      }
      if (code === WorkerProtocol.closeUnauthorized && enrolled && opts.secret) {
        credential = undefined;
        enrolled = false;
      }
      state = 'waiting';
      // Another instance of the portal is tried at once; once every one failed in a row, the
      // worker waits, longer each round (a portal restarting must not be hammered).
      failedInRow += 1;
      urlIndex = (urlIndex + 1) % wsUrls.length;
      const delay = wsUrls.length > 1 && failedInRow < wsUrls.length ? minBackoff : backoff;
      if (delay === backoff) {
        failedInRow = 0;
        backoff = Math.min(backoff * 2, maxBackoff);
      }
      log.warn(`disconnected (${code} ${reason.toString()}); reconnecting to ${wsUrls[urlIndex]} in ${delay} ms`);
      retry = setTimeout(connect, delay);
    });
  }

  const handle: WorkerHandle = {
    registered,
    state: () => state,
    id: () => workerId,
    ticketKeys: () => keys,
    setStatus(next) {
      status = next;
      send({ type: 'ping', status });
    },
    rpc(method, params, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        if (state !== 'registered' || socket?.readyState !== WebSocket.OPEN) {
          reject(new RpcError('disconnected'));
          return;
        }
        const id = nextRpcId++;
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new RpcError('timeout'));
        }, timeoutMs);
        pending.set(id, { resolve: resolve as (v: unknown) => void, reject, timer, method });
        send({ type: 'rpc', id, method, params });
      });
    },
    whenRegistered(timeoutMs) {
      if (state === 'registered') return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        let timer: NodeJS.Timeout | undefined;
        const waiter = () => {
          clearTimeout(timer);
          resolve(state === 'registered');
        };
        registeredWaiters.push(waiter);
        // A waiter that gives up leaves the list (pages retried through a long outage do not pile up).
        if (timeoutMs !== undefined) {
          timer = setTimeout(() => {
            registeredWaiters = registeredWaiters.filter((w) => w !== waiter);
            resolve(false);
          }, timeoutMs);
        }
      });
    },
    async stop() {
      state = 'stopped';
      failPending('stopped');
      for (const waiter of registeredWaiters.splice(0)) waiter();
      registeredWaiters = [];
      clearInterval(pinger);
      clearTimeout(retry);
      const ws = socket;
      if (ws && ws.readyState !== WebSocket.CLOSED) {
        await new Promise<void>((resolve) => {
          ws.once('close', () => resolve());
          ws.close(1000, 'goodbye');
          setTimeout(resolve, 2000).unref();
        });
      }
    },
  };
  connect();
  return handle;
}
