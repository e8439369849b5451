import type { FastifyBaseLogger } from 'fastify';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { createAuthRepository } from './features/auth/repository.js';
import { hashPassword } from './lib/password.js';
import { randomToken } from './lib/tokens.js';

export interface FirstAdmin {
  email: string;
  /** Set only when the password was generated now (printed once). */
  generatedPassword?: string;
  created: boolean;
}

/** Creates the first administrator on first start, from ADMIN_EMAIL / ADMIN_PASSWORD. */
export async function ensureFirstAdmin(database: Database, config: Config, log: FastifyBaseLogger): Promise<FirstAdmin> {
  const repo = createAuthRepository(database.db);
  if ((await repo.countAdmins()) > 0) return { email: config.adminEmail, created: false };
  const generatedPassword = config.adminPassword ? undefined : randomToken(12);
  const password = config.adminPassword ?? generatedPassword!;
  const existing = await repo.findUserByEmail(config.adminEmail);
  if (existing) {
    await repo.updateUser(existing.id, { userType: 'ADMIN', status: 'ACTIVE', passwordHash: await hashPassword(password) });
  } else {
    await repo.insertUser({
      firstName: 'Admin',
      lastName: '',
      email: config.adminEmail,
      passwordHash: await hashPassword(password),
      status: 'ACTIVE',
      userType: 'ADMIN',
      subscriptionType: 4,
    });
  }
  log.info({ email: config.adminEmail }, 'first administrator created');
  return { email: config.adminEmail, generatedPassword, created: true };
}
