import { and, asc, desc, eq, gt, inArray, isNull, lt, ne } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { workerCredentials, workers } from '../../db/schema/index.js';

export type WorkerRow = typeof workers.$inferSelect;
export type WorkerCredentialRow = typeof workerCredentials.$inferSelect;

export function createWorkersRepository(db: Db) {
  // GET /api/list_vps: prepared once.
  const listQuery = db.select().from(workers).where(isNull(workers.deletedAt)).orderBy(asc(workers.id)).prepare('workers_list');
  return {
    /** Registers (or re-registers, un-deleting) a worker by its stable vpsId. */
    async register(values: Pick<WorkerRow, 'vpsId' | 'name' | 'address' | 'privateIp' | 'remoteIp' | 'webSocket' | 'status' | 'sessionId'>, now: Date): Promise<WorkerRow> {
      const [row] = await db
        .insert(workers)
        .values({ ...values, lastConnectTime: now, lastPingTime: now })
        .onConflictDoUpdate({
          target: workers.vpsId,
          set: { ...values, lastConnectTime: now, lastPingTime: now, deletedAt: null },
        })
        .returning();
      return row!;
    },
    async ping(id: number, sessionId: string, status: 'AVAILABLE' | 'BUSY', now: Date): Promise<void> {
      await db
        .update(workers)
        .set({ status, lastPingTime: now, ...(status === 'BUSY' ? { lastUsedTime: now } : {}) })
        .where(and(eq(workers.id, id), eq(workers.sessionId, sessionId)));
    },
    /** Marks one connection gone (only if it is still the worker's current one). */
    async disconnect(id: number, sessionId: string): Promise<void> {
      await db
        .update(workers)
        .set({ status: 'DISCONNECTED', sessionId: null })
        .where(and(eq(workers.id, id), eq(workers.sessionId, sessionId)));
    },
    /** Connected workers whose last ping is older than the cutoff. */
    async silentSince(cutoff: Date): Promise<WorkerRow[]> {
      return db
        .select()
        .from(workers)
        .where(and(isNull(workers.deletedAt), lt(workers.lastPingTime, cutoff), inArray(workers.status, ['AVAILABLE', 'BUSY'])));
    },
    /** On start: nothing is connected to a fresh process. */
    async disconnectAll(): Promise<void> {
      await db.update(workers).set({ status: 'DISCONNECTED', sessionId: null }).where(isNull(workers.deletedAt));
    },
    async list(): Promise<WorkerRow[]> {
      return listQuery.execute();
    },
    async find(id: number): Promise<WorkerRow | undefined> {
      const [row] = await db.select().from(workers).where(eq(workers.id, id)).limit(1);
      return row;
    },
    async findByVpsId(vpsId: string): Promise<WorkerRow | undefined> {
      const [row] = await db.select().from(workers).where(eq(workers.vpsId, vpsId)).limit(1);
      return row;
    },
    /** Is a worker of this vpsId connected, through another connection than `exceptSessionId` (pinged after `since`)? */
    async isLive(vpsId: string, since: Date, exceptSessionId?: string): Promise<boolean> {
      const rows = await db
        .select({ id: workers.id })
        .from(workers)
        .where(
          and(
            eq(workers.vpsId, vpsId),
            isNull(workers.deletedAt),
            inArray(workers.status, ['AVAILABLE', 'BUSY']),
            gt(workers.lastPingTime, since),
            ...(exceptSessionId ? [ne(workers.sessionId, exceptSessionId)] : []),
          ),
        )
        .limit(1);
      return rows.length > 0;
    },
    async insertCredential(values: { vpsId: string; tokenHash: string; issuedBy: 'admin' | 'enrolment' }, now: Date): Promise<WorkerCredentialRow> {
      const [row] = await db.insert(workerCredentials).values({ ...values, createdAt: now }).returning();
      return row!;
    },
    /** A credential that is not revoked, by the hash of its token. */
    async activeCredential(tokenHash: string): Promise<WorkerCredentialRow | undefined> {
      const [row] = await db
        .select()
        .from(workerCredentials)
        .where(and(eq(workerCredentials.tokenHash, tokenHash), isNull(workerCredentials.revokedAt)))
        .limit(1);
      return row;
    },
    async isCredentialActive(id: number): Promise<boolean> {
      const rows = await db.select({ id: workerCredentials.id }).from(workerCredentials).where(and(eq(workerCredentials.id, id), isNull(workerCredentials.revokedAt))).limit(1);
      return rows.length > 0;
    },
    async touchCredential(id: number, now: Date): Promise<void> {
      await db.update(workerCredentials).set({ lastUsedAt: now }).where(eq(workerCredentials.id, id));
    },
    /** Revokes one credential (or every enrolment credential of a vpsId); the ids revoked. */
    async revokeCredentials(where: { id: number } | { vpsId: string; issuedBy: 'enrolment' }, now: Date): Promise<number[]> {
      const cond = 'id' in where ? eq(workerCredentials.id, where.id) : and(eq(workerCredentials.vpsId, where.vpsId), eq(workerCredentials.issuedBy, where.issuedBy));
      const rows = await db
        .update(workerCredentials)
        .set({ revokedAt: now })
        .where(and(cond, isNull(workerCredentials.revokedAt)))
        .returning({ id: workerCredentials.id });
      return rows.map((r) => r.id);
    },
    async listCredentials(): Promise<WorkerCredentialRow[]> {
      return db.select().from(workerCredentials).orderBy(desc(workerCredentials.id)).limit(1000);
    },
    async findCredential(id: number): Promise<WorkerCredentialRow | undefined> {
      const [row] = await db.select().from(workerCredentials).where(eq(workerCredentials.id, id)).limit(1);
      return row;
    },
    async markDeleted(id: number, now: Date): Promise<boolean> {
      const rows = await db
        .update(workers)
        .set({ deletedAt: now, status: 'DISCONNECTED', sessionId: null })
        .where(and(eq(workers.id, id), isNull(workers.deletedAt)))
        .returning({ id: workers.id });
      return rows.length === 1;
    },
  };
}

export type WorkersRepository = ReturnType<typeof createWorkersRepository>;
