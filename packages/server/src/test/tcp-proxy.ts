import net from 'node:net';

/**
 * How a cut dependency behaves towards new connections:
 * - 'refuse': nothing listens any more (a stopped server): connecting fails with ECONNREFUSED.
 * - 'hang': connections are accepted and never answered (a frozen server, a black hole): what
 *   the client sends stays unread until restore().
 */
export type CutMode = 'refuse' | 'hang';

export interface TcpProxy {
  readonly host: string;
  readonly port: number;
  /** The state new connections meet. */
  readonly state: 'open' | CutMode;
  /** Connections forwarded now, and held by a 'hang' cut now. */
  readonly counts: { forwarded: number; held: number; accepted: number };
  /** A copy of `url` (postgres://…, redis://…) with its host and port replaced by the proxy's. */
  urlFor(url: string): string;
  /** Drops every open connection (both sides closed at once), then refuses or holds new ones. */
  cut(mode?: CutMode): Promise<void>;
  /**
   * Forwards again. Connections held by a 'hang' cut are then forwarded with what they sent
   * meanwhile (a frozen server that thawed); those their client gave up on are already gone.
   */
  restore(): Promise<void>;
  close(): Promise<void>;
}

export interface TcpProxyTarget {
  host: string;
  port: number;
}

/** The host and port of a URL such as postgres://user@127.0.0.1:5432/db (default port by scheme). */
export function targetOf(url: string): TcpProxyTarget {
  const u = new URL(url);
  const defaults: Record<string, number> = { 'postgres:': 5432, 'postgresql:': 5432, 'redis:': 6379, 'rediss:': 6379 };
  const port = u.port ? Number(u.port) : defaults[u.protocol];
  if (!port) throw new Error(`targetOf: no port in ${u.protocol}//${u.host}`);
  return { host: u.hostname.replace(/^\[|\]$/g, ''), port };
}

/**
 * A TCP forwarder on an ephemeral loopback port, for tests that take a dependency away from a
 * running app (PostgreSQL, Redis, a portal instance) without touching the real server.
 */
export async function startTcpProxy(target: TcpProxyTarget, opts: { host?: string } = {}): Promise<TcpProxy> {
  const host = opts.host ?? '127.0.0.1';
  let state: 'open' | CutMode = 'open';
  let isClosed = false;
  let accepted = 0;
  /** Each forwarded connection as its pair of sockets. */
  const forwarded = new Set<{ client: net.Socket; upstream: net.Socket }>();
  const held = new Set<net.Socket>();

  function forward(client: net.Socket) {
    const upstream = net.connect(target.port, target.host);
    const pair = { client, upstream };
    forwarded.add(pair);
    const drop = () => {
      forwarded.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream);
    upstream.pipe(client);
    client.resume();
  }

  const server = net.createServer({ pauseOnConnect: true }, (client) => {
    accepted += 1;
    client.setNoDelay(true);
    if (state === 'hang') {
      // Accepted by the kernel and never read: the client's bytes wait in the socket.
      held.add(client);
      const forget = () => held.delete(client);
      client.on('error', forget).on('close', forget);
      return;
    }
    if (state === 'refuse') {
      // A connection that raced the listener closing.
      client.destroy();
      return;
    }
    forward(client);
  });

  const listen = (port: number) =>
    new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      server.once('error', onError);
      server.listen({ port, host, exclusive: true }, () => {
        server.off('error', onError);
        resolve();
      });
    });
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;

  const stopListening = () =>
    new Promise<void>((resolve) => {
      if (!server.listening) return resolve();
      // close() stops accepting at once; its callback waits for open connections, so it is not awaited.
      server.close();
      resolve();
    });

  const dropAll = () => {
    for (const pair of [...forwarded]) {
      pair.client.destroy();
      pair.upstream.destroy();
    }
    forwarded.clear();
    for (const socket of [...held]) socket.destroy();
    held.clear();
  };

  return {
    host,
    port,
    get state() {
      return state;
    },
    get counts() {
      return { forwarded: forwarded.size, held: held.size, accepted };
    },
    urlFor(url) {
      const u = new URL(url);
      u.hostname = host;
      u.port = String(port);
      return u.toString();
    },
    async cut(mode = 'refuse') {
      if (isClosed) throw new Error('proxy closed');
      state = mode;
      if (mode === 'refuse') await stopListening();
      else if (!server.listening) await listen(port);
      dropAll();
    },
    async restore() {
      if (isClosed) throw new Error('proxy closed');
      if (!server.listening) await listen(port);
      state = 'open';
      for (const client of [...held]) {
        held.delete(client);
        if (!client.destroyed) forward(client);
      }
    },
    async close() {
      if (isClosed) return;
      isClosed = true;
      state = 'refuse';
      await stopListening();
      dropAll();
    },
  };
}
