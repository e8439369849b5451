import type { FastifyBaseLogger } from 'fastify';
import {
  OAuthLimits,
  OAuthMessages,
  OAuthReturnParams,
  isMasked,
  isSecretNeededAgain,
  maskSecret,
  normaliseReturnPath,
  type TOAuthApp,
  type TOAuthAppInputParsed,
} from '@persona/contract';
import { AppError } from '../../lib/app-error.js';
import { decodeBody, guardedFetch, SafeFetchError, type DnsLookup, type FetchedResource } from '@persona/net';
import type { SecretBox } from '../../lib/secret-box.js';
import { hashToken, randomToken, safeEqual } from '../../lib/tokens.js';
import type { OAuthAppRow, OAuthRepository } from './repository.js';

export interface OAuthServiceDeps {
  repo: OAuthRepository;
  secretBox: SecretBox;
  publicUrl: string;
  /** ALLOW_PRIVATE_URLS: may the token endpoint be a private or local address. */
  allowPrivateUrls: boolean;
  log: FastifyBaseLogger;
  now?: () => Date;
  /** Time allowed for the token endpoint to answer. */
  exchangeTimeoutMs?: number;
  /** DNS and the address rule of the token-endpoint request (defaults: system resolver, global unicast only). */
  outbound?: { lookup?: DnsLookup; isBlockedAddress?: (address: string) => boolean };
}

/** What the callback leads to: back to the page that started the sign-in, or a page of its own. */
export type CallbackOutcome =
  | { kind: 'redirect'; location: string }
  | { kind: 'page'; statusCode: number; title: string; message: string };

interface StatePayload {
  /** nonce */
  n: string;
  /** appId */
  a: number;
  /** expiry, ms since 1970 */
  e: number;
  /** sha256 of the sign-in cookie of the browser that started the sign-in */
  b: string;
}

/** The signed start of a sign-in: minted for an avatar's page config, sealed, short-lived. */
interface StartPayload {
  /** what it is (a sealed state is not a start) */
  k: 'oauth-start';
  /** appId */
  a: number;
  /** the avatar whose page it was given to */
  v: number;
  /** expiry, ms since 1970 */
  e: number;
}

/** The sign-in cookie's value: a random nonce that binds a sign-in to the browser that started it. */
const BROWSER_NONCE = /^[A-Za-z0-9_-]{43}$/;
const isBrowserNonce = (value: string | undefined): value is string => typeof value === 'string' && BROWSER_NONCE.test(value);

/** Provider error codes are reflected to the page only when they look like one (RFC 6749 4.1.2.1). */
const providerErrorCode = (value: string) => (/^[a-z0-9_.-]{1,64}$/i.test(value) ? value : 'provider_error');

const MAX_TOKEN_ANSWER_BYTES = 64 * 1024;
const DEFAULT_GRANT_SECONDS = 3600;
const MAX_GRANT_SECONDS = 24 * 3600;

/** The claims of an id_token received directly from the token endpoint (trusted through TLS, OIDC 3.1.3.7). */
function idTokenClaims(idToken: unknown): { sub?: string; email?: string } {
  if (typeof idToken !== 'string') return {};
  const payload = idToken.split('.')[1];
  if (!payload) return {};
  try {
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Record<string, unknown>;
    return {
      sub: typeof claims.sub === 'string' ? claims.sub : undefined,
      email: typeof claims.email === 'string' ? claims.email : undefined,
    };
  } catch {
    return {};
  }
}

function withQuery(base: string, params: Record<string, string>): string {
  const url = new URL(base);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return url.toString();
}

export function createOAuthService(deps: OAuthServiceDeps) {
  const { repo, secretBox, log } = deps;
  const now = deps.now ?? (() => new Date());
  const callbackUrl = (appId: number) => `${deps.publicUrl}/api/oauth/callback/${appId}`;
  const publicOrigin = new URL(deps.publicUrl).origin;

  /** The absolute URL on the portal's own origin that returnTo names, or null when it names none. */
  const returnUrl = (returnTo: string | null, params: Record<string, string>): string | null => {
    const path = returnTo === null ? null : normaliseReturnPath(returnTo, publicOrigin);
    return path === null ? null : withQuery(`${publicOrigin}${path}`, params);
  };

  function present(row: OAuthAppRow): TOAuthApp {
    return {
      appId: row.id,
      appName: row.name,
      partner: row.partner,
      clientId: row.clientId,
      clientSecret: maskSecret(secretBox.open(row.clientSecretSealed)),
      oauthURL: row.oauthUrl,
      tokenIssueURL: row.tokenIssueUrl,
      callbackURL: callbackUrl(row.id),
      created: row.createdAt.toISOString(),
      updated: row.updatedAt.toISOString(),
    };
  }

  async function owned(userId: number, appId: number): Promise<OAuthAppRow> {
    const row = await repo.findOwned(userId, appId);
    if (!row) throw AppError.notFound(OAuthMessages.flowNotFound);
    return row;
  }

  /**
   * POSTs the code to the Token Issue URL with the server's guarded request: the host name is
   * resolved once, by the connection itself, and must be public unless ALLOW_PRIVATE_URLS is set.
   * Every failure is the same AppError for the visitor; the precise reason goes to the log only
   * (telling "private address" from "does not resolve" would map the server's network).
   */
  async function exchangeCode(app: OAuthAppRow, code: string): Promise<Record<string, unknown>> {
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: callbackUrl(app.id),
      client_id: app.clientId,
      client_secret: secretBox.open(app.clientSecretSealed),
    });
    let response: FetchedResource;
    try {
      response = await guardedFetch(app.tokenIssueUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: body.toString(),
        allowPrivate: deps.allowPrivateUrls,
        timeoutMs: deps.exchangeTimeoutMs ?? 10_000,
        maxBytes: MAX_TOKEN_ANSWER_BYTES,
        acceptErrorStatus: true,
        lookup: deps.outbound?.lookup,
        isBlockedAddress: deps.outbound?.isBlockedAddress,
      });
    } catch (err) {
      if (!(err instanceof SafeFetchError)) throw err;
      log.warn({ appId: app.id, kind: err.kind, reason: err.detail }, 'oauth token endpoint not reached');
      throw new AppError(502, OAuthMessages.exchangeFailed);
    }
    const text = decodeBody(response);
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      answer = Object.fromEntries(new URLSearchParams(text));
    }
    const record = (typeof answer === 'object' && answer !== null ? answer : {}) as Record<string, unknown>;
    const isOk = response.status >= 200 && response.status < 300;
    if (!isOk || (typeof record.access_token !== 'string' && typeof record.id_token !== 'string')) {
      log.warn({ appId: app.id, status: response.status, error: typeof record.error === 'string' ? record.error.slice(0, 100) : undefined }, 'oauth code exchange refused');
      throw new AppError(502, OAuthMessages.exchangeFailed);
    }
    return record;
  }

  const failure = (statusCode: number, message: string): CallbackOutcome => ({ kind: 'page', statusCode, title: 'Sign-in failed', message });

  /**
   * The start link of a sign-in with this config, for the page of an avatar that uses it:
   * `/api/oauth/start/{appId}?start=<sealed>`, valid OAuthLimits.startTtlMinutes.
   */
  function startUrl(appId: number, avatarId: number): string {
    const payload: StartPayload = { k: 'oauth-start', a: appId, v: avatarId, e: now().getTime() + OAuthLimits.startTtlMinutes * 60_000 };
    return `/api/oauth/start/${appId}?${new URLSearchParams({ [OAuthLimits.startParam]: secretBox.seal(JSON.stringify(payload)) })}`;
  }

  /** A signed start of this config that has not expired. */
  function isStartOf(appId: number, start: string | undefined): boolean {
    if (!start) return false;
    try {
      const p = JSON.parse(secretBox.open(start)) as Partial<StartPayload>;
      return p.k === 'oauth-start' && p.a === appId && typeof p.e === 'number' && p.e > now().getTime();
    } catch {
      return false;
    }
  }

  return {
    callbackUrl,

    async list(userId: number): Promise<TOAuthApp[]> {
      return (await repo.list(userId)).map(present);
    },

    async get(userId: number, appId: number): Promise<TOAuthApp> {
      return present(await owned(userId, appId));
    },

    /** Creates (no appId) or edits a config; an empty or masked client secret on edit keeps the stored one. */
    async save(userId: number, input: TOAuthAppInputParsed): Promise<TOAuthApp> {
      const secret = input.clientSecret && !isMasked(input.clientSecret) ? input.clientSecret : undefined;
      const values = {
        name: input.appName,
        partner: input.partner,
        clientId: input.clientId,
        oauthUrl: input.oauthURL,
        tokenIssueUrl: input.tokenIssueURL,
      };
      if (!input.appId) {
        if (!secret) throw AppError.badRequest(OAuthMessages.clientSecretRequired);
        return present(await repo.insert({ ...values, userId, clientSecretSealed: secretBox.seal(secret) }));
      }
      const stored = await owned(userId, input.appId);
      if (isSecretNeededAgain({ oauthURL: stored.oauthUrl, tokenIssueURL: stored.tokenIssueUrl }, input)) {
        throw AppError.badRequest(OAuthMessages.clientSecretReenter);
      }
      const row = await repo.update(userId, input.appId, {
        ...values,
        ...(secret ? { clientSecretSealed: secretBox.seal(secret) } : {}),
        updatedAt: now(),
      });
      if (!row) throw AppError.notFound(OAuthMessages.flowNotFound);
      return present(row);
    },

    /** Deletes a config no avatar signs visitors in with (deleting it would open those avatars to anyone). */
    async remove(userId: number, appId: number): Promise<void> {
      await owned(userId, appId);
      const users = await repo.avatarsUsingApp(userId, appId);
      if (users.length > 0) throw AppError.badRequest(OAuthMessages.inUse(users.map((a) => `${a.name} (${a.id})`)));
      if (!(await repo.delete(userId, appId))) throw AppError.notFound(OAuthMessages.flowNotFound);
    },

    startUrl,

    /**
     * GET /api/oauth/start/{appId}: where to send the visitor — the identity service's OAuth URL
     * with the client id, the redirect URI and a sealed, single-use state bound to this browser
     * (the hash of its sign-in cookie, reused when the browser already has one, so that two
     * sign-ins in two tabs do not undo each other). The route sets the cookie.
     *
     * Only with a signed start (startUrl) of this config, unexpired: the OAuth URL is the owner's
     * to set, so an unsigned start would make our origin a redirect to any address.
     */
    async start(appId: number, returnTo: string | undefined, browserNonce: string | undefined, start?: string): Promise<{ location: string; browserNonce: string }> {
      if (!isStartOf(appId, start)) throw AppError.badRequest(OAuthMessages.startInvalid);
      const app = await repo.findById(appId);
      if (!app) throw AppError.notFound(OAuthMessages.flowNotFound);
      const path = returnTo === undefined ? null : normaliseReturnPath(returnTo, publicOrigin);
      if (returnTo !== undefined && path === null) throw AppError.badRequest(OAuthMessages.returnToInvalid);
      const browser = isBrowserNonce(browserNonce) ? browserNonce : randomToken();
      const nonce = randomToken();
      const expiresAt = new Date(now().getTime() + OAuthLimits.stateTtlMinutes * 60_000);
      await repo.deleteExpiredStates(now());
      await repo.deleteExpiredGrants(now());
      await repo.insertState({ appId, nonceHash: hashToken(nonce), returnTo: path, expiresAt });
      const state = secretBox.seal(JSON.stringify({ n: nonce, a: appId, e: expiresAt.getTime(), b: hashToken(browser) } satisfies StatePayload));
      const location = withQuery(app.oauthUrl, {
        response_type: 'code',
        client_id: app.clientId,
        redirect_uri: callbackUrl(app.id),
        scope: 'openid email profile',
        state,
      });
      return { location, browserNonce: browser };
    },

    /**
     * GET /api/oauth/callback/{appId}: checks the state and that the browser is the one that
     * started the sign-in, exchanges the code and records the sign-in. With a returnTo, the visitor
     * goes back there (an absolute URL on the portal's origin) with a one-time `oauthCode`, which
     * that page exchanges for the grant (redeem) — the grant itself is never put in a URL.
     */
    async callback(appId: number, query: { code?: string; state?: string; error?: string }, browserNonce: string | undefined): Promise<CallbackOutcome> {
      let payload: StatePayload;
      try {
        payload = JSON.parse(secretBox.open(query.state ?? '')) as StatePayload;
      } catch {
        return failure(400, OAuthMessages.stateInvalid);
      }
      if (payload.a !== appId || typeof payload.n !== 'string' || typeof payload.b !== 'string') return failure(400, OAuthMessages.stateInvalid);
      // Login CSRF: a state (and code) obtained in another browser is refused before it is used up.
      if (!isBrowserNonce(browserNonce) || !safeEqual(hashToken(browserNonce), payload.b)) {
        log.warn({ appId, hasCookie: browserNonce !== undefined }, 'oauth callback refused: not the browser that started the sign-in');
        return failure(400, OAuthMessages.stateInvalid);
      }
      const state = await repo.consumeState(hashToken(payload.n));
      if (!state || state.appId !== appId || state.expiresAt.getTime() < now().getTime()) return failure(400, OAuthMessages.stateInvalid);
      const back = (params: Record<string, string>): CallbackOutcome | null => {
        const location = returnUrl(state.returnTo, params);
        return location ? { kind: 'redirect', location } : null;
      };

      if (query.error || !query.code) {
        return back({ [OAuthReturnParams.error]: query.error ? providerErrorCode(query.error) : 'no_code' }) ?? failure(400, OAuthMessages.providerDenied);
      }
      const app = await repo.findById(appId);
      if (!app) return failure(404, OAuthMessages.flowNotFound);
      let answer: Record<string, unknown>;
      try {
        answer = await exchangeCode(app, query.code);
      } catch (err) {
        if (err instanceof AppError) return back({ [OAuthReturnParams.error]: 'exchange_failed' }) ?? failure(err.statusCode, err.errors[0]!);
        throw err;
      }
      const claims = idTokenClaims(answer.id_token);
      const expiresIn = typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : DEFAULT_GRANT_SECONDS;
      const code = returnUrl(state.returnTo, {}) ? randomToken() : null;
      await repo.insertGrant({
        appId,
        sessionHash: null,
        codeHash: code ? hashToken(code) : null,
        codeExpiresAt: code ? new Date(now().getTime() + OAuthLimits.codeTtlSeconds * 1000) : null,
        browserHash: payload.b,
        subject: claims.sub ?? null,
        email: claims.email ?? null,
        tokensSealed: secretBox.seal(JSON.stringify(answer)),
        expiresAt: new Date(now().getTime() + Math.min(expiresIn, MAX_GRANT_SECONDS) * 1000),
      });
      log.info({ appId, subject: claims.sub }, 'oauth sign-in completed');
      return (
        (code ? back({ [OAuthReturnParams.code]: code }) : null) ?? {
          kind: 'page',
          statusCode: 200,
          title: 'Signed in',
          message: 'You are signed in. You can close this window and return to the avatar.',
        }
      );
    },

    /**
     * POST /api/oauth/grant: the page at returnTo exchanges its one-time code for the grant, from
     * the browser that started the sign-in. A code works once, for its config, within
     * OAuthLimits.codeTtlSeconds.
     */
    async redeem(appId: number, code: string, browserNonce: string | undefined): Promise<{ oauthGrant: string; expiresAt: string }> {
      if (!isBrowserNonce(browserNonce)) throw AppError.badRequest(OAuthMessages.codeInvalid);
      const grant = randomToken();
      const row = await repo.redeemCode({ appId, codeHash: hashToken(code), browserHash: hashToken(browserNonce), sessionHash: hashToken(grant), now: now() });
      if (!row) throw AppError.badRequest(OAuthMessages.codeInvalid);
      return { oauthGrant: grant, expiresAt: row.expiresAt.toISOString() };
    },

    /** Live-session admission: uses up the visitor's one-time grant of this config (null: unknown, used or expired). */
    /** The config's public name (the avatar page's sign-in button) and the page's signed start link; null when it is gone. */
    async publicInfo(appId: number, avatarId: number): Promise<{ id: number; name: string; startUrl: string } | null> {
      const app = await repo.findById(appId);
      return app ? { id: app.id, name: app.name, startUrl: startUrl(app.id, avatarId) } : null;
    },

    async consumeGrant(appId: number, grant: string): Promise<{ subject: string | null; email: string | null } | null> {
      const row = await repo.consumeGrant(hashToken(grant), appId, now());
      return row ? { subject: row.subject, email: row.email } : null;
    },

    /**
     * For the avatar page: the visitor's completed sign-in with this config, or null when the
     * session token is unknown, for another config, or expired.
     */
    async verifySession(appId: number, session: string): Promise<{ subject: string | null; email: string | null; expiresAt: Date } | null> {
      const grant = await repo.findGrant(hashToken(session));
      if (!grant || grant.appId !== appId || grant.expiresAt.getTime() <= now().getTime()) return null;
      return { subject: grant.subject, email: grant.email, expiresAt: grant.expiresAt };
    },
  };
}

export type OAuthService = ReturnType<typeof createOAuthService>;
