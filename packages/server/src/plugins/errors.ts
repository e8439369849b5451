import type { FastifyError, FastifyInstance } from 'fastify';
import { hasZodFastifySchemaValidationErrors, isResponseSerializationError } from 'fastify-type-provider-zod';
import { ErrorMessages, FailReason } from '@persona/contract';
import { AppError } from '../lib/app-error.js';

const GENERIC = /^(Invalid|Too (big|small)|Unrecognized|Expected)/;

/** Turns a zod issue into a message that names its field. */
function issueMessage(path: string[], message: string): string {
  const field = path.join('.');
  return field && GENERIC.test(message) ? `${field}: ${message}` : message;
}

/** The one error handler: AppError, validation errors, Fastify's own errors, and the rest as 500. */
export function registerErrorHandler(app: FastifyInstance): void {
  app.setErrorHandler((error: FastifyError | AppError | Error, request, reply) => {
    if (error instanceof AppError) {
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
