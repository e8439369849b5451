import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { TUserType } from '@persona/contract';
import { AppError } from '../lib/app-error.js';
import { safeEqual } from '../lib/tokens.js';

/** Who is calling: set on the request by the session guard. */
export interface AuthContext {
  userId: number;
  email: string;
  userName: string;
  userType: TUserType;
  adminProxy: boolean;
  /** The session's id: what logout ends and what derived credentials (knowledge JWT, tickets) name. */
  sessionId: number;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
}

export type SessionResolver = (token: string) => Promise<AuthContext | null>;
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
export function createAuthGuards(opts: { appKey: string; resolveSession: SessionResolver; resolveSessionById: SessionIdResolver }) {
  const checkKey = (request: FastifyRequest) => {
    const parsed = parseAuthorization(request.headers.authorization);
    if (!parsed) throw AppError.unauthorized();
    if (!safeEqual(parsed.appKey, opts.appKey)) throw AppError.invalidApiKey();
    return parsed;
  };

  const appKey = async (request: FastifyRequest, _reply: FastifyReply) => {
    checkKey(request);
  };

  const session = async (request: FastifyRequest, _reply: FastifyReply) => {
    const parsed = checkKey(request);
    if (!parsed.token) throw AppError.unauthorized();
    const auth = await opts.resolveSession(parsed.token);
    if (!auth) throw AppError.unauthorized();
    request.auth = auth;
  };

  const admin = async (request: FastifyRequest, reply: FastifyReply) => {
    await session(request, reply);
    // A login-as session acts as its user and never as an administrator.
    if (request.auth?.userType !== 'ADMIN' || request.auth.adminProxy) throw AppError.forbidden();
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
