import type { FastifyReply, FastifyRequest } from 'fastify';
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
  /** The raw session token (needed for logout and login-as links). */
  token: string;
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null;
  }
}

export type SessionResolver = (token: string) => Promise<AuthContext | null>;

/** Splits `Bearer <APP_KEY>[:<token>]`. */
export function parseAuthorization(header: string | undefined): { appKey: string; token?: string } | null {
  if (!header) return null;
  const match = /^Bearer\s+([^\s:]+)(?::(\S+))?$/i.exec(header.trim());
  if (!match) return null;
  return match[2] ? { appKey: match[1]!, token: match[2] } : { appKey: match[1]! };
}

/**
 * The guards routes use as preHandlers: appKey (calls without a session), session (any
 * signed-in user), admin (ADMIN only; others get 403).
 */
export function createAuthGuards(opts: { appKey: string; resolveSession: SessionResolver }) {
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
    if (request.auth?.userType !== 'ADMIN') throw AppError.forbidden();
  };

  return { appKey, session, admin };
}

export type AuthGuards = ReturnType<typeof createAuthGuards>;

/** The caller of a route guarded by `session`. */
export function requireAuth(request: FastifyRequest): AuthContext {
  if (!request.auth) throw AppError.unauthorized();
  return request.auth;
}
