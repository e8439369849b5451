import { and, asc, eq, getTableColumns, gt, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import type { TLiveHistoryEntry } from '@persona/contract';
import type { Db, DbTx } from '../../db/client.js';
import { avatarMemories, avatars, callDailyUsage, callRecords, functions, liveSessions, workers } from '../../db/schema/index.js';

/** A live session's row as the code reads it: every column but the search's lexemes (ADR 098: the trigger's, only searched). */
export type LiveSessionRow = Omit<typeof liveSessions.$inferSelect, 'searchTsv'>;
const { searchTsv: _searchTsv, ...sessionColumns } = getTableColumns(liveSessions);
export type NewLiveSession = typeof liveSessions.$inferInsert;
/** Run in the transaction that records a session's start or end (app.ts: the webhooks' queue, ADR 093). */
export type SessionRecorded = (tx: DbTx, row: LiveSessionRow) => Promise<void>;

const DAY = 86_400_000;

/** Live sessions, the workers they may run on, and the call record that ends each one. */
export function createLiveSessionsRepository(db: Db) {
  return {
    async findAvatar(id: number) {
      const [row] = await db.select().from(avatars).where(eq(avatars.id, id)).limit(1);
      return row;
    },

    /** Linked functions of the owner that are approved (moderation). */
    async approvedFunctions(ownerUserId: number, ids: number[]) {
      if (ids.length === 0) return [];
      return db
        .select()
        .from(functions)
        .where(and(eq(functions.userId, ownerUserId), inArray(functions.id, ids), eq(functions.approvalStatus, 1)));
    },

    /** AVAILABLE workers with their open sessions, fewest first (ties: the one that registered first). */
    /** AVAILABLE workers that pinged after `pingedSince` (a row another instance has not swept yet may be of a dead one), fewest open sessions first. */
    async availableWorkers(pingedSince: Date): Promise<{ id: number; webSocket: string; open: number }[]> {
      const open = db
        .select({ workerId: liveSessions.workerId, n: sql<number>`count(*)::int`.as('n') })
        .from(liveSessions)
        .where(isNull(liveSessions.endedAt))
        .groupBy(liveSessions.workerId)
        .as('open');
      const rows = await db
        .select({ id: workers.id, webSocket: workers.webSocket, open: sql<number>`coalesce(${open.n}, 0)::int` })
        .from(workers)
        .leftJoin(open, eq(open.workerId, workers.id))
        .where(and(isNull(workers.deletedAt), eq(workers.status, 'AVAILABLE'), gt(workers.lastPingTime, pingedSince)))
        .orderBy(sql`coalesce(${open.n}, 0)`, asc(workers.id));
      return rows;
    },

    async openCountByIp(ip: string): Promise<number> {
      const [row] = await db
        .select({ n: sql<number>`count(*)::int` })
        .from(liveSessions)
        .where(and(eq(liveSessions.clientIp, ip), isNull(liveSessions.endedAt)));
      return row?.n ?? 0;
    },

    /**
     * Seconds of conversation with this avatar in the 24 h before `now` matching `where`
     * (a visitor, or an IP): ended sessions up to their end, open ones up to now.
     */
    async secondsInLastDay(avatarId: number, by: { visitorId: string } | { ip: string }, now: Date): Promise<number> {
      const since = new Date(now.getTime() - DAY);
      const match = 'visitorId' in by ? eq(liveSessions.visitorId, by.visitorId) : eq(liveSessions.clientIp, by.ip);
      const [row] = await db
        .select({
          s: sql<number>`coalesce(sum(extract(epoch from (coalesce(${liveSessions.endedAt}, ${now}::timestamptz) - greatest(${liveSessions.startedAt}, ${since}::timestamptz)))), 0)::float8`,
        })
        .from(liveSessions)
        .where(and(eq(liveSessions.avatarId, avatarId), match, or(isNull(liveSessions.endedAt), gt(liveSessions.endedAt, since))));
      return Math.max(0, row?.s ?? 0);
    },

    async insert(values: NewLiveSession, recorded?: SessionRecorded): Promise<LiveSessionRow> {
      return db.transaction(async (tx) => {
        const [row] = await tx.insert(liveSessions).values(values).returning(sessionColumns);
        await recorded?.(tx, row!);
        return row!;
      });
    },

    async find(id: string): Promise<LiveSessionRow | undefined> {
      const [row] = await db.select(sessionColumns).from(liveSessions).where(eq(liveSessions.id, id)).limit(1);
      return row;
    },

    /** Claims an open session for its worker with the ticket handed out last, once. */
    async claim(id: string, workerId: number, jti: string, now: Date): Promise<LiveSessionRow | undefined> {
      const [row] = await db
        .update(liveSessions)
        .set({ claimedJti: jti, lastHeartbeatAt: now })
        .where(
          and(
            eq(liveSessions.id, id),
            eq(liveSessions.workerId, workerId),
            eq(liveSessions.ticketJti, jti),
            isNull(liveSessions.endedAt),
            or(isNull(liveSessions.claimedJti), sql`${liveSessions.claimedJti} <> ${jti}`),
          ),
        )
        .returning(sessionColumns);
      return row;
    },

    /** Moves an open session to another worker with a new ticket (resume). */
    async reassign(id: string, values: { workerId: number; ticketJti: string; now: Date }): Promise<LiveSessionRow | undefined> {
      const [row] = await db
        .update(liveSessions)
        .set({ workerId: values.workerId, ticketJti: values.ticketJti, lastHeartbeatAt: values.now })
        .where(and(eq(liveSessions.id, id), isNull(liveSessions.endedAt)))
        .returning(sessionColumns);
      return row;
    },

    async update(id: string, values: Partial<Pick<LiveSessionRow, 'lastHeartbeatAt' | 'billingCheckedAt' | 'echo' | 'history' | 'channel' | 'voiceTurns' | 'voiceP50Ms' | 'summary' | 'providerErrors'>>): Promise<void> {
      await db.update(liveSessions).set(values).where(eq(liveSessions.id, id));
    },

    /**
     * Ends an open session and writes its call record, in one transaction: only the first
     * ending bills it. Returns the ended row, or undefined when it had already ended.
     */
    async end(id: string, code: string, endedAt: Date, recorded?: SessionRecorded): Promise<LiveSessionRow | undefined> {
      return db.transaction(async (tx) => {
        const [row] = await tx
          .update(liveSessions)
          .set({ endedAt: sql`greatest(${liveSessions.startedAt}, ${endedAt}::timestamptz)`, endCode: code })
          .where(and(eq(liveSessions.id, id), isNull(liveSessions.endedAt)))
          .returning(sessionColumns);
        if (!row || !row.endedAt) return undefined;
        const durationSeconds = Math.max(0, Math.round((row.endedAt.getTime() - row.startedAt.getTime()) / 1000));
        await tx.insert(callRecords).values({
          userId: row.ownerUserId,
          avatarId: row.avatarId,
          avatarName: row.avatarName,
          sessionId: row.id,
          startedAt: row.startedAt,
          endedAt: row.endedAt,
          durationSeconds,
        });
        await tx
          .insert(callDailyUsage)
          .values({ userId: row.ownerUserId, avatarId: row.avatarId, day: row.startedAt.toISOString().slice(0, 10), avatarName: row.avatarName, totalSeconds: durationSeconds, callCount: 1 })
          .onConflictDoUpdate({
            target: [callDailyUsage.userId, callDailyUsage.day, callDailyUsage.avatarId],
            set: { totalSeconds: sql`${callDailyUsage.totalSeconds} + ${durationSeconds}`, callCount: sql`${callDailyUsage.callCount} + 1`, avatarName: row.avatarName },
          });
        await recorded?.(tx, row);
        return row;
      });
    },

    /** Open sessions whose worker has not reported since the cutoff. */
    /** Those of these workers that still report (connected, pinged after `since`, not removed). */
    async workersReporting(ids: number[], since: Date): Promise<Set<number>> {
      if (ids.length === 0) return new Set();
      const rows = await db
        .select({ id: workers.id })
        .from(workers)
        .where(and(inArray(workers.id, ids), isNull(workers.deletedAt), inArray(workers.status, ['AVAILABLE', 'BUSY']), gt(workers.lastPingTime, since)));
      return new Set(rows.map((r) => r.id));
    },

    async stale(cutoff: Date): Promise<LiveSessionRow[]> {
      return db
        .select(sessionColumns)
        .from(liveSessions)
        .where(and(isNull(liveSessions.endedAt), lt(liveSessions.lastHeartbeatAt, cutoff)))
        .limit(500);
    },

    async setHistory(id: string, history: TLiveHistoryEntry[]): Promise<void> {
      // The visitor's turns kept beside the history: analytics count them without reading it (ADR 099).
      const visitorTurns = history.filter((h) => h.role === 'user').length;
      await db.update(liveSessions).set({ history, visitorTurns }).where(and(eq(liveSessions.id, id), isNull(liveSessions.endedAt)));
    },

    /** Avatar memory of one returning visitor. */
    async memoryOf(avatarId: number, visitorId: string): Promise<string | null> {
      const [row] = await db.select({ summary: avatarMemories.summary }).from(avatarMemories).where(and(eq(avatarMemories.avatarId, avatarId), eq(avatarMemories.visitorId, visitorId)));
      return row?.summary ?? null;
    },

    async saveMemory(avatarId: number, visitorId: string, summary: string, at: Date): Promise<void> {
      await db
        .insert(avatarMemories)
        .values({ avatarId, visitorId, summary, updatedAt: at })
        .onConflictDoUpdate({ target: [avatarMemories.avatarId, avatarMemories.visitorId], set: { summary, updatedAt: at } });
    },
  };
}

export type LiveSessionsRepository = ReturnType<typeof createLiveSessionsRepository>;
