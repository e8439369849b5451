import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The knowledge calls' credential: a short-lived JWT (HS256) the server signs for a signed-in
 * user (GET /api/token/jwt). The key is derived from the master key, so no other secret is kept.
 * It names the session it was issued from (`sid`): the guard accepts it only while that session
 * is live and its user may act, so it ends with logout, disable and password reset.
 */
export interface KnowledgeTokenClaims {
  sub: string;
  sid: number;
  aud: string;
  iss: string;
  iat: number;
  exp: number;
}

const AUDIENCE = 'knowledge';
const ISSUER = 'persona-studio';
const CLOCK_SKEW_S = 30;

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

export function deriveKey(masterKey: Buffer, purpose: string): Buffer {
  return createHmac('sha256', masterKey).update(purpose).digest();
}

export function createKnowledgeTokens(opts: { key: Buffer; ttlSeconds: number; now?: () => Date }) {
  const now = () => Math.floor((opts.now?.() ?? new Date()).getTime() / 1000);
  const sign = (input: string) => createHmac('sha256', opts.key).update(input).digest();
  return {
    ttlSeconds: opts.ttlSeconds,
    issue(userId: number, sessionId: number): { token: string; expiresAt: Date } {
      const iat = now();
      const claims: KnowledgeTokenClaims = { sub: String(userId), sid: sessionId, aud: AUDIENCE, iss: ISSUER, iat, exp: iat + opts.ttlSeconds };
      const input = `${b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }))}.${b64url(JSON.stringify(claims))}`;
      return { token: `${input}.${b64url(sign(input))}`, expiresAt: new Date(claims.exp * 1000) };
    },
    /**
     * The user and session the token was issued to, or null when it is malformed, forged, foreign
     * or expired. The caller still checks that the session is live.
     */
    verify(token: string): { userId: number; sessionId: number } | null {
      const parts = token.split('.');
      if (parts.length !== 3) return null;
      const [header, payload, signature] = parts as [string, string, string];
      const expected = sign(`${header}.${payload}`);
      const given = Buffer.from(signature, 'base64url');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
      try {
        const h = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: string };
        if (h.alg !== 'HS256') return null;
        const c = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<KnowledgeTokenClaims>;
        if (c.aud !== AUDIENCE || c.iss !== ISSUER || typeof c.exp !== 'number' || typeof c.sub !== 'string') return null;
        const t = now();
        if (c.exp + CLOCK_SKEW_S < t) return null;
        if (typeof c.iat === 'number' && c.iat - CLOCK_SKEW_S > t) return null;
        const userId = Number(c.sub);
        const sessionId = c.sid;
        if (!Number.isSafeInteger(userId) || userId <= 0 || typeof sessionId !== 'number' || !Number.isSafeInteger(sessionId) || sessionId <= 0) return null;
        return { userId, sessionId };
      } catch {
        return null;
      }
    },
  };
}

export type KnowledgeTokens = ReturnType<typeof createKnowledgeTokens>;
