import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex, type AnyPgColumn } from 'drizzle-orm/pg-core';

export const users = pgTable(
  'users',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity({ startWith: 1000 }),
    firstName: text('first_name').notNull(),
    lastName: text('last_name').notNull(),
    companyName: text('company_name').notNull().default(''),
    mobileNumber: text('mobile_number').notNull().default(''),
    /** Stored as given (trimmed); uniqueness and look-ups are on lower(email). */
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    status: text('status', { enum: ['UNVERIFIED', 'ACTIVE', 'DISABLED'] }).notNull().default('UNVERIFIED'),
    userType: text('user_type', { enum: ['ADMIN', 'USER'] }).notNull().default('USER'),
    /** Subscription type code (contract SubscriptionType). */
    subscriptionType: integer('subscription_type').notNull().default(1),
    subscribedAt: timestamp('subscribed_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('users_email_lower_idx').on(sql`lower(${t.email})`), index('users_user_type_idx').on(t.userType)],
);

export const sessions = pgTable(
  'sessions',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /** sha256 of the token; the token itself is never stored. */
    tokenHash: text('token_hash').notNull(),
    adminProxy: boolean('admin_proxy').notNull().default(false),
    /** The admin user who opened this session with login-as. */
    proxiedBy: integer('proxied_by'),
    /** The admin's session a login-as session was opened from: it dies with that session. */
    parentSessionId: integer('parent_session_id').references((): AnyPgColumn => sessions.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
    ip: text('ip'),
    userAgent: text('user_agent'),
  },
  (t) => [uniqueIndex('sessions_token_hash_idx').on(t.tokenHash), index('sessions_user_idx').on(t.userId), index('sessions_parent_idx').on(t.parentSessionId)],
);

/**
 * Admin login-as: a one-time ticket an administrator's session asks for (stored as sha256, single
 * use, about a minute), redeemed by POST /api/login {email, adminSessionId: ticket}.
 */
export const loginAsTickets = pgTable(
  'login_as_tickets',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    ticketHash: text('ticket_hash').notNull(),
    adminSessionId: integer('admin_session_id')
      .notNull()
      .references(() => sessions.id, { onDelete: 'cascade' }),
    targetUserId: integer('target_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [uniqueIndex('login_as_tickets_hash_idx').on(t.ticketHash), index('login_as_tickets_expiry_idx').on(t.expiresAt)],
);

/** Single-use codes mailed to users: e-mail verification and password reset. */
export const userCodes = pgTable(
  'user_codes',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ['verify', 'reset'] }).notNull(),
    codeHash: text('code_hash').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
    usedAt: timestamp('used_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [uniqueIndex('user_codes_hash_idx').on(t.codeHash), index('user_codes_user_idx').on(t.userId, t.kind)],
);

/** Failed sign-ins per e-mail (lower-cased), for the lock-out rule. */
export const loginFailures = pgTable(
  'login_failures',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    email: text('email').notNull(),
    ip: text('ip'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('login_failures_email_idx').on(t.email, t.createdAt)],
);
