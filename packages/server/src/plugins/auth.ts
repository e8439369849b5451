import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { ApiKeyMessages, API_KEY_TOKEN_PREFIX, type TApiKeyScope, type TUserType } from '@persona/contract';
import { AppError } from '../lib/app-error.js';
import { safeEqual } from '../lib/tokens.js';

/** Who is calling: set on the request by the session guard. */
export interface AuthContext {
  userId: number;
  email: string;
  userName: string;
  userType: TUserType;
  adminProxy: boolean;
  /** The session's id: what logout ends and what derived credentials (knowledge JWT, tickets) name; 0 for an API key (no portal session). */
  sessionId: number;
  /** Set when the caller is an API key (ADR 094): it acts as its account with these scopes only. */
  apiKey?: { id: string; scopes: readonly TApiKeyScope[] };
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
  interface FastifyContextConfig {
    /**
     * The scope an API key needs to call this route (ADR 094). A route without one refuses every
     * API key (403): a route added later is closed to keys until it says which scope opens it.
     */
    apiKeyScope?: TApiKeyScope;
  }
}

export type SessionResolver = (token: string) => Promise<AuthContext | null>;
/** An API key (the whole `ps_live_…` token) → its account and scopes, or null (unknown, expired, revoked, account disabled). */
export type ApiKeyResolver = (token: string) => Promise<(AuthContext & { apiKey: NonNullable<AuthContext['apiKey']> }) | null>;

/** The API key of `Authorization: Bearer ps_live_…`, or null when the header is something else. */
export function apiKeyOf(header: string | undefined): string | null {
  const match = /^Bearer\s+(\S+)$/i.exec(header?.trim() ?? '');
  return match?.[1]?.startsWith(API_KEY_TOKEN_PREFIX) ? match[1] : null;
}
/** A live session by its id (for credentials derived from a session), or null when it ended. */
export type SessionIdResolver = (sessionId: number) => Promise<AuthContext | null>;

/** Splits `Bearer <APP_KEY>[:<token>]`. */
export function parseAuthorization(header: string | undefined): { appKey: string; token?: string } | null {
  if (!header) return null;
  const match = /^Bearer\s+([^\s:]+)(?::(\S+))?$/i.exec(header.trim());
  if (!match) return null;
  return match[2] ? { appKey: match[1]!, token: match[2] } : { appKey: match[1]! };
}

/** Every guard function made here, so that `assertGuardsRunFirst` can find them in route options. */
const guardFunctions = new WeakSet<object>();

/**
 * The guards routes use as `onRequest` hooks (before the body is read or validated, so a caller
 * without the right gets 401/403, never a 400 about a body they may not send): appKey (calls
 * without a session), session (any signed-in user), admin (ADMIN only, and never a login-as
 * session; others get 403).
 */
export function createAuthGuards(opts: {
  appKey: string;
  resolveSession: SessionResolver;
  resolveSessionById: SessionIdResolver;
  /** API keys (ADR 094); without it every `ps_live_…` bearer is a 401. */
  resolveApiKey?: ApiKeyResolver;
  /** A key's own rate limit (the request's `auth` is the key's): false when it is spent (429). */
  allowApiKeyCall?: (request: FastifyRequest) => Promise<boolean>;
}) {
  const checkKey = (request: FastifyRequest) => {
    const parsed = parseAuthorization(request.headers.authorization);
    if (!parsed) throw AppError.unauthorized();
    if (!safeEqual(parsed.appKey, opts.appKey)) throw AppError.invalidApiKey();
    return parsed;
  };

  const appKey = async (request: FastifyRequest, _reply: FastifyReply) => {
    checkKey(request);
  };

  /** An API key: valid (401), allowed on this route (403: the route names no scope, or another one), within its rate (429). */
  const apiKey = async (request: FastifyRequest, token: string) => {
    const auth = opts.resolveApiKey ? await opts.resolveApiKey(token) : null;
    if (!auth) throw new AppError(401, ApiKeyMessages.invalid);
    const scope = request.routeOptions.config.apiKeyScope;
    if (!scope) throw AppError.forbidden(ApiKeyMessages.notAllowed);
    if (!auth.apiKey.scopes.includes(scope)) throw AppError.forbidden(ApiKeyMessages.missingScope(scope));
    request.auth = auth;
    if (opts.allowApiKeyCall && !(await opts.allowApiKeyCall(request))) {
      request.auth = null;
      throw new AppError(429, ApiKeyMessages.rateLimited);
    }
  };

  const session = async (request: FastifyRequest, _reply: FastifyReply) => {
    const key = apiKeyOf(request.headers.authorization);
    if (key !== null) return apiKey(request, key);
    const parsed = checkKey(request);
    if (!parsed.token) throw AppError.unauthorized();
    const auth = await opts.resolveSession(parsed.token);
    if (!auth) throw AppError.unauthorized();
    request.auth = auth;
  };

  const admin = async (request: FastifyRequest, reply: FastifyReply) => {
    await session(request, reply);
    // A login-as session acts as its user and never as an administrator; an API key never does either.
    if (request.auth?.userType !== 'ADMIN' || request.auth.adminProxy || request.auth.apiKey) throw AppError.forbidden();
  };

  for (const guard of [appKey, session, admin]) guardFunctions.add(guard);
  return { appKey, session, admin, sessionById: opts.resolveSessionById };
}

/** Marks a feature's own guard (e.g. the knowledge JWT guard) so `assertGuardsRunFirst` checks it too. */
export function markGuard<T extends object>(guard: T): T {
  guardFunctions.add(guard);
  return guard;
}

/**
 * Refuses (at start-up) a route that runs a guard after its input was validated: a guard belongs
 * in `onRequest` (or `preValidation`), never in `preHandler`.
 */
export function assertGuardsRunFirst(app: FastifyInstance): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const late = [route.preHandler].flat().filter((fn): fn is NonNullable<typeof fn> => !!fn && guardFunctions.has(fn as object));
    if (late.length > 0) throw new Error(`${String(route.method)} ${route.url}: auth guards must run in onRequest, before the body is validated`);
  });
}

export type AuthGuards = ReturnType<typeof createAuthGuards>;

/** The caller of a route guarded by `session`. */
export function requireAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw AppError.unauthorized();
  return request.auth;
}
