import { safeParse } from 'zod/mini';
import type { $ZodType } from 'zod/v4/core';
import { ErrorMessages, Limits, messageForFailReason } from '@persona/contract';
import { authStore } from './auth-store';
import { getPublicConfig } from './config';

/**
 * The one HTTP client of the portal (spec section 7): base URL is the portal origin, 10 s timeout,
 * `Authorization: Bearer <appKey>:<sessionToken>` (or `Bearer <appKey>` without a session), JSON in
 * and out. A 401 signs the user out; a 500 is logged.
 */

export type ApiErrorKind = 'http' | 'timeout' | 'network' | 'invalid-response';

/**
 * How the call authenticates. `auto`: the session when signed in, else the app key alone; `app`: the
 * app key alone (login, reset); `none`: no header (the public configuration, read before the app key
 * is known).
 */
export type ApiAuth = 'auto' | 'app' | 'none';

export interface ApiRequestOptions<T> {
  method?: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  body?: unknown;
  query?: Record<string, string | number | boolean | undefined>;
  auth?: ApiAuth;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Validates the OK answer. */
  schema?: $ZodType<T>;
  /** false for the login call: a 401 there means bad credentials, not an expired session. */
  logoutOnUnauthorized?: boolean;
  /** Extra headers (the knowledge calls send their own Authorization with auth 'none'). */
  headers?: Record<string, string>;
}

const REASON_PHRASES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  408: 'Request Timeout',
  409: 'Conflict',
  413: 'Payload Too Large',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};

export const TIMEOUT_MESSAGE = `The server did not answer within ${Limits.httpTimeoutMs / 1000} seconds. Please try again.`;

export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly kind: ApiErrorKind;
  /** HTTP status; 0 when no answer arrived (timeout, network). */
  readonly status: number;
  readonly statusText: string;
  /** The parsed JSON answer, the raw text when it was not JSON, or null. */
  readonly body: unknown;
  /** The answer's `errors` when it was a JSON FAIL answer, else empty. */
  readonly errors: string[];
  readonly failReason: number | undefined;

  constructor(init: {
    kind: ApiErrorKind;
    message: string;
    status?: number;
    statusText?: string;
    body?: unknown;
  }) {
    super(init.message);
    this.kind = init.kind;
    this.status = init.status ?? 0;
    this.statusText = init.statusText ?? '';
    this.body = init.body ?? null;
    const fail = readFailAnswer(this.body);
    this.errors = fail?.errors ?? [];
    this.failReason = fail?.failReason;
  }

  /** True when the server answered with `{status:'FAIL', errors:[...]}` carrying at least one error. */
  get hasErrors(): boolean {
    return this.errors.length > 0;
  }
}

function readFailAnswer(body: unknown): { errors: string[]; failReason: number | undefined } | null {
  if (typeof body !== 'object' || body === null) return null;
  const record = body as Record<string, unknown>;
  if (record.status !== 'FAIL') return null;
  const errors = Array.isArray(record.errors)
    ? record.errors.filter((e): e is string => typeof e === 'string' && e.trim() !== '')
    : [];
  const failReason = typeof record.failReason === 'number' ? record.failReason : undefined;
  return { errors, failReason };
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

function authorizationHeader(auth: ApiAuth): string | null {
  if (auth === 'none') return null;
  const appKey = getPublicConfig()?.appKey ?? '';
  const session = auth === 'auto' ? authStore.getSession() : null;
  return session ? `Bearer ${appKey}:${session.token}` : `Bearer ${appKey}`;
}

function buildUrl(path: string, query: ApiRequestOptions<unknown>['query']): string {
  const url = new URL(path, window.location.origin);
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url.toString();
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (text === '') return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

export async function apiRequest<T = unknown>(path: string, options: ApiRequestOptions<T> = {}): Promise<T> {
  const method = options.method ?? (options.body === undefined ? 'GET' : 'POST');
  const headers: Record<string, string> = { Accept: 'application/json' };
  const authorization = authorizationHeader(options.auth ?? 'auto');
  if (authorization) headers.Authorization = authorization;
  Object.assign(headers, options.headers);
  // FormData (multipart uploads) goes as it is: the browser sets its content type and boundary.
  const isForm = typeof FormData !== 'undefined' && options.body instanceof FormData;
  if (options.body !== undefined && !isForm) headers['Content-Type'] = 'application/json';

  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs ?? Limits.httpTimeoutMs);
  const outer = options.signal;
  const onOuterAbort = () => controller.abort(outer?.reason);
  if (outer?.aborted) onOuterAbort();
  else outer?.addEventListener('abort', onOuterAbort, { once: true });

  let response: Response;
  let body: unknown;
  try {
    response = await fetch(buildUrl(path, options.query), {
      method,
      headers,
      body: options.body === undefined ? undefined : isForm ? (options.body as FormData) : JSON.stringify(options.body),
      signal: controller.signal,
      credentials: 'same-origin',
    });
    body = await readBody(response);
  } catch (error) {
    if (timedOut) throw new ApiError({ kind: 'timeout', message: TIMEOUT_MESSAGE });
    if (outer?.aborted) throw error; // cancelled by the caller (e.g. a query that is no longer needed)
    throw new ApiError({ kind: 'network', message: ErrorMessages.networkError });
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuterAbort);
  }

  const statusText = response.statusText || REASON_PHRASES[response.status] || '';
  const isFail = readFailAnswer(body) !== null;
  if (!response.ok || isFail) {
    if (response.status === 401 && options.logoutOnUnauthorized !== false) authStore.clear();
    if (response.status >= 500) {
      console.error(`[api] ${method} ${path} failed: ${response.status} ${statusText}`, body);
    }
    throw new ApiError({
      kind: 'http',
      message: describeHttpFailure(response.status, statusText, body),
      status: response.status,
      statusText,
      body,
    });
  }

  if (!options.schema) return body as T;
  const parsed = safeParse(options.schema, body);
  if (!parsed.success) {
    console.error(`[api] ${method} ${path}: unexpected answer`, parsed.error.issues);
    throw new ApiError({
      kind: 'invalid-response',
      message: ErrorMessages.unknown,
      status: response.status,
      statusText,
      body,
    });
  }
  return parsed.data;
}

function describeHttpFailure(status: number, statusText: string, body: unknown): string {
  const fail = readFailAnswer(body);
  if (fail && fail.errors.length > 0) return fail.errors.join(' ');
  return `Request failed: ${status} ${statusText}`.trim();
}

/** The spec's text for a non-OK login/reset answer without server errors (section 8). */
export function gatewayErrorText(status: number, statusText: string): string {
  return `Error Code: ${status}#${statusText}#Unable to reach gateway`;
}

/**
 * Messages for a failed login or reset_password call: the server's errors when it sent a JSON FAIL
 * answer with errors, otherwise 'Error Code: {status}#{text}#Unable to reach gateway'.
 */
export function gatewayErrorMessages(error: unknown): string[] {
  if (!isApiError(error)) return [ErrorMessages.unknown];
  if (error.hasErrors) return error.errors;
  if (error.kind === 'http' || error.kind === 'invalid-response') {
    return [gatewayErrorText(error.status, error.statusText)];
  }
  return [error.message];
}

/** Messages to show for any other failed call. */
export function errorMessages(error: unknown): string[] {
  if (!isApiError(error)) return [ErrorMessages.unknown];
  if (error.hasErrors) return error.errors;
  const forReason = messageForFailReason(error.failReason);
  if (forReason) return [forReason];
  if (error.kind !== 'http') return [error.message];
  if (error.status >= 500) return [ErrorMessages.serverError];
  if (error.status === 429) return [ErrorMessages.tooManyRequests];
  if (error.status === 403) return [ErrorMessages.forbidden];
  if (error.status === 404) return [ErrorMessages.notFound];
  return [error.message];
}

/**
 * A file the API streams (the conversations' export, ADR 094): fetched with the session like every
 * call, then handed to the browser to save under the name the answer's Content-Disposition gives.
 * Failures are ApiErrors, as with apiRequest.
 */
export async function apiDownload(path: string, options: { query?: ApiRequestOptions<unknown>['query']; timeoutMs?: number; fallbackName: string }): Promise<string> {
  const headers: Record<string, string> = {};
  const authorization = authorizationHeader('auto');
  if (authorization) headers.Authorization = authorization;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, options.timeoutMs ?? 120_000);
  let response: Response;
  let blob: Blob;
  try {
    response = await fetch(buildUrl(path, options.query), { headers, signal: controller.signal, credentials: 'same-origin' });
    if (!response.ok) {
      const body = await readBody(response);
      if (response.status === 401) authStore.clear();
      const statusText = response.statusText || REASON_PHRASES[response.status] || '';
      throw new ApiError({ kind: 'http', message: describeHttpFailure(response.status, statusText, body), status: response.status, statusText, body });
    }
    blob = await response.blob();
  } catch (error) {
    if (isApiError(error)) throw error;
    if (timedOut) throw new ApiError({ kind: 'timeout', message: TIMEOUT_MESSAGE });
    throw new ApiError({ kind: 'network', message: ErrorMessages.networkError });
  } finally {
    clearTimeout(timer);
  }
  const named = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1];
  const fileName = named && /^[\w.-]+$/.test(named) ? named : options.fallbackName;
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
  return fileName;
}
