import { index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './users.js';

/** A customer's request for an image (photo clone) avatar, made by the team from their photo. */
export const imageAvatarRequests = pgTable(
  'image_avatar_requests',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    notes: text('notes').notNull().default(''),
    photoKey: text('photo_key').notNull(),
    status: text('status', { enum: ['PENDING', 'COMPLETED', 'DECLINED'] }).notNull().default('PENDING'),
    reason: text('reason'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    decidedAt: timestamp('decided_at', { withTimezone: true, mode: 'date' }),
    decidedBy: integer('decided_by').references(() => users.id, { onDelete: 'set null' }),
  },
  (t) => [index('image_avatar_requests_status_idx').on(t.status, t.createdAt), index('image_avatar_requests_user_idx').on(t.userId)],
);

/** Avatars made for one account (shown in its IMAGE AVATARS). */
export const customAvatars = pgTable(
  'custom_avatars',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    requestId: integer('request_id').references(() => imageAvatarRequests.id, { onDelete: 'set null' }),
    name: text('name').notNull(),
    dhType: integer('dh_type').notNull().default(1),
    thumbnailKey: text('thumbnail_key').notNull(),
    config: jsonb('config').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('custom_avatars_user_idx').on(t.userId)],
);
