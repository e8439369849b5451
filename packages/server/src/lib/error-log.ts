import type { FastifyServerOptions } from 'fastify';
import { stdSerializers } from 'pino';
import { redactLogFields, redactUrl, redactUrlsIn } from '@persona/contract';

/** What a database error may tell the log: which rule broke, never the values involved. */
const DB_FIELDS = ['code', 'severity', 'schema', 'table', 'column', 'constraint', 'routine'] as const;
const SQLSTATE = /^[0-9A-Z]{5}$/;

type ErrorLike = Error & Record<string, unknown>;

const isErrorLike = (value: unknown): value is ErrorLike => value instanceof Error || (typeof value === 'object' && value !== null && 'message' in value && 'stack' in value);

/**
 * A database error: drizzle's DrizzleQueryError (its message and `params` carry the bind values),
 * a pg or PGlite DatabaseError (`detail` quotes values, PGlite adds `query` and `params`).
 */
function isDatabaseError(err: ErrorLike): boolean {
  if (err.constructor?.name === 'DrizzleQueryError' || 'params' in err) return true;
  return typeof err.code === 'string' && SQLSTATE.test(err.code) && ('severity' in err || 'routine' in err || 'constraint' in err);
}

/** What the log shows instead of a database error. */
class DatabaseError extends Error {
  override name = 'DatabaseError';
}

/** The stack's frames without its first line (which repeats the message). */
const framesOf = (err: ErrorLike) => (typeof err.stack === 'string' ? err.stack.split('\n').filter((line) => /^\s+at /.test(line)) : []);

/** Replaces a database error (and whatever it wraps) by one that says code, table and constraint only. */
function databaseErrorSummary(err: ErrorLike): ErrorLike {
  let source: ErrorLike | undefined = err;
  let withCode: ErrorLike | undefined;
  for (let depth = 0; source && depth < 5; depth += 1, source = isErrorLike(source.cause) ? source.cause : undefined) {
    if (typeof source.code === 'string' && SQLSTATE.test(source.code)) {
      withCode = source;
      break;
    }
  }
  const summary = new DatabaseError(withCode ? `database error ${String(withCode.code)}` : 'database error') as unknown as ErrorLike;
  for (const field of DB_FIELDS) {
    const value = withCode?.[field];
    if (typeof value === 'string' && value.length <= 200) summary[field] = value;
  }
  summary.stack = [`${summary.name}: ${summary.message}`, ...framesOf(err)].join('\n');
  return summary;
}

/** A copy of `err` in which no database error (itself, its causes, aggregated errors) keeps values. */
export function scrubError(err: unknown, depth = 0): unknown {
  if (!isErrorLike(err) || depth > 8) return err;
  if (isDatabaseError(err)) return databaseErrorSummary(err);
  const cause = err.cause === undefined ? undefined : scrubError(err.cause, depth + 1);
  const errors = Array.isArray(err.errors) ? err.errors.map((e) => scrubError(e, depth + 1)) : undefined;
  if (cause === err.cause && (errors === undefined || errors.every((e, i) => e === (err.errors as unknown[])[i]))) return err;
  const copy = Object.assign(Object.create(Object.getPrototypeOf(err) as object) as ErrorLike, err);
  Object.defineProperty(copy, 'message', { value: err.message, enumerable: false, writable: true, configurable: true });
  Object.defineProperty(copy, 'stack', { value: err.stack, enumerable: false, writable: true, configurable: true });
  if (cause !== undefined) Object.defineProperty(copy, 'cause', { value: cause, enumerable: false, writable: true, configurable: true });
  if (errors !== undefined) copy.errors = errors;
  return copy;
}

/**
 * pino's error serializer, after `scrubError`: the `err` of every log line of the app. URLs in the
 * message and stack (a URL Fastify could not decode, a provider's address) lose their credentials.
 */
export function serializeError(err: Error): ReturnType<typeof stdSerializers.err> {
  const out = stdSerializers.err(scrubError(err) as Error);
  if (typeof out.message === 'string') out.message = redactUrlsIn(out.message);
  if (typeof out.stack === 'string') out.stack = redactUrlsIn(out.stack);
  return out;
}

/** What the log shows of a request (Fastify's fields), its URL without credentials. */
interface LoggedRequest {
  method?: string;
  url?: string;
  headers?: Record<string, string | string[] | undefined>;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number } | null;
}
export function serializeRequest(req: LoggedRequest) {
  return {
    method: req.method,
    url: typeof req.url === 'string' ? redactUrl(req.url) : req.url,
    version: req.headers?.['accept-version'] as string | undefined,
    host: req.host,
    remoteAddress: req.ip,
    remotePort: req.socket ? req.socket.remotePort : undefined,
  };
}

/** A log call's text (its message, a string field of its first argument) with the URLs in it redacted. */
function redactLogArguments(args: unknown[]): unknown[] {
  let out: unknown[] | undefined;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i];
    if (typeof arg === 'string') {
      const safe = redactUrlsIn(arg);
      if (safe !== arg) (out ??= [...args])[i] = safe;
    } else if (i === 0 && typeof arg === 'object' && arg !== null && !Array.isArray(arg) && !isErrorLike(arg)) {
      const safe = redactLogFields(arg);
      if (safe !== arg) (out ??= [...args])[i] = safe;
    }
  }
  return out ?? args;
}

/** A log call's arguments with every error among them scrubbed (`log.error(err)` takes its message from the error). */
function scrubLogArguments(args: unknown[]): unknown[] {
  const [first, ...rest] = args;
  if (isErrorLike(first)) return [scrubError(first), ...rest];
  if (typeof first !== 'object' || first === null || Array.isArray(first)) return args;
  let copy: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(first)) {
    if (!isErrorLike(value)) continue;
    const scrubbed = scrubError(value);
    if (scrubbed !== value) (copy ??= { ...first })[key] = scrubbed;
  }
  return copy ? [copy, ...rest] : args;
}

/**
 * The app's logger options with database values and credentials kept out of the log: the `err`
 * serializer, the `req` serializer (the access log's URL, redacted), and a hook that scrubs errors
 * given to a log call directly or under any other key and redacts URLs in its text.
 */
export function withSafeErrorLogging(logger: FastifyServerOptions['logger']): FastifyServerOptions['logger'] {
  if (logger === false || logger === undefined) return logger;
  const options = logger === true ? {} : logger;
  const logMethod = options.hooks?.logMethod;
  return {
    ...options,
    serializers: { ...options.serializers, err: serializeError, req: serializeRequest },
    hooks: {
      ...options.hooks,
      logMethod(args, method, level) {
        const safe = redactLogArguments(scrubLogArguments(args)) as Parameters<typeof method>;
        return logMethod ? logMethod.call(this, safe, method, level) : method.apply(this, safe);
      },
    },
  };
}
