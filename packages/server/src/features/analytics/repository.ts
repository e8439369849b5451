import { sql, type SQL } from 'drizzle-orm';
import type { Db } from '../../db/client.js';

/** Whose sessions: one account's, or (administrators) every account's. */
export type AnalyticsScope = { ownerUserId: number } | { all: true };

export interface AnalyticsRange {
  avatarId?: number;
  from: Date;
  to: Date;
  /** Minutes east of UTC the days are counted in. */
  utcOffset: number;
}

const rowsOf = <T>(result: unknown): T[] => ((result as { rows?: T[] }).rows ?? (result as T[]));
/** PostgreSQL answers numerics as strings, PGlite as numbers: both become numbers (null stays null). */
const num = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));

/** A float8[] of percentiles: numbers from PostgreSQL's driver and PGlite, its text form ({1,2}, NULL) read too. */
function numbers(v: unknown, n: number): (number | null)[] {
  const items: unknown[] = Array.isArray(v) ? v : typeof v === 'string' ? v.replace(/[{}]/g, '').split(',') : [];
  return Array.from({ length: n }, (_, i) => (items[i] === undefined || items[i] === 'NULL' ? null : num(items[i])));
}

export interface Percentiles {
  count: number;
  p50: number | null;
  p95: number | null;
}

export interface AnalyticsRows {
  sessions: number;
  minutes: number;
  turns: { mean: number | null; p50: number | null; p95: number | null; max: number | null };
  durationSeconds: { p50: number | null; p90: number | null; p95: number | null; max: number | null };
  page: { firstFrame: Percentiles; avOffset: Percentiles; droppedFrames: Percentiles };
  days: { day: string; sessions: number; minutes: number }[];
  endCodes: { code: string | null; count: number }[];
  providerErrors: { provider: string; phase: string; count: number; sessions: number }[];
  voice: Record<'endToEndMs' | 'endOfUtteranceMs' | 'sttMs' | 'llmFirstTokenMs' | 'ttsFirstByteMs', Percentiles>;
}

const VOICE_KEYS = ['endToEndMs', 'endOfUtteranceMs', 'sttMs', 'llmFirstTokenMs', 'ttsFirstByteMs'] as const;

/**
 * Analytics over live sessions (ADR 099), computed in SQL: the range is an index range scan of
 * `live_sessions_owner_started_idx` (an account), `live_sessions_avatar_started_idx` (an avatar) or
 * `live_sessions_started_idx` (administrators); the percentiles are ordered-set aggregates.
 */
export function createAnalyticsRepository(db: Db) {
  function where(scope: AnalyticsScope, r: AnalyticsRange): SQL {
    const parts: SQL[] = [sql`started_at >= ${r.from.toISOString()}::timestamptz`, sql`started_at < ${r.to.toISOString()}::timestamptz`];
    if (!('all' in scope)) parts.push(sql`owner_user_id = ${scope.ownerUserId}`);
    if (r.avatarId !== undefined) parts.push(sql`avatar_id = ${r.avatarId}`);
    return sql.join(parts, sql` and `);
  }

  /** p50 and p95 of one sort (two `percentile_cont` would sort twice). */
  const pcts = (expr: SQL) => sql`percentile_cont(array[0.5, 0.95]::float8[]) within group (order by ${expr})`;

  return {
    async figures(scope: AnalyticsScope, r: AnalyticsRange): Promise<AnalyticsRows> {
      const w = where(scope, r);
      const duration = sql`extract(epoch from (ended_at - started_at))::float8`;
      const [totals] = rowsOf<Record<string, unknown>>(
        await db.execute(sql`
          with s as (
            select started_at, ended_at, first_frame_ms, av_offset_ms, dropped_frames,
                   -- Kept with the history since 0018 (a row written otherwise is counted from it).
                   coalesce(visitor_turns, (select count(*) from jsonb_array_elements(history) as e where e->>'role' = 'user')::int) as turns
            from live_sessions where ${w}
          )
          select count(*)::int as sessions,
                 coalesce(sum(${duration}), 0)::float8 / 60 as minutes,
                 avg(turns)::float8 as turns_mean, ${pcts(sql`turns`)} as turns_p, max(turns) as turns_max,
                 percentile_cont(array[0.5, 0.9, 0.95]::float8[]) within group (order by ${duration}) as d_p, max(${duration}) as d_max,
                 count(first_frame_ms)::int as ff_n, ${pcts(sql`first_frame_ms`)} as ff_p,
                 count(av_offset_ms)::int as av_n, ${pcts(sql`av_offset_ms`)} as av_p,
                 count(dropped_frames)::int as df_n, ${pcts(sql`dropped_frames`)} as df_p
          from s`),
      );
      const t = totals ?? {};
      const [turnsP50, turnsP95] = numbers(t.turns_p, 2);
      const [d50, d90, d95] = numbers(t.d_p, 3);
      const offset = sql`${r.utcOffset}::int * interval '1 minute'`;
      const days = rowsOf<{ day: string; sessions: unknown; minutes: unknown }>(
        await db.execute(sql`
          select to_char((started_at at time zone 'UTC') + ${offset}, 'YYYY-MM-DD') as day, count(*)::int as sessions,
                 coalesce(sum(${duration}), 0)::float8 / 60 as minutes
          from live_sessions where ${w} group by 1 order by 1`),
      );
      const endCodes = rowsOf<{ code: string | null; count: unknown }>(
        await db.execute(sql`select end_code as code, count(*)::int as count from live_sessions where ${w} group by end_code order by 2 desc`),
      );
      const providerErrors = rowsOf<{ provider: string; phase: string; count: unknown; sessions: unknown }>(
        await db.execute(sql`
          select e->>'provider' as provider, e->>'phase' as phase, sum((e->>'count')::int)::int as count, count(distinct id)::int as sessions
          from live_sessions cross join lateral jsonb_array_elements(provider_errors) as e
          where ${w} and provider_errors <> '[]'::jsonb and jsonb_typeof(provider_errors) = 'array'
          group by 1, 2 order by 3 desc, 1, 2 limit 50`),
      );
      const voiceValue = (k: string) => sql`(v->>${k})::float8`;
      const [voice] = rowsOf<Record<string, unknown>>(
        await db.execute(sql`
          select ${sql.join(
            VOICE_KEYS.map((k) => sql`count(${voiceValue(k)})::int as ${sql.identifier(`${k}_n`)}, ${pcts(voiceValue(k))} as ${sql.identifier(`${k}_p`)}`),
            sql`, `,
          )}
          from live_sessions cross join lateral jsonb_array_elements(voice_turns) as v
          where ${w} and jsonb_typeof(voice_turns) = 'array'`),
      );
      const v = voice ?? {};
      const percentiles = (row: Record<string, unknown>, prefix: string): Percentiles => {
        const [p50, p95] = numbers(row[`${prefix}_p`], 2);
        return { count: num(row[`${prefix}_n`]) ?? 0, p50: p50!, p95: p95! };
      };
      return {
        sessions: num(t.sessions) ?? 0,
        minutes: num(t.minutes) ?? 0,
        turns: { mean: num(t.turns_mean), p50: turnsP50!, p95: turnsP95!, max: num(t.turns_max) },
        durationSeconds: { p50: d50!, p90: d90!, p95: d95!, max: num(t.d_max) },
        page: { firstFrame: percentiles(t, 'ff'), avOffset: percentiles(t, 'av'), droppedFrames: percentiles(t, 'df') },
        days: days.map((d) => ({ day: d.day, sessions: num(d.sessions) ?? 0, minutes: num(d.minutes) ?? 0 })),
        endCodes: endCodes.map((e) => ({ code: e.code, count: num(e.count) ?? 0 })),
        providerErrors: providerErrors.map((e) => ({ provider: e.provider, phase: e.phase, count: num(e.count) ?? 0, sessions: num(e.sessions) ?? 0 })),
        voice: Object.fromEntries(VOICE_KEYS.map((k) => [k, percentiles(v, k)])) as AnalyticsRows['voice'],
      };
    },

    /** The range's latest visitor turns (at most `limit`), for the frequent questions (ADR 102); the stored, redacted text. */
    async visitorTurns(scope: AnalyticsScope, r: AnalyticsRange, limit: number): Promise<{ text: string; sessionId: string }[]> {
      const rows = rowsOf<{ text: string; session_id: string }>(
        await db.execute(sql`
          select e.value->>'text' as text, s.id as session_id
          from (select id, history, started_at from live_sessions where ${where(scope, r)} order by started_at desc limit ${limit}) s
          cross join lateral jsonb_array_elements(s.history) with ordinality as e(value, n)
          where e.value->>'role' = 'user'
          order by s.started_at desc, e.n desc
          limit ${limit}`),
      );
      return rows.map((x) => ({ text: x.text ?? '', sessionId: x.session_id }));
    },

    /** Whether the avatar exists in the scope (another account's answers like a missing one). */
    async hasAvatar(scope: AnalyticsScope, avatarId: number): Promise<boolean> {
      const owner = 'all' in scope ? sql`` : sql` and user_id = ${scope.ownerUserId}`;
      return rowsOf(await db.execute(sql`select 1 from avatars where id = ${avatarId}${owner} limit 1`)).length === 1;
    },

    /** The session a page reports for: its resume hash and whether it may still report. */
    async sessionForFigures(id: string) {
      const [row] = rowsOf<{ resume_hash: string; ended_at: Date | string | null; page_figures_at: Date | string | null }>(
        await db.execute(sql`select resume_hash, ended_at, page_figures_at from live_sessions where id = ${id} limit 1`),
      );
      return row ? { resumeHash: row.resume_hash, endedAt: row.ended_at === null ? null : new Date(row.ended_at), reported: row.page_figures_at !== null } : undefined;
    },

    /** Stores the page's figures once: false when another report came first. */
    async saveFigures(id: string, f: { firstFrameMs: number | null; avOffsetMs: number | null; droppedFrames: number | null }, at: Date): Promise<boolean> {
      const result = await db.execute(sql`
        update live_sessions set page_figures_at = ${at.toISOString()}::timestamptz, first_frame_ms = ${f.firstFrameMs}, av_offset_ms = ${f.avOffsetMs}, dropped_frames = ${f.droppedFrames}
        where id = ${id} and page_figures_at is null returning id`);
      return rowsOf(result).length === 1;
    },
  };
}

export type AnalyticsRepository = ReturnType<typeof createAnalyticsRepository>;
