import { and, desc, eq, gte, inArray, isNotNull, isNull, lte, notInArray, or, sql, type SQL } from 'drizzle-orm';
import { ConversationOutcomeCodes, searchWords, type TConversationOutcome } from '@persona/contract';
import type { Db } from '../../db/client.js';
import { avatarMemories, avatars, liveSessions, webhookDeliveries } from '../../db/schema/index.js';
import type { DbTx } from '../../db/client.js';

/** Deleted conversations leave nothing of their text in the webhooks' log either (ADR 097): the bodies go, the log lines stay. */
async function dropDeliveryBodies(tx: DbTx | Db, sessionIds: string[]): Promise<void> {
  if (sessionIds.length) await tx.update(webhookDeliveries).set({ body: null }).where(and(inArray(webhookDeliveries.sessionId, sessionIds), isNotNull(webhookDeliveries.body)));
}

/** Whose conversations: one account's, or (administrators) every account's. */
export type ConversationScope = { ownerUserId: number } | { all: true };

export interface ConversationFilter {
  avatarId?: number;
  from?: Date;
  to?: Date;
  outcome?: TConversationOutcome;
  hasErrors?: boolean;
  /** Words said in the conversation, every one of them (ADR 098); already bounded by the contract. */
  q?: string;
  cursor?: { startedAt: Date; id: string };
  limit: number;
}

const rowsOf = <T>(result: unknown): T[] => ((result as { rows?: T[] }).rows ?? (result as T[]));

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
  // A session whose text the retention removed (ADR 097) kept its count.
  turns: sql<number>`coalesce(${liveSessions.visitorTurns}, (select count(*) from jsonb_array_elements(${liveSessions.history}) as e where e->>'role' = 'user')::int)`,
  textRemovedAt: liveSessions.textRemovedAt,
};

export type ConversationListRow = Pick<
  typeof liveSessions.$inferSelect,
  Exclude<keyof typeof listColumns, 'turns'>
> & { turns: number };

/**
 * The search (ADR 098): the words as an AND of English lexemes — `plainto_tsquery` reads no
 * operator, quote or wildcard, so the visitor's text cannot change the query's meaning — against
 * the GIN-indexed `search_tsv` that migration 0017's trigger keeps from the stored history.
 */
const searchQuery = (q: string) => sql`plainto_tsquery('english', ${q})`;

/** The list's conditions (scope, filters, the keyset cursor): one place for `list` and `exportPage`. */
function filtered(scope: ConversationScope, f: ConversationFilter) {
  return and(
    scoped(scope),
    f.avatarId === undefined ? undefined : eq(liveSessions.avatarId, f.avatarId),
    f.from ? gte(liveSessions.startedAt, f.from) : undefined,
    f.to ? lte(liveSessions.startedAt, f.to) : undefined,
    f.outcome ? outcomeCondition(f.outcome) : undefined,
    f.hasErrors === undefined ? undefined : f.hasErrors ? endedOnError() : sql`not coalesce(${endedOnError()}, false)`,
    // searchWords again (the contract did it): the text is written into the statement (`planned`).
    f.q ? sql`${liveSessions.searchTsv} @@ ${searchQuery(searchWords(f.q))}` : undefined,
    f.cursor ? sql`(${liveSessions.startedAt}, ${liveSessions.id}) < (${f.cursor.startedAt.toISOString()}::timestamptz, ${f.cursor.id})` : undefined,
  );
}

/**
 * A search is planned for its own words (ADR 098): its values are written into the statement, so it
 * has no parameters, is never a prepared statement of the connection's cache, and the planner sees
 * the lexemes — a frequent word walks the (owner, started_at) index and stops at the page, a rare one
 * takes the GIN index. A prepared statement's generic plan guesses every word rare: 137 ms for a word
 * in 9 400 of an account's 25 000 sessions on PostgreSQL, against 0.2 ms planned for it. Every value
 * written is a number, an enum, a validated date, id or cursor, or the search text quoted by drizzle
 * (quotes doubled; the contract already turned backslashes and control characters into spaces).
 */
function planned(where: SQL | undefined, limit: number, q: string | undefined) {
  return q ? { where: where?.inlineParams(), limit: sql.raw(String(Math.trunc(limit))) as unknown as number } : { where, limit };
}

/** The snippet's marks around a searched word (control characters the stored text never keeps: they are made spaces first). */
const HIT_START = '\u0001';
const HIT_END = '\u0002';
/** A turn up to this long is the snippet whole; a longer one is cut to a fragment around the words. */
const SNIPPET_WHOLE_CHARS = 200;
const headlineOptions = (fragment: boolean) =>
  fragment ? `StartSel="${HIT_START}", StopSel="${HIT_END}", MaxWords=22, MinWords=10, MaxFragments=1, FragmentDelimiter=" … "` : `StartSel="${HIT_START}", StopSel="${HIT_END}", HighlightAll=true`;

/** `ts_headline`'s text, marks and all, as parts (`hit` on the searched words). */
export function snippetParts(marked: string): { text: string; hit: boolean }[] {
  const parts: { text: string; hit: boolean }[] = [];
  for (const piece of marked.split(HIT_START)) {
    const end = piece.indexOf(HIT_END);
    if (end >= 0) {
      parts.push({ text: piece.slice(0, end), hit: true });
      if (end + 1 < piece.length) parts.push({ text: piece.slice(end + 1), hit: false });
    } else if (piece) parts.push({ text: piece, hit: false });
  }
  return parts.filter((p) => p.text !== '');
}

/**
 * One history entry's text as the snippets read it, its marks' characters made spaces: the list's
 * snippets read the first 2 000 characters of each turn (a hostile history of 100 turns of 20 000
 * characters would cost a page of 25 rows seconds of parsing), one transcript's the first 100 000
 * (as the trigger of 0017).
 */
const entryText = (chars: number) => sql`translate(left(x.e->>'text', ${sql.raw(String(chars))}), E'\\x01\\x02', '  ')`;

/** The live sessions as conversations: every query carries the caller's scope. */
export function createConversationsRepository(db: Db) {
  return {
    /** One page, newest first, keyset by (started_at, id): the indexes of ADR 092 serve it at any depth. */
    async list(scope: ConversationScope, f: ConversationFilter): Promise<ConversationListRow[]> {
      const p = planned(filtered(scope, f), f.limit, f.q);
      return db.select(listColumns).from(liveSessions).where(p.where).orderBy(desc(liveSessions.startedAt), desc(liveSessions.id)).limit(p.limit);
    },

    /**
     * The search's snippet of each of these conversations (ADR 098): its first turn holding every
     * searched word (else the first holding one), cut to a fragment around them by `ts_headline`.
     */
    async matches(ids: string[], q: string): Promise<Map<string, { turn: number; role: 'user' | 'assistant'; marked: string }>> {
      if (ids.length === 0) return new Map();
      // The turn is chosen first, then only that one is cut by ts_headline. Parsing every turn is
      // the cost (PGlite: ~30 µs a turn), so a turn is parsed only when its lowercased text holds
      // each word's lexeme (a final "i" dropped: "happy" → "happi"), in order up to the first that
      // holds every word; the turns holding any word are read only when none does.
      const turns = sql`jsonb_array_elements(case when jsonb_typeof(s.history) = 'array' then s.history else '[]'::jsonb end) with ordinality as x(e, ord)`;
      const text = entryText(2_000);
      const result = await db.execute(sql`
        with q as (
          select ${searchQuery(q)} as every,
                 to_tsquery('simple', replace(${searchQuery(q)}::text, ' & ', ' | ')) as one,
                 array(select '%' || replace(replace(replace(regexp_replace(l, 'i$', ''), '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%'
                       from unnest(tsvector_to_array(to_tsvector('english', ${q}))) l) as likes
        )
        select s.id, p.turn, s.history->p.turn->>'role' as role,
               ts_headline('english', t.text, q.every, case when length(t.text) <= ${SNIPPET_WHOLE_CHARS} then ${headlineOptions(false)} else ${headlineOptions(true)} end) as marked
        from ${liveSessions} s
        cross join q
        cross join lateral (
          select (coalesce(
            (select x.ord from ${turns} where lower(${text}) like all (q.likes) and to_tsvector('english', ${text}) @@ q.every limit 1),
            (select x.ord from ${turns} where lower(${text}) like any (q.likes) and to_tsvector('english', ${text}) @@ q.one limit 1)
          ) - 1)::int as turn
        ) p
        cross join lateral (select translate(left(s.history->p.turn->>'text', 2000), E'\\x01\\x02', '  ') as text) t
        where s.id in (${sql.join(
          ids.map((id) => sql`${id}`),
          sql`, `,
        )}) and p.turn is not null`);
      const out = new Map<string, { turn: number; role: 'user' | 'assistant'; marked: string }>();
      for (const r of rowsOf<{ id: string; turn: number; role: 'user' | 'assistant'; marked: string }>(result)) if (!out.has(r.id)) out.set(r.id, { turn: Number(r.turn), role: r.role, marked: r.marked });
      return out;
    },

    /** The turns of one conversation (already read within the caller's scope) that hold every searched word, the words marked. */
    async turnMatches(id: string, q: string): Promise<{ turn: number; marked: string }[]> {
      const result = await db.execute(sql`
        select m.ord as turn, ts_headline('english', m.text, ${searchQuery(q)}, ${headlineOptions(false)}) as marked
        from ${liveSessions} s
        cross join lateral (
          select (x.ord - 1)::int as ord, ${entryText(100_000)} as text
          from jsonb_array_elements(case when jsonb_typeof(s.history) = 'array' then s.history else '[]'::jsonb end) with ordinality as x(e, ord)
        ) m
        where s.id = ${id} and to_tsvector('english', m.text) @@ ${searchQuery(q)}
        order by m.ord`);
      return rowsOf<{ turn: number; marked: string }>(result).map((r) => ({ turn: Number(r.turn), marked: r.marked }));
    },

    /** One export page: the list's rows with their transcripts (ADR 094), keyset like `list`; `id` narrows it to one. */
    async exportPage(scope: ConversationScope, f: ConversationFilter & { id?: string }) {
      const p = planned(and(filtered(scope, f), f.id === undefined ? undefined : eq(liveSessions.id, f.id)), f.limit, f.q);
      return db
        .select({ ...listColumns, history: liveSessions.history, voiceTurns: liveSessions.voiceTurns })
        .from(liveSessions)
        .where(p.where)
        .orderBy(desc(liveSessions.startedAt), desc(liveSessions.id))
        .limit(p.limit);
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
      await db.transaction(async (tx) => {
        await tx.delete(liveSessions).where(and(scoped(scope), inArray(liveSessions.id, unique), isNotNull(liveSessions.endedAt)));
        await dropDeliveryBodies(tx, unique);
      });
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
      if (row) {
        await dropDeliveryBodies(db, [row.id]);
        return 'deleted';
      }
      const [open] = await db.select({ id: liveSessions.id }).from(liveSessions).where(and(scoped(scope), eq(liveSessions.id, id))).limit(1);
      return open ? 'open' : 'missing';
    },

    /** The account's distinct visitors: the page's visitor id, or the address when the page sent none. */
    async visitorsOf(ownerUserId: number): Promise<{ visitorId: string | null; clientIp: string | null }[]> {
      return db
        .selectDistinct({ visitorId: liveSessions.visitorId, clientIp: sql<string | null>`case when ${liveSessions.visitorId} is null then ${liveSessions.clientIp} end` })
        .from(liveSessions)
        .where(eq(liveSessions.ownerUserId, ownerUserId));
    },

    /** Erases the account's ended sessions of these visitors and its avatars' memories of them, in one transaction. */
    async eraseVisitor(ownerUserId: number, who: { visitorIds: string[]; ips: string[] }): Promise<{ sessions: number; memories: number; open: number }> {
      const theirs = or(
        who.visitorIds.length ? inArray(liveSessions.visitorId, who.visitorIds) : undefined,
        who.ips.length ? and(isNull(liveSessions.visitorId), inArray(liveSessions.clientIp, who.ips)) : undefined,
      );
      return db.transaction(async (tx) => {
        const erased = await tx
          .delete(liveSessions)
          .where(and(eq(liveSessions.ownerUserId, ownerUserId), theirs, isNotNull(liveSessions.endedAt)))
          .returning({ id: liveSessions.id });
        await dropDeliveryBodies(tx, erased.map((r) => r.id));
        const [open] = await tx
          .select({ n: sql<number>`count(*)::int` })
          .from(liveSessions)
          .where(and(eq(liveSessions.ownerUserId, ownerUserId), theirs, isNull(liveSessions.endedAt)));
        const memories = who.visitorIds.length
          ? await tx
              .delete(avatarMemories)
              .where(and(inArray(avatarMemories.visitorId, who.visitorIds), inArray(avatarMemories.avatarId, tx.select({ id: avatars.id }).from(avatars).where(eq(avatars.userId, ownerUserId)))))
              .returning({ avatarId: avatarMemories.avatarId })
          : [];
        return { sessions: erased.length, memories: memories.length, open: open?.n ?? 0 };
      });
    },
  };
}

export type ConversationsRepository = ReturnType<typeof createConversationsRepository>;
