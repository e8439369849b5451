import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

/** The bearer key the fake socket server takes at the handshake. */
export const FAKE_SOCKET_KEY = 'sk-socket-test';

/**
 * A WebSocket server on 127.0.0.1 (random port) that stands for a provider's realtime endpoint:
 * it upgrades `path` only, and only with `Authorization: Bearer FAKE_SOCKET_KEY` (404 / 401
 * otherwise), and records every socket it accepted.
 */
export interface FakeSocketServer {
  /** ws://127.0.0.1:PORT */
  url: string;
  /** The sockets accepted, in order: a refused handshake adds none. */
  connections: { url: URL; headers: http.IncomingHttpHeaders; socket: WebSocket }[];
  close(): Promise<void>;
}

export async function startFakeSocketServer(path = '/v1/realtime'): Promise<FakeSocketServer> {
  const connections: FakeSocketServer['connections'] = [];
  const sockets = new Set<Socket>();
  const server = http.createServer((_req, res) => {
    res.writeHead(404);
    res.end();
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const deny = (status: number) => socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
    if (url.pathname !== path) return deny(404);
    if (req.headers.authorization !== `Bearer ${FAKE_SOCKET_KEY}`) return deny(401);
    wss.handleUpgrade(req, socket, head, (ws) => connections.push({ url, headers: req.headers, socket: ws }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`,
    connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of connections) c.socket.terminate();
        for (const s of sockets) s.destroy();
        wss.close();
        server.close(() => resolve());
      }),
  };
}
