import { z } from 'zod';
import { ZId, ZStatus } from './common.js';
import { ZConversationOutcome } from './conversations.js';
import { PageFigurePath } from './page-figures.js';

/**
 * Analytics (issue 30, ADR 099): the figures the avatar page measures for its session (first
 * frame, A/V offset, dropped frames), and one account's (or, for administrators, every account's)
 * sessions, minutes, outcomes and latencies over a date range.
 */
export const AnalyticsPaths = {
  /** GET ZAnalyticsQuery → ZAnalyticsResponse: the caller's account (API keys: conversations:read). */
  get: '/api/get_analytics',
  /** Administrators: every account's (same query and answer). */
  adminGet: '/api/admin/get_analytics',
  /** POST ZPageFiguresRequest (public: the session's resume token is the credential). */
  pageFigures: PageFigurePath,
} as const;

export const AnalyticsLimits = {
  /** The widest date range (days). */
  rangeMaxDays: 366,
  /** The default range when `from` is not given (days before `to`). */
  rangeDefaultDays: 30,
  /** The browser's offset from UTC, minutes (UTC−14 … UTC+14). */
  utcOffsetMax: 840,
  /** Frequent questions: the range's latest visitor turns read, the groups answered, the phrasings shown per group. */
  questionsSampled: 300,
  questionGroups: 10,
  questionVariants: 3,
} as const;

/** Visitor questions grouped by meaning (ADR 102): embeddings of the knowledge base's model. */
export const ZFrequentQuestions = z.object({
  /** False when no embedding model is configured: nothing is grouped. */
  available: z.boolean(),
  /** Visitor turns read (the range's latest, at most `questionsSampled`). */
  sampled: z.number().int(),
  groups: z.array(
    z.object({
      /** The group's most frequent phrasing. */
      text: z.string(),
      /** Visitor turns in the group, and the sessions they came from. */
      count: z.number().int(),
      sessions: z.number().int(),
      /** Other phrasings, the most frequent first. */
      variants: z.array(z.string()),
    }),
  ),
});
export type TFrequentQuestions = z.infer<typeof ZFrequentQuestions>;

export const AnalyticsMessages = {
  loadFailed: 'Failed to fetch analytics.',
  badRange: 'from must be before to.',
  rangeTooLong: `A date range may span at most ${AnalyticsLimits.rangeMaxDays} days.`,
  badDate: 'from and to must be dates (ISO 8601, with a time zone).',
  empty: 'No conversations in this period.',
  avatarNotFound: 'This avatar does not exist or has been deleted.',
} as const;

const ZInstant = z
  .string({ error: AnalyticsMessages.badDate })
  .max(40, { error: AnalyticsMessages.badDate })
  .pipe(z.iso.datetime({ offset: true, error: AnalyticsMessages.badDate }))
  .transform((s) => new Date(s))
  .refine((d) => d.getUTCFullYear() >= 2000 && d.getUTCFullYear() < 3000, { error: AnalyticsMessages.badDate });

export const ZAnalyticsQuery = z
  .object({
    avatarId: z.optional(ZId),
    from: ZInstant.optional(),
    to: ZInstant.optional(),
    /** Minutes east of UTC the days are counted in (the browser's); 0 by default. */
    utcOffset: z.coerce.number().int().min(-AnalyticsLimits.utcOffsetMax).max(AnalyticsLimits.utcOffsetMax).default(0),
  })
  .strict()
  .check((ctx) => {
    const { from, to } = ctx.value;
    if (from instanceof Date && to instanceof Date) {
      if (from.getTime() > to.getTime()) ctx.issues.push({ code: 'custom', message: AnalyticsMessages.badRange, path: ['from'], input: from });
      else if (to.getTime() - from.getTime() > AnalyticsLimits.rangeMaxDays * 86_400_000)
        ctx.issues.push({ code: 'custom', message: AnalyticsMessages.rangeTooLong, path: ['to'], input: to });
    }
  });
export type TAnalyticsQuery = z.infer<typeof ZAnalyticsQuery>;
export type TAnalyticsParams = Partial<Record<keyof TAnalyticsQuery, string>>;

/** Percentiles of one figure (null: no value in the range). */
export const ZPercentiles = z.object({ count: z.number().int(), p50: z.number().nullable(), p95: z.number().nullable() });
export type TPercentiles = z.infer<typeof ZPercentiles>;

export const ZAnalytics = z.object({
  from: z.string(),
  to: z.string(),
  utcOffset: z.number().int(),
  /** Sessions started in the range; minutes of those ended. */
  sessions: z.number().int(),
  minutes: z.number(),
  /** One entry per day of the range (the caller's days), empty days included. */
  days: z.array(z.object({ day: z.string(), sessions: z.number().int(), minutes: z.number() })),
  /** Visitor turns per session. */
  turns: z.object({ mean: z.number().nullable(), p50: z.number().nullable(), p95: z.number().nullable(), max: z.number().nullable() }),
  /** Ended sessions' durations, seconds. */
  durationSeconds: z.object({ p50: z.number().nullable(), p90: z.number().nullable(), p95: z.number().nullable(), max: z.number().nullable() }),
  outcomes: z.array(z.object({ outcome: ZConversationOutcome, count: z.number().int() })),
  /** The error outcomes by end code, the most frequent first. */
  errorCodes: z.array(z.object({ code: z.string(), count: z.number().int() })),
  /** Provider failures by provider and phase (start, speech, listening, summary…), the most frequent first. */
  providerErrors: z.array(z.object({ provider: z.string(), phase: z.string(), count: z.number().int(), sessions: z.number().int() })),
  /** Spoken turns' latencies (ms): voice to voice and its stages. */
  voice: z.object({
    endToEnd: ZPercentiles,
    endOfSpeech: ZPercentiles,
    stt: ZPercentiles,
    firstToken: ZPercentiles,
    firstAudio: ZPercentiles,
  }),
  /** The pages' own figures (ms; dropped frames per session). */
  page: z.object({ firstFrame: ZPercentiles, avOffset: ZPercentiles, droppedFrames: ZPercentiles }),
  /** The most frequent questions grouped by meaning (ADR 102). */
  questions: ZFrequentQuestions.optional(),
});
export type TAnalytics = z.infer<typeof ZAnalytics>;

export const ZAnalyticsResponse = z.object({ status: ZStatus, analytics: ZAnalytics });
export type TAnalyticsResponse = z.infer<typeof ZAnalyticsResponse>;
