import { integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/** Mail kept when no SMTP server is configured, so links can be followed without one. */
export const mailOutbox = pgTable('mail_outbox', {
  id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
  to: text('to').notNull(),
  subject: text('subject').notNull(),
  text: text('text').notNull(),
  html: text('html').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
});
