// The database layer on both drivers: parameterised queries run as named prepared statements
// (parsed and planned once per connection), answer what they answered before, keep
// PostgreSQL's error codes, and never run inside another caller's transaction.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { eq, sql } from 'drizzle-orm';
import { openDatabase, type Database } from './client.js';
import { users } from './schema/index.js';
import { openTestDatabase, testDriver } from '../test/db.js';
import { withDatabase } from '../test/global-setup.js';

let database: Database;
beforeAll(async () => {
  database = await openTestDatabase();
});
afterAll(() => database.close());

const row = (email: string) => ({ firstName: 'Ada', lastName: 'Lovelace', email, passwordHash: 'x', status: 'ACTIVE' as const });

describe('queries through the database layer', () => {
  it('read back dates, booleans, nulls and numbers as drizzle maps them', async () => {
    const [inserted] = await database.db.insert(users).values(row('types@example.com')).returning();
    const [read] = await database.db.select().from(users).where(eq(users.email, 'types@example.com'));
    expect(read).toEqual(inserted);
    expect(read!.createdAt).toBeInstanceOf(Date);
    const raw = await database.db.execute(sql`select ${41}::int + 1 as n, ${'a'}::text as s, ${null}::text as z, ${true}::boolean as b, ${new Date(0).toISOString()}::timestamptz as t`);
    expect(raw.rows[0]).toMatchObject({ n: 42, s: 'a', z: null, b: true });
  });

  it('prepare a repeated parameterised query once', async () => {
    const find = () => database.db.select({ id: users.id }).from(users).where(eq(users.email, 'nobody@example.com'));
    for (let i = 0; i < 5; i++) expect(await find()).toEqual([]);
    const text = find().toSQL().sql;
    const prepared = await database.db.execute(sql`select count(*)::int as n from pg_prepared_statements where statement = ${text}`);
    expect(prepared.rows[0]).toEqual({ n: 1 });
  });

  it('keep the SQLSTATE of a refused value', async () => {
    const err = await database.db.execute(sql`select ${'3000000000'}::int as n`).catch((e: unknown) => e);
    const codeOf = (e: unknown): unknown => (e && typeof e === 'object' ? ((e as { code?: unknown }).code ?? codeOf((e as { cause?: unknown }).cause)) : undefined);
    expect(codeOf(err)).toBe('22003');
    // The statement still works afterwards.
    expect((await database.db.execute(sql`select ${7}::int as n`)).rows[0]).toEqual({ n: 7 });
  });

  it('never see the rows of a transaction that has not committed', async () => {
    let inside!: () => void;
    const started = new Promise<void>((r) => (inside = r));
    const tx = database.db
      .transaction(async (t) => {
        await t.insert(users).values(row('uncommitted@example.com'));
        inside();
        await new Promise((r) => setTimeout(r, 100));
        throw new Error('roll back');
      })
      .catch(() => 'rolled back');
    await started;
    const seen = await database.db.select({ id: users.id }).from(users).where(eq(users.email, 'uncommitted@example.com'));
    expect(seen).toEqual([]);
    expect(await tx).toBe('rolled back');
  });
});

describe.runIf(testDriver === 'postgres')('migrations on PostgreSQL', () => {
  it('applied by instances starting together: one migrates, the others wait and find nothing to do', async () => {
    const url = process.env.TEST_DATABASE_URL!;
    const name = `persona_m_${randomBytes(4).toString('hex')}_${inject('postgresTemplate').replace('persona_tpl_', '')}`;
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`create database ${name}`);
    try {
      // Pools of one: the lock and the migration share the only connection.
      const opened = await Promise.all([1, 2, 3].map(() => openDatabase({ databaseUrl: withDatabase(url, name), poolSize: 1 })));
      const applied = await opened[0]!.db.execute(sql`select hash, count(*)::int as n from drizzle.__drizzle_migrations group by hash`);
      expect(applied.rows.length).toBeGreaterThan(0);
      expect(applied.rows.every((r) => r.n === 1)).toBe(true);
      await Promise.all(opened.map((d) => d.close()));
    } finally {
      await admin.query(`drop database if exists ${name} with (force)`);
      await admin.end();
    }
  });
});
