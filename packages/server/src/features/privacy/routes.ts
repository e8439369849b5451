import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { PrivacyPaths, ZAvatarPrivacy, ZAvatarPrivacyResponse, ZGetAvatarPrivacyQuery, ZRedactStoredRequest, ZRedactStoredResponse } from '@persona/contract';
import { requireAuth, type AuthGuards } from '../../plugins/auth.js';
import type { PrivacyService } from './service.js';

/** An avatar's privacy settings (ADR 097): the signed-in account's avatars only; another account's answers 404. */
export function privacyRoutes(deps: { privacy: PrivacyService; guards: AuthGuards }) {
  const { privacy, guards } = deps;
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const tags = ['privacy'];

    // API keys (ADR 094): reading them is part of reading the avatar, changing them of writing it.
    app.get(
      PrivacyPaths.get,
      { onRequest: guards.session, config: { apiKeyScope: 'avatars:read' }, schema: { tags, querystring: ZGetAvatarPrivacyQuery, response: { 200: ZAvatarPrivacyResponse } } },
      async (req) => ({ status: 'OK' as const, privacy: await privacy.get(requireAuth(req).userId, req.query.avatarId) }),
    );

    app.post(
      PrivacyPaths.set,
      { onRequest: guards.session, config: { apiKeyScope: 'avatars:write' }, schema: { tags, body: ZAvatarPrivacy, response: { 200: ZAvatarPrivacyResponse } } },
      async (req) => ({ status: 'OK' as const, privacy: await privacy.set(requireAuth(req).userId, req.body) }),
    );

    // Rewriting stored text is a kind of deleting it: the scope that erases conversations.
    app.post(
      PrivacyPaths.redactStored,
      { onRequest: guards.session, config: { apiKeyScope: 'conversations:delete' }, schema: { tags, body: ZRedactStoredRequest, response: { 200: ZRedactStoredResponse } } },
      async (req) => ({ status: 'OK' as const, ...(await privacy.redactStored(requireAuth(req).userId, req.body)) }),
    );
  };
}
