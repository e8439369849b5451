import { ErrorMessages, FailReason } from '@persona/contract';

/**
 * A failure the client should see: HTTP status, the human-readable errors and, where the
 * spec's catalogue applies, a failReason code. The error handler renders it as
 * `{ status: 'FAIL', errors, failReason }`.
 */
export class AppError extends Error {
  readonly statusCode: number;
  readonly errors: string[];
  readonly failReason: number | undefined;
  /** Extra fields merged into the answer (e.g. displayTitle). */
  readonly extra: Record<string, unknown> | undefined;

  constructor(
    statusCode: number,
    errors: string | string[],
    failReason?: number,
    extra?: Record<string, unknown>,
  ) {
    const list = Array.isArray(errors) ? errors : [errors];
    super(list.join('; '));
    this.name = 'AppError';
    this.statusCode = statusCode;
    this.errors = list;
    this.failReason = failReason;
    this.extra = extra;
  }

  static badRequest(errors: string | string[], extra?: Record<string, unknown>) {
    return new AppError(400, errors, FailReason.InvalidOrMissingParams, extra);
  }
  static unauthorized(message: string = ErrorMessages.authenticationFailed) {
    return new AppError(401, message, FailReason.AuthenticationFailed);
  }
  static invalidApiKey() {
    return new AppError(401, ErrorMessages.invalidApiKey, FailReason.InvalidAPIKey);
  }
  static forbidden(message: string = ErrorMessages.forbidden) {
    return new AppError(403, message);
  }
  static notFound(message: string = ErrorMessages.notFound) {
    return new AppError(404, message);
  }
  static conflict(message: string, failReason?: number) {
    return new AppError(409, message, failReason);
  }
  static tooManyRequests(message: string = ErrorMessages.tooManyRequests) {
    return new AppError(429, message);
  }
}

/**
 * A service the server needs (the database, Redis) cannot be reached for the moment: 503 with a
 * Retry-After, the same for every route (plugins/errors.ts maps the drivers' errors to it).
 */
export class UnavailableError extends AppError {
  constructor(
    readonly dependency: 'database' | 'redis',
    readonly retryAfterSeconds = 5,
  ) {
    super(503, ErrorMessages.serviceUnavailable, FailReason.RequestFail);
    this.name = 'UnavailableError';
  }
}
