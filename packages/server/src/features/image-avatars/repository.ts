import { and, desc, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { customAvatars, imageAvatarRequests, users } from '../../db/schema/index.js';

export function createImageAvatarsRepository(db: Db) {
  const select = { request: imageAvatarRequests, email: users.email, firstName: users.firstName, lastName: users.lastName, plan: users.subscriptionType };
  return {
    async userPlan(userId: number) {
      const [row] = await db.select({ plan: users.subscriptionType }).from(users).where(eq(users.id, userId));
      return row?.plan ?? 0;
    },
    async insertRequest(values: typeof imageAvatarRequests.$inferInsert) {
      const [row] = await db.insert(imageAvatarRequests).values(values).returning();
      return row!;
    },
    async listRequests(status?: 'PENDING' | 'COMPLETED' | 'DECLINED', userId?: number) {
      return db
        .select(select)
        .from(imageAvatarRequests)
        .innerJoin(users, eq(users.id, imageAvatarRequests.userId))
        .where(and(status ? eq(imageAvatarRequests.status, status) : undefined, userId ? eq(imageAvatarRequests.userId, userId) : undefined))
        .orderBy(desc(imageAvatarRequests.createdAt))
        .limit(200);
    },
    async findRequest(id: number) {
      const [row] = await db.select(select).from(imageAvatarRequests).innerJoin(users, eq(users.id, imageAvatarRequests.userId)).where(eq(imageAvatarRequests.id, id));
      return row;
    },
    async decide(id: number, status: 'COMPLETED' | 'DECLINED', adminId: number, reason: string | null) {
      const rows = await db
        .update(imageAvatarRequests)
        .set({ status, decidedBy: adminId, decidedAt: new Date(), reason })
        .where(and(eq(imageAvatarRequests.id, id), eq(imageAvatarRequests.status, 'PENDING')))
        .returning({ id: imageAvatarRequests.id });
      return rows.length === 1;
    },
    async insertCustomAvatar(values: typeof customAvatars.$inferInsert) {
      const [row] = await db.insert(customAvatars).values(values).returning();
      return row!;
    },
    async setCustomConfig(id: number, config: Record<string, unknown>) {
      await db.update(customAvatars).set({ config }).where(eq(customAvatars.id, id));
    },
    async customAvatarsOf(userId: number) {
      return db.select().from(customAvatars).where(eq(customAvatars.userId, userId)).orderBy(desc(customAvatars.createdAt));
    },
    async customAvatar(id: number) {
      const [row] = await db.select().from(customAvatars).where(eq(customAvatars.id, id));
      return row;
    },
    async adminEmails() {
      const rows = await db.select({ email: users.email }).from(users).where(and(eq(users.userType, 'ADMIN'), eq(users.status, 'ACTIVE')));
      return rows.map((r) => r.email);
    },
  };
}
