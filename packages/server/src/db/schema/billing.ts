import { bigint, date, index, integer, pgTable, primaryKey, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './users.js';

/**
 * One row per avatar conversation. Avatar ids are kept without a foreign key (and with the
 * name at the time) so billing survives the avatar's deletion.
 */
export const callRecords = pgTable(
  'call_records',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    avatarId: integer('avatar_id').notNull(),
    avatarName: text('avatar_name').notNull(),
    sessionId: text('session_id').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true, mode: 'date' }).notNull(),
    endedAt: timestamp('ended_at', { withTimezone: true, mode: 'date' }).notNull(),
    durationSeconds: integer('duration_seconds').notNull(),
  },
  (t) => [
    index('call_records_user_started_idx').on(t.userId, t.startedAt),
    index('call_records_avatar_started_idx').on(t.avatarId, t.startedAt),
    index('call_records_session_idx').on(t.sessionId),
  ],
);

/** Per account, avatar and UTC day: the totals of call_records, kept in step on every insert. */
export const callDailyUsage = pgTable(
  'call_daily_usage',
  {
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    avatarId: integer('avatar_id').notNull(),
    day: date('day', { mode: 'string' }).notNull(),
    avatarName: text('avatar_name').notNull(),
    totalSeconds: bigint('total_seconds', { mode: 'number' }).notNull(),
    callCount: integer('call_count').notNull(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.day, t.avatarId] })],
);
