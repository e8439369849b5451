import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ZFunctionTemplatesResponse,
  ZListFunctionsResponse,
  ZMutateFunctionsRequest,
  ZMutateFunctionsResponse,
  ZRealtimeFunctionsResponse,
  ZReviewDecisionRequest,
  ZReviewDecisionResponse,
  ZReviewQueueQuery,
  ZReviewQueueResponse,
} from '@persona/contract';
import { requireAuth, type AuthGuards } from '../../plugins/auth.js';
import type { FunctionsService } from './service.js';
import { functionTemplates } from './templates.js';

/** A failed mutation: per-item results, or only errors when the request itself was invalid. */
const ZMutateFailure = ZMutateFunctionsResponse.partial({ results: true });

export function functionRoutes(deps: { functions: FunctionsService; guards: AuthGuards }) {
  const { functions, guards } = deps;
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get('/api/list_functions', { onRequest: guards.session, schema: { tags: ['functions'], response: { 200: ZListFunctionsResponse } } }, async (req) => ({
      status: 'OK' as const,
      functions: await functions.list(requireAuth(req).userId),
    }));

    app.post(
      '/api/functions',
      {
        onRequest: guards.session,
        config: { rateLimit: { max: 60, timeWindow: '1 minute' } },
        schema: { tags: ['functions'], body: ZMutateFunctionsRequest, response: { 200: ZMutateFunctionsResponse, 400: ZMutateFailure, 404: ZMutateFailure } },
      },
      async (req, reply) => {
        const { statusCode, body } = await functions.mutate(requireAuth(req).userId, req.body.functions);
        return reply.status(statusCode).send(body);
      },
    );

    app.get('/api/function_templates', { onRequest: guards.session, schema: { tags: ['functions'], response: { 200: ZFunctionTemplatesResponse } } }, async () => ({
      status: 'OK' as const,
      templates: [...functionTemplates],
    }));

    app.get(
      '/api/realtime/functions',
      { onRequest: guards.session, schema: { tags: ['functions'], response: { 200: ZRealtimeFunctionsResponse } } },
      async (req) => ({ status: 'OK' as const, functions: await functions.listApproved(requireAuth(req).userId) }),
    );

    // Moderation: the admin console's 'Functions review'.
    app.get(
      '/api/admin/functions',
      { onRequest: guards.admin, schema: { tags: ['admin'], querystring: ZReviewQueueQuery, response: { 200: ZReviewQueueResponse } } },
      async (req) => ({ status: 'OK' as const, functions: await functions.reviewQueue(req.query.status) }),
    );

    app.post(
      '/api/admin/functions/review',
      { onRequest: guards.admin, schema: { tags: ['admin'], body: ZReviewDecisionRequest, response: { 200: ZReviewDecisionResponse } } },
      async (req) => ({
        status: 'OK' as const,
        function: await functions.decide(requireAuth(req).userId, req.body.id, req.body.version, req.body.decision, req.body.reason),
      }),
    );
  };
}
