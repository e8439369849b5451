import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ZAddOAuthAppResponse,
  ZDelOAuthAppResponse,
  ZGetOAuthAppResponse,
  ZListOAuthAppsResponse,
  ZOAuthAppIdRequest,
  ZOAuthAppInput,
  ZOAuthCallbackQuery,
  ZOAuthGrantRequest,
  ZOAuthGrantResponse,
  ZOAuthStartParams,
  ZOAuthStartQuery,
} from '@persona/contract';
import { readCookie, serializeCookie } from '../../lib/cookies.js';
import { requireAuth, type AuthGuards } from '../../plugins/auth.js';
import { escapeHtml } from '../../plugins/mail.js';
import type { OAuthService } from './service.js';

function resultPage(title: string, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title></head><body style="font-family:Arial,Helvetica,sans-serif;color:#1f2937;max-width:480px;margin:15vh auto;padding:24px;text-align:center"><h1 style="font-size:1.5rem">${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>`;
}

/**
 * The sign-in cookie binds a sign-in to the browser that started it (see OAuthService.start):
 * HttpOnly, SameSite=Lax (sent on the identity service's redirect back, a top-level GET), and on
 * https `__Host-` prefixed so that no other host can plant one.
 */
function browserCookie(publicUrl: string) {
  const secure = new URL(publicUrl).protocol === 'https:';
  const name = secure ? '__Host-persona_oauth' : 'persona_oauth';
  return {
    read: (header: string | undefined) => readCookie(header, name),
    write: (value: string) => serializeCookie(name, value, { maxAgeSeconds: 30 * 60, path: '/', secure, sameSite: 'Lax', httpOnly: true }),
  };
}

export function oauthRoutes(deps: { oauth: OAuthService; guards: AuthGuards; publicUrl: string }) {
  const { oauth, guards } = deps;
  const cookie = browserCookie(deps.publicUrl);
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get('/api/list_oauthapp', { onRequest: guards.session, schema: { tags: ['oauth'], response: { 200: ZListOAuthAppsResponse } } }, async (req) => ({
      status: 'OK' as const,
      oauthApps: await oauth.list(requireAuth(req).userId),
    }));

    app.post(
      '/api/get_oauthapp',
      { onRequest: guards.session, schema: { tags: ['oauth'], body: ZOAuthAppIdRequest, response: { 200: ZGetOAuthAppResponse } } },
      async (req) => ({ status: 'OK' as const, oauthApp: await oauth.get(requireAuth(req).userId, req.body.appId) }),
    );

    app.post(
      '/api/add_oauthapp',
      { onRequest: guards.session, schema: { tags: ['oauth'], body: ZOAuthAppInput, response: { 200: ZAddOAuthAppResponse } } },
      async (req) => {
        const saved = await oauth.save(requireAuth(req).userId, req.body);
        return { status: 'OK' as const, updated: saved.updated, oauthApp: saved, errors: [] };
      },
    );

    app.post(
      '/api/del_oauthapp',
      { onRequest: guards.session, schema: { tags: ['oauth'], body: ZOAuthAppIdRequest, response: { 200: ZDelOAuthAppResponse } } },
      async (req) => {
        await oauth.remove(requireAuth(req).userId, req.body.appId);
        return { status: 'OK' as const, appId: req.body.appId, errors: [] };
      },
    );

    // The authorization-code flow: opened by a visitor's browser, so no Authorization header.
    app.get(
      '/api/oauth/start/:appId',
      { config: { rateLimit: { max: 30, timeWindow: '1 minute' } }, schema: { tags: ['oauth'], params: ZOAuthStartParams, querystring: ZOAuthStartQuery } },
      async (req, reply) => {
        const { location, browserNonce } = await oauth.start(req.params.appId, req.query.returnTo, cookie.read(req.headers.cookie), req.query.start);
        reply.header('set-cookie', cookie.write(browserNonce)).header('cache-control', 'no-store');
        return reply.redirect(location, 302);
      },
    );

    app.get(
      '/api/oauth/callback/:appId',
      { config: { rateLimit: { max: 30, timeWindow: '1 minute' } }, schema: { tags: ['oauth'], params: ZOAuthStartParams, querystring: ZOAuthCallbackQuery } },
      async (req, reply) => {
        const outcome = await oauth.callback(req.params.appId, req.query, cookie.read(req.headers.cookie));
        reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
        if (outcome.kind === 'redirect') return reply.redirect(outcome.location, 302);
        return reply.status(outcome.statusCode).type('text/html; charset=utf-8').send(resultPage(outcome.title, outcome.message));
      },
    );

    // The page at returnTo exchanges its one-time code for the grant (never put in a URL).
    app.post(
      '/api/oauth/grant',
      { config: { rateLimit: { max: 30, timeWindow: '1 minute' } }, schema: { tags: ['oauth'], body: ZOAuthGrantRequest, response: { 200: ZOAuthGrantResponse } } },
      async (req, reply) => {
        const grant = await oauth.redeem(req.body.appId, req.body.code, cookie.read(req.headers.cookie));
        reply.header('cache-control', 'no-store');
        return { status: 'OK' as const, ...grant };
      },
    );
  };
}
