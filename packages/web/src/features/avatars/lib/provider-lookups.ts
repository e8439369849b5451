import { isApiError } from '../../../lib/api-client';

/**
 * Shared by the provider look-up calls (api/list-*.ts, api/check-elevenlabs-agent.ts).
 *
 * Query keys carry a fingerprint of a key, never the key itself, so keys do not sit in the query
 * cache or its devtools; a changed key is still a new query.
 */
export function keyFingerprint(value: string | undefined): string {
  if (!value) return '';
  // FNV-1a, 32 bits: enough to tell two keys apart, not to recover one.
  let hash = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) {
    hash ^= value.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return `${value.length}:${hash.toString(36)}`;
}

/** The request with every secret field replaced by its fingerprint (for query keys). */
export function fingerprinted<T extends object>(request: T, secretFields: readonly (keyof T)[]): Record<string, unknown> {
  const out: Record<string, unknown> = { ...(request as Record<string, unknown>) };
  for (const field of secretFields) out[field as string] = keyFingerprint(request[field] as string | undefined);
  return out;
}

/** Cached for a few minutes: voices reload on blur, which would otherwise call the provider each time. */
export const LOOKUP_STALE_MS = 5 * 60_000;

/** What the form shows when a look-up failed: the server's message (the spec's texts), else `fallback`. */
export function lookupErrorMessage(error: unknown, fallback: string): string {
  return isApiError(error) && error.errors.length > 0 ? error.errors[0]! : fallback;
}

/** Why a look-up failed, as the server says it (timeout, unauthorized, blocked, assistants-gone…). */
export function lookupFailureReason(error: unknown): string | undefined {
  if (!isApiError(error) || typeof error.body !== 'object' || error.body === null) return undefined;
  const reason = (error.body as Record<string, unknown>).reason;
  return typeof reason === 'string' ? reason : undefined;
}
