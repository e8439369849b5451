import { z } from 'zod';
import { ZStatus, ZId, TextChecks } from './common.js';

/** Encryption keys (portal spec sections 2, 3, 5, 7): ES256 key pairs for token-based avatar access. */
export const EncryptionKeyMessages = {
  nameRequired: 'Name is a required field.',
  nameTooLong: 'Name must be at most 100 characters',
  noEdit: 'Encryption keys cannot be edited. Create a new key instead.',
  defaultCannotBeDeleted: 'The default encryption key cannot be deleted.',
  inUse: (names: string[]) =>
    `This key is used by ${names.length === 1 ? 'the avatar' : 'the avatars'} ${names.join(', ')}. Choose another key for ${names.length === 1 ? 'it' : 'them'} before deleting it.`,
  copied: 'Encryption Key Copied!',
  created: 'The encryption key has been created successfully!',
  deleted: 'The encryption key has been deleted successfully!',
  shownOnce: 'This is the only time the private key is shown. Copy it now and keep it somewhere safe.',
  defaultKeyName: 'Default Key',
} as const;

export const EncryptionKeyLimits = {
  nameMax: 100,
  /** Allowed clock difference when checking exp/nbf/iat of a token. */
  clockSkewSeconds: 30,
} as const;

export const ZEncryptionKeyName = z
  .string({ error: EncryptionKeyMessages.nameRequired })
  .trim()
  .min(1, { error: EncryptionKeyMessages.nameRequired, abort: true })
  .max(EncryptionKeyLimits.nameMax, { error: EncryptionKeyMessages.nameTooLong })
  .check(TextChecks.singleLine());

/** The create form (Encryption Name). */
export const ZEncryptionKeyForm = z.object({ name: ZEncryptionKeyName });
export type TEncryptionKeyForm = z.infer<typeof ZEncryptionKeyForm>;

/** POST /api/add_encryption_key {id, name}: keys are only created, so id must be empty. */
export const ZAddEncryptionKeyRequest = z.object({
  id: z
    .union([z.number(), z.string(), z.null()])
    .optional()
    .refine((v) => v === undefined || v === null || v === '' || v === 0, { error: EncryptionKeyMessages.noEdit }),
  name: ZEncryptionKeyName,
});
export type TAddEncryptionKeyRequest = z.input<typeof ZAddEncryptionKeyRequest>;

/** An encryption key; encKey (the private key, PEM) only in the answer that created it. */
export const ZEncryptionKey = z.object({
  id: z.number().int(),
  name: z.string(),
  created: z.string(),
  defaultKey: z.boolean(),
  /** The public key (SPKI PEM) the server verifies tokens with. */
  publicKey: z.string(),
  /** The private key (PKCS#8 PEM): returned once, on creation. */
  encKey: z.string().optional(),
});
export type TEncryptionKey = z.infer<typeof ZEncryptionKey>;

export const ZListEncryptionKeysResponse = z.object({ status: ZStatus, encKeys: z.array(ZEncryptionKey) });
export const ZAddEncryptionKeyResponse = z.object({ status: ZStatus, encKey: ZEncryptionKey.required({ encKey: true }) });
export type TAddEncryptionKeyResponse = z.infer<typeof ZAddEncryptionKeyResponse>;
export const ZDelEncryptionKeyRequest = z.object({ id: ZId, mode: z.literal('delete') });
export const ZDelEncryptionKeyResponse = z.object({ status: ZStatus, id: z.number().int() });

/**
 * The claims of an avatar access token (a JWT signed ES256 with the avatar's key):
 * avatarId, exp (seconds since 1970) and an optional userId of the visitor in the customer's system.
 */
export const ZAvatarTokenClaims = z
  .object({
    avatarId: ZId,
    exp: z.number().int().positive(),
    userId: z.union([z.string().max(200), z.number()]).optional(),
    iat: z.number().int().optional(),
    nbf: z.number().int().optional(),
  })
  .loose();
export type TAvatarTokenClaims = z.infer<typeof ZAvatarTokenClaims>;
