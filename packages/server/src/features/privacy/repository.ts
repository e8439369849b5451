import { and, asc, eq, inArray, isNotNull, isNull, lt, ne, sql } from 'drizzle-orm';
import type { TRedactionSettings, TRetentionMode } from '@persona/contract';
import type { Db } from '../../db/client.js';
import { avatarMemories, avatarPrivacy, avatars, liveSessions, webhookDeliveries } from '../../db/schema/index.js';

export type AvatarPrivacyRow = typeof avatarPrivacy.$inferSelect;

/** Sessions whose text one sweep step removes at most (the next step takes the rest). */
const SWEEP_BATCH = 500;

/** Avatars' privacy settings (ADR 097) and the retention sweep's writes. */
export function createPrivacyRepository(db: Db) {
  return {
    async avatarOwned(userId: number, avatarId: number): Promise<boolean> {
      const [row] = await db.select({ id: avatars.id }).from(avatars).where(and(eq(avatars.id, avatarId), eq(avatars.userId, userId))).limit(1);
      return row !== undefined;
    },

    async find(avatarId: number): Promise<AvatarPrivacyRow | undefined> {
      const [row] = await db.select().from(avatarPrivacy).where(eq(avatarPrivacy.avatarId, avatarId)).limit(1);
      return row;
    },

    async save(values: { avatarId: number; redaction: TRedactionSettings; retentionMode: TRetentionMode; retentionDays: number | null; updatedAt: Date }): Promise<AvatarPrivacyRow> {
      const [row] = await db
        .insert(avatarPrivacy)
        .values(values)
        .onConflictDoUpdate({ target: avatarPrivacy.avatarId, set: { redaction: values.redaction, retentionMode: values.retentionMode, retentionDays: values.retentionDays, updatedAt: values.updatedAt } })
        .returning();
      return row!;
    },

    /** The avatars whose conversations' text is not kept forever. */
    async retaining(): Promise<{ avatarId: number; mode: TRetentionMode; days: number | null }[]> {
      return db
        .select({ avatarId: avatarPrivacy.avatarId, mode: avatarPrivacy.retentionMode, days: avatarPrivacy.retentionDays })
        .from(avatarPrivacy)
        .where(ne(avatarPrivacy.retentionMode, 'forever'))
        .orderBy(asc(avatarPrivacy.avatarId));
    },

    /**
     * Removes the text of up to SWEEP_BATCH ended sessions of the avatar that started before
     * `startedBefore` and ended before `endedBefore`: history, summary and turn figures go, the
     * visitor's turn count stays (`turns_kept`), and so do the row's facts. The webhook bodies of
     * those sessions that are no longer waiting to be sent go too (a resend is made from the row).
     */
    async removeText(avatarId: number, bounds: { startedBefore: Date; endedBefore: Date }, at: Date): Promise<number> {
      return db.transaction(async (tx) => {
        const due = tx
          .select({ id: liveSessions.id })
          .from(liveSessions)
          .where(
            and(
              eq(liveSessions.avatarId, avatarId),
              isNull(liveSessions.textRemovedAt),
              lt(liveSessions.startedAt, bounds.startedBefore),
              isNotNull(liveSessions.endedAt),
              lt(liveSessions.endedAt, bounds.endedBefore),
            ),
          )
          .orderBy(asc(liveSessions.startedAt))
          .limit(SWEEP_BATCH);
        const removed = await tx
          .update(liveSessions)
          .set({
            turnsKept: sql`(select count(*) from jsonb_array_elements(${liveSessions.history}) as e where e->>'role' = 'user')::int`,
            history: [],
            summary: null,
            voiceTurns: [],
            textRemovedAt: at,
          })
          .where(inArray(liveSessions.id, due))
          .returning({ id: liveSessions.id });
        return removed.length;
      });
    },

    /** Bodies of finished deliveries of sessions whose text is gone (a delivery still retrying keeps its body until it ends). */
    async dropDeliveryBodies(avatarId: number): Promise<number> {
      const rows = await db
        .update(webhookDeliveries)
        .set({ body: null })
        .where(
          and(
            isNotNull(webhookDeliveries.body),
            ne(webhookDeliveries.status, 'pending'),
            inArray(
              webhookDeliveries.sessionId,
              db.select({ id: liveSessions.id }).from(liveSessions).where(and(eq(liveSessions.avatarId, avatarId), isNotNull(liveSessions.textRemovedAt))),
            ),
          ),
        )
        .returning({ id: webhookDeliveries.id });
      return rows.length;
    },

    /** The avatar's memories of visitors last written before `before` (all of them with `null`). */
    async dropMemories(avatarId: number, before: Date | null): Promise<number> {
      const rows = await db
        .delete(avatarMemories)
        .where(and(eq(avatarMemories.avatarId, avatarId), before ? lt(avatarMemories.updatedAt, before) : undefined))
        .returning({ visitorId: avatarMemories.visitorId });
      return rows.length;
    },
  };
}

export type PrivacyRepository = ReturnType<typeof createPrivacyRepository>;
