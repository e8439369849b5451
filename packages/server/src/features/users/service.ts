import { AdminMessages, ZEmail, ZNewPassword, type TUserStatus, type TUserType } from '@persona/contract';
import type { Db } from '../../db/client.js';
import { AppError } from '../../lib/app-error.js';
import { hashPassword } from '../../lib/password.js';
import type { Revocation } from '../../plugins/revocations.js';
import { createAuthRepository } from '../auth/repository.js';
import { createUsersRepository } from './repository.js';

/**
 * Account administration shared by the operator CLI and the admin console. `revoked` tells the
 * server instances that a user's sessions ended (the app's revocation bus; the CLI's Redis).
 */
export function createUsersService(db: Db, now: () => Date = () => new Date(), revoked: (revocation: Revocation) => Promise<void> = async () => {}) {
  const auth = createAuthRepository(db);
  const repo = createUsersRepository(db);

  async function byEmail(email: string) {
    const user = await auth.findUserByEmail(email);
    if (!user) throw AppError.notFound(`No user with e-mail ${email}`);
    return user;
  }

  return {
    async createUser(input: { email: string; password: string; firstName?: string; lastName?: string; userType?: TUserType }) {
      const email = ZEmail.parse(input.email);
      const password = ZNewPassword.parse(input.password);
      if (await auth.findUserByEmail(email)) throw AppError.conflict(`A user with e-mail ${email} already exists`);
      return auth.insertUser({
        email,
        passwordHash: await hashPassword(password),
        firstName: input.firstName ?? '',
        lastName: input.lastName ?? '',
        status: 'ACTIVE',
        userType: input.userType ?? 'USER',
      });
    },

    async resetPassword(email: string, password: string) {
      const user = await byEmail(email);
      await auth.updateUser(user.id, { passwordHash: await hashPassword(ZNewPassword.parse(password)) });
      await auth.expireUserCodes(user.id, 'reset', now());
      await auth.revokeUserSessions(user.id, now());
      await revoked({ kind: 'user', userId: user.id });
      await auth.clearLoginFailures(user.email);
      return user;
    },

    async setStatus(idOrEmail: number | string, status: Extract<TUserStatus, 'ACTIVE' | 'DISABLED'>) {
      const user = typeof idOrEmail === 'number' ? await repo.findById(idOrEmail) : await byEmail(idOrEmail);
      if (!user) throw AppError.notFound();
      // The system always keeps an active administrator (console and CLI alike).
      if (!(await repo.setStatusKeepingAnAdmin(user.id, status))) throw AppError.conflict(AdminMessages.lastActiveAdmin);
      // A disabled account loses its sessions (and what was derived from them) at once, everywhere.
      if (status === 'DISABLED') {
        await auth.revokeUserSessions(user.id, now());
        await revoked({ kind: 'user', userId: user.id });
      }
      return { ...user, status };
    },

    search: repo.search,
  };
}
