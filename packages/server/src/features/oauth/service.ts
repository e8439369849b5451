import type { FastifyBaseLogger } from 'fastify';
import { OAuthLimits, OAuthMessages, isMasked, maskSecret, type TOAuthApp, type TOAuthAppInputParsed } from '@persona/contract';
import { AppError } from '../../lib/app-error.js';
import { assertOutboundUrl, OutboundUrlError } from '../../lib/outbound-url.js';
import type { SecretBox } from '../../lib/secret-box.js';
import { hashToken, randomToken } from '../../lib/tokens.js';
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
}

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
  const url = new URL(base, 'http://placeholder.invalid');
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  return base.startsWith('/') ? `${url.pathname}${url.search}${url.hash}` : url.toString();
}

export function createOAuthService(deps: OAuthServiceDeps) {
  const { repo, secretBox, log } = deps;
  const now = deps.now ?? (() => new Date());
  const callbackUrl = (appId: number) => `${deps.publicUrl}/api/oauth/callback/${appId}`;

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

  async function exchangeCode(app: OAuthAppRow, code: string): Promise<Record<string, unknown>> {
    try {
      await assertOutboundUrl(app.tokenIssueUrl, { allowPrivate: deps.allowPrivateUrls });
    } catch (err) {
      if (err instanceof OutboundUrlError) {
        log.warn({ appId: app.id, reason: err.message }, 'oauth token endpoint refused');
        throw new AppError(400, `${OAuthMessages.exchangeFailed} (Token Issue URL: ${err.message})`);
      }
      throw err;
    }
    const body = new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      redirect_uri: callbackUrl(app.id),
      client_id: app.clientId,
      client_secret: secretBox.open(app.clientSecretSealed),
    });
    let response: Response;
    let text: string;
    try {
      response = await fetch(app.tokenIssueUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body,
        redirect: 'manual',
        signal: AbortSignal.timeout(deps.exchangeTimeoutMs ?? 10_000),
      });
      text = await response.text();
    } catch (err) {
      log.warn({ err, appId: app.id }, 'oauth token endpoint unreachable');
      throw new AppError(502, OAuthMessages.exchangeFailed);
    }
    if (text.length > MAX_TOKEN_ANSWER_BYTES) throw new AppError(502, OAuthMessages.exchangeFailed);
    let answer: unknown;
    try {
      answer = JSON.parse(text);
    } catch {
      answer = Object.fromEntries(new URLSearchParams(text));
    }
    const record = (typeof answer === 'object' && answer !== null ? answer : {}) as Record<string, unknown>;
    if (!response.ok || (typeof record.access_token !== 'string' && typeof record.id_token !== 'string')) {
      log.warn({ appId: app.id, status: response.status, error: record.error }, 'oauth code exchange refused');
      throw new AppError(502, OAuthMessages.exchangeFailed);
    }
    return record;
  }

  const failure = (statusCode: number, message: string): CallbackOutcome => ({ kind: 'page', statusCode, title: 'Sign-in failed', message });

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
      await owned(userId, input.appId);
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

    /**
     * GET /api/oauth/start/{appId}: where to send the visitor — the identity service's OAuth URL
     * with the client id, the redirect URI and a sealed, single-use state.
     */
    async start(appId: number, returnTo: string | undefined): Promise<string> {
      const app = await repo.findById(appId);
      if (!app) throw AppError.notFound(OAuthMessages.flowNotFound);
      const nonce = randomToken();
      const expiresAt = new Date(now().getTime() + OAuthLimits.stateTtlMinutes * 60_000);
      await repo.deleteExpiredStates(now());
      await repo.insertState({ appId, nonceHash: hashToken(nonce), returnTo: returnTo ?? null, expiresAt });
      const state = secretBox.seal(JSON.stringify({ n: nonce, a: appId, e: expiresAt.getTime() } satisfies StatePayload));
      return withQuery(app.oauthUrl, {
        response_type: 'code',
        client_id: app.clientId,
        redirect_uri: callbackUrl(app.id),
        scope: 'openid email profile',
        state,
      });
    },

    /** GET /api/oauth/callback/{appId}: checks the state, exchanges the code and records the sign-in. */
    async callback(appId: number, query: { code?: string; state?: string; error?: string }): Promise<CallbackOutcome> {
      let payload: StatePayload;
      try {
        payload = JSON.parse(secretBox.open(query.state ?? '')) as StatePayload;
      } catch {
        return failure(400, OAuthMessages.stateInvalid);
      }
      if (payload.a !== appId || typeof payload.n !== 'string') return failure(400, OAuthMessages.stateInvalid);
      const state = await repo.consumeState(hashToken(payload.n));
      if (!state || state.appId !== appId || state.expiresAt.getTime() < now().getTime()) return failure(400, OAuthMessages.stateInvalid);
      const back = (params: Record<string, string>): CallbackOutcome | null =>
        state.returnTo ? { kind: 'redirect', location: withQuery(state.returnTo, params) } : null;

      if (query.error || !query.code) {
        return back({ oauthError: query.error ?? 'no_code' }) ?? failure(400, OAuthMessages.providerDenied);
      }
      const app = await repo.findById(appId);
      if (!app) return failure(404, OAuthMessages.flowNotFound);
      let answer: Record<string, unknown>;
      try {
        answer = await exchangeCode(app, query.code);
      } catch (err) {
        if (err instanceof AppError) return back({ oauthError: 'exchange_failed' }) ?? failure(err.statusCode, err.errors[0]!);
        throw err;
      }
      const claims = idTokenClaims(answer.id_token);
      const expiresIn = typeof answer.expires_in === 'number' && answer.expires_in > 0 ? answer.expires_in : DEFAULT_GRANT_SECONDS;
      const session = randomToken();
      await repo.insertGrant({
        appId,
        sessionHash: hashToken(session),
        subject: claims.sub ?? null,
        email: claims.email ?? null,
        tokensSealed: secretBox.seal(JSON.stringify(answer)),
        expiresAt: new Date(now().getTime() + Math.min(expiresIn, MAX_GRANT_SECONDS) * 1000),
      });
      log.info({ appId, subject: claims.sub }, 'oauth sign-in completed');
      return (
        back({ oauthSession: session }) ?? {
          kind: 'page',
          statusCode: 200,
          title: 'Signed in',
          message: 'You are signed in. You can close this window and return to the avatar.',
        }
      );
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
