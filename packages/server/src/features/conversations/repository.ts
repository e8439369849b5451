import { and, desc, eq, gte, inArray, isNotNull, isNull, lte, notInArray, sql, type SQL } from 'drizzle-orm';
import { ConversationOutcomeCodes, type TConversationOutcome } from '@persona/contract';
import type { Db } from '../../db/client.js';
import { liveSessions } from '../../db/schema/index.js';

/** Whose conversations: one account's, or (administrators) every account's. */
export type ConversationScope = { ownerUserId: number } | { all: true };

export interface ConversationFilter {
  avatarId?: number;
  from?: Date;
  to?: Date;
  outcome?: TConversationOutcome;
  hasErrors?: boolean;
  cursor?: { startedAt: Date; id: string };
  limit: number;
}

const knownEndCodes = Object.values(ConversationOutcomeCodes).flat() as string[];

/** An ended session whose code is none of the known endings: an error. */
const endedOnError = () => and(isNotNull(liveSessions.endCode), notInArray(liveSessions.endCode, knownEndCodes));

function outcomeCondition(outcome: TConversationOutcome): SQL | undefined {
  if (outcome === 'open') return isNull(liveSessions.endedAt);
  if (outcome === 'error') return endedOnError();
  return inArray(liveSessions.endCode, [...ConversationOutcomeCodes[outcome]]);
}

const scoped = (scope: ConversationScope) => ('all' in scope ? undefined : eq(liveSessions.ownerUserId, scope.ownerUserId));

/** The list's columns: the facts, never the history itself (only its count of visitor turns). */
const listColumns = {
  id: liveSessions.id,
  avatarId: liveSessions.avatarId,
  avatarName: liveSessions.avatarName,
  ownerUserId: liveSessions.ownerUserId,
  visitorId: liveSessions.visitorId,
  clientIp: liveSessions.clientIp,
  origin: liveSessions.origin,
  client: liveSessions.client,
  textOnly: liveSessions.textOnly,
  channel: liveSessions.channel,
  startedAt: liveSessions.startedAt,
  endedAt: liveSessions.endedAt,
  endCode: liveSessions.endCode,
  voiceP50Ms: liveSessions.voiceP50Ms,
  turns: sql<number>`(select count(*) from jsonb_array_elements(${liveSessions.history}) as e where e->>'role' = 'user')::int`,
};

export type ConversationListRow = Pick<
  typeof liveSessions.$inferSelect,
  Exclude<keyof typeof listColumns, 'turns'>
> & { turns: number };

/** The list's conditions (scope, filters, the keyset cursor): one place for `list` and `exportPage`. */
function filtered(scope: ConversationScope, f: ConversationFilter) {
  return and(
    scoped(scope),
    f.avatarId === undefined ? undefined : eq(liveSessions.avatarId, f.avatarId),
    f.from ? gte(liveSessions.startedAt, f.from) : undefined,
    f.to ? lte(liveSessions.startedAt, f.to) : undefined,
    f.outcome ? outcomeCondition(f.outcome) : undefined,
    f.hasErrors === undefined ? undefined : f.hasErrors ? endedOnError() : sql`not coalesce(${endedOnError()}, false)`,
    f.cursor ? sql`(${liveSessions.startedAt}, ${liveSessions.id}) < (${f.cursor.startedAt.toISOString()}::timestamptz, ${f.cursor.id})` : undefined,
  );
}

/** The live sessions as conversations: every query carries the caller's scope. */
export function createConversationsRepository(db: Db) {
  return {
    /** One page, newest first, keyset by (started_at, id): the indexes of ADR 092 serve it at any depth. */
    async list(scope: ConversationScope, f: ConversationFilter): Promise<ConversationListRow[]> {
      return db
        .select(listColumns)
        .from(liveSessions)
        .where(filtered(scope, f))
        .orderBy(desc(liveSessions.startedAt), desc(liveSessions.id))
        .limit(f.limit);
    },

    /** One export page: the list's rows with their transcripts (ADR 094), keyset like `list`; `id` narrows it to one. */
    async exportPage(scope: ConversationScope, f: ConversationFilter & { id?: string }) {
      const where = and(filtered(scope, f), f.id === undefined ? undefined : eq(liveSessions.id, f.id));
      return db
        .select({ ...listColumns, history: liveSessions.history, voiceTurns: liveSessions.voiceTurns })
        .from(liveSessions)
        .where(where)
        .orderBy(desc(liveSessions.startedAt), desc(liveSessions.id))
        .limit(f.limit);
    },

    /** Deletes every one of `ids` (ended, of the scope) or none: 'open' / 'missing' name why not. */
    async deleteMany(scope: ConversationScope, ids: string[]): Promise<'deleted' | 'open' | 'missing'> {
      const unique = [...new Set(ids)];
      const found = await db
        .select({ id: liveSessions.id, endedAt: liveSessions.endedAt })
        .from(liveSessions)
        .where(and(scoped(scope), inArray(liveSessions.id, unique)));
      if (found.length < unique.length) return 'missing';
      if (found.some((r) => r.endedAt === null)) return 'open';
      await db.delete(liveSessions).where(and(scoped(scope), inArray(liveSessions.id, unique), isNotNull(liveSessions.endedAt)));
      return 'deleted';
    },

    async find(scope: ConversationScope, id: string) {
      const [row] = await db
        .select({
          ...listColumns,
          history: liveSessions.history,
          voiceTurns: liveSessions.voiceTurns,
          // ADR 099: the session's summary and the page's own figures, for the transcript view.
          summary: liveSessions.summary,
          pageFiguresAt: liveSessions.pageFiguresAt,
          firstFrameMs: liveSessions.firstFrameMs,
          avOffsetMs: liveSessions.avOffsetMs,
          droppedFrames: liveSessions.droppedFrames,
        })
        .from(liveSessions)
        .where(and(scoped(scope), eq(liveSessions.id, id)))
        .limit(1);
      return row;
    },

    /** Deletes an ended conversation of the scope; 'open' when it is still going on. */
    async delete(scope: ConversationScope, id: string): Promise<'deleted' | 'open' | 'missing'> {
      const [row] = await db
        .delete(liveSessions)
        .where(and(scoped(scope), eq(liveSessions.id, id), isNotNull(liveSessions.endedAt)))
        .returning({ id: liveSessions.id });
      if (row) return 'deleted';
      const [open] = await db.select({ id: liveSessions.id }).from(liveSessions).where(and(scoped(scope), eq(liveSessions.id, id))).limit(1);
      return open ? 'open' : 'missing';
    },
  };
}

export type ConversationsRepository = ReturnType<typeof createConversationsRepository>;
