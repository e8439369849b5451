import { and, asc, eq, gt, isNull, lt, or, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { avatars, oauthApps, oauthGrants, oauthStates } from '../../db/schema/index.js';

export type OAuthAppRow = typeof oauthApps.$inferSelect;
export type NewOAuthApp = typeof oauthApps.$inferInsert;
export type OAuthGrantRow = typeof oauthGrants.$inferSelect;

export function createOAuthRepository(db: Db) {
  return {
    async list(userId: number): Promise<OAuthAppRow[]> {
      return db.select().from(oauthApps).where(eq(oauthApps.userId, userId)).orderBy(asc(oauthApps.createdAt), asc(oauthApps.id));
    },
    /** The user's config (undefined for another account's or a missing one). */
    async findOwned(userId: number, id: number): Promise<OAuthAppRow | undefined> {
      const [row] = await db.select().from(oauthApps).where(and(eq(oauthApps.id, id), eq(oauthApps.userId, userId))).limit(1);
      return row;
    },
    async findById(id: number): Promise<OAuthAppRow | undefined> {
      const [row] = await db.select().from(oauthApps).where(eq(oauthApps.id, id)).limit(1);
      return row;
    },
    async insert(values: NewOAuthApp): Promise<OAuthAppRow> {
      const [row] = await db.insert(oauthApps).values(values).returning();
      return row!;
    },
    async update(userId: number, id: number, values: Partial<NewOAuthApp>): Promise<OAuthAppRow | undefined> {
      const [row] = await db
        .update(oauthApps)
        .set(values)
        .where(and(eq(oauthApps.id, id), eq(oauthApps.userId, userId)))
        .returning();
      return row;
    },
    async delete(userId: number, id: number): Promise<boolean> {
      const rows = await db
        .delete(oauthApps)
        .where(and(eq(oauthApps.id, id), eq(oauthApps.userId, userId)))
        .returning({ id: oauthApps.id });
      return rows.length > 0;
    },
    /** The user's avatars that sign visitors in with this config (config.oauthEnabled 1, partnerOauthAppId). */
    async avatarsUsingApp(userId: number, appId: number): Promise<{ id: number; name: string }[]> {
      return db
        .select({ id: avatars.id, name: avatars.name })
        .from(avatars)
        .where(
          and(
            eq(avatars.userId, userId),
            sql`${avatars.config}->>'partnerOauthAppId' = ${String(appId)}`,
            sql`${avatars.config}->>'oauthEnabled' = '1'`,
          ),
        )
        .orderBy(asc(avatars.id));
    },
    async insertState(values: typeof oauthStates.$inferInsert): Promise<void> {
      await db.insert(oauthStates).values(values);
    },
    /** Deletes and returns the state with this nonce: a state can be used once. */
    async consumeState(nonceHash: string) {
      const [row] = await db.delete(oauthStates).where(eq(oauthStates.nonceHash, nonceHash)).returning();
      return row;
    },
    async deleteExpiredStates(now: Date): Promise<void> {
      await db.delete(oauthStates).where(lt(oauthStates.expiresAt, now));
    },
    /** Grants past their expiry, and codes that were never exchanged in time. */
    async deleteExpiredGrants(now: Date): Promise<void> {
      await db.delete(oauthGrants).where(or(lt(oauthGrants.expiresAt, now), and(isNull(oauthGrants.sessionHash), lt(oauthGrants.codeExpiresAt, now))));
    },
    async insertGrant(values: typeof oauthGrants.$inferInsert): Promise<OAuthGrantRow> {
      const [row] = await db.insert(oauthGrants).values(values).returning();
      return row!;
    },
    /**
     * Exchanges a one-time code for the grant, in one statement: the code of this config, not yet
     * used, not expired, for this browser. Stores the grant's hash and clears the code.
     */
    async redeemCode(values: { appId: number; codeHash: string; browserHash: string; sessionHash: string; now: Date }): Promise<OAuthGrantRow | undefined> {
      const [row] = await db
        .update(oauthGrants)
        .set({ sessionHash: values.sessionHash, codeHash: null, codeExpiresAt: null })
        .where(
          and(
            eq(oauthGrants.codeHash, values.codeHash),
            eq(oauthGrants.appId, values.appId),
            eq(oauthGrants.browserHash, values.browserHash),
            gt(oauthGrants.codeExpiresAt, values.now),
            gt(oauthGrants.expiresAt, values.now),
          ),
        )
        .returning();
      return row;
    },
    /** Uses a grant up: deletes it and returns it when it was of this config and still valid. */
    async consumeGrant(sessionHash: string, appId: number, now: Date): Promise<OAuthGrantRow | undefined> {
      const [row] = await db
        .delete(oauthGrants)
        .where(and(eq(oauthGrants.sessionHash, sessionHash), eq(oauthGrants.appId, appId), gt(oauthGrants.expiresAt, now)))
        .returning();
      return row;
    },
    async findGrant(sessionHash: string): Promise<OAuthGrantRow | undefined> {
      const [row] = await db.select().from(oauthGrants).where(eq(oauthGrants.sessionHash, sessionHash)).limit(1);
      return row;
    },
  };
}

export type OAuthRepository = ReturnType<typeof createOAuthRepository>;
