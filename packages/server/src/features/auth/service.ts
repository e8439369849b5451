import {
  AuthLimits,
  AuthMessages,
  type TEmailVerificationResponse,
  type TLoginAsTicketResponse,
  type TLoginRequest,
  type TLoginResponse,
  type TRegisterRequest,
  type TResetPasswordResponse,
  type TUserType,
  ZRegisterRequest,
} from '@persona/contract';
import type { FastifyBaseLogger } from 'fastify';
import { AppError } from '../../lib/app-error.js';
import { burnPasswordCheck, hashPassword, verifyPassword } from '../../lib/password.js';
import { hashToken, randomToken } from '../../lib/tokens.js';
import type { Mailer } from '../../plugins/mail.js';
import type { AuthContext } from '../../plugins/auth.js';
import type { RevocationBus } from '../../plugins/revocations.js';
import type { AuthRepository, CodeKind, UserRow } from './repository.js';
import { accountExistsMail, resetMail, verificationMail } from './mails.js';
import { createSessionCache, type CachedSession } from './session-cache.js';

export interface AuthServiceDeps {
  repo: AuthRepository;
  mailer: Mailer;
  log: FastifyBaseLogger;
  publicUrl: string;
  allowRegistration: boolean;
  /** Tells every instance when sessions end (their session caches forget them at once). */
  revocations: RevocationBus;
  /** How long a looked-up session is kept in memory (default 5 s; 0 turns the cache off). */
  sessionCacheMs?: number;
  now?: () => Date;
}

export interface RequestMeta {
  ip?: string;
  userAgent?: string;
}

const HOUR = 3_600_000;
const MINUTE = 60_000;
const SESSION_CACHE_MS = 5_000;
const SESSION_CACHE_ENTRIES = 10_000;

export function displayName(user: Pick<UserRow, 'firstName' | 'lastName' | 'email'>): string {
  return `${user.firstName} ${user.lastName}`.trim() || user.email;
}

export function createAuthService(deps: AuthServiceDeps) {
  const { repo, mailer, log, revocations } = deps;
  const now = deps.now ?? (() => new Date());
  const cache = createSessionCache({ ttlMs: deps.sessionCacheMs ?? SESSION_CACHE_MS, maxEntries: SESSION_CACHE_ENTRIES, now: () => now().getTime() });
  revocations.subscribe((revocation) => cache.revoke(revocation));

  /** The guards' view of a session row, or null when its user may not act now. */
  function toCached(row: Awaited<ReturnType<AuthRepository['findLiveSession']>>): CachedSession | null {
    if (!row) return null;
    // An admin may act for an unverified user; nobody acts for a disabled one.
    if (row.user.status !== 'ACTIVE' && (!row.session.adminProxy || row.user.status === 'DISABLED')) return null;
    return {
      auth: {
        userId: row.user.id,
        email: row.user.email,
        userName: displayName(row.user),
        userType: row.user.userType as TUserType,
        adminProxy: row.session.adminProxy,
        sessionId: row.session.id,
      },
      parentSessionId: row.session.parentSessionId,
      parentUserId: row.parentUserId,
      expiresAtMs: row.session.expiresAt.getTime(),
    };
  }

  /** Memory first (while revocations can be heard), else the database. */
  async function lookUp(by: { tokenHash: string } | { id: number }): Promise<AuthContext | null> {
    const isCacheable = revocations.isReliable();
    if (isCacheable) {
      const hit = 'tokenHash' in by ? cache.getByToken(by.tokenHash) : cache.getById(by.id);
      if (hit) return hit.auth;
    }
    const epoch = cache.epoch();
    const session = toCached(await repo.findLiveSession(by, now()));
    if (!session) return null;
    if (isCacheable && revocations.isReliable()) cache.put(session, epoch, 'tokenHash' in by ? by.tokenHash : undefined);
    return session.auth;
  }

  const link = (kind: 'email-verification' | 'reset-password', code: string) =>
    `${deps.publicUrl}/react/${kind}/${code}`;

  async function issueCode(userId: number, kind: CodeKind): Promise<string> {
    const code = randomToken();
    const ttl = kind === 'verify' ? AuthLimits.verificationCodeHours : AuthLimits.resetCodeHours;
    await repo.insertCode({ userId, kind, codeHash: hashToken(code), expiresAt: new Date(now().getTime() + ttl * HOUR) });
    return code;
  }

  /** Mail is sent after answering, so its timing cannot tell whether an account exists. */
  function sendLater(message: Parameters<Mailer['send']>[0]) {
    mailer.send(message).catch((err: unknown) => log.error({ err, to: message.to }, 'mail delivery failed'));
  }

  async function assertNotLockedOut(email: string): Promise<void> {
    const t = now();
    const windowMs = AuthLimits.failedLoginWindowMinutes * MINUTE;
    const failures = await repo.recentLoginFailures(email, new Date(t.getTime() - windowMs - AuthLimits.lockoutMinutes * MINUTE), AuthLimits.maxFailedLogins);
    if (failures.length < AuthLimits.maxFailedLogins) return;
    const newest = failures[0]!.getTime();
    const oldest = failures[failures.length - 1]!.getTime();
    // Ten failures inside one 15-minute window lock the account for 15 minutes from the last one.
    if (newest - oldest <= windowMs && t.getTime() < newest + AuthLimits.lockoutMinutes * MINUTE) {
      throw new AppError(429, AuthMessages.tooManyAttempts);
    }
  }

  interface ProxyOf {
    adminUserId: number;
    adminSessionId: number;
    expiresAt: Date;
  }

  async function openSession(user: UserRow, meta: RequestMeta, proxyOf?: ProxyOf): Promise<TLoginResponse> {
    const token = randomToken();
    const expiresAt = proxyOf?.expiresAt ?? new Date(now().getTime() + AuthLimits.sessionHours * HOUR);
    await repo.insertSession({
      userId: user.id,
      tokenHash: hashToken(token),
      adminProxy: !!proxyOf,
      proxiedBy: proxyOf?.adminUserId,
      parentSessionId: proxyOf?.adminSessionId,
      expiresAt,
      ip: meta.ip,
      userAgent: meta.userAgent?.slice(0, 300),
    });
    return {
      status: 'OK',
      sessionId: token,
      userName: displayName(user),
      expiryDate: expiresAt.toISOString(),
      userType: user.userType as TUserType,
      adminProxy: !!proxyOf,
      errors: [],
    };
  }

  /**
   * Admin login-as, second step: the one-time ticket (sent in the spec's `adminSessionId` field)
   * opens a short session as the customer, bound to the administrator's session. A bad ticket is
   * not a password guess at the customer's account: it never counts towards their lock-out.
   */
  async function redeemLoginAsTicket(email: string, ticket: string, meta: RequestMeta): Promise<TLoginResponse> {
    const t = now();
    const used = await repo.consumeLoginAsTicket(hashToken(ticket), t);
    const admin = used ? await repo.findLiveSession({ id: used.adminSessionId }, t) : undefined;
    const user = used ? await repo.findUserById(used.targetUserId) : undefined;
    if (!used || !user || user.email.toLowerCase() !== email) throw AppError.unauthorized(AuthMessages.loginAsTicketInvalid);
    if (!admin || admin.user.userType !== 'ADMIN' || admin.user.status !== 'ACTIVE' || admin.session.adminProxy) {
      throw AppError.unauthorized(AuthMessages.adminSessionInvalid);
    }
    if (user.userType === 'ADMIN') throw new AppError(403, AuthMessages.loginAsAdminRefused);
    if (user.status === 'DISABLED') throw new AppError(403, AuthMessages.accountDisabled);
    const longest = t.getTime() + AuthLimits.loginAsSessionMinutes * MINUTE;
    const expiresAt = new Date(Math.min(longest, admin.session.expiresAt.getTime()));
    log.info({ adminId: admin.user.id, userId: user.id }, 'admin signed in as user');
    return openSession(user, meta, { adminUserId: admin.user.id, adminSessionId: admin.session.id, expiresAt });
  }

  function assertCanSignIn(user: UserRow) {
    if (user.status === 'DISABLED') throw new AppError(403, AuthMessages.accountDisabled);
    if (user.status === 'UNVERIFIED') throw new AppError(403, AuthMessages.accountNotVerified);
  }

  return {
    async login(input: TLoginRequest, meta: RequestMeta): Promise<TLoginResponse> {
      const email = input.email.toLowerCase();
      if (input.adminSessionId !== undefined) return redeemLoginAsTicket(email, input.adminSessionId, meta);
      await assertNotLockedOut(email);

      const user = await repo.findUserByEmail(email);
      const ok = user ? await verifyPassword(user.passwordHash, input.password ?? '') : (await burnPasswordCheck(input.password ?? ''), false);
      if (!user || !ok) {
        await repo.recordLoginFailure(email, meta.ip, now());
        throw AppError.unauthorized(AuthMessages.invalidCredentials);
      }
      assertCanSignIn(user);
      await repo.clearLoginFailures(email);
      return openSession(user, meta);
    },

    /**
     * Admin login-as, first step: a one-time ticket (single use, a minute, stored hashed) for the
     * administrator's own session, never for another administrator or a disabled account.
     */
    async createLoginAsTicket(admin: AuthContext, targetUserId: number): Promise<TLoginAsTicketResponse> {
      if (admin.userType !== 'ADMIN' || admin.adminProxy) throw AppError.forbidden();
      const user = await repo.findUserById(targetUserId);
      if (!user) throw AppError.notFound(AuthMessages.userNotFound);
      if (user.userType === 'ADMIN') throw new AppError(403, AuthMessages.loginAsAdminRefused);
      if (user.status === 'DISABLED') throw new AppError(403, AuthMessages.accountDisabled);
      const ticket = randomToken();
      const expiresAt = new Date(now().getTime() + AuthLimits.loginAsTicketSeconds * 1000);
      await repo.insertLoginAsTicket({ ticketHash: hashToken(ticket), adminSessionId: admin.sessionId, targetUserId: user.id, expiresAt }, now());
      return { status: 'OK', ticket, email: user.email, expiresAt: expiresAt.toISOString() };
    },

    /** Ends the session, and every login-as session opened from it, on every instance. */
    async logout(auth: AuthContext): Promise<void> {
      const ended = await repo.revokeSession(auth.sessionId, now());
      await revocations.publish({ kind: 'sessions', sessionIds: [auth.sessionId, ...ended] });
    },

    resolveSession: (token: string): Promise<AuthContext | null> => lookUp({ tokenHash: hashToken(token) }),

    /** For credentials derived from a session (knowledge JWT, avatar preview tokens): is it still live? */
    resolveSessionById: (sessionId: number): Promise<AuthContext | null> => lookUp({ id: sessionId }),

    async register(input: TRegisterRequest): Promise<void> {
      if (!deps.allowRegistration) throw new AppError(403, AuthMessages.registrationDisabled);
      const data = ZRegisterRequest.parse(input);
      const passwordHash = await hashPassword(data.password);
      const existing = await repo.findUserByEmail(data.email);
      if (existing) {
        // Same answer as a new account; the owner of the address is told by mail instead.
        if (existing.status === 'UNVERIFIED') {
          const code = await issueCode(existing.id, 'verify');
          sendLater(verificationMail(existing.email, existing.firstName, link('email-verification', code)));
        } else if (existing.status === 'ACTIVE') {
          const code = await issueCode(existing.id, 'reset');
          sendLater(accountExistsMail(existing.email, existing.firstName, link('reset-password', code)));
        }
        return;
      }
      const user = await repo.insertUser({
        firstName: data.firstName,
        lastName: data.lastName,
        companyName: data.companyName,
        mobileNumber: data.mobileNumber,
        email: data.email,
        passwordHash,
        status: 'UNVERIFIED',
        userType: 'USER',
      });
      const code = await issueCode(user.id, 'verify');
      sendLater(verificationMail(user.email, user.firstName, link('email-verification', code)));
    },

    async verifyEmail(code: string): Promise<TEmailVerificationResponse> {
      const row = await repo.findLiveCode('verify', hashToken(code), now());
      if (!row || !(await repo.useCode(row.code.id, now()))) {
        throw new AppError(400, AuthMessages.invalidVerificationCode, undefined, {
          displayTitle: 'Verification failed',
          displayMessage: AuthMessages.invalidVerificationCode,
        });
      }
      if (row.user.status === 'UNVERIFIED') await repo.updateUser(row.user.id, { status: 'ACTIVE' });
      return {
        status: 'OK',
        email: row.user.email,
        firstName: row.user.firstName,
        displayTitle: 'Email verified',
        displayMessage:
          row.user.status === 'DISABLED'
            ? 'Your email address has been verified, but the account is disabled. Please contact support.'
            : 'Your email address has been verified. You can now sign in.',
        errors: [],
      };
    },

    async forgotPassword(email: string): Promise<void> {
      const user = await repo.findUserByEmail(email);
      if (!user || user.status === 'DISABLED') return;
      const code = await issueCode(user.id, 'reset');
      sendLater(resetMail(user.email, user.firstName, link('reset-password', code)));
    },

    async validateResetCode(code: string): Promise<TResetPasswordResponse> {
      const row = await repo.findLiveCode('reset', hashToken(code), now());
      if (!row || row.user.status === 'DISABLED') throw AppError.badRequest(AuthMessages.invalidResetCode);
      return { status: 'OK', email: row.user.email, errors: [] };
    },

    async resetPassword(code: string, newPassword: string): Promise<TResetPasswordResponse> {
      const row = await repo.findLiveCode('reset', hashToken(code), now());
      if (!row || row.user.status === 'DISABLED') throw AppError.badRequest(AuthMessages.invalidResetCode);
      const passwordHash = await hashPassword(newPassword);
      if (!(await repo.useCode(row.code.id, now()))) throw AppError.badRequest(AuthMessages.invalidResetCode);
      // Following the mailed link proves the address, so an unverified account becomes active.
      await repo.updateUser(row.user.id, { passwordHash, ...(row.user.status === 'UNVERIFIED' ? { status: 'ACTIVE' as const } : {}) });
      await repo.expireUserCodes(row.user.id, 'reset', now());
      await repo.revokeUserSessions(row.user.id, now());
      await revocations.publish({ kind: 'user', userId: row.user.id });
      await repo.clearLoginFailures(row.user.email);
      return { status: 'OK', email: row.user.email, errors: [] };
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
