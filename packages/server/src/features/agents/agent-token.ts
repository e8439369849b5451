import type { KeyObject } from 'node:crypto';
import { AgentApi, EncryptionKeyLimits } from '@persona/contract';
import { verifyEs256Jwt } from '../../lib/es256-jwt.js';

/**
 * Agent tokens (ADR 072): compact JWTs signed ES256 with the private key of the avatar's
 * encryption key — `aud` "persona-agent", `sub` the avatar id (decimal string), `exp` at most an
 * hour ahead, `iat`/`nbf` honoured with the avatar tokens' clock skew. A visitor's avatar token
 * (no `aud`) is never an agent token.
 */
export type AgentTokenFailure = 'malformed' | 'algorithm' | 'signature' | 'claims' | 'audience' | 'expired' | 'too-long' | 'not-yet-valid' | 'wrong-avatar';

const SUB = /^[1-9]\d{0,9}$/;

/** The avatar a token claims to be for (unverified: only to find the key that must have signed it). */
export function agentTokenAvatar(token: string): number | null {
  if (typeof token !== 'string' || token.length > 8192) return null;
  const payload = token.split('.')[1];
  if (!payload) return null;
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { sub?: unknown };
    return typeof claims.sub === 'string' && SUB.test(claims.sub) && Number(claims.sub) <= 2_147_483_647 ? Number(claims.sub) : null;
  } catch {
    return null;
  }
}

export function verifyAgentToken(
  token: string,
  opts: { publicKey: string | KeyObject; avatarId: number; now?: Date; clockSkewSeconds?: number },
): { ok: true; exp: number } | { ok: false; reason: AgentTokenFailure } {
  const signed = verifyEs256Jwt(token, opts.publicKey);
  if (!signed.ok) return signed;
  const c = signed.payload as { aud?: unknown; sub?: unknown; exp?: unknown; iat?: unknown; nbf?: unknown } | undefined;
  if (!c || typeof c !== 'object' || typeof c.exp !== 'number' || !Number.isFinite(c.exp) || typeof c.sub !== 'string') return { ok: false, reason: 'claims' };
  for (const t of [c.iat, c.nbf]) if (t !== undefined && (typeof t !== 'number' || !Number.isFinite(t))) return { ok: false, reason: 'claims' };
  const audiences = Array.isArray(c.aud) ? c.aud : [c.aud];
  if (!audiences.includes(AgentApi.audience)) return { ok: false, reason: 'audience' };
  const now = Math.floor((opts.now ?? new Date()).getTime() / 1000);
  const skew = opts.clockSkewSeconds ?? EncryptionKeyLimits.clockSkewSeconds;
  if (c.exp <= now - skew) return { ok: false, reason: 'expired' };
  if (c.exp > now + AgentApi.maxTokenSeconds + skew) return { ok: false, reason: 'too-long' };
  if ((typeof c.nbf === 'number' && c.nbf > now + skew) || (typeof c.iat === 'number' && c.iat > now + skew)) return { ok: false, reason: 'not-yet-valid' };
  if (c.sub !== String(opts.avatarId)) return { ok: false, reason: 'wrong-avatar' };
  return { ok: true, exp: c.exp };
}
