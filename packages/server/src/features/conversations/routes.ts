import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ConversationPaths,
  ZConversationIdRequest,
  ZDeleteConversationResponse,
  ZExportConversationsQuery,
  ZGetConversationQuery,
  ZGetConversationResponse,
  ZListConversationsQuery,
  ZListConversationsResponse,
  PrivacyPaths,
  ZEraseVisitorRequest,
  ZEraseVisitorResponse,
} from '@persona/contract';
import { requireAuth, type AuthGuards } from '../../plugins/auth.js';
import type { ConversationsService } from './service.js';
import { EXPORT_DESCRIPTION, exportFileName, exportStream } from './export.js';

/**
 * Conversations (ADR 092): the signed-in account's live sessions, their transcripts and delete;
 * administrators read every account's at the `/api/admin/…` twins (their own routes stay their account's).
 */
export function conversationRoutes(deps: { conversations: ConversationsService; guards: AuthGuards }) {
  const { conversations, guards } = deps;
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const listSchema = { tags: ['conversations'], querystring: ZListConversationsQuery, response: { 200: ZListConversationsResponse } };
    const getSchema = { tags: ['conversations'], querystring: ZGetConversationQuery, response: { 200: ZGetConversationResponse } };

    // API keys (ADR 094): each route reachable with a key names its scope; the others refuse keys.
    const read = { apiKeyScope: 'conversations:read' as const };

    app.get(ConversationPaths.list, { onRequest: guards.session, config: read, schema: listSchema }, async (req) => ({
      status: 'OK' as const,
      ...(await conversations.list({ ownerUserId: requireAuth(req).userId }, req.query)),
    }));

    app.get(ConversationPaths.get, { onRequest: guards.session, config: read, schema: getSchema }, async (req) => ({
      status: 'OK' as const,
      conversation: await conversations.get({ ownerUserId: requireAuth(req).userId }, req.query.id, requireAuth(req).userId, req.query.q),
    }));

    // Streamed a keyset page at a time (ADR 094): JSON or CSV, one conversation or the list's filters.
    app.get(
      ConversationPaths.export,
      {
        onRequest: guards.session,
        // Each export reads up to ConversationLimits.exportMax transcripts: only so many a minute per address.
        config: { ...read, rateLimit: { max: 30, timeWindow: '1 minute' } },
        schema: { tags: ['conversations'], description: EXPORT_DESCRIPTION, querystring: ZExportConversationsQuery, produces: ['application/json', 'text/csv'] },
      },
      async (req, reply) => {
        const scope = { ownerUserId: requireAuth(req).userId };
        const q = req.query;
        // One conversation that is not the caller's is a 404 before anything is streamed.
        if (q.id) await conversations.get(scope, q.id, scope.ownerUserId);
        let next: string | null = null;
        const rows = conversations.exportRows(scope, q, (cursor) => (next = cursor));
        return reply
          .header('content-type', q.format === 'csv' ? 'text/csv; charset=utf-8' : 'application/json; charset=utf-8')
          .header('content-disposition', `attachment; filename="${exportFileName(q.format, q.id, new Date())}"`)
          .header('cache-control', 'no-store')
          .send(exportStream(q.format, rows, () => next));
      },
    );

    app.post(
      ConversationPaths.delete,
      {
        onRequest: guards.session,
        config: { apiKeyScope: 'conversations:delete' },
        schema: { tags: ['conversations'], body: ZConversationIdRequest, response: { 200: ZDeleteConversationResponse } },
      },
      async (req) => {
        const { id, ids } = req.body;
        if (ids) {
          await conversations.deleteMany(requireAuth(req).userId, ids);
          return { status: 'OK' as const, ids: [...new Set(ids)] };
        }
        await conversations.delete(requireAuth(req).userId, id!);
        return { status: 'OK' as const, id };
      },
    );

    // Per-visitor erasure (ADR 097): everything of one pseudonymous visitor of the caller's account.
    app.post(
      PrivacyPaths.eraseVisitor,
      {
        onRequest: guards.session,
        config: { apiKeyScope: 'conversations:delete' },
        schema: { tags: ['conversations'], body: ZEraseVisitorRequest, response: { 200: ZEraseVisitorResponse } },
      },
      async (req) => ({ status: 'OK' as const, visitor: req.body.visitor, ...(await conversations.eraseVisitor(requireAuth(req).userId, req.body.visitor)) }),
    );

    app.get(ConversationPaths.adminList, { onRequest: guards.admin, schema: { ...listSchema, tags: ['admin'] } }, async (req) => ({
      status: 'OK' as const,
      ...(await conversations.list({ all: true }, req.query)),
    }));

    app.get(ConversationPaths.adminGet, { onRequest: guards.admin, schema: { ...getSchema, tags: ['admin'] } }, async (req) => ({
      status: 'OK' as const,
      conversation: await conversations.get({ all: true }, req.query.id, requireAuth(req).userId, req.query.q),
    }));
  };
}
