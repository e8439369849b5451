import { bigint, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './users.js';

/**
 * An avatar ("agent"). The searchable and ownership columns are real columns; the rest of its
 * configuration (spec "Avatar (agent)") is one JSON document whose secrets are sealed
 * (AES-256-GCM) before they are stored.
 */
export const avatars = pgTable(
  'avatars',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity({ startWith: 10001 }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    nlpEngine: integer('nlp_engine').notNull().default(0),
    dhType: integer('dh_type').notNull().default(2),
    setupMode: integer('setup_mode').notNull().default(0),
    /** The rest of the avatar's configuration; secrets inside are sealed. */
    config: jsonb('config').$type<Record<string, unknown>>().notNull().default({}),
    photoUrl: text('photo_url'),
    /** Incremented on every update; an update based on an older version is StaleRequest. */
    version: integer('version').notNull().default(1),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('avatars_user_idx').on(t.userId, t.updatedAt)],
);

/** Files an avatar uses: background images/videos, 3D scenes, its photo. */
export const avatarMedia = pgTable(
  'avatar_media',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    avatarId: integer('avatar_id').references(() => avatars.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['backgroundImage', 'backgroundVideo', 'scene', 'photo', 'avatarModel'] }).notNull(),
    storageKey: text('storage_key').notNull(),
    name: text('name').notNull(),
    mime: text('mime').notNull(),
    size: bigint('size', { mode: 'number' }).notNull(),
    /** Own avatar models: what the upload check found (contract ZAvatarModelReport). */
    meta: jsonb('meta'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('avatar_media_avatar_idx').on(t.avatarId), index('avatar_media_user_idx').on(t.userId)],
);
