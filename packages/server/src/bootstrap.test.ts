import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import { ensureFirstAdmin } from './bootstrap.js';
import { loadConfig } from './config.js';
import type { Database } from './db/client.js';
import { openTestDatabase } from './test/db.js';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.close());

describe('the first administrator', () => {
  it('is created once when instances start together on a new database (no instance fails its start)', async () => {
    const config = loadConfig({ ADMIN_EMAIL: 'first@example.com', ADMIN_PASSWORD: 'First-Admin-Password-1', DATA_DIR: '/tmp/persona-unused' });
    const log = pino({ level: 'silent' });
    const results = await Promise.all([1, 2, 3].map(() => ensureFirstAdmin(database, config, log)));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    expect(results.every((r) => r.email === 'first@example.com')).toBe(true);
    // Started again: nothing to do.
    expect(await ensureFirstAdmin(database, config, log)).toEqual({ email: 'first@example.com', created: false });
  });
});
