import { describe, expect, it } from 'vitest';
import { createTicketVerifier, signTicket, ticketKey } from './tickets.js';

describe('live tickets', () => {
  const key = ticketKey('worker-secret-for-tests');
  const t0 = Date.UTC(2026, 10, 23, 12);

  it('accepts a fresh ticket once, for its own worker only', () => {
    const verifier = createTicketVerifier(key, { workerId: () => 7, now: () => t0 });
    const { ticket } = signTicket(key, { sid: 's1', wid: 7, aid: 3 }, t0);
    expect(verifier.verify(ticket)).toMatchObject({ ok: true, claims: { sid: 's1', wid: 7, aid: 3 } });
    expect(verifier.verify(ticket)).toEqual({ ok: false, reason: 'replayed' });
    const other = createTicketVerifier(key, { workerId: () => 8, now: () => t0 });
    expect(other.verify(signTicket(key, { sid: 's1', wid: 7, aid: 3 }, t0).ticket)).toEqual({ ok: false, reason: 'other-worker' });
  });

  it('refuses expired, forged and malformed tickets', () => {
    let now = t0;
    const verifier = createTicketVerifier(key, { workerId: () => 7, now: () => now });
    const { ticket } = signTicket(key, { sid: 's1', wid: 7, aid: 3 }, t0);
    now = t0 + 61_000;
    expect(verifier.verify(ticket)).toEqual({ ok: false, reason: 'expired' });
    const forged = signTicket(ticketKey('another-secret'), { sid: 's1', wid: 7, aid: 3 }, t0).ticket;
    now = t0;
    expect(verifier.verify(forged)).toEqual({ ok: false, reason: 'signature' });
    const [body, mac] = ticket.split('.') as [string, string];
    const tampered = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), wid: 7, aid: 4 })).toString('base64url');
    expect(verifier.verify(`${tampered}.${mac}`)).toEqual({ ok: false, reason: 'signature' });
    expect(verifier.verify('nonsense')).toEqual({ ok: false, reason: 'malformed' });
    expect(verifier.verify('a.b.c')).toEqual({ ok: false, reason: 'malformed' });
  });
});
