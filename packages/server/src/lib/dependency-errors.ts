import { DrizzleQueryError } from 'drizzle-orm';

/** A service the server cannot work without for a moment. */
export type Dependency = 'database' | 'redis';

export interface DependencyFailure {
  dependency: Dependency;
  /** What went wrong, for the log: an error code or a fixed message of the driver (never values). */
  reason: string;
}

/** Socket errors of a connection that could not be made or was lost. */
const SOCKET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * SQLSTATEs of a server that is going away or not taking connections: class 08 (connection
 * exception), 57P01–57P03 (admin or crash shutdown, cannot connect now: starting up, shutting
 * down, in recovery) and 53300 (too many connections).
 */
const isUnavailableSqlState = (code: string) => code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03' || code === '53300';

/** node-postgres and pg-pool's own messages for a connection that failed, timed out or was lost. */
const PG_MESSAGES = [
  /^Connection terminated/, // unexpectedly, due to connection timeout
  /^timeout exceeded when trying to connect$/, // pg-pool: no connection within connectionTimeoutMillis
  /^timeout expired$/,
  /^Query read timeout$/, // query_timeout
  /is not queryable$/, // a client whose connection broke, or closed
];

/** ioredis's messages for a command that could not be sent or answered. */
const REDIS_MESSAGES = [
  /^Connection is closed\.$/,
  /^Command timed out$/, // commandTimeout
  /^Stream isn't writeable and enableOfflineQueue options is false$/,
  /^Command aborted due to connection close$/,
  /^Reached the max retries per request limit/, // MaxRetriesPerRequestError
];

function classifyOne(e: Record<string, unknown>): DependencyFailure | null {
  const message = typeof e.message === 'string' ? e.message : '';
  const { code, severity, syscall, name } = e;
  if (name === 'MaxRetriesPerRequestError' || REDIS_MESSAGES.some((re) => re.test(message))) return { dependency: 'redis', reason: message };
  if (typeof code === 'string' && typeof severity === 'string' && /^[0-9A-Z]{5}$/.test(code)) {
    return isUnavailableSqlState(code) ? { dependency: 'database', reason: `SQLSTATE ${code}` } : null;
  }
  if (PG_MESSAGES.some((re) => re.test(message))) return { dependency: 'database', reason: message };
  // A raw socket error reaches a request only from node-postgres (connect ECONNREFUSED…): ioredis
  // reports its socket errors as events and fails the commands with the messages above.
  if (typeof code === 'string' && typeof syscall === 'string' && SOCKET_CODES.has(code)) return { dependency: 'database', reason: `${syscall} ${code}` };
  return null;
}

/**
 * The database or Redis is unreachable (refused, reset, timed out, shutting down): a failure of
 * the moment, not of the request. Looks at the error itself and at the driver error a query
 * builder error wraps — not deeper: a provider's `fetch failed` with an ECONNREFUSED cause is
 * someone else's outage, not ours.
 */
export function dependencyFailure(error: unknown): DependencyFailure | null {
  if (!error || typeof error !== 'object') return null;
  const direct = classifyOne(error as Record<string, unknown>);
  if (direct) return direct;
  const cause = (error as { cause?: unknown }).cause;
  if (error instanceof DrizzleQueryError && cause && typeof cause === 'object') return classifyOne(cause as Record<string, unknown>);
  return null;
}
