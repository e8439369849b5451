import { guardedFetch, SafeFetchError } from '@persona/net';
import type { BillingVerdict } from './service.js';

const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,100}$/;

/**
 * The avatar's billing-auth header: "Name: value" sends that header; anything else is sent as
 * the Authorization header's value (e.g. "Bearer sk_…").
 */
export function billingHeaders(header: string): Record<string, string> {
  const text = header.trim();
  if (!text) return {};
  const colon = text.indexOf(':');
  if (colon > 0) {
    const name = text.slice(0, colon).trim();
    if (HEADER_NAME.test(name) && !/^https?$/i.test(name)) return { [name.toLowerCase()]: text.slice(colon + 1).trim() };
  }
  return { authorization: text };
}

/**
 * Asks the avatar's billing service whether this session may start (or go on): a JSON POST
 * through the guarded fetch (public addresses only unless ALLOW_PRIVATE_URLS). 2xx allows,
 * 401/402/403 refuses, anything else (other status, timeout, unreachable) is "unavailable".
 */
export async function billingCheck(url: string, header: string, body: Record<string, unknown>, opts: { allowPrivate: boolean; timeoutMs?: number; log: { warn(obj: object, msg: string): void } }): Promise<BillingVerdict> {
  try {
    const answer = await guardedFetch(url, {
      method: 'POST',
      allowPrivate: opts.allowPrivate,
      timeoutMs: opts.timeoutMs ?? 5000,
      maxBytes: 64 * 1024,
      headers: { 'content-type': 'application/json', ...billingHeaders(header) },
      body: JSON.stringify(body),
      acceptErrorStatus: true,
    });
    if (answer.status >= 200 && answer.status < 300) return 'allowed';
    opts.log.warn({ avatarId: body.avatarId, status: answer.status }, 'billing-auth URL did not allow the session');
    return answer.status === 401 || answer.status === 402 || answer.status === 403 ? 'refused' : 'unavailable';
  } catch (err) {
    opts.log.warn({ avatarId: body.avatarId, reason: err instanceof SafeFetchError ? err.kind : 'error', message: err instanceof Error ? err.message : String(err) }, 'billing-auth URL unreachable');
    return 'unavailable';
  }
}
