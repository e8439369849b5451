import { EventEmitter } from 'node:events';
import http from 'node:http';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { guardConnections, httpServerOptions } from './connection-guard.js';

/** What the guard sees of a socket: its address, close, destroy. */
class FakeSocket extends EventEmitter {
  destroyed = false;
  constructor(readonly remoteAddress: string) {
    super();
  }
  destroy() {
    this.destroyed = true;
    this.emit('close');
  }
}

const limits = { headersTimeoutMs: 1000, requestTimeoutMs: 5000, maxConnectionsPerIp: 2 };

afterEach(() => {
  vi.useRealTimers();
});

describe('guardConnections', () => {
  it('closes an upgraded socket that has not become a WebSocket by the deadline, and only that one', () => {
    vi.useFakeTimers();
    const server = http.createServer();
    const guard = guardConnections(server, limits);
    const websocket = new FakeSocket('192.0.2.1');
    const stuck = new FakeSocket('192.0.2.1');
    server.emit('upgrade', {}, websocket as unknown as Duplex, Buffer.alloc(0));
    server.emit('upgrade', {}, stuck as unknown as Duplex, Buffer.alloc(0));
    guard.upgraded(websocket as unknown as Duplex);
    vi.advanceTimersByTime(999);
    expect(stuck.destroyed).toBe(false);
    vi.advanceTimersByTime(1);
    expect(stuck.destroyed).toBe(true);
    expect(websocket.destroyed).toBe(false);
    vi.advanceTimersByTime(60_000);
    expect(websocket.destroyed).toBe(false);
  });

  it('caps the connections open at once per address (IPv4-mapped IPv6 being the same address) and counts the ones that close', () => {
    const server = http.createServer();
    const refusedFrom: string[] = [];
    const guard = guardConnections(server, limits, { onRefused: (a) => refusedFrom.push(a) });
    const first = new FakeSocket('192.0.2.1');
    const second = new FakeSocket('::ffff:192.0.2.1');
    const third = new FakeSocket('192.0.2.1');
    const elsewhere = new FakeSocket('2001:db8::1');
    for (const s of [first, second, third, elsewhere]) server.emit('connection', s);
    expect([first, second, third, elsewhere].map((s) => s.destroyed)).toEqual([false, false, true, false]);
    expect(guard.refused).toBe(1);
    expect(refusedFrom).toEqual(['192.0.2.1']);
    expect(guard.openFrom('192.0.2.1')).toBe(2);
    first.emit('close');
    expect(guard.openFrom('192.0.2.1')).toBe(1);
    const fourth = new FakeSocket('192.0.2.1');
    server.emit('connection', fourth);
    expect(fourth.destroyed).toBe(false);
  });

  it('with a cap of 0 counts nothing (behind a reverse proxy every connection has its address)', () => {
    const server = http.createServer();
    const guard = guardConnections(server, { ...limits, maxConnectionsPerIp: 0 });
    const sockets = Array.from({ length: 50 }, () => new FakeSocket('10.0.0.2'));
    for (const s of sockets) server.emit('connection', s);
    expect(sockets.some((s) => s.destroyed)).toBe(false);
    expect(guard.openFrom('10.0.0.2')).toBe(0);
  });

  it("gives Node's server its timeouts, checked at least every second", () => {
    const server = http.createServer(httpServerOptions({ headersTimeoutMs: 300, requestTimeoutMs: 600, maxConnectionsPerIp: 0 }));
    expect(server.headersTimeout).toBe(300);
    expect(server.requestTimeout).toBe(600);
    expect(httpServerOptions({ headersTimeoutMs: 20_000, requestTimeoutMs: 300_000, maxConnectionsPerIp: 1 }).connectionsCheckingInterval).toBe(1000);
    expect(httpServerOptions({ headersTimeoutMs: 300, requestTimeoutMs: 600, maxConnectionsPerIp: 1 }).connectionsCheckingInterval).toBe(75);
  });
});
