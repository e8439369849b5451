import {
  AuthLimits,
  AuthMessages,
  type TEmailVerificationResponse,
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
import type { AuthRepository, CodeKind, UserRow } from './repository.js';
import { accountExistsMail, resetMail, verificationMail } from './mails.js';

export interface AuthServiceDeps {
  repo: AuthRepository;
  mailer: Mailer;
  log: FastifyBaseLogger;
  publicUrl: string;
  allowRegistration: boolean;
  now?: () => Date;
}

export interface RequestMeta {
  ip?: string;
  userAgent?: string;
}

const HOUR = 3_600_000;
const MINUTE = 60_000;

export function displayName(user: Pick<UserRow, 'firstName' | 'lastName' | 'email'>): string {
  return `${user.firstName} ${user.lastName}`.trim() || user.email;
}

export function createAuthService(deps: AuthServiceDeps) {
  const { repo, mailer, log } = deps;
  const now = deps.now ?? (() => new Date());

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

  async function openSession(user: UserRow, meta: RequestMeta, adminProxy: boolean, proxiedBy?: number): Promise<TLoginResponse> {
    const token = randomToken();
    const expiresAt = new Date(now().getTime() + AuthLimits.sessionHours * HOUR);
    await repo.insertSession({
      userId: user.id,
      tokenHash: hashToken(token),
      adminProxy,
      proxiedBy,
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
      adminProxy,
      errors: [],
    };
  }

  function assertCanSignIn(user: UserRow) {
    if (user.status === 'DISABLED') throw new AppError(403, AuthMessages.accountDisabled);
    if (user.status === 'UNVERIFIED') throw new AppError(403, AuthMessages.accountNotVerified);
  }

  return {
    async login(input: TLoginRequest, meta: RequestMeta): Promise<TLoginResponse> {
      const email = input.email.toLowerCase();
      await assertNotLockedOut(email);

      if (input.adminSessionId) {
        const admin = await repo.findLiveSession(hashToken(input.adminSessionId), now());
        if (!admin || admin.user.userType !== 'ADMIN' || admin.user.status !== 'ACTIVE' || admin.session.adminProxy) {
          await repo.recordLoginFailure(email, meta.ip, now());
          throw AppError.unauthorized(AuthMessages.adminSessionInvalid);
        }
        const user = await repo.findUserByEmail(email);
        if (!user) throw AppError.unauthorized(AuthMessages.userNotFound);
        if (user.status === 'DISABLED') throw new AppError(403, AuthMessages.accountDisabled);
        log.info({ adminId: admin.user.id, userId: user.id }, 'admin signed in as user');
        return openSession(user, meta, true, admin.user.id);
      }

      const user = await repo.findUserByEmail(email);
      const ok = user ? await verifyPassword(user.passwordHash, input.password ?? '') : (await burnPasswordCheck(input.password ?? ''), false);
      if (!user || !ok) {
        await repo.recordLoginFailure(email, meta.ip, now());
        throw AppError.unauthorized(AuthMessages.invalidCredentials);
      }
      assertCanSignIn(user);
      await repo.clearLoginFailures(email);
      return openSession(user, meta, false);
    },

    async logout(token: string): Promise<void> {
      await repo.revokeSession(hashToken(token), now());
    },

    async resolveSession(token: string): Promise<AuthContext | null> {
      const row = await repo.findLiveSession(hashToken(token), now());
      if (!row || row.user.status !== 'ACTIVE') {
        // An admin may act for an unverified user; nobody acts for a disabled one.
        if (!row || !row.session.adminProxy || row.user.status === 'DISABLED') return null;
      }
      return {
        userId: row.user.id,
        email: row.user.email,
        userName: displayName(row.user),
        userType: row.user.userType as TUserType,
        adminProxy: row.session.adminProxy,
        token,
      };
    },

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
      await repo.clearLoginFailures(row.user.email);
      return { status: 'OK', email: row.user.email, errors: [] };
    },
  };
}

export type AuthService = ReturnType<typeof createAuthService>;
