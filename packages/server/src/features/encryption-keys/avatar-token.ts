import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
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

const B64URL = /^[A-Za-z0-9_-]+$/;

function parseJson(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * Verifies an avatar token against a public key (SPKI PEM): the ES256 signature, then the claims
 * (exp required, nbf/iat honoured with a small clock skew) and, when given, the avatar it is for.
 * Pure: no database, no clock except `now`.
 */
export function verifyAvatarToken(
  token: string,
  opts: { publicKey: string | KeyObject; avatarId?: number; now?: Date; clockSkewSeconds?: number },
): TokenVerification {
  if (typeof token !== 'string' || token.length > 8192) return { ok: false, reason: 'malformed' };
  const parts = token.split('.');
  if (parts.length !== 3 || !parts.every((p) => B64URL.test(p))) return { ok: false, reason: 'malformed' };
  const [headerPart, payloadPart, signaturePart] = parts as [string, string, string];
  const header = parseJson(headerPart) as { alg?: unknown } | undefined;
  if (!header || typeof header !== 'object') return { ok: false, reason: 'malformed' };
  // Only ES256: never "none", never an HMAC keyed with the public key.
  if (header.alg !== 'ES256') return { ok: false, reason: 'algorithm' };
  const signature = Buffer.from(signaturePart, 'base64url');
  if (signature.length !== 64) return { ok: false, reason: 'signature' };
  let isValid: boolean;
  try {
    const key = typeof opts.publicKey === 'string' ? createPublicKey(opts.publicKey) : opts.publicKey;
    isValid = verify('sha256', Buffer.from(`${headerPart}.${payloadPart}`), { key, dsaEncoding: 'ieee-p1363' }, signature);
  } catch {
    return { ok: false, reason: 'signature' };
  }
  if (!isValid) return { ok: false, reason: 'signature' };
  const parsed = ZAvatarTokenClaims.safeParse(parseJson(payloadPart));
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
