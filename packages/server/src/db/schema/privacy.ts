import { integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import type { TRedactionSettings, TRetentionMode } from '@persona/contract';
import { avatars } from './avatars.js';

/**
 * An avatar's privacy settings (ADR 097): what is redacted before its conversations are stored or
 * sent, and how long their text is kept. No row: nothing redacted, kept forever.
 */
export const avatarPrivacy = pgTable('avatar_privacy', {
  avatarId: integer('avatar_id')
    .primaryKey()
    .references(() => avatars.id, { onDelete: 'cascade' }),
  redaction: jsonb('redaction').$type<TRedactionSettings>().notNull(),
  retentionMode: text('retention_mode').$type<TRetentionMode>().notNull().default('forever'),
  retentionDays: integer('retention_days'),
  updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
