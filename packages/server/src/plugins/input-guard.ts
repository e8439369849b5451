import type { FastifyInstance, preValidationHookHandler, RouteOptions } from 'fastify';
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

export const refuseNul: preValidationHookHandler = (request, _reply, done) => {
  try {
    // Path parameters and query values come from the URL, where a NUL is written %00 (Node's
    // HTTP parser refuses a raw one; an injected request may hold one): without either, no walk.
    if (request.url.includes('%00') || request.url.includes('\u0000')) {
      assertNoNul(request.params, []);
      assertNoNul(request.query, []);
    }
    if (typeof request.body === 'object' || typeof request.body === 'string') assertNoNul(request.body, []);
    done();
  } catch (err) {
    done(err as Error);
  }
};

/**
 * Whether a route may read a path parameter, a query value or a body: it has parameters in its
 * URL, no schema, or a schema declaring params, a query string or a body. A typed route (one
 * declaring its answer) that declares none of them reads none (e.g. /api/health). `query` is
 * Fastify's alias of `querystring`, renamed only after the onRoute hooks have run.
 */
export function takesInput(route: Pick<RouteOptions, 'url' | 'schema'>): boolean {
  const schema = route.schema as (RouteOptions['schema'] & { query?: unknown }) | undefined;
  if (/[:*]/.test(route.url)) return true;
  if (schema?.response === undefined) return true;
  return schema.params !== undefined || schema.querystring !== undefined || schema.query !== undefined || schema.body !== undefined;
}

/**
 * Refuses NUL anywhere in a request's path parameters, query string and JSON body, before
 * validation (and before a route's own preValidation), on every route that takes input
 * (`takesInput`): a route that takes none gets no hook, which every one of its calls would pay.
 * Applies to the routes registered after this call (app.ts calls it before the routes; the
 * input-guard test checks the whole route table). The contract's text schemas refuse the other
 * control characters where a field is single-line text.
 */
export function registerInputGuard(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    if (!takesInput(route)) return;
    route.preValidation = route.preValidation === undefined ? [refuseNul] : [refuseNul, ...[route.preValidation].flat()];
  });
}
