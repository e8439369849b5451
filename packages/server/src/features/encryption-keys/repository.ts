import { and, asc, desc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { avatars, encryptionKeys } from '../../db/schema/index.js';

export type EncryptionKeyRow = typeof encryptionKeys.$inferSelect;

export function createEncryptionKeysRepository(db: Db) {
  // Read on every GET /api/account_info: prepared once.
  const listQuery = db
    .select()
    .from(encryptionKeys)
    .where(eq(encryptionKeys.userId, sql.placeholder('userId')))
    .orderBy(desc(encryptionKeys.isDefault), asc(encryptionKeys.createdAt), asc(encryptionKeys.id))
    .prepare('encryption_keys_list');
  return {
    /** The default key first, then by creation. */
    async list(userId: number): Promise<EncryptionKeyRow[]> {
      return listQuery.execute({ userId });
    },
    async findOwned(userId: number, id: number): Promise<EncryptionKeyRow | undefined> {
      const [row] = await db
        .select()
        .from(encryptionKeys)
        .where(and(eq(encryptionKeys.id, id), eq(encryptionKeys.userId, userId)))
        .limit(1);
      return row;
    },
    async findDefault(userId: number): Promise<EncryptionKeyRow | undefined> {
      const [row] = await db
        .select()
        .from(encryptionKeys)
        .where(and(eq(encryptionKeys.userId, userId), eq(encryptionKeys.isDefault, true)))
        .limit(1);
      return row;
    },
    async insert(values: typeof encryptionKeys.$inferInsert): Promise<EncryptionKeyRow> {
      const [row] = await db.insert(encryptionKeys).values(values).returning();
      return row!;
    },
    /** Inserts the default key unless the account already has one (the unique index decides races). */
    async insertDefault(values: Omit<typeof encryptionKeys.$inferInsert, 'isDefault'>): Promise<EncryptionKeyRow | undefined> {
      const [row] = await db
        .insert(encryptionKeys)
        .values({ ...values, isDefault: true })
        .onConflictDoNothing({ target: encryptionKeys.userId, where: sql`${encryptionKeys.isDefault}` })
        .returning();
      return row;
    },
    /** Deletes a key that is not the default one. */
    async deleteNonDefault(userId: number, id: number): Promise<boolean> {
      const rows = await db
        .delete(encryptionKeys)
        .where(and(eq(encryptionKeys.id, id), eq(encryptionKeys.userId, userId), eq(encryptionKeys.isDefault, false)))
        .returning({ id: encryptionKeys.id });
      return rows.length > 0;
    },
    /** The user's avatars whose configuration uses this key (config.encKeyId). */
    async avatarsUsingKey(userId: number, keyId: number): Promise<{ id: number; name: string }[]> {
      return db
        .select({ id: avatars.id, name: avatars.name })
        .from(avatars)
        .where(and(eq(avatars.userId, userId), sql`${avatars.config}->>'encKeyId' = ${String(keyId)}`))
        .orderBy(asc(avatars.id));
    },
  };
}

export type EncryptionKeysRepository = ReturnType<typeof createEncryptionKeysRepository>;
