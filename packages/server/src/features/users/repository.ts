import { and, asc, eq, ilike, or, sql } from 'drizzle-orm';
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
    /**
     * Sets an account's status, unless that disables the last active administrator: the active
     * admins' rows are locked first, so two admins disabling each other at once cannot both win.
     * Returns false when refused.
     */
    async setStatusKeepingAnAdmin(id: number, status: 'ACTIVE' | 'DISABLED'): Promise<boolean> {
      return db.transaction(async (tx) => {
        if (status === 'DISABLED') {
          const admins = await tx
            .select({ id: users.id })
            .from(users)
            .where(and(eq(users.userType, 'ADMIN'), eq(users.status, 'ACTIVE')))
            .for('update');
          if (admins.some((a) => a.id === id) && admins.length < 2) return false;
        }
        await tx.update(users).set({ status, updatedAt: new Date() }).where(eq(users.id, id));
        return true;
      });
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
