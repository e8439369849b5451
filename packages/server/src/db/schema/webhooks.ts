import { boolean, index, integer, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { sql } from 'drizzle-orm';
import type { TWebhookDeliveryStatus, TWebhookEventType } from '@persona/contract';
import { users } from './users.js';
import { avatars } from './avatars.js';

/** An account's webhook endpoint (ADR 093): one avatar's sessions, or (avatar_id null) all of the account's. */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity({ startWith: 100 }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    avatarId: integer('avatar_id').references(() => avatars.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    events: jsonb('events').$type<TWebhookEventType[]>().notNull(),
    enabled: boolean('enabled').notNull().default(true),
    /** The signing secret (`whsec_…`), sealed with the secret box; shown once, never returned. */
    secretSealed: text('secret_sealed').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('webhook_endpoints_user_idx').on(t.userId), index('webhook_endpoints_avatar_idx').on(t.avatarId)],
);

/**
 * The durable queue and the delivery log in one (ADR 093): one row per event and endpoint. A
 * session's row is queued in the transaction that records the session event; its body is made at
 * its first attempt (when the worker's summary and figures are in) and kept for every retry and resend.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    endpointId: integer('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    eventId: text('event_id').notNull(),
    eventType: text('event_type').notNull(),
    /** The live session the event is about (null for a test event). */
    sessionId: text('session_id'),
    /** The exact JSON sent (signed as is); null until the first attempt makes it. */
    body: text('body'),
    status: text('status').$type<TWebhookDeliveryStatus>().notNull().default('pending'),
    attempts: integer('attempts').notNull().default(0),
    /** Due at; a claimed row is pushed a lease ahead, so a crashed sender's row comes back. */
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, mode: 'date' }),
    lastAttemptAt: timestamp('last_attempt_at', { withTimezone: true, mode: 'date' }),
    responseStatus: integer('response_status'),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [
    index('webhook_deliveries_due_idx').on(t.nextAttemptAt).where(sql`status = 'pending'`),
    index('webhook_deliveries_endpoint_idx').on(t.endpointId, t.createdAt, t.id),
    index('webhook_deliveries_session_idx').on(t.sessionId).where(sql`status = 'pending' and body is null`),
    // A deleted, erased or retention-emptied session's bodies (ADR 097).
    index('webhook_deliveries_session_body_idx').on(t.sessionId).where(sql`body is not null`),
  ],
);
