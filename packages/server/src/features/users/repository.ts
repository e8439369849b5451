import { asc, eq, ilike, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { users } from '../../db/schema/index.js';

export function createUsersRepository(db: Db) {
  return {
    async search(query: string, limit: number, offset: number) {
      const q = query.trim();
      const where = q
        ? or(ilike(users.email, `%${escapeLike(q)}%`), ilike(sql`${users.firstName} || ' ' || ${users.lastName}`, `%${escapeLike(q)}%`))
        : undefined;
      const rows = await db.select().from(users).where(where).orderBy(asc(users.id)).limit(limit).offset(offset);
      const [count] = await db.select({ n: sql<number>`count(*)::int` }).from(users).where(where);
      return { rows, total: count?.n ?? 0 };
    },
    async findById(id: number) {
      const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
      return row;
    },
  };
}

export function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}
