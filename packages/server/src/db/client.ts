import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import * as schema from './schema/index.js';

export type Db = NodePgDatabase<typeof schema>;
export type DbDriver = 'pglite' | 'postgres';

export interface Database {
  db: Db;
  driver: DbDriver;
  /** Runs a trivial query; throws when the database is unreachable. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export const migrationsFolder = fileURLToPath(new URL('../../migrations', import.meta.url));

export interface OpenOptions {
  /** postgres://… for a PostgreSQL server; otherwise PGlite in dataDir. */
  databaseUrl?: string;
  /** Directory of the PGlite database (created when missing). */
  pgliteDir?: string;
  /** A dumped PGlite data dir (tar) to start from, used by tests. */
  pgliteTemplate?: Blob;
  migrate?: boolean;
  poolSize?: number;
}

/** Opens the database (PostgreSQL when a URL is given, else embedded PGlite) and applies migrations. */
export async function openDatabase(opts: OpenOptions): Promise<Database> {
  const database = opts.databaseUrl ? await openPostgres(opts.databaseUrl, opts.poolSize) : await openPglite(opts);
  if (opts.migrate !== false) {
    await migrateDatabase(database);
  }
  return database;
}

async function openPostgres(url: string, poolSize = 10): Promise<Database> {
  const { default: pg } = await import('pg');
  const { drizzle } = await import('drizzle-orm/node-postgres');
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  // An idle connection dropped by the server (restart, failover) must not crash the process;
  // the pool replaces it on the next query.
  pool.on('error', (err) => {
    console.error(`database connection lost: ${err.message}`);
  });
  const db = drizzle(pool, { schema });
  return {
    db,
    driver: 'postgres',
    ping: async () => {
      await db.execute(sql`select 1`);
    },
    close: () => pool.end(),
  };
}

async function openPglite(opts: OpenOptions): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  if (opts.pgliteDir) await fs.mkdir(path.dirname(opts.pgliteDir), { recursive: true });
  // pgvector for the knowledge base's semantic search (the knowledge feature enables it at start-up).
  const { vector } = await import('@electric-sql/pglite-pgvector');
  const client = await PGlite.create({
    extensions: { vector },
    ...(opts.pgliteDir ? { dataDir: opts.pgliteDir } : {}),
    ...(opts.pgliteTemplate ? { loadDataDir: opts.pgliteTemplate } : {}),
  });
  const db = drizzle(client, { schema }) as unknown as Db;
  let closed = false;
  return {
    db,
    driver: 'pglite',
    ping: async () => {
      await client.query('select 1');
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await client.close();
    },
  };
}

export async function migrateDatabase(database: Database): Promise<void> {
  if (database.driver === 'postgres') {
    const { migrate } = await import('drizzle-orm/node-postgres/migrator');
    await migrate(database.db, { migrationsFolder });
  } else {
    const { migrate } = await import('drizzle-orm/pglite/migrator');
    // Same query builder at run time; only the static type differs.
    await migrate(database.db as never, { migrationsFolder });
  }
}
