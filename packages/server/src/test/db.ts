import fs from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { openDatabase, type Database } from '../db/client.js';
import { withDatabase } from './global-setup.js';

export const testDriver = process.env.TEST_DB_DRIVER === 'postgres' ? 'postgres' : 'pglite';

/** A fresh, migrated database for one test file: a PGlite copy or a PostgreSQL database from the template. */
export async function openTestDatabase(): Promise<Database> {
  if (testDriver === 'postgres') {
    const url = process.env.TEST_DATABASE_URL!;
    const template = inject('postgresTemplate');
    const name = `persona_t_${randomBytes(4).toString('hex')}_${template.replace('persona_tpl_', '')}`;
    const { default: pg } = await import('pg');
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`create database ${name} template ${template}`);
    } finally {
      await admin.end();
    }
    const database = await openDatabase({ databaseUrl: withDatabase(url, name), migrate: false, poolSize: 5 });
    return {
      ...database,
      close: async () => {
        await database.close();
        const cleanup = new pg.Client({ connectionString: url });
        await cleanup.connect();
        await cleanup.query(`drop database if exists ${name} with (force)`).finally(() => cleanup.end());
      },
    };
  }
  const file = inject('pgliteTemplatePath');
  const tar = await fs.readFile(file);
  return openDatabase({ pgliteTemplate: new Blob([tar]), migrate: false });
}
