import { createPublicKey, verify, type KeyObject } from 'node:crypto';

/* Compact JWTs signed ES256 with an encryption key (ADR 007): avatar tokens and agent tokens (ADR 072). */

const B64URL = /^[A-Za-z0-9_-]+$/;

function parseJson(part: string): unknown {
  try {
    return JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The ES256 part of every token signed with an encryption key (avatar tokens, agent tokens):
 * compact form, `alg` ES256 only, a 64-byte P1363 signature valid for `publicKey`. Returns the
 * payload, unchecked. Pure.
 */
export function verifyEs256Jwt(token: string, publicKey: string | KeyObject): { ok: true; payload: unknown } | { ok: false; reason: 'malformed' | 'algorithm' | 'signature' } {
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
    const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
    isValid = verify('sha256', Buffer.from(`${headerPart}.${payloadPart}`), { key, dsaEncoding: 'ieee-p1363' }, signature);
  } catch {
    return { ok: false, reason: 'signature' };
  }
  if (!isValid) return { ok: false, reason: 'signature' };
  return { ok: true, payload: parseJson(payloadPart) };
}
