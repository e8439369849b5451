import { and, asc, desc, eq, inArray, sql } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Db } from '../../db/client.js';
import { avatars, functions, users } from '../../db/schema/index.js';

export type FunctionRow = typeof functions.$inferSelect;

export function createFunctionsRepository(db: Db) {
  const reviewer = alias(users, 'reviewer');
  const reviewSelect = {
    fn: functions,
    firstName: users.firstName,
    lastName: users.lastName,
    email: users.email,
    reviewerEmail: reviewer.email,
  };
  return {
    async list(userId: number): Promise<FunctionRow[]> {
      return db.select().from(functions).where(eq(functions.userId, userId)).orderBy(desc(functions.createdAt), desc(functions.id));
    },
    async listApproved(userId: number): Promise<FunctionRow[]> {
      return db
        .select()
        .from(functions)
        .where(and(eq(functions.userId, userId), eq(functions.approvalStatus, 1)))
        .orderBy(asc(functions.name));
    },
    async findOwned(userId: number, id: number): Promise<FunctionRow | undefined> {
      const [row] = await db.select().from(functions).where(and(eq(functions.id, id), eq(functions.userId, userId))).limit(1);
      return row;
    },
    async findOwnedMany(userId: number, ids: number[]): Promise<FunctionRow[]> {
      if (ids.length === 0) return [];
      return db.select().from(functions).where(and(eq(functions.userId, userId), inArray(functions.id, ids)));
    },
    async insert(values: typeof functions.$inferInsert): Promise<FunctionRow> {
      const [row] = await db.insert(functions).values(values).returning();
      return row!;
    },
    async update(userId: number, id: number, values: Partial<typeof functions.$inferInsert>): Promise<FunctionRow | undefined> {
      const [row] = await db
        .update(functions)
        .set({ ...values, version: sql`${functions.version} + 1` })
        .where(and(eq(functions.id, id), eq(functions.userId, userId)))
        .returning();
      return row;
    },
    /**
     * Deletes the function and removes its id from the `functions` list of every avatar of the user
     * that links it (bumping their version), in one transaction. Undefined when there was no such function.
     */
    async deleteAndUnlink(userId: number, id: number): Promise<{ unlinkedAvatars: number } | undefined> {
      return db.transaction(async (tx) => {
        const deleted = await tx
          .delete(functions)
          .where(and(eq(functions.id, id), eq(functions.userId, userId)))
          .returning({ id: functions.id });
        if (deleted.length === 0) return undefined;
        const asNumber = sql`to_jsonb(${id}::int)`;
        const asText = sql`to_jsonb(${String(id)}::text)`;
        const unlinked = await tx
          .update(avatars)
          .set({
            config: sql`jsonb_set(${avatars.config}, '{functions}', coalesce((select jsonb_agg(e) from jsonb_array_elements(${avatars.config}->'functions') as e where e <> ${asNumber} and e <> ${asText}), '[]'::jsonb))`,
            version: sql`${avatars.version} + 1`,
            updatedAt: new Date(),
          })
          .where(
            and(
              eq(avatars.userId, userId),
              sql`jsonb_typeof(${avatars.config}->'functions') = 'array'`,
              sql`(${avatars.config}->'functions' @> jsonb_build_array(${asNumber}) or ${avatars.config}->'functions' @> jsonb_build_array(${asText}))`,
            ),
          )
          .returning({ id: avatars.id });
        return { unlinkedAvatars: unlinked.length };
      });
    },
    async adminEmails(): Promise<string[]> {
      const rows = await db
        .select({ email: users.email })
        .from(users)
        .where(and(eq(users.userType, 'ADMIN'), eq(users.status, 'ACTIVE')));
      return rows.map((r) => r.email);
    },
    // Moderation.
    async listForReview(status: number | undefined, limit = 200) {
      return db
        .select(reviewSelect)
        .from(functions)
        .innerJoin(users, eq(users.id, functions.userId))
        .leftJoin(reviewer, eq(reviewer.id, functions.reviewedBy))
        .where(status === undefined ? undefined : eq(functions.approvalStatus, status))
        .orderBy(asc(sql`coalesce(${functions.updatedAt}, ${functions.createdAt})`), asc(functions.id))
        .limit(limit);
    },
    async findForReview(id: number) {
      const [row] = await db
        .select(reviewSelect)
        .from(functions)
        .innerJoin(users, eq(users.id, functions.userId))
        .leftJoin(reviewer, eq(reviewer.id, functions.reviewedBy))
        .where(eq(functions.id, id))
        .limit(1);
      return row;
    },
    /** Records a decision on the version the moderator read; false when the function changed since. */
    async decide(id: number, version: number, values: { approvalStatus: number; rejectionReason: string | null; reviewedBy: number; adminUpdatedAt: Date }): Promise<boolean> {
      const rows = await db
        .update(functions)
        .set(values)
        .where(and(eq(functions.id, id), eq(functions.version, version)))
        .returning({ id: functions.id });
      return rows.length > 0;
    },
  };
}

export type FunctionsRepository = ReturnType<typeof createFunctionsRepository>;
