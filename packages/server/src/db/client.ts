import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { NodePgDatabase } from 'drizzle-orm/node-postgres';
import type PgModule from 'pg';
import * as schema from './schema/index.js';
import { preparedQueries } from './pglite-statements.js';

export type Db = NodePgDatabase<typeof schema>;
/** A transaction of `Db` (what `db.transaction` hands its callback). */
export type DbTx = Parameters<Parameters<Db['transaction']>[0]>[0];
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
  /** PostgreSQL: how long a query may wait for its answer (default QUERY_TIMEOUT_MS; migrations have none). */
  queryTimeoutMs?: number;
}

/**
 * PostgreSQL outages (ADR 078): a connection that cannot be made within this time fails (the
 * request gets a 503) instead of waiting for the kernel's TCP timeouts; the pool keeps trying
 * on the next query, so nothing needs a restart once the server is back.
 */
export const CONNECT_TIMEOUT_MS = 3_000;
/** A query without an answer (a server frozen or cut off mid-query) fails after this long. */
export const QUERY_TIMEOUT_MS = 20_000;
/** TCP keep-alive on pooled connections: a peer gone without a word is found while idle. */
const KEEPALIVE_DELAY_MS = 10_000;

/** Opens the database (PostgreSQL when a URL is given, else embedded PGlite) and applies migrations. */
export async function openDatabase(opts: OpenOptions): Promise<Database> {
  if (!opts.databaseUrl) {
    const database = await openPglite(opts);
    if (opts.migrate !== false) await migrateDatabase(database);
    return database;
  }
  if (opts.migrate !== false) {
    // Migrations on a connection of their own, without the query timeout (an index build may take long).
    const migrator = await openPostgres(opts.databaseUrl, { poolSize: 1, queryTimeoutMs: 0 });
    try {
      await migrateDatabase(migrator);
    } finally {
      await migrator.close();
    }
  }
  return openPostgres(opts.databaseUrl, { poolSize: opts.poolSize, queryTimeoutMs: opts.queryTimeoutMs });
}

/** Named statements kept per connection; past that, new query texts run unnamed. */
const STATEMENTS_PER_CONNECTION = 500;

/**
 * Every parameterised query runs as a named prepared statement (its name a hash of its text),
 * so PostgreSQL parses and plans each query text once per connection instead of on every call.
 * Queries without parameters (migrations, DDL, several statements in one text) stay unnamed.
 * Not for transaction-mode PgBouncer before 1.21 (it does not keep named statements).
 */
const statementNames = new Map<string, string>();
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `p_${createHash('sha1').update(text).digest('base64url')}`;
    if (statementNames.size < 10_000) statementNames.set(text, name);
  }
  return name;
}

function statementCachingClient(pg: typeof PgModule) {
  return class StatementCachingClient extends pg.Client {
    private readonly named = new Set<string>();

    override query(...args: unknown[]): never {
      const [config, values] = args as [unknown, unknown];
      if (config && typeof config === 'object' && typeof (config as QueryConfigLike).text === 'string' && !(config as QueryConfigLike).name) {
        const c = config as QueryConfigLike;
        const params = Array.isArray(values) ? values : c.values;
        if (Array.isArray(params) && params.length > 0) {
          const name = statementName(c.text);
          if (this.named.has(name) || this.named.size < STATEMENTS_PER_CONNECTION) {
            this.named.add(name);
            args[0] = { ...c, name };
          }
        }
      }
      return (super.query as (...a: unknown[]) => never)(...args);
    }
  };
}
interface QueryConfigLike {
  text: string;
  name?: string;
  values?: unknown[];
}

async function openPostgres(url: string, opts: { poolSize?: number; queryTimeoutMs?: number }): Promise<Database> {
  const { default: pg } = await import('pg');
  const { drizzle } = await import('drizzle-orm/node-postgres');
  const queryTimeoutMs = opts.queryTimeoutMs ?? QUERY_TIMEOUT_MS;
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.poolSize ?? 10,
    Client: statementCachingClient(pg),
    // Also bounds the wait for a free connection of the pool.
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    ...(queryTimeoutMs > 0 ? { query_timeout: queryTimeoutMs } : {}),
    keepAlive: true,
    keepAliveInitialDelayMillis: KEEPALIVE_DELAY_MS,
  });
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

const keepText = (value: string) => value;
/** What drizzle asks PGlite for: dates, timestamps, intervals and their arrays as text. */
const DRIZZLE_TEXT_PARSERS = { 1082: keepText, 1114: keepText, 1184: keepText, 1186: keepText, 1182: keepText, 1115: keepText, 1185: keepText, 1187: keepText, 1231: keepText };

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
  // drizzle passes these parsers (dates and intervals stay text; it maps them itself) with every
  // query, and PGlite then copies its whole parser table for that query (~0.1 ms each time).
  // They are made the instance's own here (after PGlite set up its array parsers), and the
  // query function below drops drizzle's per-query copy.
  Object.assign(client.parsers, DRIZZLE_TEXT_PARSERS);
  // Parameterised queries run as named prepared statements (see pglite-statements.ts).
  const query = preparedQueries(client);
  const forDrizzle = new Proxy(client, {
    get(target, prop) {
      if (prop === 'query') return query;
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  const db = drizzle({ client: forDrizzle, schema }) as unknown as Db;
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

/** The advisory lock key of migrations ("pers" in ASCII). */
const MIGRATION_LOCK = 0x70_65_72_73;

export async function migrateDatabase(database: Database): Promise<void> {
  if (database.driver === 'postgres') {
    const { migrate } = await import('drizzle-orm/node-postgres/migrator');
    const { drizzle } = await import('drizzle-orm/node-postgres');
    // Instances starting together (a deploy, a restart of all of them) must not apply the same
    // migration twice: one migrates under a session-level advisory lock, the others wait for it
    // and find nothing left to do. The lock and the migration share one connection (a pool of
    // one must not wait for itself).
    const pool = (database.db as unknown as { $client: PgModule.Pool }).$client;
    const client = await pool.connect();
    try {
      await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK]);
      await migrate(drizzle(client, { schema }), { migrationsFolder });
    } finally {
      await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
      client.release();
    }
  } else {
    const { migrate } = await import('drizzle-orm/pglite/migrator');
    // Same query builder at run time; only the static type differs.
    await migrate(database.db as never, { migrationsFolder });
  }
}
