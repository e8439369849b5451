import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A node:http server on 127.0.0.1 (random port) for the providers' local fakes. */
export interface FakeServer {
  /** http://127.0.0.1:PORT */
  origin: string;
  close(): Promise<void>;
}

export async function listen(handler: (req: http.IncomingMessage, res: http.ServerResponse) => unknown, host = '127.0.0.1'): Promise<FakeServer> {
  const sockets = new Set<Socket>();
  const server = http.createServer((req, res) => {
    Promise.resolve(handler(req, res)).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `fake crashed: ${err instanceof Error ? err.message : String(err)}` } }));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

export async function readBody(req: http.IncomingMessage, max = 5_000_000): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new Error('body too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function sendJson(res: http.ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
