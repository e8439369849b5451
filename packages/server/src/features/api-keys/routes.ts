import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ApiKeyMessages,
  ApiKeyPaths,
  ZAddApiKeyRequest,
  ZAddApiKeyResponse,
  ZCreateVisitorTokenRequest,
  ZCreateVisitorTokenResponse,
  ZDelApiKeyRequest,
  ZDelApiKeyResponse,
  ZListApiKeysResponse,
} from '@persona/contract';
import { AppError } from '../../lib/app-error.js';
import { requireAuth, type AuthGuards } from '../../plugins/auth.js';
import type { ApiKeysService } from './service.js';

/**
 * API keys (ADR 094): listed, made and revoked with a portal session only (these routes name no
 * `apiKeyScope`, so a key is refused here); the visitor token is the one call made for keys.
 */
export function apiKeyRoutes(deps: { apiKeys: ApiKeysService; guards: AuthGuards }) {
  const { apiKeys, guards } = deps;
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const tags = ['api keys'];

    app.get(ApiKeyPaths.list, { onRequest: guards.session, schema: { tags, response: { 200: ZListApiKeysResponse } } }, async (req) => ({
      status: 'OK' as const,
      apiKeys: await apiKeys.list(requireAuth(req).userId),
    }));

    app.post(
      ApiKeyPaths.add,
      { onRequest: guards.session, config: { rateLimit: { max: 30, timeWindow: '1 minute' } }, schema: { tags, body: ZAddApiKeyRequest, response: { 200: ZAddApiKeyResponse } } },
      async (req, reply) => {
        const auth = requireAuth(req);
        // Signed in as the account by an administrator (login-as): no credential that outlives the
        // visit (ADR 094). Revoking a key stays allowed (support may have to stop a leaked one).
        if (auth.adminProxy) throw new AppError(403, ApiKeyMessages.notAsAdmin);
        reply.header('cache-control', 'no-store');
        return { status: 'OK' as const, ...(await apiKeys.create(auth.userId, req.body)) };
      },
    );

    app.post(ApiKeyPaths.del, { onRequest: guards.session, schema: { tags, body: ZDelApiKeyRequest, response: { 200: ZDelApiKeyResponse } } }, async (req) => {
      await apiKeys.revoke(requireAuth(req).userId, req.body.id);
      return { status: 'OK' as const, id: req.body.id };
    });

    app.post(
      ApiKeyPaths.visitorToken,
      {
        onRequest: guards.session,
        config: { apiKeyScope: 'tokens:create', rateLimit: { max: 120, timeWindow: '1 minute' } },
        schema: { tags: ['avatars'], body: ZCreateVisitorTokenRequest, response: { 200: ZCreateVisitorTokenResponse } },
      },
      async (req, reply) => {
        reply.header('cache-control', 'no-store');
        return { status: 'OK' as const, ...(await apiKeys.visitorToken(requireAuth(req).userId, req.body)) };
      },
    );
  };
}
