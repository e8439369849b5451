import { randomBytes } from 'node:crypto';
import {
  API_KEY_PATTERN,
  ApiKeyLimits,
  ApiKeyMessages,
  ApiKeyScopes,
  readAvatarAccess,
  type TApiKey,
  type TApiKeyScope,
} from '@persona/contract';
import { AppError } from '../../lib/app-error.js';
import { hashToken, safeEqual } from '../../lib/tokens.js';
import type { ApiKeyResolver } from '../../plugins/auth.js';
import type { ApiKeyRow, ApiKeysRepository } from './repository.js';

const DAY_MS = 86_400_000;

export interface ApiKeysServiceDeps {
  repo: ApiKeysRepository;
  /** Signs a visitor token for an avatar of the owner with the account's key the portal holds (encryption-keys). */
  mintToken: (ownerId: number, avatarId: number, opts: { userId?: string; expiresInSeconds: number }) => Promise<string>;
  now?: () => Date;
}

/** A key made now: `ps_live_<12 hex>_<43 base64url>` (256 random bits after the prefix). */
export function newApiKey(): { token: string; prefix: string } {
  const prefix = randomBytes(6).toString('hex');
  return { token: `ps_live_${prefix}_${randomBytes(32).toString('base64url')}`, prefix };
}

export function createApiKeysService(deps: ApiKeysServiceDeps) {
  const { repo } = deps;
  const now = deps.now ?? (() => new Date());
  const known = new Set<string>(ApiKeyScopes);

  const present = (row: ApiKeyRow): TApiKey => ({
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    scopes: row.scopes.filter((s): s is TApiKeyScope => known.has(s)),
    created: row.createdAt.toISOString(),
    expiresAt: row.expiresAt?.toISOString() ?? null,
    lastUsedAt: row.lastUsedAt?.toISOString() ?? null,
  });

  /** A call's key → its account with the key's scopes; null for a key unknown, expired, revoked or of a disabled account. */
  const resolve: ApiKeyResolver = async (token) => {
    const parts = API_KEY_PATTERN.exec(token);
    if (!parts) return null;
    const found = await repo.findByPrefix(parts[1]!);
    // The prefix only finds the row: the whole key's hash must match (compared in constant time).
    if (!found || !safeEqual(found.key.hash, hashToken(token))) return null;
    const t = now();
    if (found.key.revokedAt || (found.key.expiresAt && found.key.expiresAt.getTime() <= t.getTime())) return null;
    if (!found.key.lastUsedAt || t.getTime() - found.key.lastUsedAt.getTime() >= ApiKeyLimits.lastUsedEverySeconds * 1000) {
      // Not awaited by the call; conditional, so concurrent calls write it once.
      void repo.touch(found.key.id, t, new Date(t.getTime() - ApiKeyLimits.lastUsedEverySeconds * 1000)).catch(() => {});
    }
    return {
      userId: found.user.id,
      email: found.user.email,
      userName: `${found.user.firstName} ${found.user.lastName}`.trim(),
      userType: found.user.userType,
      adminProxy: false,
      sessionId: 0,
      apiKey: { id: found.key.id, scopes: found.key.scopes.filter((s): s is TApiKeyScope => known.has(s)) },
    };
  };

  return {
    resolve,

    async list(ownerUserId: number): Promise<TApiKey[]> {
      return (await repo.list(ownerUserId)).map(present);
    },

    /** Makes a key: the whole key is in this answer only; the row keeps its SHA-256. */
    async create(ownerUserId: number, input: { name: string; scopes: TApiKeyScope[]; expiresInDays: number | null }): Promise<{ apiKey: TApiKey; secret: string }> {
      if ((await repo.countActive(ownerUserId)) >= ApiKeyLimits.perAccountMax) throw AppError.conflict(ApiKeyMessages.tooMany);
      const { token, prefix } = newApiKey();
      const row = await repo.insert({
        ownerUserId,
        name: input.name,
        prefix,
        hash: hashToken(token),
        scopes: [...input.scopes],
        expiresAt: input.expiresInDays === null ? null : new Date(now().getTime() + input.expiresInDays * DAY_MS),
      });
      return { apiKey: present(row), secret: token };
    },

    async revoke(ownerUserId: number, id: string): Promise<void> {
      if (!(await repo.revoke(ownerUserId, id, now()))) throw AppError.notFound(ApiKeyMessages.notFound);
    },

    /**
     * A visitor token for a token-protected avatar of the owner (ADR 094), signed by the portal with
     * the account's default key (which the live admission accepts for any of the account's avatars),
     * bound to no portal session: it lives `ttlSeconds` (≤ 1 h).
     */
    async visitorToken(ownerUserId: number, input: { avatarId: number; ttlSeconds: number; userId?: string }): Promise<{ token: string; expiresAt: string }> {
      const config = await repo.ownedAvatarConfig(ownerUserId, input.avatarId);
      if (!config) throw AppError.notFound(ApiKeyMessages.avatarNotFound);
      if (readAvatarAccess(config).encKeyId === null) throw AppError.badRequest(ApiKeyMessages.avatarNotProtected);
      const ttl = Math.min(input.ttlSeconds, ApiKeyLimits.visitorTokenMaxSeconds);
      const expiresAt = new Date(Math.floor(now().getTime() / 1000) * 1000 + ttl * 1000).toISOString();
      return { token: await deps.mintToken(ownerUserId, input.avatarId, { userId: input.userId, expiresInSeconds: ttl }), expiresAt };
    },
  };
}

export type ApiKeysService = ReturnType<typeof createApiKeysService>;
