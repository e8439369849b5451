import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ConversationPaths,
  ZConversationIdRequest,
  ZDeleteConversationResponse,
  ZGetConversationQuery,
  ZGetConversationResponse,
  ZListConversationsQuery,
  ZListConversationsResponse,
} from '@persona/contract';
import { requireAuth, type AuthGuards } from '../../plugins/auth.js';
import type { ConversationsService } from './service.js';

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

    app.get(ConversationPaths.list, { onRequest: guards.session, schema: listSchema }, async (req) => ({
      status: 'OK' as const,
      ...(await conversations.list({ ownerUserId: requireAuth(req).userId }, req.query)),
    }));

    app.get(ConversationPaths.get, { onRequest: guards.session, schema: getSchema }, async (req) => ({
      status: 'OK' as const,
      conversation: await conversations.get({ ownerUserId: requireAuth(req).userId }, req.query.id, requireAuth(req).userId),
    }));

    app.post(
      ConversationPaths.delete,
      { onRequest: guards.session, schema: { tags: ['conversations'], body: ZConversationIdRequest, response: { 200: ZDeleteConversationResponse } } },
      async (req) => {
        await conversations.delete(requireAuth(req).userId, req.body.id);
        return { status: 'OK' as const, id: req.body.id };
      },
    );

    app.get(ConversationPaths.adminList, { onRequest: guards.admin, schema: { ...listSchema, tags: ['admin'] } }, async (req) => ({
      status: 'OK' as const,
      ...(await conversations.list({ all: true }, req.query)),
    }));

    app.get(ConversationPaths.adminGet, { onRequest: guards.admin, schema: { ...getSchema, tags: ['admin'] } }, async (req) => ({
      status: 'OK' as const,
      conversation: await conversations.get({ all: true }, req.query.id, requireAuth(req).userId),
    }));
  };
}
