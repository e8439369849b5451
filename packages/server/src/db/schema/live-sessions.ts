import { boolean, customType, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import type { TConversationChannel, TLiveHistoryEntry, TLiveProviderErrorCount, TLiveVoiceTurnMetrics } from '@persona/contract';
import { avatars } from './avatars.js';

const tsvector = customType<{ data: string }>({ dataType: () => 'tsvector' });

/**
 * One live avatar conversation (ADR 013): admitted by the portal, run by a worker. The row keeps
 * what the portal needs to bill it, resume it on another worker and count it against the daily
 * limits; the sweep closes rows whose worker stopped reporting. Avatar ids without a foreign key,
 * like call_records: a session outlives its avatar's deletion until it is billed.
 */
export const liveSessions = pgTable(
  'live_sessions',
  {
    id: text('id').primaryKey(),
    avatarId: integer('avatar_id').notNull(),
    ownerUserId: integer('owner_user_id').notNull(),
    avatarName: text('avatar_name').notNull(),
    /** The worker running it now (changes on resume). */
    workerId: integer('worker_id').notNull(),
    visitorId: text('visitor_id'),
    clientIp: text('client_ip').notNull(),
    origin: text('origin'),
    client: jsonb('client').$type<{ deviceOS?: string; locale?: string; spokenLanguage?: string }>().notNull().default({}),
    textOnly: boolean('text_only').notNull().default(false),
    /** Over a daily limit: the brain answers in echo-back. */
    echo: boolean('echo').notNull().default(false),
    /** sha256 of the resume token handed to the page. */
    resumeHash: text('resume_hash').notNull(),
    /** The ticket id the worker claimed the session with (each ticket claims once). */
    claimedJti: text('claimed_jti'),
    /** The ticket id handed out last (a claim must name it). */
    ticketJti: text('ticket_jti').notNull(),
    oauthSubject: text('oauth_subject'),
    history: jsonb('history').$type<TLiveHistoryEntry[]>().notNull().default([]),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull(),
    lastHeartbeatAt: timestamp('last_heartbeat_at', { withTimezone: true, mode: 'date' }).notNull(),
    billingCheckedAt: timestamp('billing_checked_at', { withTimezone: true, mode: 'date' }),
    endedAt: timestamp('ended_at', { withTimezone: true, mode: 'date' }),
    endCode: text('end_code'),
    /** Where the visitor talked (ADR 092): set at admission, `agent-api` once an own agent takes it; null on rows older than 0013. */
    channel: text('channel').$type<TConversationChannel>(),
    /** The spoken turns' latency figures the worker sent with the session's end (ADR 092). */
    voiceTurns: jsonb('voice_turns').$type<TLiveVoiceTurnMetrics[]>().notNull().default([]),
    /** Median end-of-speech → first-audio of those turns, for the conversation list. */
    voiceP50Ms: integer('voice_p50_ms'),
    /** The avatar's model's summary of the session, sent with its end (ADR 093: the `session.ended` webhook). */
    summary: text('summary'),
    /** When retention removed the history, summary and turn figures (ADR 097). */
    textRemovedAt: timestamp('text_removed_at', { withTimezone: true, mode: 'date' }),
    /**
     * What was said, for the conversation search (ADR 098): the history's texts as English lexemes,
     * kept by the trigger of migration 0017 whenever `history` is written (never set by the code);
     * made from the stored, already redacted text, and emptied with it.
     */
    searchTsv: tsvector('search_tsv'),
    /** The page's own figures for the session (ADR 099), reported once: when (null: not yet), and what. */
    pageFiguresAt: timestamp('page_figures_at', { withTimezone: true, mode: 'date' }),
    firstFrameMs: integer('first_frame_ms'),
    avOffsetMs: integer('av_offset_ms'),
    droppedFrames: integer('dropped_frames'),
    /**
     * The visitor's turns in `history`, written with it (ADR 099: analytics count them without
     * reading the history) and kept when retention or erasure removes the text (ADR 097); null
     * only on rows whose history predates migration 0018 and was never written since.
     */
    visitorTurns: integer('visitor_turns'),
    /** The session's provider failures by provider and phase, sent with its end (ADR 099). */
    providerErrors: jsonb('provider_errors').$type<TLiveProviderErrorCount[]>().notNull().default([]),
  },
  (t) => [
    index('live_sessions_open_idx').on(t.workerId).where(sql`ended_at is null`),
    index('live_sessions_avatar_started_idx').on(t.avatarId, t.startedAt),
    index('live_sessions_ip_started_idx').on(t.clientIp, t.startedAt),
    // The conversation list's keyset paging (ADR 092): an account's, and every account's for administrators.
    index('live_sessions_owner_started_idx').on(t.ownerUserId, t.startedAt, t.id),
    index('live_sessions_started_idx').on(t.startedAt, t.id),
    // The retention sweep (ADR 097): an avatar's sessions whose text is still there, oldest first.
    index('live_sessions_text_kept_idx').on(t.avatarId, t.startedAt).where(sql`text_removed_at is null`),
    // Sessions whose text went lately: their webhook bodies still being retried are dropped once finished.
    index('live_sessions_text_removed_idx').on(t.textRemovedAt).where(sql`text_removed_at is not null`),
    // The conversation search (ADR 098).
    index('live_sessions_search_idx').using('gin', t.searchTsv),
  ],
);

/**
 * Avatar memory (`summaryEnabled`): a short note per avatar and returning visitor (the page's
 * anonymous visitor id), written by the model at the end of a session and given to it next time.
 */
export const avatarMemories = pgTable(
  'avatar_memories',
  {
    avatarId: integer('avatar_id')
      .notNull()
      .references(() => avatars.id, { onDelete: 'cascade' }),
    visitorId: text('visitor_id').notNull(),
    summary: text('summary').notNull(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.avatarId, t.visitorId] })],
);
