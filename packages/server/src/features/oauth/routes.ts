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
  ZOAuthStartParams,
  ZOAuthStartQuery,
} from '@persona/contract';
import { requireAuth, type AuthGuards } from '../../plugins/auth.js';
import { escapeHtml } from '../../plugins/mail.js';
import type { OAuthService } from './service.js';

function resultPage(title: string, message: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title></head><body style="font-family:Arial,Helvetica,sans-serif;color:#1f2937;max-width:480px;margin:15vh auto;padding:24px;text-align:center"><h1 style="font-size:1.5rem">${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>`;
}

export function oauthRoutes(deps: { oauth: OAuthService; guards: AuthGuards }) {
  const { oauth, guards } = deps;
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get('/api/list_oauthapp', { preHandler: guards.session, schema: { tags: ['oauth'], response: { 200: ZListOAuthAppsResponse } } }, async (req) => ({
      status: 'OK' as const,
      oauthApps: await oauth.list(requireAuth(req).userId),
    }));

    app.post(
      '/api/get_oauthapp',
      { preHandler: guards.session, schema: { tags: ['oauth'], body: ZOAuthAppIdRequest, response: { 200: ZGetOAuthAppResponse } } },
      async (req) => ({ status: 'OK' as const, oauthApp: await oauth.get(requireAuth(req).userId, req.body.appId) }),
    );

    app.post(
      '/api/add_oauthapp',
      { preHandler: guards.session, schema: { tags: ['oauth'], body: ZOAuthAppInput, response: { 200: ZAddOAuthAppResponse } } },
      async (req) => {
        const saved = await oauth.save(requireAuth(req).userId, req.body);
        return { status: 'OK' as const, updated: saved.updated, oauthApp: saved, errors: [] };
      },
    );

    app.post(
      '/api/del_oauthapp',
      { preHandler: guards.session, schema: { tags: ['oauth'], body: ZOAuthAppIdRequest, response: { 200: ZDelOAuthAppResponse } } },
      async (req) => {
        await oauth.remove(requireAuth(req).userId, req.body.appId);
        return { status: 'OK' as const, appId: req.body.appId, errors: [] };
      },
    );

    // The authorization-code flow: opened by a visitor's browser, so no Authorization header.
    app.get(
      '/api/oauth/start/:appId',
      { config: { rateLimit: { max: 30, timeWindow: '1 minute' } }, schema: { tags: ['oauth'], params: ZOAuthStartParams, querystring: ZOAuthStartQuery } },
      async (req, reply) => reply.redirect(await oauth.start(req.params.appId, req.query.returnTo), 302),
    );

    app.get(
      '/api/oauth/callback/:appId',
      { config: { rateLimit: { max: 30, timeWindow: '1 minute' } }, schema: { tags: ['oauth'], params: ZOAuthStartParams, querystring: ZOAuthCallbackQuery } },
      async (req, reply) => {
        const outcome = await oauth.callback(req.params.appId, req.query);
        reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
        if (outcome.kind === 'redirect') return reply.redirect(outcome.location, 302);
        return reply.status(outcome.statusCode).type('text/html; charset=utf-8').send(resultPage(outcome.title, outcome.message));
      },
    );
  };
}
