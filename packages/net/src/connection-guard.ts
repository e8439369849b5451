import type http from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Time and count limits of a listener that browsers and anybody else reach:
 * the portal's HTTP server and a worker's own page-socket listener. Left to their defaults, a
 * connection that sends half a request line or header block was held 60-90 s (Node's 60 s headers
 * timeout, checked every 30 s), one that sends half a body forever (Fastify turns Node's request
 * timeout off), and an upgrade request that reached a route without a WebSocket handler forever
 * (once Node hands a socket to 'upgrade', none of its timeouts apply any more).
 */
export interface ConnectionLimits {
  /**
   * Until a request's headers have all arrived; a connection that sends nothing at all is closed
   * after this long too. Also the time an upgrade request has, once its headers arrived, to
   * become a WebSocket.
   */
  headersTimeoutMs: number;
  /** Until a whole request (headers and body) has arrived (uploads: their size at the slowest client's speed). */
  requestTimeoutMs: number;
  /**
   * Connections open at once from one address — the socket's own, the only one a TCP connection
   * shows before its request is read (behind a reverse proxy, the proxy's: set 0 there and cap per
   * client at the proxy). 0: no cap.
   */
  maxConnectionsPerIp: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = { headersTimeoutMs: 20_000, requestTimeoutMs: 300_000, maxConnectionsPerIp: 256 };

/**
 * The options of `http.createServer` for these limits (they must be given at creation: Node sets
 * up its timeout checks there). Node checks its timeouts every `connectionsCheckingInterval`
 * (30 s by default, which added up to 30 s to each): here a quarter of the headers timeout, at
 * most a second.
 */
export function httpServerOptions(limits: ConnectionLimits): http.ServerOptions {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: Math.max(25, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
  };
}

export interface ConnectionGuard {
  /** A socket that came through 'upgrade' is a WebSocket now: its upgrade deadline no longer applies. */
  upgraded(socket: Duplex): void;
  /** Connections refused by the per-address cap so far. */
  readonly refused: number;
  /** Connections open now from this address. */
  openFrom(address: string): number;
}

/** `::ffff:192.0.2.1` and `192.0.2.1` are one address. */
const addressOf = (socket: { remoteAddress?: string }) => {
  const a = socket.remoteAddress ?? '';
  return a.startsWith('::ffff:') && a.includes('.') ? a.slice(7) : a;
};

/**
 * Applies the per-address cap and the upgrade deadline to a server made with `httpServerOptions`.
 * A connection over the cap is closed as soon as it is accepted (before a byte is read). An
 * upgrade request whose socket is not a WebSocket within `headersTimeoutMs` of its headers — it
 * reached a route without a WebSocket handler, whose answer Node does not follow with a close, or
 * its handshake never completed — is closed. Call it before adding the server's own 'upgrade'
 * listener (whose `upgraded` call must come after the deadline is set).
 */
export function guardConnections(server: http.Server, limits: ConnectionLimits, opts: { onRefused?: (address: string) => void } = {}): ConnectionGuard {
  const open = new Map<string, number>();
  let refused = 0;
  if (limits.maxConnectionsPerIp > 0) {
    server.on('connection', (socket) => {
      const address = addressOf(socket);
      const count = open.get(address) ?? 0;
      if (count >= limits.maxConnectionsPerIp) {
        refused += 1;
        socket.destroy();
        opts.onRefused?.(address);
        return;
      }
      open.set(address, count + 1);
      socket.once('close', () => {
        const left = (open.get(address) ?? 1) - 1;
        if (left > 0) open.set(address, left);
        else open.delete(address);
      });
    });
  }
  const deadlines = new WeakMap<Duplex, NodeJS.Timeout>();
  server.on('upgrade', (_req: http.IncomingMessage, socket: Duplex) => {
    const timer = setTimeout(() => socket.destroy(), limits.headersTimeoutMs);
    timer.unref();
    deadlines.set(socket, timer);
    socket.once('close', () => clearTimeout(timer));
  });
  return {
    upgraded(socket) {
      clearTimeout(deadlines.get(socket));
      deadlines.delete(socket);
    },
    get refused() {
      return refused;
    },
    openFrom: (address) => open.get(address) ?? 0,
  };
}
