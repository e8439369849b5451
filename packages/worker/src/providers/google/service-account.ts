import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import type { GuardedFetch } from '../../core/types.js';
import { ProviderError } from '../../core/errors.js';
import { createWatchdog, httpFailure, providerFailure } from '../http.js';

/**
 * Google service-account auth without the SDK (RFC 7523 JWT bearer grant): a JWT signed RS256
 * with the key's private key (iss = client_email, aud = token_uri, scope, one hour) is exchanged
 * at `token_uri` for an access token, which is cached until shortly before it expires and shared
 * by the sessions that use the same key. Reused by Google STT/TTS later.
 */
export const GOOGLE_TOKEN_URI = 'https://oauth2.googleapis.com/token';
export const CLOUD_PLATFORM_SCOPE = 'https://www.googleapis.com/auth/cloud-platform';

export interface ServiceAccount {
  clientEmail: string;
  privateKey: KeyObject;
  privateKeyId: string | null;
  tokenUri: string;
  projectId: string | null;
  /** Identifies the key in the token cache (never the key itself). */
  fingerprint: string;
}

export function parseServiceAccount(json: string, provider: string): ServiceAccount {
  let o: Record<string, unknown>;
  try {
    o = JSON.parse(json) as Record<string, unknown>;
  } catch {
    throw new ProviderError(provider, 'the service-account key is not valid JSON');
  }
  if (!o || typeof o !== 'object') throw new ProviderError(provider, 'the service-account key is not a JSON object');
  if (typeof o.client_email !== 'string' || !o.client_email) throw new ProviderError(provider, 'the service-account key has no client_email');
  if (typeof o.private_key !== 'string' || !o.private_key) throw new ProviderError(provider, 'the service-account key has no private_key');
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(o.private_key);
  } catch {
    throw new ProviderError(provider, 'the private_key of the service-account key cannot be read');
  }
  if (privateKey.asymmetricKeyType !== 'rsa') throw new ProviderError(provider, 'the private_key of the service-account key is not an RSA key');
  const tokenUri = typeof o.token_uri === 'string' && o.token_uri ? o.token_uri : GOOGLE_TOKEN_URI;
  return {
    clientEmail: o.client_email,
    privateKey,
    privateKeyId: typeof o.private_key_id === 'string' ? o.private_key_id : null,
    tokenUri,
    projectId: typeof o.project_id === 'string' ? o.project_id : null,
    fingerprint: createHash('sha256').update(`${o.client_email}\n${tokenUri}\n${o.private_key}`).digest('base64url'),
  };
}

const b64url = (value: object | Buffer) => (Buffer.isBuffer(value) ? value : Buffer.from(JSON.stringify(value))).toString('base64url');

export function signAssertion(sa: ServiceAccount, scope: string, nowMs: number): string {
  const iat = Math.floor(nowMs / 1000);
  const header = { alg: 'RS256', typ: 'JWT', ...(sa.privateKeyId ? { kid: sa.privateKeyId } : {}) };
  const claims = { iss: sa.clientEmail, scope, aud: sa.tokenUri, iat, exp: iat + 3600 };
  const input = `${b64url(header)}.${b64url(claims)}`;
  return `${input}.${b64url(sign('RSA-SHA256', Buffer.from(input), sa.privateKey))}`;
}

interface Cached {
  token: string;
  /** ms; refreshed a minute before. */
  expiresAt: number;
}

const MAX_CACHED = 500;
const tokens = new Map<string, Cached>();
const pending = new Map<string, Promise<Cached>>();

export interface TokenSourceDeps {
  fetch: GuardedFetch;
  now: () => number;
  timeoutMs: number;
}

/** An access token for the key and scope: from the cache, or one exchange shared by concurrent callers. */
export async function accessToken(sa: ServiceAccount, scope: string, deps: TokenSourceDeps, provider: string, signal: AbortSignal): Promise<string> {
  const key = `${sa.fingerprint}\n${scope}`;
  const hit = tokens.get(key);
  if (hit && hit.expiresAt > deps.now()) return hit.token;
  let job = pending.get(key);
  if (!job) {
    // Not tied to the first caller's signal: another session may be waiting for the same token.
    job = exchange(sa, scope, deps, provider).finally(() => pending.delete(key));
    pending.set(key, job);
  }
  const got = await abortable(job, signal);
  tokens.delete(key);
  tokens.set(key, got);
  if (tokens.size > MAX_CACHED) tokens.delete(tokens.keys().next().value!);
  return got.token;
}

/** Forget a token the API refused (revoked key, rotated permissions). */
export function forgetToken(sa: ServiceAccount, scope: string): void {
  tokens.delete(`${sa.fingerprint}\n${scope}`);
}

async function exchange(sa: ServiceAccount, scope: string, deps: TokenSourceDeps, provider: string): Promise<Cached> {
  const caller = AbortSignal.timeout(deps.timeoutMs + 1_000);
  const dog = createWatchdog(caller);
  try {
    dog.arm(deps.timeoutMs, 'the access token');
    const started = deps.now();
    const res = await deps.fetch(sa.tokenUri, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
      body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: signAssertion(sa, scope, started) }),
      signal: dog.signal,
      timeoutMs: deps.timeoutMs,
      maxBytes: 64 * 1024,
    });
    if (!res.ok) {
      const err = await httpFailure(provider, res);
      throw new ProviderError(provider, `token exchange refused: ${err.message}`, err.status);
    }
    const body = (await res.json()) as { access_token?: unknown; expires_in?: unknown };
    if (typeof body.access_token !== 'string' || !body.access_token) throw new ProviderError(provider, 'the token endpoint answered no access_token', res.status);
    const lifetime = typeof body.expires_in === 'number' && body.expires_in > 0 ? body.expires_in : 3600;
    return { token: body.access_token, expiresAt: started + Math.max(0, lifetime - 60) * 1000 };
  } catch (err) {
    throw providerFailure(provider, err, new AbortController().signal, dog);
  } finally {
    dog.dispose();
  }
}

function abortable<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e as Error);
      },
    );
  });
}
