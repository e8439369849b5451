import { sql } from 'drizzle-orm';
import { index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './users.js';

/** A python function an avatar may call, once a moderator approved its code. */
export const functions = pgTable(
  'functions',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity({ startWith: 100 }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** The File Name (a python identifier, optionally with .py). */
    name: text('name').notNull(),
    code: text('code').notNull(),
    language: text('language', { enum: ['python'] }).notNull().default('python'),
    /** The template it was started from. */
    template: text('template'),
    /** 0 Pending, 1 Approved, 2 Rejected. */
    approvalStatus: integer('approval_status').notNull().default(0),
    rejectionReason: text('rejection_reason'),
    /** Incremented on every change; a moderator decides on the version they read. */
    version: integer('version').notNull().default(1),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }),
    adminUpdatedAt: timestamp('admin_updated_at', { withTimezone: true, mode: 'date' }),
    reviewedBy: integer('reviewed_by').references(() => users.id, { onDelete: 'set null' }),
  },
  (t) => [
    index('functions_user_idx').on(t.userId),
    index('functions_status_idx').on(t.approvalStatus, t.createdAt),
    uniqueIndex('functions_user_name_idx').on(t.userId, sql`lower(${t.name})`),
  ],
);
