import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './users.js';

/**
 * An ES256 (P-256) key pair for token-based avatar access. The public key is stored; the private
 * key only for the account's default key (sealed), which the portal uses to mint its own tokens.
 */
export const encryptionKeys = pgTable(
  'encryption_keys',
  {
    id: integer('id').primaryKey().generatedAlwaysAsIdentity({ startWith: 100 }),
    userId: integer('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    isDefault: boolean('is_default').notNull().default(false),
    /** SPKI PEM. */
    publicKey: text('public_key').notNull(),
    /** PKCS#8 PEM sealed with the secret box; only for the default key. */
    privateKeySealed: text('private_key_sealed'),
    createdAt: timestamp('created_at', { withTimezone: true, mode: 'date' }).notNull().defaultNow(),
  },
  (t) => [
    index('encryption_keys_user_idx').on(t.userId),
    // Exactly one default key per account.
    uniqueIndex('encryption_keys_one_default_idx').on(t.userId).where(sql`${t.isDefault}`),
  ],
);
