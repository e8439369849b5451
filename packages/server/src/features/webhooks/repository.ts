import { and, desc, eq, gt, inArray, isNull, or, sql } from 'drizzle-orm';
import type { TWebhookEventType } from '@persona/contract';
import type { Db, DbTx } from '../../db/client.js';
import { avatars, liveSessions, webhookDeliveries, webhookEndpoints } from '../../db/schema/index.js';

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;
export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;

/** A claimed delivery with what sending it needs. */
export interface ClaimedDelivery {
  delivery: WebhookDeliveryRow;
  url: string;
  secretSealed: string;
}

/** One event of a live session, for the endpoints that take it. */
export interface SessionEvent {
  ownerUserId: number;
  avatarId: number;
  sessionId: string;
  types: TWebhookEventType[];
  eventIds: Record<string, string>;
  /** Bodies made now (function.failed); the others are made at their first attempt. */
  bodies?: Record<string, string>;
  createdAt: Date;
  dueAt: Date;
}

async function enqueue(tx: Pick<DbTx, 'select' | 'insert'>, e: SessionEvent): Promise<number> {
  const endpoints = await tx
    .select({ id: webhookEndpoints.id, events: webhookEndpoints.events })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.userId, e.ownerUserId), eq(webhookEndpoints.enabled, true), or(isNull(webhookEndpoints.avatarId), eq(webhookEndpoints.avatarId, e.avatarId))));
  const rows = endpoints.flatMap((ep) =>
    e.types
      .filter((type) => ep.events.includes(type))
      .map((type) => ({ endpointId: ep.id, eventId: e.eventIds[type]!, eventType: type, sessionId: e.sessionId, body: e.bodies?.[type] ?? null, createdAt: e.createdAt, nextAttemptAt: e.dueAt })),
  );
  if (rows.length) await tx.insert(webhookDeliveries).values(rows);
  return rows.length;
}

/** Endpoints and deliveries: every portal query carries the caller's account. */
export function createWebhooksRepository(db: Db) {
  const ownEndpoint = (userId: number, id: number) => and(eq(webhookEndpoints.userId, userId), eq(webhookEndpoints.id, id));

  return {
    async avatarOwned(userId: number, avatarId: number): Promise<boolean> {
      const [row] = await db.select({ id: avatars.id }).from(avatars).where(and(eq(avatars.id, avatarId), eq(avatars.userId, userId))).limit(1);
      return row !== undefined;
    },

    async listEndpoints(userId: number): Promise<WebhookEndpointRow[]> {
      return db.select().from(webhookEndpoints).where(eq(webhookEndpoints.userId, userId)).orderBy(webhookEndpoints.id);
    },

    async countEndpoints(userId: number): Promise<number> {
      const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(webhookEndpoints).where(eq(webhookEndpoints.userId, userId));
      return row?.n ?? 0;
    },

    async findEndpoint(userId: number, id: number): Promise<WebhookEndpointRow | undefined> {
      const [row] = await db.select().from(webhookEndpoints).where(ownEndpoint(userId, id)).limit(1);
      return row;
    },

    async insertEndpoint(values: typeof webhookEndpoints.$inferInsert): Promise<WebhookEndpointRow> {
      const [row] = await db.insert(webhookEndpoints).values(values).returning();
      return row!;
    },

    async updateEndpoint(userId: number, id: number, values: Partial<Pick<WebhookEndpointRow, 'url' | 'avatarId' | 'events' | 'enabled' | 'secretSealed' | 'updatedAt'>>): Promise<WebhookEndpointRow | undefined> {
      const [row] = await db.update(webhookEndpoints).set(values).where(ownEndpoint(userId, id)).returning();
      return row;
    },

    async deleteEndpoint(userId: number, id: number): Promise<boolean> {
      const rows = await db.delete(webhookEndpoints).where(ownEndpoint(userId, id)).returning({ id: webhookEndpoints.id });
      return rows.length > 0;
    },

    /**
     * Queues one event of a session for every enabled endpoint of its account that takes it (the
     * avatar's or the account-wide ones), in the caller's transaction. Returns how many.
     */
    /**
     * Queues one event of a session for every enabled endpoint of its account that takes it (the
     * avatar's or the account-wide ones), in the caller's transaction. Returns how many.
     */
    enqueueForSession: (tx: Pick<DbTx, 'select' | 'insert'>, e: SessionEvent) => enqueue(tx, e),

    /** How many events of this type were queued for the session (any endpoint counts once per event). */
    async countSessionEvents(sessionId: string, type: TWebhookEventType): Promise<number> {
      const [row] = await db
        .select({ n: sql<number>`count(distinct ${webhookDeliveries.eventId})::int` })
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.sessionId, sessionId), eq(webhookDeliveries.eventType, type)));
      return row?.n ?? 0;
    },

    /** The same, outside a transaction (an event not tied to a row's change). */
    enqueueNow: (e: SessionEvent) => enqueue(db, e),

    /** The session's events not yet made wait no longer (the worker's report is in). */
    async dueNow(sessionId: string, at: Date): Promise<void> {
      await db
        .update(webhookDeliveries)
        .set({ nextAttemptAt: at })
        .where(and(eq(webhookDeliveries.sessionId, sessionId), eq(webhookDeliveries.status, 'pending'), isNull(webhookDeliveries.body), gt(webhookDeliveries.nextAttemptAt, at)));
    },

    async insertDelivery(values: typeof webhookDeliveries.$inferInsert): Promise<WebhookDeliveryRow> {
      const [row] = await db.insert(webhookDeliveries).values(values).returning();
      return row!;
    },

    /**
     * Claims up to `limit` due deliveries of enabled endpoints: each pushed `leaseUntil` ahead, so
     * another sender (another instance) skips it, and a sender that died leaves it due again.
     * `FOR UPDATE SKIP LOCKED`: concurrent claims never wait for nor take each other's rows.
     */
    async claimDue(at: Date, leaseUntil: Date, limit: number): Promise<ClaimedDelivery[]> {
      const claimed = await db.execute(sql`
        update webhook_deliveries set next_attempt_at = ${leaseUntil.toISOString()}::timestamptz
        where id in (
          select d.id from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id
          where d.status = 'pending' and d.next_attempt_at <= ${at.toISOString()}::timestamptz and e.enabled
          order by d.next_attempt_at, d.id
          limit ${limit}
          for update of d skip locked
        )
        returning id`);
      // node-postgres answers { rows }, the PGlite driver the rows themselves.
      const ids = ((claimed as unknown as { rows?: { id: number | string }[] }).rows ?? (claimed as unknown as { id: number | string }[])).map((r) => Number(r.id));
      if (ids.length === 0) return [];
      const rows = await db
        .select({ delivery: webhookDeliveries, url: webhookEndpoints.url, secretSealed: webhookEndpoints.secretSealed })
        .from(webhookDeliveries)
        .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
        .where(inArray(webhookDeliveries.id, ids))
        .orderBy(webhookDeliveries.id);
      return rows;
    },

    async setBody(id: number, body: string): Promise<void> {
      await db.update(webhookDeliveries).set({ body }).where(eq(webhookDeliveries.id, id));
    },

    async recordAttempt(id: number, values: Pick<WebhookDeliveryRow, 'status' | 'attempts' | 'nextAttemptAt' | 'lastAttemptAt' | 'responseStatus' | 'lastError' | 'deliveredAt'>): Promise<void> {
      await db.update(webhookDeliveries).set(values).where(eq(webhookDeliveries.id, id));
    },

    /** The session as the events tell it (null: deleted since). */
    async sessionForEvent(sessionId: string) {
      const [row] = await db
        .select({
          id: liveSessions.id,
          avatarId: liveSessions.avatarId,
          avatarName: liveSessions.avatarName,
          startedAt: liveSessions.startedAt,
          endedAt: liveSessions.endedAt,
          endCode: liveSessions.endCode,
          channel: liveSessions.channel,
          textOnly: liveSessions.textOnly,
          origin: liveSessions.origin,
          history: liveSessions.history,
          voiceTurns: liveSessions.voiceTurns,
          summary: liveSessions.summary,
          visitorTurns: liveSessions.visitorTurns,
        })
        .from(liveSessions)
        .where(eq(liveSessions.id, sessionId))
        .limit(1);
      return row ?? null;
    },

    /** An endpoint's log, newest first (the caller's account only). */
    async listDeliveries(userId: number, endpointId: number, limit: number): Promise<WebhookDeliveryRow[]> {
      const rows = await db
        .select({ d: webhookDeliveries })
        .from(webhookDeliveries)
        .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
        .where(and(eq(webhookEndpoints.userId, userId), eq(webhookDeliveries.endpointId, endpointId)))
        .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
        .limit(limit);
      return rows.map((r) => r.d);
    },

    async findDelivery(userId: number, id: number): Promise<WebhookDeliveryRow | undefined> {
      const [row] = await db
        .select({ d: webhookDeliveries })
        .from(webhookDeliveries)
        .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
        .where(and(eq(webhookEndpoints.userId, userId), eq(webhookDeliveries.id, id)))
        .limit(1);
      return row?.d;
    },
  };
}

export type WebhooksRepository = ReturnType<typeof createWebhooksRepository>;
