import { and, eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { avatars } from '../../db/schema/index.js';

export function createPresenceRepository(db: Db) {
  return {
    /** The avatar's id when it belongs to the user; undefined otherwise. */
    async ownedAvatarId(avatarId: number, userId: number): Promise<number | undefined> {
      const [row] = await db
        .select({ id: avatars.id })
        .from(avatars)
        .where(and(eq(avatars.id, avatarId), eq(avatars.userId, userId)))
        .limit(1);
      return row?.id;
    },
  };
}
