import { index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './users.js';

/** An identity service (Google, SmartPension) an avatar can sign its visitors in with. */
export const oauthApps = pgTable(
  'oauth_apps',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity({ startWith: 100 }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    partner: text('partner', { enum: ['Google', 'SmartPension'] }).notNull(),
    clientId: text('client_id').notNull(),
    /** Sealed with the secret box (AES-256-GCM); never stored or returned in clear. */
    clientSecretSealed: text('client_secret_sealed').notNull(),
    oauthUrl: text('oauth_url').notNull(),
    tokenIssueUrl: text('token_issue_url').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [index('oauth_apps_user_idx').on(t.userId)],
);

/** A started sign-in: the nonce inside the signed state, consumed once by the callback. */
export const oauthStates = pgTable(
  'oauth_states',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    appId: integer('app_id')
      .notNull()
      .references(() => oauthApps.id, { onDelete: 'cascade' }),
    nonceHash: text('nonce_hash').notNull(),
    returnTo: text('return_to'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [uniqueIndex('oauth_states_nonce_idx').on(t.nonceHash), index('oauth_states_expiry_idx').on(t.expiresAt)],
);

/** The result of a completed sign-in: who signed in, and the provider's tokens (sealed). */
export const oauthGrants = pgTable(
  'oauth_grants',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    appId: integer('app_id')
      .notNull()
      .references(() => oauthApps.id, { onDelete: 'cascade' }),
    /**
     * sha256 of the grant handed to the browser (the token itself is never stored); null until the
     * one-time code is exchanged for it.
     */
    sessionHash: text('session_hash'),
    /** sha256 of the one-time code the callback put on the returnTo URL; cleared when exchanged. */
    codeHash: text('code_hash'),
    codeExpiresAt: timestamp('code_expires_at', { withTimezone: true, mode: 'date' }),
    /** sha256 of the sign-in cookie of the browser that started the sign-in: only it may exchange the code. */
    browserHash: text('browser_hash'),
    subject: text('subject'),
    email: text('email'),
    /** The token answer (access/refresh/id token), sealed. */
    tokensSealed: text('tokens_sealed').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, mode: 'date' }).notNull(),
  },
  (t) => [uniqueIndex('oauth_grants_session_idx').on(t.sessionHash), uniqueIndex('oauth_grants_code_idx').on(t.codeHash), index('oauth_grants_app_idx').on(t.appId)],
);
