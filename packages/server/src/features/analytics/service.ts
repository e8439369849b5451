import {
  AnalyticsLimits,
  AnalyticsMessages,
  LiveMessages,
  PageFigureLimits,
  outcomeOf,
  type TAnalytics,
  type TAnalyticsQuery,
  type TConversationOutcome,
  type TFrequentQuestions,
  type TPageFiguresRequest,
  type TPercentiles,
} from '@persona/contract';
import { AppError } from '../../lib/app-error.js';
import { hashToken, safeEqual } from '../../lib/tokens.js';
import type { AnalyticsRepository, AnalyticsScope, Percentiles } from './repository.js';
import { groupQuestions } from './questions.js';

/** Phrasings whose embeddings are kept in memory. */
const QUESTION_VECTORS_KEPT = 20_000;

const DAY = 86_400_000;
const OUTCOMES: TConversationOutcome[] = ['hang-up', 'idle', 'limit', 'demo-end', 'error', 'open'];
const round = (n: number | null, digits = 0) => (n === null ? null : Math.round(n * 10 ** digits) / 10 ** digits);
const ms = (p: Percentiles): TPercentiles => ({ count: p.count, p50: round(p.p50), p95: round(p.p95) });

/** The days from `from` to `to` (exclusive) as the caller counts them (`utcOffset` minutes east of UTC). */
export function daysOf(from: Date, to: Date, utcOffset: number): string[] {
  const shift = utcOffset * 60_000;
  const first = Math.floor((from.getTime() + shift) / DAY);
  const last = Math.floor((to.getTime() - 1 + shift) / DAY);
  const days: string[] = [];
  for (let d = first; d <= last; d++) days.push(new Date(d * DAY).toISOString().slice(0, 10));
  return days;
}

export function createAnalyticsService(deps: { repo: AnalyticsRepository; now?: () => Date; embed?: ((texts: string[]) => Promise<number[][]>) | null; log?: { warn: (o: object, m: string) => void } }) {
  const { repo } = deps;
  const now = deps.now ?? (() => new Date());

  /** Embeddings by phrasing, shared by every request (a phrasing is embedded once; the oldest go first). */
  const vectors = new Map<string, number[]>();
  const embedCached = async (texts: string[]) => {
    const missing = texts.filter((t) => !vectors.has(t));
    if (missing.length) {
      const got = await deps.embed!(missing);
      missing.forEach((t, i) => vectors.set(t, got[i]!));
      for (const k of vectors.keys()) {
        if (vectors.size <= QUESTION_VECTORS_KEPT) break;
        vectors.delete(k);
      }
    }
    return texts.map((t) => vectors.get(t) ?? []);
  };

  /** The range's latest visitor turns grouped by meaning (ADR 102); none without an embedding model, or when it fails. */
  async function frequentQuestions(scope: AnalyticsScope, r: { avatarId?: number; from: Date; to: Date; utcOffset: number }): Promise<TFrequentQuestions> {
    if (!deps.embed) return { available: false, sampled: 0, groups: [] };
    const turns = await repo.visitorTurns(scope, r, AnalyticsLimits.questionsSampled);
    try {
      return { available: true, sampled: turns.length, groups: await groupQuestions(turns, embedCached) };
    } catch (err) {
      deps.log?.warn({ err }, 'frequent questions: embedding failed');
      return { available: false, sampled: turns.length, groups: [] };
    }
  }

  return {
    /** The figures of the scope's sessions started in [from, to) (by default the last 30 days). */
    async get(scope: AnalyticsScope, q: TAnalyticsQuery): Promise<TAnalytics> {
      if (q.avatarId !== undefined && !(await repo.hasAvatar(scope, q.avatarId))) throw AppError.notFound(AnalyticsMessages.avatarNotFound);
      const to = q.to ?? now();
      const from = q.from ?? new Date(to.getTime() - AnalyticsLimits.rangeDefaultDays * DAY);
      const rows = await repo.figures(scope, { avatarId: q.avatarId, from, to, utcOffset: q.utcOffset });
      const byDay = new Map(rows.days.map((d) => [d.day, d]));
      const outcomes = new Map<TConversationOutcome, number>();
      const errorCodes: { code: string; count: number }[] = [];
      for (const { code, count } of rows.endCodes) {
        const outcome = outcomeOf(code);
        outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + count);
        if (outcome === 'error' && code) errorCodes.push({ code, count });
      }
      return {
        from: from.toISOString(),
        to: to.toISOString(),
        utcOffset: q.utcOffset,
        sessions: rows.sessions,
        minutes: round(rows.minutes, 2) ?? 0,
        days: daysOf(from, to, q.utcOffset).map((day) => ({ day, sessions: byDay.get(day)?.sessions ?? 0, minutes: round(byDay.get(day)?.minutes ?? 0, 2) ?? 0 })),
        turns: { mean: round(rows.turns.mean, 1), p50: round(rows.turns.p50, 1), p95: round(rows.turns.p95, 1), max: rows.turns.max },
        durationSeconds: { p50: round(rows.durationSeconds.p50), p90: round(rows.durationSeconds.p90), p95: round(rows.durationSeconds.p95), max: round(rows.durationSeconds.max) },
        outcomes: OUTCOMES.filter((o) => outcomes.has(o)).map((outcome) => ({ outcome, count: outcomes.get(outcome)! })),
        providerErrors: rows.providerErrors,
        errorCodes: errorCodes.sort((a, b) => b.count - a.count || a.code.localeCompare(b.code)),
        voice: {
          endToEnd: ms(rows.voice.endToEndMs),
          endOfSpeech: ms(rows.voice.endOfUtteranceMs),
          stt: ms(rows.voice.sttMs),
          firstToken: ms(rows.voice.llmFirstTokenMs),
          firstAudio: ms(rows.voice.ttsFirstByteMs),
        },
        page: { firstFrame: ms(rows.page.firstFrame), avOffset: ms(rows.page.avOffset), droppedFrames: ms(rows.page.droppedFrames) },
        questions: await frequentQuestions(scope, { avatarId: q.avatarId, from, to, utcOffset: q.utcOffset }),
      };
    },

    /**
     * The page's one report of its own figures (ADR 099). Only the page holding the session (its
     * resume token) reports, once, while the session is open or up to 10 minutes after its end;
     * anything else is a 404 like a missing session, a second report a 409.
     */
    async recordPageFigures(input: TPageFiguresRequest): Promise<void> {
      const at = now();
      const row = await repo.sessionForFigures(input.sessionId);
      if (!row || !safeEqual(hashToken(input.resumeToken), row.resumeHash)) throw AppError.notFound(LiveMessages['session-not-found']);
      if (row.endedAt && at.getTime() - row.endedAt.getTime() > PageFigureLimits.acceptAfterEndMs) throw AppError.notFound(LiveMessages['session-not-found']);
      if (row.reported || !(await repo.saveFigures(input.sessionId, input, at))) throw AppError.conflict(PageFigureMessages.alreadyReported);
    },
  };
}

export const PageFigureMessages = { alreadyReported: 'This session has already reported its figures.' } as const;

export type AnalyticsService = ReturnType<typeof createAnalyticsService>;
