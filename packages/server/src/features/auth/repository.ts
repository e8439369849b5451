import { and, desc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { loginFailures, sessions, userCodes, users } from '../../db/schema/index.js';

export type UserRow = typeof users.$inferSelect;
export type NewUser = typeof users.$inferInsert;
export type CodeKind = 'verify' | 'reset';

export function createAuthRepository(db: Db) {
  return {
    async findUserByEmail(email: string): Promise<UserRow | undefined> {
      const [row] = await db
        .select()
        .from(users)
        .where(sql`lower(${users.email}) = ${email.toLowerCase()}`)
        .limit(1);
      return row;
    },

    async findUserById(id: number): Promise<UserRow | undefined> {
      const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
      return row;
    },

    async insertUser(values: NewUser): Promise<UserRow> {
      const [row] = await db.insert(users).values(values).returning();
      return row!;
    },

    async updateUser(id: number, values: Partial<NewUser>): Promise<void> {
      await db
        .update(users)
        .set({ ...values, updatedAt: new Date() })
        .where(eq(users.id, id));
    },

    async countAdmins(): Promise<number> {
      const [row] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(users)
        .where(eq(users.userType, 'ADMIN'));
      return row?.n ?? 0;
    },

    async insertSession(values: typeof sessions.$inferInsert): Promise<void> {
      await db.insert(sessions).values(values);
    },

    /** A live session (not revoked, not expired) with its user. */
    async findLiveSession(tokenHash: string, now: Date) {
      const [row] = await db
        .select({ session: sessions, user: users })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(and(eq(sessions.tokenHash, tokenHash), isNull(sessions.revokedAt), gt(sessions.expiresAt, now)))
        .limit(1);
      return row;
    },

    async revokeSession(tokenHash: string, now: Date): Promise<void> {
      await db
        .update(sessions)
        .set({ revokedAt: now })
        .where(and(eq(sessions.tokenHash, tokenHash), isNull(sessions.revokedAt)));
    },

    async revokeUserSessions(userId: number, now: Date): Promise<void> {
      await db
        .update(sessions)
        .set({ revokedAt: now })
        .where(and(eq(sessions.userId, userId), isNull(sessions.revokedAt)));
    },

    async insertCode(values: typeof userCodes.$inferInsert): Promise<void> {
      await db.insert(userCodes).values(values);
    },

    /** An unused, unexpired code of that kind, with its user. */
    async findLiveCode(kind: CodeKind, codeHash: string, now: Date) {
      const [row] = await db
        .select({ code: userCodes, user: users })
        .from(userCodes)
        .innerJoin(users, eq(users.id, userCodes.userId))
        .where(
          and(
            eq(userCodes.kind, kind),
            eq(userCodes.codeHash, codeHash),
            isNull(userCodes.usedAt),
            gt(userCodes.expiresAt, now),
          ),
        )
        .limit(1);
      return row;
    },

    /** Marks one code used; false when it was used concurrently. */
    async useCode(id: number, now: Date): Promise<boolean> {
      const rows = await db
        .update(userCodes)
        .set({ usedAt: now })
        .where(and(eq(userCodes.id, id), isNull(userCodes.usedAt)))
        .returning({ id: userCodes.id });
      return rows.length === 1;
    },

    async expireUserCodes(userId: number, kind: CodeKind, now: Date): Promise<void> {
      await db
        .update(userCodes)
        .set({ usedAt: now })
        .where(and(eq(userCodes.userId, userId), eq(userCodes.kind, kind), isNull(userCodes.usedAt)));
    },

    async recordLoginFailure(email: string, ip: string | undefined, at: Date): Promise<void> {
      await db.insert(loginFailures).values({ email: email.toLowerCase(), ip, createdAt: at });
    },

    /** The most recent failures for an e-mail, newest first. */
    async recentLoginFailures(email: string, since: Date, limit: number): Promise<Date[]> {
      const rows = await db
        .select({ at: loginFailures.createdAt })
        .from(loginFailures)
        .where(and(eq(loginFailures.email, email.toLowerCase()), gt(loginFailures.createdAt, since)))
        .orderBy(desc(loginFailures.createdAt))
        .limit(limit);
      return rows.map((r) => r.at);
    },

    async clearLoginFailures(email: string): Promise<void> {
      await db.delete(loginFailures).where(eq(loginFailures.email, email.toLowerCase()));
    },
  };
}

export type AuthRepository = ReturnType<typeof createAuthRepository>;
