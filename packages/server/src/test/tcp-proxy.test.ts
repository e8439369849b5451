import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTcpProxy, targetOf, type TcpProxy } from './tcp-proxy.js';

/** A client of the proxy that collects what comes back and how the connection ended. */
function connect(proxy: TcpProxy) {
  const socket = net.connect(proxy.port, proxy.host);
  const state = { data: '', error: null as NodeJS.ErrnoException | null, isClosed: false };
  socket.on('data', (d) => (state.data += String(d)));
  socket.on('error', (err) => (state.error = err));
  socket.on('close', () => (state.isClosed = true));
  return { socket, state };
}

const until = async (check: () => boolean, what: string, ms = 2000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('the TCP proxy of the outage tests', () => {
  let echo: net.Server;
  let proxy: TcpProxy;
  beforeAll(async () => {
    echo = net.createServer((s) => s.on('data', (d) => s.write(`echo:${String(d)}`)));
    await new Promise<void>((r) => echo.listen(0, '127.0.0.1', () => r()));
    proxy = await startTcpProxy({ host: '127.0.0.1', port: (echo.address() as net.AddressInfo).port });
  });
  afterAll(async () => {
    await proxy.close();
    await new Promise<void>((r) => echo.close(() => r()));
  });

  it('forwards both ways, and rewrites a URL to reach it', async () => {
    const c = connect(proxy);
    c.socket.write('hi');
    await until(() => c.state.data === 'echo:hi', 'the echo');
    c.socket.destroy();
    expect(proxy.urlFor('postgres://postgres@db.internal:5432/test?sslmode=disable')).toBe(`postgres://postgres@127.0.0.1:${proxy.port}/test?sslmode=disable`);
    expect(targetOf('redis://127.0.0.1')).toEqual({ host: '127.0.0.1', port: 6379 });
  });

  it("'refuse' drops open connections and refuses new ones like a stopped server; restore() listens again on the same port", async () => {
    const open = connect(proxy);
    open.socket.write('a');
    await until(() => open.state.data === 'echo:a', 'the echo');
    await proxy.cut('refuse');
    await until(() => open.state.isClosed, 'the open connection dropped');
    const refused = connect(proxy);
    await until(() => refused.state.isClosed, 'the refusal');
    expect(refused.state.error?.code).toBe('ECONNREFUSED');

    await proxy.restore();
    const again = connect(proxy);
    again.socket.write('b');
    await until(() => again.state.data === 'echo:b', 'the echo after the restore');
    again.socket.destroy();
  });

  it("'hang' accepts and never answers like a frozen server; restore() forwards what the held connections sent", async () => {
    await proxy.cut('hang');
    const held = connect(proxy);
    await new Promise<void>((r) => held.socket.once('connect', () => r()));
    held.socket.write('c');
    await new Promise((r) => setTimeout(r, 200));
    expect(held.state).toEqual({ data: '', error: null, isClosed: false });
    expect(proxy.counts.held).toBe(1);

    await proxy.restore();
    await until(() => held.state.data === 'echo:c', 'the held connection answered');
    expect(proxy.counts).toMatchObject({ held: 0, forwarded: 1 });
    held.socket.destroy();
  });
});
