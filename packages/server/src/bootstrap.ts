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
    try {
      await repo.insertUser({
        firstName: 'Admin',
        lastName: '',
        email: config.adminEmail,
        passwordHash: await hashPassword(password),
        status: 'ACTIVE',
        userType: 'ADMIN',
        subscriptionType: 4,
      });
    } catch (err) {
      // Instances started together on a new database: another one created the administrator a
      // moment ago (its password is the one printed, by that instance).
      if (isUniqueViolation(err) && (await repo.countAdmins()) > 0) return { email: config.adminEmail, created: false };
      throw err;
    }
  }
  log.info({ email: config.adminEmail }, 'first administrator created');
  return { email: config.adminEmail, generatedPassword, created: true };
}

/** PostgreSQL's unique_violation (23505), as node-postgres or PGlite raise it, possibly wrapped by drizzle. */
function isUniqueViolation(err: unknown): boolean {
  for (let e = err as { code?: unknown; cause?: unknown } | undefined, depth = 0; e && depth < 3; e = e.cause as typeof e, depth++) {
    if (e.code === '23505') return true;
  }
  return false;
}
