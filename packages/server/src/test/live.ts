import http from 'node:http';
import type { AddressInfo } from 'node:net';
import WebSocket from 'ws';
import { LivePaths, WorkerProtocol, type TLiveStartAnswer, type TWorkerFrame } from '@persona/contract';
import { startLiveWorker, type LiveWorkerHandle, type LiveWorkerOptions } from '@persona/worker';
import type { TestContext } from './build-app.js';

export const TEST_WORKER_SECRET = 'test-worker-secret-0123456789';
export const quietLog = { info() {}, warn() {}, error() {} };

export const until = async (check: () => boolean | Promise<boolean>, ms = 8000, what = 'condition') => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`${what} not met in ${ms} ms`);
};

/** The embedded worker: registered with the test portal, taking the sockets of its own port. */
export async function startEmbeddedWorker(t: TestContext, base: string, extra: Partial<LiveWorkerOptions> = {}): Promise<LiveWorkerHandle> {
  const worker = await startLiveWorker({
    serverUrl: base,
    secret: TEST_WORKER_SECRET,
    name: 'embedded',
    vpsId: 'embedded',
    webSocketUrl: `${base.replace(/^http/, 'ws')}${LivePaths.workerSocket}`,
    pingIntervalMs: 200,
    heartbeatMs: 200,
    log: quietLog,
    // Tests that use functions say how they want the sandbox; the others do not start one.
    sandbox: { prewarm: false },
    ...extra,
  });
  t.app.liveSockets.accept = (socket) => worker.runtime.accept(socket);
  await worker.registered;
  return worker;
}

/** A separate worker with its own page-socket listener (`npm run worker`). */
export async function startSeparateWorker(base: string, name: string, extra: Partial<LiveWorkerOptions> = {}): Promise<LiveWorkerHandle> {
  const worker = await startLiveWorker({
    serverUrl: base,
    secret: TEST_WORKER_SECRET,
    name,
    listen: { port: 0, host: '127.0.0.1' },
    pingIntervalMs: 200,
    heartbeatMs: 200,
    minBackoffMs: 50,
    log: quietLog,
    sandbox: { prewarm: false },
    ...extra,
  });
  await worker.registered;
  return worker;
}

/** The avatar page's side of a session, without a browser: admission answer → socket → frames. */
export class PageClient {
  readonly frames: TWorkerFrame[] = [];
  /** Binary audio frames (8-byte header + PCM16LE), when the page asked for the voice. */
  readonly audio: Buffer[] = [];
  closeCode: number | null = null;
  readonly socket: WebSocket;
  readonly open: Promise<void>;

  constructor(answer: TLiveStartAnswer, opts: { hello?: boolean; voice?: boolean } = {}) {
    this.socket = new WebSocket(answer.wsUrl!);
    this.open = new Promise((resolve, reject) => {
      this.socket.once('open', () => resolve());
      this.socket.once('error', reject);
    });
    this.socket.on('message', (data, isBinary) => {
      if (isBinary) this.audio.push(data as Buffer);
      else this.frames.push(JSON.parse(String(data)) as TWorkerFrame);
    });
    this.socket.on('close', (code) => (this.closeCode = code));
    if (opts.hello !== false) void this.open.then(() => this.send({ type: 'hello', protocol: 1, ticket: answer.ticket!, mic: false, speaker: opts.voice === true, textOnly: opts.voice !== true }));
  }

  send(frame: object) {
    this.socket.send(JSON.stringify(frame));
  }

  text(text: string, id = `m${this.frames.length}`) {
    this.send({ type: 'text', id, text });
  }

  of<T extends TWorkerFrame['type']>(type: T): Extract<TWorkerFrame, { type: T }>[] {
    return this.frames.filter((f) => f.type === type) as Extract<TWorkerFrame, { type: T }>[];
  }

  /** Final assistant texts, in order. */
  answers(): string[] {
    return this.of('assistant')
      .filter((f) => f.final)
      .map((f) => f.text ?? '');
  }

  async waitFor<T extends TWorkerFrame['type']>(type: T, pred: (f: Extract<TWorkerFrame, { type: T }>) => boolean = () => true, ms = 8000) {
    let found: Extract<TWorkerFrame, { type: T }> | undefined;
    try {
      await until(() => (found = this.of(type).find(pred)) !== undefined, ms, `a ${type} frame`);
    } catch (err) {
      // What did come, so that a failure says why (a notice, an error, nothing at all).
      const seen = this.of('notice').concat(this.of('error') as never[]);
      throw new Error(`${(err as Error).message}; ${this.frames.length} frames came (${[...new Set(this.frames.map((f) => f.type))].join(', ')})${seen.length ? `: ${JSON.stringify(seen)}` : ''}`);
    }
    return found!;
  }

  async waitClosed(ms = 8000) {
    await until(() => this.closeCode !== null, ms, 'socket closed');
    return this.closeCode!;
  }

  close() {
    this.socket.terminate();
  }
}

/** A local stand-in for an avatar owner's billing-auth URL: answers what the test says. */
export async function startBillingFake() {
  const requests: { headers: http.IncomingHttpHeaders; body: Record<string, unknown> }[] = [];
  let status = 200;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: body ? (JSON.parse(body) as Record<string, unknown>) : {} });
      res.writeHead(status, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/billing`,
    requests,
    setStatus: (s: number) => (status = s),
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * A worker written by hand on the workers' socket (what anyone holding a credential could run):
 * it registers, is told its id, and calls the portal's RPC — each raw answer is kept as the text
 * that came over the socket, so a test sees exactly what a worker receives.
 */
export class RawWorker {
  readonly socket: WebSocket;
  readonly raw: string[] = [];
  closeCode: number | null = null;
  unexpectedStatus: number | null = null;
  private nextId = 1;

  constructor(base: string, token: string, headers: Record<string, string> = {}) {
    this.socket = new WebSocket(`${base.replace(/^http/, 'ws')}${WorkerProtocol.path}`, { headers: { ...headers, authorization: `Bearer ${token}` } });
    this.socket.on('message', (data) => this.raw.push(String(data)));
    this.socket.on('close', (code) => (this.closeCode = code));
    this.socket.on('unexpected-response', (_req, res) => {
      this.unexpectedStatus = res.statusCode ?? 0;
      this.closeCode = -1;
    });
    this.socket.on('error', () => undefined);
  }

  /** Parsed messages of a type. */
  of(type: string): Record<string, unknown>[] {
    return this.raw.map((r) => JSON.parse(r) as Record<string, unknown>).filter((m) => m.type === type);
  }

  /** Registers as `vpsId` with its page socket at `webSocket`; resolves with what the portal said first (registered, error, or the close). */
  async register(vpsId: string, webSocket = 'ws://127.0.0.1:9/avatar-ws'): Promise<{ registered: number | null; error: string | null; closeCode: number | null }> {
    await until(() => this.socket.readyState === WebSocket.OPEN || this.closeCode !== null, 8000, 'the worker socket open');
    if (this.closeCode !== null) return { registered: null, error: null, closeCode: this.closeCode };
    const seen = this.raw.length;
    this.socket.send(JSON.stringify({ type: 'register', vpsId, name: vpsId, address: 'rogue', privateIp: '', webSocket, status: 'AVAILABLE' }));
    await until(() => this.raw.length > seen || this.closeCode !== null, 8000, 'an answer to register');
    const first = this.raw.slice(seen).map((r) => JSON.parse(r) as { type: string; id?: number; message?: string })[0];
    return { registered: first?.type === 'registered' ? first.id! : null, error: first?.type === 'error' ? first.message! : null, closeCode: this.closeCode };
  }

  /** One RPC call: the raw text of its answer (or null if the socket closed first). */
  async rpc(method: string, params: object): Promise<{ text: string; ok: boolean; result?: unknown; error?: string } | null> {
    const id = this.nextId++;
    this.socket.send(JSON.stringify({ type: 'rpc', id, method, params }));
    let text: string | undefined;
    await until(() => (text = this.raw.find((r) => r.includes('"rpc-result"') && (JSON.parse(r) as { id: number }).id === id)) !== undefined || this.closeCode !== null, 8000, `the answer to ${method}`);
    if (!text) return null;
    const msg = JSON.parse(text) as { ok: boolean; result?: unknown; error?: string };
    return { text, ...msg };
  }

  close() {
    this.socket.terminate();
  }
}

/** The claims of a live ticket (its id `jti` is what `session.claim` takes). */
export function ticketClaims(ticket: string): { sid: string; wid: number; jti: string } {
  return JSON.parse(Buffer.from(ticket.split('.')[0]!, 'base64url').toString('utf8')) as { sid: string; wid: number; jti: string };
}
