import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../app.js';
import { loadConfig } from '../config.js';
import type { Database } from '../db/client.js';
import { users } from '../db/schema/index.js';
import { openTestDatabase } from '../test/db.js';
import { createCaptureMailer } from '../test/build-app.js';
import { scrubError } from './error-log.js';

// Issue 9: a failed insert was logged with its bind parameters (a password hash among them).
const SECRET_HASH = '$argon2id$v=19$m=19456,t=2,p=1$c2VjcmV0LXNhbHQ$bmV2ZXItaW4tdGhlLWxvZw';
const EMAIL = 'logged-nowhere@example.com';

let app: FastifyInstance;
let database: Database;
let dataDir: string;
const lines: string[] = [];

beforeAll(async () => {
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'persona-log-'));
  const config = loadConfig({ NODE_ENV: 'test', APP_KEY: 'test-app-key', PUBLIC_URL: 'http://portal.test', DATA_DIR: dataDir, WEB_DIST_DIR: '/nonexistent', SECRET_KEY: '7'.repeat(64), WORKER_SECRET: 'test-worker-secret-0123456789' });
  database = await openTestDatabase();
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      done();
    },
  });
  app = await buildApp({ config, database, mailer: createCaptureMailer(), logger: { level: 'info', stream } });
  const insertTwice = async () => {
    const row = { firstName: 'A', lastName: 'B', email: EMAIL, passwordHash: SECRET_HASH };
    await database.db.insert(users).values(row).onConflictDoNothing();
    await database.db.insert(users).values(row);
  };
  app.get('/test/duplicate', async () => insertTwice());
  app.get('/test/wrapped', async () => {
    try {
      await insertTwice();
    } catch (err) {
      throw new Error('saving the account failed', { cause: err });
    }
  });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await database?.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('database errors in the log', () => {
  it('say code, table and constraint, never the values (error handler, wrapped errors, direct log calls)', async () => {
    expect((await app.inject({ url: '/test/duplicate' })).statusCode).toBe(500);
    expect((await app.inject({ url: '/test/wrapped' })).statusCode).toBe(500);
    try {
      await database.db.insert(users).values({ firstName: 'A', lastName: 'B', email: EMAIL, passwordHash: SECRET_HASH });
    } catch (err) {
      app.log.error(err as Error);
      app.log.warn({ err }, 'direct');
    }
    const errors = lines.filter((l) => /"err":/.test(l));
    expect(errors.length).toBe(4);
    for (const line of errors) {
      expect(line).not.toContain(SECRET_HASH);
      expect(line).not.toContain('c2VjcmV0LXNhbHQ');
      expect(line).not.toContain(EMAIL);
      expect(line).not.toMatch(/"params"|"query"|"detail"/);
      const err = JSON.parse(line).err as { type: string; message: string; code?: string; table?: string; constraint?: string; stack: string };
      expect(err.message).toContain('database error 23505');
      expect(err.stack).toMatch(/\n\s+at /);
    }
    const first = JSON.parse(errors[0]!).err;
    expect(first).toMatchObject({ type: 'DatabaseError', code: '23505', table: 'users', constraint: 'users_email_lower_idx' });
    expect(JSON.parse(errors[1]!).err.message).toMatch(/^saving the account failed/);
  });

  it('leaves other errors as they are', () => {
    const plain = new Error('plain');
    expect(scrubError(plain)).toBe(plain);
    const wrapped = new Error('outer', { cause: new Error('inner') });
    expect(scrubError(wrapped)).toBe(wrapped);
    expect(scrubError('text')).toBe('text');
  });
});
