import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { LiveCode } from '@persona/contract';
import { liveSessions } from '../db/schema/index.js';
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

/** Admin login-as through the API: a one-time ticket, redeemed by POST /api/login. Answers the login answer. */
export async function loginAs(app: FastifyInstance, adminHeaders: Record<string, string>, user: { id: number; email: string }) {
  const ticket = await app.inject({ method: 'POST', url: '/api/admin/users/login_as', headers: adminHeaders, payload: { userId: user.id } });
  if (ticket.statusCode !== 200) throw new Error(`login-as ticket refused: ${ticket.statusCode} ${ticket.body}`);
  const res = await app.inject({ method: 'POST', url: '/api/login', headers: keyHeader, payload: { email: user.email, adminSessionId: ticket.json().ticket } });
  if (res.statusCode !== 200) throw new Error(`login-as failed: ${res.statusCode} ${res.body}`);
  const body = res.json() as { sessionId: string; expiryDate: string; adminProxy: boolean };
  return { ...body, headers: sessionHeader(body.sessionId) };
}

/** An avatar row owned by the user (the avatar creator builds the full entity). */
export async function createAvatar(database: Database, userId: number, name = 'Ava') {
  const { avatars } = await import('../db/schema/index.js');
  const [row] = await database.db.insert(avatars).values({ userId, name }).returning();
  return row!;
}

/**
 * A stored live session (a conversation) written straight to the table: ended a minute and a half
 * after its start by a hang-up unless told otherwise; everything else any row needs. Returns its id.
 */
export async function insertLiveSession(
  database: Database,
  row: { avatarId: number; ownerUserId: number; workerId: number; startedAt: Date } & Partial<typeof liveSessions.$inferInsert>,
): Promise<string> {
  const id = row.id ?? randomUUID();
  await database.db.insert(liveSessions).values({
    avatarName: `Avatar ${row.avatarId}`,
    clientIp: '203.0.113.7',
    resumeHash: 'x',
    ticketJti: randomUUID(),
    history: [],
    lastHeartbeatAt: row.startedAt,
    endedAt: new Date(row.startedAt.getTime() + 90_000),
    endCode: LiveCode.hangUp,
    ...row,
    id,
  });
  return id;
}

/** A multipart/form-data body for app.inject. */
export function multipart(fields: Record<string, string>, files: { field: string; filename: string; data: Buffer; type?: string }[] = []) {
  const boundary = `----persona${Math.random().toString(16).slice(2)}`;
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  }
  for (const f of files) {
    chunks.push(Buffer.from(`--${boundary}\r\ncontent-disposition: form-data; name="${f.field}"; filename="${f.filename}"\r\ncontent-type: ${f.type ?? 'application/octet-stream'}\r\n\r\n`));
    chunks.push(f.data, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), headers: { 'content-type': `multipart/form-data; boundary=${boundary}` } };
}

/** Small real files of each kind (magic bytes + padding), for upload tests. */
export const sampleFiles = {
  png: (size = 2048) => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(size - 8, 1)]),
  jpeg: (size = 2048) => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(size - 4, 1)]),
  mp4: (size = 4096) => Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.alloc(size - 12, 2)]),
  glb: (size = 1024) => Buffer.concat([Buffer.from('glTF'), Buffer.alloc(size - 4, 3)]),
  zip: (size = 1024) => Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(size - 4, 4)]),
};

/** A valid avatar payload (an upper-body avatar chosen from the catalogue). */
export function validAvatar(over: Record<string, unknown> = {}) {
  return {
    name: 'Receptionist',
    nlpEngine: 0,
    dhType: 2,
    setupMode: 0,
    wakeUpMessage: 'Hello! How can I help?',
    dailyLimitPerSession: 600,
    dailyLimitPerIP: 600,
    dailyLimits: { Demo: 600 },
    idleTimeout: 300,
    avatarJson: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json', Subtitle: { Enabled: true } }),
    ...over,
  };
}
