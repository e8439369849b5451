import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { LivePaths } from '@persona/contract';
import type { LiveWorkerHandle } from '@persona/worker';
import { createTestApp, type TestContext } from '../test/build-app.js';
import { startSeparateWorker, until } from '../test/live.js';

/**
 * Issue 26, item 6: half-sent requests and upgrades were held for 60-90 s (headers), forever (a
 * body, or an upgrade request that reached a route without a WebSocket handler). The portal's
 * listener and a worker's own listener now close them after HTTP_HEADERS_TIMEOUT_MS /
 * HTTP_REQUEST_TIMEOUT_MS, and refuse connections past MAX_CONNECTIONS_PER_IP from one address.
 * Real sockets; the timeouts are configured short (300 ms / 600 ms) and each test waits for the
 * socket's close event — failing only if it has not come long after (10 s: Node's own defaults
 * would hold these sockets 60 s to forever).
 */
const HEADERS_MS = 300;
const REQUEST_MS = 600;
const LIMITS = { HTTP_HEADERS_TIMEOUT_MS: String(HEADERS_MS), HTTP_REQUEST_TIMEOUT_MS: String(REQUEST_MS) };
const GUARD_MS = 10_000;

interface Outcome {
  closedAfterMs: number;
  received: string;
}

/** Connects, sends `data` (possibly nothing), and resolves when the server closes the connection. */
function halfOpen(port: number, data: string, opts: { localAddress?: string } = {}): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const socket = net.connect({ port, host: '127.0.0.1', ...opts });
    let received = '';
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`still open after ${GUARD_MS} ms: ${JSON.stringify(data.slice(0, 60))}`));
    }, GUARD_MS);
    socket.on('connect', () => data && socket.write(data));
    socket.on('data', (d) => (received += d.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(guard);
      resolve({ closedAfterMs: performance.now() - started, received });
    });
  });
}

/** A connection that made one complete request and keeps its connection (keep-alive). */
function openWithRequest(port: number, opts: { localAddress?: string } = {}): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ port, host: '127.0.0.1', ...opts });
    socket.on('connect', () => socket.write('GET /api/health HTTP/1.1\r\nHost: portal.test\r\n\r\n'));
    socket.once('data', () => resolve(socket));
    socket.once('close', () => reject(new Error('closed before an answer')));
    socket.on('error', () => undefined);
  });
}

const KEY = 'Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';
const halfRequests = (path: string) => ({
  'nothing at all': '',
  'half a request line': `GET ${path}`,
  'half a header block': `GET ${path} HTTP/1.1\r\nHost: portal.test\r\n`,
  'half an upgrade request': `GET ${path} HTTP/1.1\r\nHost: portal.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n`,
});

describe('the portal listener', () => {
  let t: TestContext;
  let port: number;
  let base: string;
  const workers: LiveWorkerHandle[] = [];
  beforeAll(async () => {
    t = await createTestApp(LIMITS);
    base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = Number(new URL(base).port);
  });
  afterAll(async () => {
    for (const w of workers) await w.stop();
    await t?.close();
  });

  it('closes a connection that sends nothing, half a request or half an upgrade, after the headers timeout', async () => {
    const outcomes = await Promise.all(Object.entries(halfRequests(LivePaths.workerSocket)).map(async ([name, data]) => [name, await halfOpen(port, data)] as const));
    for (const [name, outcome] of outcomes) {
      expect(outcome.closedAfterMs, name).toBeGreaterThanOrEqual(HEADERS_MS - 50);
      expect(outcome.received, name).toMatch(/^(HTTP\/1\.1 408|$)/);
    }
  });

  it('closes a request whose body never ends, after the request timeout', async () => {
    const body = 'POST /api/login HTTP/1.1\r\nHost: portal.test\r\nAuthorization: Bearer test-app-key\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"email":"';
    const outcome = await halfOpen(port, body);
    expect(outcome.closedAfterMs).toBeGreaterThanOrEqual(REQUEST_MS - 50);
  });

  it('closes an upgrade request that reached a route without a WebSocket handler (it was held forever)', async () => {
    const outcome = await halfOpen(port, `GET /api/health HTTP/1.1\r\nHost: portal.test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n${KEY}\r\n`);
    expect(outcome.received).toMatch(/^HTTP\/1\.1 /);
  });

  it('leaves WebSockets that completed their upgrade alone (a worker registered, a page socket waiting for its hello)', async () => {
    const worker = await startSeparateWorker(base, 'limits', { helloTimeoutMs: 60_000, connectionLimits: { headersTimeoutMs: HEADERS_MS, requestTimeoutMs: REQUEST_MS, maxConnectionsPerIp: 16 } });
    workers.push(worker);
    const page = new WebSocket(`ws://127.0.0.1:${worker.port}${LivePaths.workerSocket}`);
    await new Promise((resolve, reject) => page.once('open', resolve).once('error', reject));
    // Opened after both sockets: its deadline comes after theirs would have.
    await halfOpen(port, '');
    await halfOpen(worker.port!, '');
    expect(worker.state()).toBe('registered');
    expect(page.readyState).toBe(WebSocket.OPEN);
    page.close();
  });
});

describe("a worker's own listener (npm run worker --listen)", () => {
  let t: TestContext;
  let worker: LiveWorkerHandle;
  beforeAll(async () => {
    t = await createTestApp();
    const base = await t.app.listen({ port: 0, host: '127.0.0.1' });
    worker = await startSeparateWorker(base, 'listener-limits', { connectionLimits: { headersTimeoutMs: HEADERS_MS, requestTimeoutMs: REQUEST_MS, maxConnectionsPerIp: 3 } });
  });
  afterAll(async () => {
    await worker?.stop();
    await t?.close();
  });

  it('closes a connection that sends nothing, half a request or half an upgrade, after the headers timeout', async () => {
    // Three at a time: the cap of this listener is 3 per address.
    const outcomes = await Promise.all(Object.entries(halfRequests(LivePaths.workerSocket)).slice(0, 3).map(async ([name, data]) => [name, await halfOpen(worker.port!, data)] as const));
    outcomes.push(['half an upgrade request', await halfOpen(worker.port!, halfRequests(LivePaths.workerSocket)['half an upgrade request'])]);
    for (const [name, outcome] of outcomes) expect(outcome.closedAfterMs, name).toBeGreaterThanOrEqual(HEADERS_MS - 50);
  });

  it('refuses a connection past the cap per address, from that address only', async () => {
    const held = await Promise.all([0, 1, 2].map(() => openWebSocket(worker.port!)));
    const refused = await halfOpen(worker.port!, `GET ${LivePaths.workerSocket} HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(refused.received).toBe('');
    // Another address (127.0.0.2 is loopback too) is not affected.
    const other = await openWebSocket(worker.port!, '127.0.0.2');
    other.close();
    held[0]!.close();
    await until(async () => {
      const ws = await openWebSocket(worker.port!).catch(() => null);
      ws?.close();
      return ws !== null;
    }, GUARD_MS, 'a freed place taken');
    for (const ws of held) ws.close();
  });
});

describe('the per-address cap of the portal', () => {
  let t: TestContext;
  let port: number;
  beforeAll(async () => {
    t = await createTestApp({ MAX_CONNECTIONS_PER_IP: '3' });
    port = Number(new URL(await t.app.listen({ port: 0, host: '127.0.0.1' })).port);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('refuses the connection past the cap at once, lets other addresses in, and takes a new one when one closes', async () => {
    const held = await Promise.all([0, 1, 2].map(() => openWithRequest(port)));
    const refused = await halfOpen(port, 'GET /api/health HTTP/1.1\r\nHost: portal.test\r\n\r\n');
    expect(refused.received).toBe('');
    (await openWithRequest(port, { localAddress: '127.0.0.2' })).destroy();
    held[0]!.destroy();
    await until(async () => {
      const socket = await openWithRequest(port).catch(() => null);
      socket?.destroy();
      return socket !== null;
    }, GUARD_MS, 'a freed place taken');
    for (const socket of held) socket.destroy();
  });
});

function openWebSocket(port: number, localAddress?: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}${LivePaths.workerSocket}`, { localAddress });
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
    ws.once('close', () => reject(new Error('closed')));
  });
}
