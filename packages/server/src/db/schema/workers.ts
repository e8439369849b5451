import { integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

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
