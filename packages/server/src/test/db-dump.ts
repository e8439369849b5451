import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';

/** Every row of every table in the public schema as text: what a stolen database dump would show. */
export async function dumpDatabaseText(database: Database): Promise<string> {
  const tables = (await database.db.execute(sql`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`)).rows as { name: string }[];
  const parts: string[] = [];
  for (const { name } of tables) {
    const rows = (await database.db.execute(sql`select coalesce(json_agg(t)::text, '') as dump from ${sql.identifier(name)} t`)).rows as { dump: string }[];
    parts.push(`${name}: ${rows[0]?.dump ?? ''}`);
  }
  return parts.join('\n');
}
