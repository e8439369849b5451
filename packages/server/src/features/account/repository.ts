import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { avatars, planRequests, users } from '../../db/schema/index.js';

export type PlanRequestRow = typeof planRequests.$inferSelect;

export function createAccountRepository(db: Db) {
  const decider = alias(users, 'decider');
  const requestSelect = {
    request: planRequests,
    firstName: users.firstName,
    lastName: users.lastName,
    email: users.email,
    deciderEmail: decider.email,
  };
  // The hot read of GET /api/account_info, prepared once: the user, a pending plan request and
  // the number of avatars, in one round trip.
  const userWithPending = db
    .select({
      user: users,
      pendingSubType: planRequests.requestedSubType,
      avatarCount: sql<number>`(select count(*)::int from ${avatars} where ${avatars.userId} = ${users.id})`.mapWith(Number),
    })
    .from(users)
    .leftJoin(planRequests, and(eq(planRequests.userId, users.id), eq(planRequests.status, 'PENDING')))
    .where(eq(users.id, sql.placeholder('id')))
    .limit(1)
    .prepare('account_user_with_pending');
  return {
    /** The user, the plan a pending request asks for (null when none is pending) and the number of their avatars, in one query. */
    async findUserWithPending(id: number) {
      const [row] = await userWithPending.execute({ id });
      return row;
    },
    async findUser(id: number) {
      const [row] = await db.select().from(users).where(eq(users.id, id)).limit(1);
      return row;
    },
    async pendingRequest(userId: number): Promise<PlanRequestRow | undefined> {
      const [row] = await db
        .select()
        .from(planRequests)
        .where(and(eq(planRequests.userId, userId), eq(planRequests.status, 'PENDING')))
        .limit(1);
      return row;
    },
    async insertRequest(values: typeof planRequests.$inferInsert): Promise<PlanRequestRow> {
      const [row] = await db.insert(planRequests).values(values).returning();
      return row!;
    },
    async listRequests(status?: PlanRequestRow['status'], limit = 200) {
      return db
        .select(requestSelect)
        .from(planRequests)
        .innerJoin(users, eq(users.id, planRequests.userId))
        .leftJoin(decider, eq(decider.id, planRequests.decidedBy))
        .where(status ? eq(planRequests.status, status) : undefined)
        .orderBy(desc(planRequests.createdAt))
        .limit(limit);
    },
    async findRequest(id: number) {
      const [row] = await db
        .select(requestSelect)
        .from(planRequests)
        .innerJoin(users, eq(users.id, planRequests.userId))
        .leftJoin(decider, eq(decider.id, planRequests.decidedBy))
        .where(eq(planRequests.id, id))
        .limit(1);
      return row;
    },
    /** Marks the user's pending request WITHDRAWN; its id, or null when none was pending. */
    async withdrawPendingRequest(userId: number, now: Date): Promise<number | null> {
      const [row] = await db
        .update(planRequests)
        .set({ status: 'WITHDRAWN', decidedAt: now })
        .where(and(eq(planRequests.userId, userId), eq(planRequests.status, 'PENDING')))
        .returning({ id: planRequests.id });
      return row?.id ?? null;
    },
    /** Decides a pending request (and changes the plan when confirmed) in one transaction. */
    async decideRequest(id: number, decision: 'CONFIRMED' | 'DECLINED', adminId: number, reason: string | null, now: Date): Promise<boolean> {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .update(planRequests)
          .set({ status: decision, decidedAt: now, decidedBy: adminId, reason })
          .where(and(eq(planRequests.id, id), eq(planRequests.status, 'PENDING')))
          .returning();
        if (!row) return false;
        if (decision === 'CONFIRMED') {
          await tx
            .update(users)
            .set({ subscriptionType: row.requestedSubType, subscribedAt: now, updatedAt: now })
            .where(eq(users.id, row.userId));
        }
        return true;
      });
    },
    async adminEmails(): Promise<string[]> {
      const rows = await db
        .select({ email: users.email })
        .from(users)
        .where(and(eq(users.userType, 'ADMIN'), inArray(users.status, ['ACTIVE'])));
      return rows.map((r) => r.email);
    },
    async avatarNames(userId: number): Promise<Map<number, string>> {
      const rows = await db.select({ id: avatars.id, name: avatars.name }).from(avatars).where(eq(avatars.userId, userId));
      return new Map(rows.map((r) => [r.id, r.name]));
    },
  };
}

export type AccountRepository = ReturnType<typeof createAccountRepository>;
