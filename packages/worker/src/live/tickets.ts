import { createHmac, hkdfSync, randomUUID, timingSafeEqual } from 'node:crypto';
import { LiveLimits, ZLiveTicketClaims, type TLiveTicketClaims } from '@persona/contract';

/**
 * Live-session tickets: the portal signs one per admission (HMAC-SHA256 under a key derived from
 * WORKER_SECRET, so no raw secret is used twice); the chosen worker verifies it locally and
 * accepts each ticket id once. Format: base64url(JSON claims) "." base64url(mac).
 * One implementation, used by the server (sign) and the worker (verify).
 */
export function ticketKey(workerSecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', workerSecret, 'persona-studio', 'live-ticket v1', 32));
}

/**
 * The key of the tickets that let an external agent join a session (ADR 072): the same format as
 * the page's, under another derived key, so neither ticket is accepted in place of the other.
 */
export function agentTicketKey(workerSecret: string): Buffer {
  return Buffer.from(hkdfSync('sha256', workerSecret, 'persona-studio', 'agent-ticket v1', 32));
}

export function signTicket(
  key: Buffer,
  claims: Omit<TLiveTicketClaims, 'exp' | 'jti'> & { ttlSeconds?: number },
  now: number = Date.now(),
): { ticket: string; claims: TLiveTicketClaims } {
  const full: TLiveTicketClaims = {
    sid: claims.sid,
    wid: claims.wid,
    aid: claims.aid,
    exp: Math.floor(now / 1000) + (claims.ttlSeconds ?? LiveLimits.ticketTtlSeconds),
    jti: randomUUID(),
  };
  const body = Buffer.from(JSON.stringify(full)).toString('base64url');
  const mac = createHmac('sha256', key).update(body).digest('base64url');
  return { ticket: `${body}.${mac}`, claims: full };
}

export type TicketCheck = { ok: true; claims: TLiveTicketClaims } | { ok: false; reason: 'malformed' | 'signature' | 'expired' | 'other-worker' | 'replayed' };

/** Verifies a ticket for this worker and remembers its id until it expires (single use). */
/** `key`: the key, or where to read it (a worker learns it when it registers; null: not yet, every ticket refused). */
export function createTicketVerifier(key: Buffer | (() => Buffer | null), opts: { workerId: () => number | null; now?: () => number }) {
  const keyNow = typeof key === 'function' ? key : () => key;
  const now = opts.now ?? Date.now;
  const used = new Map<string, number>();
  const forget = () => {
    const t = Math.floor(now() / 1000);
    for (const [jti, exp] of used) if (exp < t) used.delete(jti);
  };
  return {
    verify(ticket: string): TicketCheck {
      if (typeof ticket !== 'string' || ticket.length > 2048) return { ok: false, reason: 'malformed' };
      const dot = ticket.indexOf('.');
      if (dot <= 0 || dot !== ticket.lastIndexOf('.')) return { ok: false, reason: 'malformed' };
      const body = ticket.slice(0, dot);
      const given = Buffer.from(ticket.slice(dot + 1), 'base64url');
      const current = keyNow();
      if (!current) return { ok: false, reason: 'signature' };
      const expected = createHmac('sha256', current).update(body).digest();
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { ok: false, reason: 'signature' };
      let claims: TLiveTicketClaims;
      try {
        const parsed = ZLiveTicketClaims.safeParse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
        if (!parsed.success) return { ok: false, reason: 'malformed' };
        claims = parsed.data;
      } catch {
        return { ok: false, reason: 'malformed' };
      }
      forget();
      if (claims.exp < Math.floor(now() / 1000)) return { ok: false, reason: 'expired' };
      if (claims.wid !== opts.workerId()) return { ok: false, reason: 'other-worker' };
      if (used.has(claims.jti)) return { ok: false, reason: 'replayed' };
      used.set(claims.jti, claims.exp);
      return { ok: true, claims };
    },
  };
}
