import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { avatarMedia, avatars, users } from '../../db/schema/index.js';

export type AvatarRow = typeof avatars.$inferSelect;
export type MediaRow = typeof avatarMedia.$inferSelect;

export function createAvatarsRepository(db: Db) {
  // GET /api/list_avatar's reads, prepared once.
  const listByUserQuery = db
    .select()
    .from(avatars)
    .where(eq(avatars.userId, sql.placeholder('userId')))
    .orderBy(desc(avatars.updatedAt), desc(avatars.id))
    .prepare('avatars_list_by_user');
  const mediaOfUserQuery = db.select().from(avatarMedia).where(eq(avatarMedia.userId, sql.placeholder('userId'))).orderBy(avatarMedia.id).prepare('avatar_media_of_user');
  return {
    async listByUser(userId: number): Promise<AvatarRow[]> {
      return listByUserQuery.execute({ userId });
    },
    async findOwned(id: number, userId: number): Promise<AvatarRow | undefined> {
      const [row] = await db.select().from(avatars).where(and(eq(avatars.id, id), eq(avatars.userId, userId))).limit(1);
      return row;
    },
    async findById(id: number): Promise<AvatarRow | undefined> {
      const [row] = await db.select().from(avatars).where(eq(avatars.id, id)).limit(1);
      return row;
    },
    async countByUser(userId: number): Promise<number> {
      const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(avatars).where(eq(avatars.userId, userId));
      return row?.n ?? 0;
    },
    async userPlan(userId: number): Promise<number> {
      const [row] = await db.select({ plan: users.subscriptionType }).from(users).where(eq(users.id, userId)).limit(1);
      return row?.plan ?? 0;
    },
    async insert(values: typeof avatars.$inferInsert): Promise<AvatarRow> {
      const [row] = await db.insert(avatars).values(values).returning();
      return row!;
    },
    /** Updates only when the stored version is the expected one; undefined when it moved on. */
    async updateIfVersion(id: number, userId: number, expectedVersion: number, values: Partial<typeof avatars.$inferInsert>): Promise<AvatarRow | undefined> {
      const [row] = await db
        .update(avatars)
        .set({ ...values, version: sql`${avatars.version} + 1`, updatedAt: new Date() })
        .where(and(eq(avatars.id, id), eq(avatars.userId, userId), eq(avatars.version, expectedVersion)))
        .returning();
      return row;
    },
    async delete(id: number, userId: number): Promise<boolean> {
      const rows = await db.delete(avatars).where(and(eq(avatars.id, id), eq(avatars.userId, userId))).returning({ id: avatars.id });
      return rows.length === 1;
    },

    async insertMedia(values: typeof avatarMedia.$inferInsert): Promise<MediaRow> {
      const [row] = await db.insert(avatarMedia).values(values).returning();
      return row!;
    },
    async mediaOf(avatarIds: number[]): Promise<MediaRow[]> {
      if (avatarIds.length === 0) return [];
      return db.select().from(avatarMedia).where(inArray(avatarMedia.avatarId, avatarIds)).orderBy(avatarMedia.id);
    },
    /** Every avatar medium of a user, in one query (listing needs no per-avatar look-ups). */
    async mediaOfUser(userId: number): Promise<MediaRow[]> {
      return mediaOfUserQuery.execute({ userId });
    },
    async ownedMedia(ids: number[], avatarId: number, userId: number): Promise<MediaRow[]> {
      if (ids.length === 0) return [];
      return db
        .select()
        .from(avatarMedia)
        .where(and(inArray(avatarMedia.id, ids), eq(avatarMedia.avatarId, avatarId), eq(avatarMedia.userId, userId)));
    },
    async deleteMedia(ids: number[]): Promise<void> {
      if (ids.length) await db.delete(avatarMedia).where(inArray(avatarMedia.id, ids));
    },
  };
}

export type AvatarsRepository = ReturnType<typeof createAvatarsRepository>;
