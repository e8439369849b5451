import { EncryptionKeyMessages, type TEncryptionKey } from '@persona/contract';
import { AppError } from '../../lib/app-error.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { generateEs256KeyPair, mintAvatarToken, verifyAvatarToken, type TokenVerification } from './avatar-token.js';
import type { EncryptionKeyRow, EncryptionKeysRepository } from './repository.js';

export interface EncryptionKeysServiceDeps {
  repo: EncryptionKeysRepository;
  secretBox: SecretBox;
  /** Whether a session is live, and whose (portal tokens die with the session they were minted for). */
  sessionOf?: (sessionId: number) => Promise<{ userId: number } | null>;
  now?: () => Date;
}

/** How long a token the portal mints for its own Connect link and preview lives (at most: it ends with the session). */
export const PORTAL_TOKEN_SECONDS = 12 * 3600;

export type PortalTokenVerification = TokenVerification | { ok: false; reason: 'session-ended' };

export function createEncryptionKeysService(deps: EncryptionKeysServiceDeps) {
  const { repo, secretBox } = deps;
  const now = deps.now ?? (() => new Date());

  const present = (row: EncryptionKeyRow): TEncryptionKey => ({
    id: row.id,
    name: row.name,
    created: row.createdAt.toISOString(),
    defaultKey: row.isDefault,
    publicKey: row.publicKey,
  });

  /** The account's default key, made (and its private key kept, sealed) on first need. */
  async function ensureDefaultKey(userId: number): Promise<EncryptionKeyRow> {
    const existing = await repo.findDefault(userId);
    if (existing) return existing;
    const pair = generateEs256KeyPair();
    const inserted = await repo.insertDefault({
      userId,
      name: EncryptionKeyMessages.defaultKeyName,
      publicKey: pair.publicKey,
      privateKeySealed: secretBox.seal(pair.privateKey),
    });
    // A concurrent first need made it: use that one.
    return inserted ?? (await repo.findDefault(userId))!;
  }

  return {
    ensureDefaultKey,

    async list(userId: number): Promise<TEncryptionKey[]> {
      let rows = await repo.list(userId);
      if (!rows.some((r) => r.isDefault)) {
        await ensureDefaultKey(userId);
        rows = await repo.list(userId);
      }
      return rows.map(present);
    },

    /** Makes a key pair; the private key is returned this once and not stored. */
    async create(userId: number, name: string): Promise<TEncryptionKey & { encKey: string }> {
      await ensureDefaultKey(userId);
      const pair = generateEs256KeyPair();
      const row = await repo.insert({ userId, name, publicKey: pair.publicKey, privateKeySealed: null, isDefault: false });
      return { ...present(row), encKey: pair.privateKey };
    },

    async remove(userId: number, id: number): Promise<void> {
      const row = await repo.findOwned(userId, id);
      if (!row) throw AppError.notFound();
      if (row.isDefault) throw AppError.badRequest(EncryptionKeyMessages.defaultCannotBeDeleted);
      const users = await repo.avatarsUsingKey(userId, id);
      if (users.length > 0) throw AppError.badRequest(EncryptionKeyMessages.inUse(users.map((a) => `${a.name} (${a.id})`)));
      if (!(await repo.deleteNonDefault(userId, id))) throw AppError.notFound();
    },

    /** For avatars: the key (id, name, defaultKey) if it is the user's, else undefined. */
    async findKey(userId: number, id: number): Promise<TEncryptionKey | undefined> {
      const row = await repo.findOwned(userId, id);
      return row ? present(row) : undefined;
    },

    /**
     * Checks a token for an avatar of `ownerId` protected by key `keyId` (the avatar's encKeyId; the
     * default key when null). Tokens the portal minted itself (signed with the account's default key,
     * whose private key only the server holds) are accepted too, while the session they were minted
     * for (`sid`) is live. A deleted key accepts nothing of its own.
     */
    async verifyToken(ownerId: number, keyId: number | null | undefined, avatarId: number, token: string): Promise<PortalTokenVerification> {
      const defaultKey = await ensureDefaultKey(ownerId);
      const key = keyId ? await repo.findOwned(ownerId, keyId) : defaultKey;
      let result = key ? verifyAvatarToken(token, { publicKey: key.publicKey, avatarId, now: now() }) : ({ ok: false, reason: 'signature' } as const);
      let isPortalToken = key?.id === defaultKey.id;
      if (!result.ok && result.reason === 'signature' && !isPortalToken) {
        result = verifyAvatarToken(token, { publicKey: defaultKey.publicKey, avatarId, now: now() });
        isPortalToken = true;
      }
      if (!result.ok || !isPortalToken) return result;
      const sessionId = (result.claims as Record<string, unknown>).sid;
      if (sessionId === undefined) return result;
      const session = typeof sessionId === 'number' && deps.sessionOf ? await deps.sessionOf(sessionId) : null;
      return session?.userId === ownerId ? result : { ok: false, reason: 'session-ended' };
    },

    /** A token the portal mints for its own Connect link and preview, signed with the default key. */
    async mintPortalToken(ownerId: number, avatarId: number, opts: { userId?: string; expiresInSeconds?: number; sessionId?: number } = {}): Promise<string> {
      const key = await ensureDefaultKey(ownerId);
      return mintAvatarToken(
        secretBox.open(key.privateKeySealed!),
        { avatarId, userId: opts.userId, expiresInSeconds: opts.expiresInSeconds ?? PORTAL_TOKEN_SECONDS, keyId: key.id, sessionId: opts.sessionId },
        now(),
      );
    },
  };
}

export type EncryptionKeysService = ReturnType<typeof createEncryptionKeysService>;
