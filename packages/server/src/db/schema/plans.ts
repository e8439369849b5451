import { index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './users.js';

/** A customer's request to change plan, decided by an administrator. */
export const planRequests = pgTable(
  'plan_requests',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    currentSubType: integer('current_sub_type').notNull(),
    requestedSubType: integer('requested_sub_type').notNull(),
    dhType: integer('dh_type').notNull().default(2),
    status: text('status', { enum: ['PENDING', 'CONFIRMED', 'DECLINED', 'WITHDRAWN'] }).notNull().default('PENDING'),
    reason: text('reason'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    decidedAt: timestamp('decided_at', { withTimezone: true, mode: 'date' }),
    decidedBy: integer('decided_by').references(() => users.id, { onDelete: 'set null' }),
  },
  (t) => [index('plan_requests_user_idx').on(t.userId, t.status), index('plan_requests_status_idx').on(t.status, t.createdAt)],
);
