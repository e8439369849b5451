import { createPrivateKey, generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { verifyEs256Jwt } from '../../lib/es256-jwt.js';
import { EncryptionKeyLimits, ZAvatarTokenClaims, type TAvatarTokenClaims } from '@persona/contract';

/**
 * Avatar access tokens: compact JWTs signed ES256 (ECDSA P-256, SHA-256, IEEE P1363 signature)
 * with the private key of an encryption key; the server verifies them with its public key.
 * Claims: avatarId, exp (seconds since 1970) and an optional userId; the portal's own tokens also
 * name the session they were minted for (sid).
 */

export interface KeyPairPem {
  /** SPKI PEM. */
  publicKey: string;
  /** PKCS#8 PEM. */
  privateKey: string;
}

export function generateEs256KeyPair(): KeyPairPem {
  const { publicKey, privateKey } = generateKeyPairSync('ec', {
    namedCurve: 'P-256',
    publicKeyEncoding: { type: 'spki', format: 'pem' },
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
  });
  return { publicKey, privateKey };
}

const b64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

export function mintAvatarToken(
  privateKeyPem: string | KeyObject,
  claims: { avatarId: number; userId?: string | number; expiresInSeconds: number; keyId?: number; sessionId?: number },
  now: Date = new Date(),
): string {
  const iat = Math.floor(now.getTime() / 1000);
  const header = b64url({ alg: 'ES256', typ: 'JWT', ...(claims.keyId !== undefined ? { kid: String(claims.keyId) } : {}) });
  const payload = b64url({
    avatarId: claims.avatarId,
    ...(claims.userId !== undefined ? { userId: claims.userId } : {}),
    ...(claims.sessionId !== undefined ? { sid: claims.sessionId } : {}),
    iat,
    exp: iat + claims.expiresInSeconds,
  });
  const key = typeof privateKeyPem === 'string' ? createPrivateKey(privateKeyPem) : privateKeyPem;
  const signature = sign('sha256', Buffer.from(`${header}.${payload}`), { key, dsaEncoding: 'ieee-p1363' });
  return `${header}.${payload}.${signature.toString('base64url')}`;
}

export type TokenFailure = 'malformed' | 'algorithm' | 'signature' | 'claims' | 'expired' | 'not-yet-valid' | 'wrong-avatar';

export type TokenVerification = { ok: true; claims: TAvatarTokenClaims } | { ok: false; reason: TokenFailure };

/**
 * Verifies an avatar token against a public key (SPKI PEM): the ES256 signature, then the claims
 * (exp required, nbf/iat honoured with a small clock skew) and, when given, the avatar it is for.
 * Pure: no database, no clock except `now`.
 */
export function verifyAvatarToken(
  token: string,
  opts: { publicKey: string | KeyObject; avatarId?: number; now?: Date; clockSkewSeconds?: number },
): TokenVerification {
  const signed = verifyEs256Jwt(token, opts.publicKey);
  if (!signed.ok) return signed;
  const parsed = ZAvatarTokenClaims.safeParse(signed.payload);
  if (!parsed.success) return { ok: false, reason: 'claims' };
  const claims = parsed.data;
  const nowSeconds = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  const skew = opts.clockSkewSeconds ?? EncryptionKeyLimits.clockSkewSeconds;
  if (claims.exp <= nowSeconds - skew) return { ok: false, reason: 'expired' };
  if (claims.nbf !== undefined && claims.nbf > nowSeconds + skew) return { ok: false, reason: 'not-yet-valid' };
  if (claims.iat !== undefined && claims.iat > nowSeconds + skew) return { ok: false, reason: 'not-yet-valid' };
  if (opts.avatarId !== undefined && claims.avatarId !== opts.avatarId) return { ok: false, reason: 'wrong-avatar' };
  return { ok: true, claims };
}
