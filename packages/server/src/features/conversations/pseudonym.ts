import { createHmac } from 'node:crypto';

/**
 * A visitor's pseudonym (ADR 092): the same visitor of the same account gets the same one, and it
 * cannot be turned back into an address. A visitor is the page's visitor id, or the address when
 * the page sent none.
 *
 * Retention forgets addresses (ADR 097): a session's `client_ip` is replaced by its pseudonym once
 * its text is gone and the per-address limits no longer count it — so a stored value that is
 * already a pseudonym is its own (real addresses never start with `v-`), and the visitor keeps
 * the name the list showed, and can still be erased by it.
 */
export function visitorPseudonym(key: Buffer, row: { ownerUserId: number; visitorId: string | null; clientIp: string | null }): string {
  if (!row.visitorId && row.clientIp && isForgottenAddress(row.clientIp)) return row.clientIp;
  const who = row.visitorId ? `v:${row.visitorId}` : `ip:${row.clientIp}`;
  return `v-${createHmac('sha256', key).update(`${row.ownerUserId}\n${who}`).digest('hex').slice(0, 10)}`;
}

/** A `client_ip` retention replaced by the visitor's pseudonym. */
export const isForgottenAddress = (clientIp: string) => clientIp.startsWith('v-');
