import type { FastifyInstance } from 'fastify';
import type { Database } from '../db/client.js';
import { createAuthRepository } from '../features/auth/repository.js';
import { hashPassword } from '../lib/password.js';
import { TEST_APP_KEY } from './build-app.js';

let counter = 0;

export interface TestUser {
  id: number;
  email: string;
  password: string;
}

export async function createUser(
  database: Database,
  values: Partial<{ email: string; password: string; status: 'ACTIVE' | 'UNVERIFIED' | 'DISABLED'; userType: 'ADMIN' | 'USER'; firstName: string; lastName: string; subscriptionType: number }> = {},
): Promise<TestUser> {
  counter += 1;
  const email = values.email ?? `user${counter}-${Date.now().toString(36)}@example.com`;
  const password = values.password ?? 'correct horse battery';
  const repo = createAuthRepository(database.db);
  const user = await repo.insertUser({
    firstName: values.firstName ?? 'Ada',
    lastName: values.lastName ?? 'Lovelace',
    email,
    passwordHash: await hashPassword(password),
    status: values.status ?? 'ACTIVE',
    userType: values.userType ?? 'USER',
    subscriptionType: values.subscriptionType ?? 1,
  });
  return { id: user.id, email, password };
}

export const keyHeader = { authorization: `Bearer ${TEST_APP_KEY}` };
export const sessionHeader = (token: string) => ({ authorization: `Bearer ${TEST_APP_KEY}:${token}` });

/** Signs in through the API and returns the session token. */
export async function login(app: FastifyInstance, user: { email: string; password: string }): Promise<string> {
  const res = await app.inject({ method: 'POST', url: '/api/login', headers: keyHeader, payload: { email: user.email, password: user.password } });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  return res.json().sessionId as string;
}

export async function createSignedInUser(app: FastifyInstance, database: Database, values: Parameters<typeof createUser>[1] = {}) {
  const user = await createUser(database, values);
  const token = await login(app, user);
  return { ...user, token, headers: sessionHeader(token) };
}

/** An avatar row owned by the user (the avatar creator builds the full entity). */
export async function createAvatar(database: Database, userId: number, name = 'Ava') {
  const { avatars } = await import('../db/schema/index.js');
  const [row] = await database.db.insert(avatars).values({ userId, name }).returning();
  return row!;
}
