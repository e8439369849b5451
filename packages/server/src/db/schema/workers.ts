import { index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/** Avatar servers ("VPS") that registered over the worker websocket. */
export const workers = pgTable(
  'workers',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    vpsId: text('vps_id').notNull(),
    name: text('name').notNull(),
    address: text('address').notNull().default(''),
    privateIp: text('private_ip').notNull().default(''),
    remoteIp: text('remote_ip').notNull().default(''),
    webSocket: text('web_socket').notNull().default(''),
    status: text('status', { enum: ['AVAILABLE', 'BUSY', 'DISCONNECTED'] }).notNull().default('DISCONNECTED'),
    /** The current connection's id (null while disconnected). */
    sessionId: text('session_id'),
    assignedUserId: integer('assigned_user_id'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lastConnectTime: timestamp('last_connect_time', { withTimezone: true, mode: 'date' }),
    lastPingTime: timestamp('last_ping_time', { withTimezone: true, mode: 'date' }),
    lastUsedTime: timestamp('last_used_time', { withTimezone: true, mode: 'date' }),
    deletedAt: timestamp('deleted_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [uniqueIndex('workers_vps_id_idx').on(t.vpsId)],
);

/**
 * Each worker's own credential (ADR 086): issued by an administrator (`npm run admin -- worker-credential
 * issue`, the admin API) or by enrolment with the shared WORKER_SECRET; stored as its SHA-256 only;
 * bound to one vpsId; revoked by setting `revokedAt` (a worker using it is disconnected).
 */
export const workerCredentials = pgTable(
  'worker_credentials',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity(),
    vpsId: text('vps_id').notNull(),
    tokenHash: text('token_hash').notNull(),
    issuedBy: text('issued_by', { enum: ['admin', 'enrolment'] }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, mode: 'date' }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, mode: 'date' }),
  },
  (t) => [uniqueIndex('worker_credentials_token_idx').on(t.tokenHash), index('worker_credentials_vps_idx').on(t.vpsId)],
);
