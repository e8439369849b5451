import { and, desc, eq, gt, inArray, isNull, lt, or, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { loginAsTickets, loginFailures, sessions, userCodes, users } from '../../db/schema/index.js';

export type UserRow = typeof users.$inferSelect;
export type NewUser = typeof users.$inferInsert;
export type CodeKind = 'verify' | 'reset';
export type SessionRow = typeof sessions.$inferSelect;

const parent = alias(sessions, 'parent_session');

export function createAuthRepository(db: Db) {
  /** Ends sessions (and the login-as sessions opened from them); answers the ids that ended. */
  async function revokeSessions(where: SQL, now: Date): Promise<number[]> {
    const ended = await db
      .update(sessions)
      .set({ revokedAt: now })
      .where(and(where, isNull(sessions.revokedAt)))
      .returning({ id: sessions.id });
    const ids = ended.map((r) => r.id);
    if (ids.length === 0) return ids;
    const children = await db
      .update(sessions)
      .set({ revokedAt: now })
      .where(and(inArray(sessions.parentSessionId, ids), isNull(sessions.revokedAt)))
      .returning({ id: sessions.id });
    return [...ids, ...children.map((r) => r.id)];
  }

  return {
    revokeSessions,

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

    /** Opens a session; answers its id. */
    async insertSession(values: typeof sessions.$inferInsert): Promise<number> {
      const [row] = await db.insert(sessions).values(values).returning({ id: sessions.id });
      return row!.id;
    },

    /**
     * A live session (not revoked, not expired; for a login-as session, its admin session live
     * too) with its user, by token hash or by id.
     */
    async findLiveSession(by: { tokenHash: string } | { id: number }, now: Date) {
      const [row] = await db
        .select({ session: sessions, user: users, parentUserId: parent.userId })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .leftJoin(parent, eq(parent.id, sessions.parentSessionId))
        .where(
          and(
            'tokenHash' in by ? eq(sessions.tokenHash, by.tokenHash) : eq(sessions.id, by.id),
            isNull(sessions.revokedAt),
            gt(sessions.expiresAt, now),
            or(isNull(sessions.parentSessionId), and(isNull(parent.revokedAt), gt(parent.expiresAt, now))),
          ),
        )
        .limit(1);
      return row;
    },

    async revokeSession(id: number, now: Date): Promise<number[]> {
      return revokeSessions(eq(sessions.id, id), now);
    },

    async revokeUserSessions(userId: number, now: Date): Promise<number[]> {
      return revokeSessions(eq(sessions.userId, userId), now);
    },

    async insertLoginAsTicket(values: typeof loginAsTickets.$inferInsert, now: Date): Promise<void> {
      await db.delete(loginAsTickets).where(lt(loginAsTickets.expiresAt, now));
      await db.insert(loginAsTickets).values(values);
    },

    /** Uses a login-as ticket once: the ticket if it was unused and unexpired, else undefined. */
    async consumeLoginAsTicket(ticketHash: string, now: Date) {
      const [row] = await db
        .update(loginAsTickets)
        .set({ usedAt: now })
        .where(and(eq(loginAsTickets.ticketHash, ticketHash), isNull(loginAsTickets.usedAt), gt(loginAsTickets.expiresAt, now)))
        .returning();
      return row;
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
