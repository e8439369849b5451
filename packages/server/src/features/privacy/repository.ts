import { and, asc, eq, gt, gte, inArray, isNotNull, isNull, lt, ne, or, sql } from 'drizzle-orm';
import type { TLiveHistoryEntry, TRedactionSettings, TRetentionMode } from '@persona/contract';
import type { Db } from '../../db/client.js';
import { avatarMemories, avatarPrivacy, avatars, liveSessions, webhookDeliveries } from '../../db/schema/index.js';

export type AvatarPrivacyRow = typeof avatarPrivacy.$inferSelect;

/**
 * Sessions whose text one sweep step removes at most (the next step takes the rest): ~45 ms of
 * PGlite's thread (which is the server's) on a 2-core machine, ~10 ms of PostgreSQL.
 */
const SWEEP_BATCH = 200;

/** Avatars' privacy settings (ADR 097) and the retention sweep's writes. */
export function createPrivacyRepository(db: Db) {
  return {
    batchSize: SWEEP_BATCH,

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

    /**
     * Removes the text of up to SWEEP_BATCH ended sessions whose avatar's retention says so — `days`:
     * started more than its days before `at`; `counts`: ended before `countsEndedBefore` — in one
     * statement for every avatar (each avatar a range of `live_sessions_text_kept_idx`). History,
     * summary and turn figures go; the visitor's turn count stays (`visitor_turns`), and so do the row's
     * facts. The bodies of those sessions' finished webhook deliveries go in the same transaction.
     */
    async removeText(at: Date, countsEndedBefore: Date): Promise<number> {
      return db.transaction(async (tx) => {
        const due = tx
          .select({ id: liveSessions.id })
          .from(liveSessions)
          .innerJoin(avatarPrivacy, eq(avatarPrivacy.avatarId, liveSessions.avatarId))
          .where(
            and(
              ne(avatarPrivacy.retentionMode, 'forever'),
              isNull(liveSessions.textRemovedAt),
              isNotNull(liveSessions.endedAt),
              or(
                and(eq(avatarPrivacy.retentionMode, 'counts'), lt(liveSessions.endedAt, countsEndedBefore)),
                and(eq(avatarPrivacy.retentionMode, 'days'), sql`${liveSessions.startedAt} < ${at.toISOString()}::timestamptz - ${avatarPrivacy.retentionDays} * interval '1 day'`),
              ),
            ),
          )
          .limit(SWEEP_BATCH);
        const removed = await tx
          .update(liveSessions)
          .set({
            visitorTurns: sql`coalesce(${liveSessions.visitorTurns}, (select count(*) from jsonb_array_elements(${liveSessions.history}) as e where e->>'role' = 'user')::int)`,
            history: [],
            summary: null,
            voiceTurns: [],
            textRemovedAt: at,
          })
          .where(inArray(liveSessions.id, due))
          .returning({ id: liveSessions.id });
        const ids = removed.map((r) => r.id);
        if (ids.length) {
          await tx
            .update(webhookDeliveries)
            .set({ body: null })
            .where(and(inArray(webhookDeliveries.sessionId, ids), isNotNull(webhookDeliveries.body), ne(webhookDeliveries.status, 'pending')));
        }
        return ids.length;
      });
    },

    /**
     * Forgets the addresses of up to SWEEP_BATCH sessions whose text retention removed and that
     * started before `before` (the per-address limits count the last 24 h): each `client_ip`
     * becomes the visitor's pseudonym (`pseudonymOf`, see conversations/pseudonym.ts), so the
     * list names the visitor as before and erasure still finds them. Returns how many.
     */
    async forgetAddresses(before: Date, pseudonymOf: (row: { ownerUserId: number; visitorId: string | null; clientIp: string }) => string): Promise<number> {
      const rows = await db
        .select({ id: liveSessions.id, ownerUserId: liveSessions.ownerUserId, visitorId: liveSessions.visitorId, clientIp: liveSessions.clientIp })
        .from(liveSessions)
        .where(and(isNotNull(liveSessions.textRemovedAt), lt(liveSessions.startedAt, before), sql`${liveSessions.clientIp} not like 'v-%'`))
        .limit(SWEEP_BATCH);
      if (!rows.length) return 0;
      const ids = rows.map((r) => r.id);
      const pseudonyms = sql.join(
        rows.map((r) => sql`when ${r.id} then ${pseudonymOf(r)}`),
        sql` `,
      );
      await db
        .update(liveSessions)
        .set({ clientIp: sql`case ${liveSessions.id} ${pseudonyms} end` })
        .where(inArray(liveSessions.id, ids));
      return rows.length;
    },

    /**
     * A page of the avatar's ended conversations whose text is stored, in (start, id) order after
     * `after` — what "apply to stored conversations" redacts.
     */
    async storedSessions(avatarId: number, after: { startedAt: Date; id: string } | null, limit: number) {
      return db
        .select({ id: liveSessions.id, startedAt: liveSessions.startedAt, history: liveSessions.history, summary: liveSessions.summary })
        .from(liveSessions)
        .where(
          and(
            eq(liveSessions.avatarId, avatarId),
            isNotNull(liveSessions.endedAt),
            isNull(liveSessions.textRemovedAt),
            after ? sql`(${liveSessions.startedAt}, ${liveSessions.id}) > (${after.startedAt.toISOString()}::timestamptz, ${after.id})` : undefined,
          ),
        )
        .orderBy(asc(liveSessions.startedAt), asc(liveSessions.id))
        .limit(limit);
    },

    /**
     * Writes the redacted text of those sessions (the search index follows by its trigger) and
     * passes every string of their stored webhook bodies through `redact`, in one transaction.
     */
    async rewriteSessions(rows: { id: string; history: TLiveHistoryEntry[]; summary: string | null }[], sessionIds: string[], redactBody: (body: string) => string): Promise<void> {
      await db.transaction(async (tx) => {
        for (const r of rows) await tx.update(liveSessions).set({ history: r.history, summary: r.summary }).where(eq(liveSessions.id, r.id));
        if (!sessionIds.length) return;
        const bodies = await tx
          .select({ id: webhookDeliveries.id, body: webhookDeliveries.body })
          .from(webhookDeliveries)
          .where(and(inArray(webhookDeliveries.sessionId, sessionIds), isNotNull(webhookDeliveries.body)));
        for (const b of bodies) {
          const body = redactBody(b.body!);
          if (body !== b.body) await tx.update(webhookDeliveries).set({ body }).where(eq(webhookDeliveries.id, b.id));
        }
      });
    },

    /** A page of the avatar's memories of visitors, in visitor order after `afterVisitor`. */
    async storedMemories(avatarId: number, afterVisitor: string | null, limit: number) {
      return db
        .select({ visitorId: avatarMemories.visitorId, summary: avatarMemories.summary })
        .from(avatarMemories)
        .where(and(eq(avatarMemories.avatarId, avatarId), afterVisitor !== null ? gt(avatarMemories.visitorId, afterVisitor) : undefined))
        .orderBy(asc(avatarMemories.visitorId))
        .limit(limit);
    },

    async rewriteMemories(avatarId: number, rows: { visitorId: string; summary: string }[]): Promise<void> {
      await db.transaction(async (tx) => {
        for (const r of rows) await tx.update(avatarMemories).set({ summary: r.summary }).where(and(eq(avatarMemories.avatarId, avatarId), eq(avatarMemories.visitorId, r.visitorId)));
      });
    },

    /**
     * Bodies of deliveries that were still being retried when their session's text went and have
     * finished since (a delivery retries for 24 h: sessions whose text went after `removedSince`).
     */
    async dropFinishedDeliveryBodies(removedSince: Date): Promise<number> {
      const rows = await db
        .update(webhookDeliveries)
        .set({ body: null })
        .where(
          and(
            isNotNull(webhookDeliveries.body),
            ne(webhookDeliveries.status, 'pending'),
            inArray(webhookDeliveries.sessionId, db.select({ id: liveSessions.id }).from(liveSessions).where(gte(liveSessions.textRemovedAt, removedSince))),
          ),
        )
        .returning({ id: webhookDeliveries.id });
      return rows.length;
    },

    /** Memories of visitors as old as the avatar's retention (`counts`: all of them), for every avatar at once. */
    async dropMemories(at: Date): Promise<number> {
      const rows = await db
        .delete(avatarMemories)
        .where(
          sql`exists (select 1 from ${avatarPrivacy} p where p.avatar_id = ${avatarMemories.avatarId} and (p.retention_mode = 'counts' or (p.retention_mode = 'days' and ${avatarMemories.updatedAt} < ${at.toISOString()}::timestamptz - p.retention_days * interval '1 day')))`,
        )
        .returning({ visitorId: avatarMemories.visitorId });
      return rows.length;
    },
  };
}

export type PrivacyRepository = ReturnType<typeof createPrivacyRepository>;
