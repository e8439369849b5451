import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { ErrorMessages, FailReason } from '@persona/contract';
import { AppError, UnavailableError } from '../lib/app-error.js';
import { dependencyFailure } from '../lib/dependency-errors.js';
import { API_SECURITY_HEADERS } from './security-headers.js';

const GENERIC = /^(Invalid|Too (big|small)|Unrecognized|Expected|must )/;

/** The message of a 400 caused by a value the database could not take (out of range, NUL…). */
export const BAD_VALUE_MESSAGE = 'A value in the request is out of range or not valid.';

/**
 * The SQLSTATE of a database error (PostgreSQL or PGlite), wherever the query builder wrapped it.
 * Class 22 (data exception: out-of-range numbers and dates, NUL in text, bad encodings) and 54000
 * (a value too large to index) are caused by the values sent, so they are the client's 400.
 */
function databaseError(error: unknown): { code: string; table?: string; column?: string; constraint?: string } | undefined {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, severity, table, column, constraint } = e as Record<string, unknown>;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && typeof severity === 'string') {
      return { code, table: table as string | undefined, column: column as string | undefined, constraint: constraint as string | undefined };
    }
  }
  return undefined;
}
const isBadValue = (code: string) => code.startsWith('22') || code === '54000';

/**
 * A malformed or cut-off request body: the multipart parser's errors (truncated forms, bad
 * boundaries, bad part headers) and a request stream that ended early.
 */
function isBrokenBody(error: Error): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE' || error.message === 'aborted') return true;
  return /[\\/]@fastify[\\/]busboy[\\/]/.test(error.stack ?? '');
}

/** Turns a zod issue into a message that names its field. */
function issueMessage(path: string[], message: string): string {
  const field = path.join('.');
  return field && GENERIC.test(message) ? `${field}: ${message}` : message;
}

/** The one error handler: AppError, validation errors, Fastify's own errors, and the rest as 500. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError | Error, request, reply) => {
    // The database or Redis is unreachable (refused, reset, timed out): the same 503 for every route.
    const outage = error instanceof AppError ? null : dependencyFailure(error);
    if (outage) {
      request.log.warn({ dependency: outage.dependency, reason: outage.reason }, `${outage.dependency} unavailable: answered 503`);
      error = new UnavailableError(outage.dependency);
    }
    if (error instanceof AppError) {
      if (error instanceof UnavailableError) reply.header('retry-after', String(error.retryAfterSeconds));
      return reply.status(error.statusCode).send({
        ...error.extra,
        status: 'FAIL',
        errors: error.errors,
        ...(error.failReason !== undefined ? { failReason: error.failReason } : {}),
      });
    }
    if (hasZodFastifySchemaValidationErrors(error)) {
      const errors = [...new Set(error.validation.map((v) => issueMessage(v.instancePath.split('/').filter(Boolean), v.message ?? 'Invalid input')))];
      return reply.status(400).send({ status: 'FAIL', errors, failReason: FailReason.InvalidOrMissingParams });
    }
    if (isResponseSerializationError(error)) {
      request.log.error({ err: error, issues: error.cause.issues }, 'response does not match its schema');
      return reply.status(500).send({ status: 'FAIL', errors: [ErrorMessages.serverError], failReason: FailReason.ServerError });
    }
    const db = databaseError(error);
    if (db && isBadValue(db.code)) {
      // The values themselves are not logged (they may be secrets): only where it happened.
      request.log.warn({ db }, 'database refused a value from the request');
      return reply.status(400).send({ status: 'FAIL', errors: [BAD_VALUE_MESSAGE], failReason: FailReason.InvalidOrMissingParams });
    }
    if (!(error as FastifyError).statusCode && isBrokenBody(error)) {
      request.log.info({ reason: error.message }, 'malformed or incomplete request body');
      return reply.status(400).send({ status: 'FAIL', errors: ['The request body is malformed or incomplete.'], failReason: FailReason.InvalidOrMissingParams });
    }
    const statusCode = (error as FastifyError).statusCode;
    if (statusCode && statusCode >= 400 && statusCode < 500) {
      return reply.status(statusCode).send({
        status: 'FAIL',
        errors: [error.message],
        ...(statusCode === 400 ? { failReason: FailReason.InvalidOrMissingParams } : {}),
      });
    }
    request.log.error({ err: error }, 'unhandled error');
    return reply.status(500).send({ status: 'FAIL', errors: [ErrorMessages.serverError], failReason: FailReason.ServerError });
  });
}

/** What a request whose URL cannot be routed is told (FST_ERR_BAD_URL, FST_ERR_MAX_PARAM_LENGTH). */
export const BAD_URL_MESSAGE = 'The URL is malformed.';

/**
 * The client's address and host as the access log shows them for routed requests. Fastify builds
 * the request of a refused URL without its trust-proxy getters, so with TRUST_PROXY they are read
 * here the way Fastify reads them when it trusts every proxy: the first X-Forwarded-For entry and
 * the last X-Forwarded-Host value.
 */
function clientOf(request: FastifyRequest, trustProxy: boolean): { ip: string | undefined; host: string | undefined } {
  const raw = request.raw;
  if (!trustProxy) return { ip: raw.socket?.remoteAddress, host: raw.headers.host };
  const header = (name: string) => {
    const value = raw.headers[name];
    return (Array.isArray(value) ? value.join(',') : (value ?? '')).split(',').map((v) => v.trim()).filter(Boolean);
  };
  return { ip: header('x-forwarded-for')[0] ?? raw.socket?.remoteAddress, host: header('x-forwarded-host').at(-1) ?? raw.headers.host };
}

/**
 * Fastify's frameworkErrors: the requests Fastify refuses before routing (a URL it cannot decode,
 * such as /api/%zz; a parameter past its length limit; a failed async constraint) run no hook, so
 * left alone they would be answered without the request id, the security headers, the API's
 * error shape or an access-log line. They get the same as any other error answer (a JSON body,
 * never a page) and the same log lines (plugins/access-log.ts: one 'request completed' line; a
 * 500 also logs its error).
 */
export function frameworkErrors(opts: { trustProxy: boolean }) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const started = performance.now();
    const statusCode = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
    if (statusCode === 500) request.log.error({ err: error }, 'framework error before routing');
    // Fastify writes no access-log line on this path (and starts no response timer): written
    // here, once the answer is sent, in the shape of the routed requests' line.
    reply.raw.once('finish', () => {
      const { ip, host } = clientOf(request, opts.trustProxy);
      const req = { method: request.raw.method, url: request.raw.url, headers: request.raw.headers, socket: request.raw.socket, ip, host };
      request.log.info({ req, res: reply, responseTime: performance.now() - started }, 'request completed');
    });
    void reply
      .header('x-request-id', request.id)
      .headers(API_SECURITY_HEADERS)
      .status(statusCode)
      .send({
        status: 'FAIL',
        errors: [statusCode === 500 ? ErrorMessages.serverError : BAD_URL_MESSAGE],
        failReason: statusCode === 500 ? FailReason.ServerError : FailReason.InvalidOrMissingParams,
      });
  };
}
