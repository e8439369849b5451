import type { FastifyInstance } from 'fastify';
import { InputMessages } from '@persona/contract';
import { AppError } from '../lib/app-error.js';

const MAX_DEPTH = 64;

/**
 * The path of the first string (value or key) holding a NUL character, or undefined. NUL is
 * never valid text: PostgreSQL cannot store it in text or jsonb, and C-string APIs (file
 * names) truncate at it. Deeper than MAX_DEPTH levels counts as found (nobody sends that).
 */
export function findNul(value: unknown, path: string[] = [], depth = 0): string[] | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  if (depth > MAX_DEPTH) return path;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNul(value[i], [...path, String(i)], depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (key.includes('\u0000')) return [...path, key.replaceAll('\u0000', '\\u0000')];
    const found = findNul((value as Record<string, unknown>)[key], [...path, key], depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** Throws a 400 naming the field when a value (a parsed body, a multipart field…) holds NUL. */
export function assertNoNul(value: unknown, prefix: string[] = []): void {
  const found = findNul(value, prefix);
  if (found) throw AppError.badRequest(`${found.join('.') || 'body'}: ${InputMessages.controlChars}`);
}

/**
 * Refuses NUL anywhere in a request's path parameters, query string and JSON body, on every
 * route (with a schema or not), before validation. The contract's text schemas refuse the
 * other control characters where a field is single-line text.
 */
export function registerInputGuard(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      assertNoNul(request.params, []);
      assertNoNul(request.query, []);
      if (typeof request.body === 'object' || typeof request.body === 'string') assertNoNul(request.body, []);
      done();
    } catch (err) {
      done(err as Error);
    }
  });
}
