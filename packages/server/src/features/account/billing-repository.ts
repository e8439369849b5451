import { and, eq, gte, lt, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { callDailyUsage, callRecords } from '../../db/schema/index.js';

export interface NewCallRecord {
  userId: number;
  avatarId: number;
  avatarName: string;
  sessionId: string;
  startedAt: Date;
  endedAt: Date;
}

export interface UsageRow {
  avatarId: number;
  avatarName: string;
  totalSeconds: number;
  callCount: number;
}

const DAY = 86_400_000;
const dayOf = (d: Date) => d.toISOString().slice(0, 10);
const startOfUtcDay = (ms: number) => Math.floor(ms / DAY) * DAY;

/**
 * Call records and their daily roll-up. A record holds what billing needs and nothing of the
 * visitor (no address: migration 0019 dropped it — it was never read, and erasure could not reach it). A call counts on the UTC day it started. Stats for a
 * range read whole days from the roll-up and the partial first/last day from the records, so
 * a year of a busy account costs a few thousand rows, not millions.
 */
export function createBillingRepository(db: Db) {
  return {
    async recordCall(call: NewCallRecord): Promise<void> {
      const durationSeconds = Math.max(0, Math.round((call.endedAt.getTime() - call.startedAt.getTime()) / 1000));
      await db.transaction(async (tx) => {
        await tx.insert(callRecords).values({ ...call, durationSeconds });
        await tx
          .insert(callDailyUsage)
          .values({ userId: call.userId, avatarId: call.avatarId, day: dayOf(call.startedAt), avatarName: call.avatarName, totalSeconds: durationSeconds, callCount: 1 })
          .onConflictDoUpdate({
            target: [callDailyUsage.userId, callDailyUsage.day, callDailyUsage.avatarId],
            set: {
              totalSeconds: sql`${callDailyUsage.totalSeconds} + ${durationSeconds}`,
              callCount: sql`${callDailyUsage.callCount} + 1`,
              avatarName: call.avatarName,
            },
          });
      });
    },

    /** Totals per avatar of the calls that started in [start, end). */
    async usageByAvatar(userId: number, start: Date, end: Date): Promise<UsageRow[]> {
      const s = start.getTime();
      const e = end.getTime();
      const firstWholeDay = s === startOfUtcDay(s) ? s : startOfUtcDay(s) + DAY;
      const lastWholeDayEnd = startOfUtcDay(e);
      const parts: Promise<UsageRow[]>[] = [];
      const fromRecords = (from: number, to: number) =>
        db
          .select({
            avatarId: callRecords.avatarId,
            avatarName: sql<string>`max(${callRecords.avatarName})`,
            totalSeconds: sql<number>`coalesce(sum(${callRecords.durationSeconds}), 0)::bigint`,
            callCount: sql<number>`count(*)::int`,
          })
          .from(callRecords)
          .where(and(eq(callRecords.userId, userId), gte(callRecords.startedAt, new Date(from)), lt(callRecords.startedAt, new Date(to))))
          .groupBy(callRecords.avatarId);

      if (firstWholeDay < lastWholeDayEnd) {
        parts.push(
          db
            .select({
              avatarId: callDailyUsage.avatarId,
              avatarName: sql<string>`max(${callDailyUsage.avatarName})`,
              totalSeconds: sql<number>`coalesce(sum(${callDailyUsage.totalSeconds}), 0)::bigint`,
              callCount: sql<number>`coalesce(sum(${callDailyUsage.callCount}), 0)::int`,
            })
            .from(callDailyUsage)
            .where(
              and(
                eq(callDailyUsage.userId, userId),
                gte(callDailyUsage.day, dayOf(new Date(firstWholeDay))),
                lt(callDailyUsage.day, dayOf(new Date(lastWholeDayEnd))),
              ),
            )
            .groupBy(callDailyUsage.avatarId),
        );
        if (s < firstWholeDay) parts.push(fromRecords(s, firstWholeDay));
        if (lastWholeDayEnd < e) parts.push(fromRecords(lastWholeDayEnd, e));
      } else {
        parts.push(fromRecords(s, e));
      }

      const merged = new Map<number, UsageRow>();
      for (const rows of await Promise.all(parts)) {
        for (const r of rows) {
          const prev = merged.get(r.avatarId);
          merged.set(r.avatarId, {
            avatarId: r.avatarId,
            avatarName: prev?.avatarName ?? r.avatarName,
            totalSeconds: (prev?.totalSeconds ?? 0) + Number(r.totalSeconds),
            callCount: (prev?.callCount ?? 0) + Number(r.callCount),
          });
        }
      }
      return [...merged.values()];
    },

    async listCalls(userId: number, start: Date, end: Date, limit = 1000) {
      return db
        .select()
        .from(callRecords)
        .where(and(eq(callRecords.userId, userId), gte(callRecords.startedAt, start), lt(callRecords.startedAt, end)))
        .orderBy(callRecords.startedAt)
        .limit(limit);
    },
  };
}

export type BillingRepository = ReturnType<typeof createBillingRepository>;
