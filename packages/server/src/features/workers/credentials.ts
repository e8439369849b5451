import { ZWorkerCredentialIssue, type TWorkerCredential } from '@persona/contract';
import { hashToken, randomToken } from '../../lib/tokens.js';
import type { WorkerCredentialRow, WorkersRepository } from './repository.js';

/**
 * Workers' own credentials (ADR 086), shared by the hub (admin API, enrolment) and the operator
 * CLI: a recognisable prefix and 32 random bytes, shown once, stored as its SHA-256, bound to one
 * vpsId, revoked by date.
 */
export function presentCredential(row: WorkerCredentialRow): TWorkerCredential {
  return {
    id: row.id,
    vpsId: row.vpsId,
    issuedBy: row.issuedBy,
    created: row.createdAt.toISOString(),
    lastUsed: row.lastUsedAt?.toISOString() ?? null,
    revoked: row.revokedAt?.toISOString() ?? null,
  };
}

export async function issueWorkerCredential(repo: WorkersRepository, vpsId: string, issuedBy: 'admin' | 'enrolment', now: Date): Promise<{ credential: string; row: TWorkerCredential }> {
  const checked = ZWorkerCredentialIssue.parse({ vpsId });
  const credential = `pswk_${randomToken(32)}`;
  const row = await repo.insertCredential({ vpsId: checked.vpsId, tokenHash: hashToken(credential), issuedBy }, now);
  return { credential, row: presentCredential(row) };
}
