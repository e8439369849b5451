import { and, asc, count, eq, isNull, lt, or } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { apiKeys, avatars, users } from '../../db/schema/index.js';

export type ApiKeyRow = typeof apiKeys.$inferSelect;

/** API keys (ADR 094): every query names the owner, except the look-up by prefix that authenticates a call. */
export function createApiKeysRepository(db: Db) {
  return {
    /** The account's keys not revoked, oldest first. */
    async list(ownerUserId: number): Promise<ApiKeyRow[]> {
      return db
        .select()
        .from(apiKeys)
        .where(and(eq(apiKeys.ownerUserId, ownerUserId), isNull(apiKeys.revokedAt)))
        .orderBy(asc(apiKeys.createdAt), asc(apiKeys.id));
    },

    async countActive(ownerUserId: number): Promise<number> {
      const [row] = await db.select({ n: count() }).from(apiKeys).where(and(eq(apiKeys.ownerUserId, ownerUserId), isNull(apiKeys.revokedAt)));
      return row?.n ?? 0;
    },

    async insert(row: Pick<ApiKeyRow, 'ownerUserId' | 'name' | 'prefix' | 'hash' | 'scopes' | 'expiresAt'>): Promise<ApiKeyRow> {
      const [inserted] = await db.insert(apiKeys).values(row).returning();
      return inserted!;
    },

    /** Revokes a key of the owner; false when it is not theirs or already revoked. */
    async revoke(ownerUserId: number, id: string, at: Date): Promise<boolean> {
      const rows = await db
        .update(apiKeys)
        .set({ revokedAt: at })
        .where(and(eq(apiKeys.id, id), eq(apiKeys.ownerUserId, ownerUserId), isNull(apiKeys.revokedAt)))
        .returning({ id: apiKeys.id });
      return rows.length > 0;
    },

    /** The key of a prefix with its account (an active account only): what a call with it authenticates as. */
    async findByPrefix(prefix: string) {
      const [row] = await db
        .select({ key: apiKeys, user: { id: users.id, email: users.email, firstName: users.firstName, lastName: users.lastName, userType: users.userType } })
        .from(apiKeys)
        .innerJoin(users, eq(users.id, apiKeys.ownerUserId))
        .where(and(eq(apiKeys.prefix, prefix), eq(users.status, 'ACTIVE')))
        .limit(1);
      return row;
    },

    /** Writes last_used_at unless it was written within `since` (at most one write a minute per key). */
    async touch(id: string, at: Date, since: Date): Promise<void> {
      await db
        .update(apiKeys)
        .set({ lastUsedAt: at })
        .where(and(eq(apiKeys.id, id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, since))));
    },

    /** An avatar of the owner: its stored configuration (for its access rules), or undefined. */
    async ownedAvatarConfig(ownerUserId: number, avatarId: number): Promise<Record<string, unknown> | undefined> {
      const [row] = await db
        .select({ config: avatars.config })
        .from(avatars)
        .where(and(eq(avatars.id, avatarId), eq(avatars.userId, ownerUserId)))
        .limit(1);
      return row?.config;
    },
  };
}

export type ApiKeysRepository = ReturnType<typeof createApiKeysRepository>;
