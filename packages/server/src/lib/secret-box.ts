import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

const VERSION = 'v1';
const IV_BYTES = 12;
/** GCM accepts tags as short as 4 bytes unless told otherwise; a short tag makes forgery cheap. */
const TAG_BYTES = 16;

/**
 * Encrypts secrets at rest (provider API keys, OAuth client secrets, private keys) with
 * AES-256-GCM under the master key (SECRET_KEY, or the key generated into DATA_DIR).
 * Sealed values look like `v1:<iv>:<tag>:<ciphertext>` (base64url).
 */
export interface SecretBox {
  seal(plain: string): string;
  open(sealed: string): string;
  isSealed(value: unknown): value is string;
}

export function parseMasterKey(secretKey: string): Buffer {
  if (/^[0-9a-fA-F]{64}$/.test(secretKey)) return Buffer.from(secretKey, 'hex');
  const b64 = Buffer.from(secretKey, 'base64');
  if (b64.length === 32) return b64;
  // Any other string (never from config, which validates): derive a key from it.
  return createHash('sha256').update(secretKey).digest();
}

export function createSecretBox(secretKey: string): SecretBox {
  const key = parseMasterKey(secretKey);
  const isSealed = (value: unknown): value is string => typeof value === 'string' && value.startsWith(`${VERSION}:`) && value.split(':').length === 4;
  return {
    isSealed,
    seal(plain) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join(':');
    },
    open(sealed) {
      if (!isSealed(sealed)) throw new Error('not a sealed secret');
      const [, ivText, tagText, data] = sealed.split(':') as [string, string, string, string];
      const iv = Buffer.from(ivText, 'base64url');
      const tag = Buffer.from(tagText, 'base64url');
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}
