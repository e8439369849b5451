import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  WebhookPaths,
  ZAddWebhookRequest,
  ZListWebhookDeliveriesQuery,
  ZListWebhookDeliveriesResponse,
  ZListWebhooksResponse,
  ZUpdateWebhookRequest,
  ZWebhookDeliveryResponse,
  ZWebhookIdRequest,
  ZWebhookIdResponse,
  ZWebhookResponse,
  ZWebhookSecretResponse,
} from '@persona/contract';
import { requireAuth, type AuthGuards } from '../../plugins/auth.js';
import type { WebhooksService } from './service.js';

/** Webhooks (ADR 093): the signed-in account's endpoints and their delivery logs; another account's ids answer 404. */
export function webhookRoutes(deps: { webhooks: WebhooksService; guards: AuthGuards }) {
  const { webhooks, guards } = deps;
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const tags = ['webhooks'];
    const opts = { onRequest: guards.session };

    app.get(WebhookPaths.list, { ...opts, schema: { tags, response: { 200: ZListWebhooksResponse } } }, async (req) => ({
      status: 'OK' as const,
      webhooks: await webhooks.list(requireAuth(req).userId),
    }));

    app.post(WebhookPaths.add, { ...opts, schema: { tags, body: ZAddWebhookRequest, response: { 200: ZWebhookSecretResponse } } }, async (req) => ({
      status: 'OK' as const,
      ...(await webhooks.add(requireAuth(req).userId, req.body)),
    }));

    app.post(WebhookPaths.update, { ...opts, schema: { tags, body: ZUpdateWebhookRequest, response: { 200: ZWebhookResponse } } }, async (req) => ({
      status: 'OK' as const,
      webhook: await webhooks.update(requireAuth(req).userId, req.body),
    }));

    app.post(WebhookPaths.delete, { ...opts, schema: { tags, body: ZWebhookIdRequest, response: { 200: ZWebhookIdResponse } } }, async (req) => {
      await webhooks.delete(requireAuth(req).userId, req.body.id);
      return { status: 'OK' as const, id: req.body.id };
    });

    app.post(WebhookPaths.rollSecret, { ...opts, schema: { tags, body: ZWebhookIdRequest, response: { 200: ZWebhookSecretResponse } } }, async (req) => ({
      status: 'OK' as const,
      ...(await webhooks.rollSecret(requireAuth(req).userId, req.body.id)),
    }));

    app.get(WebhookPaths.deliveries, { ...opts, schema: { tags, querystring: ZListWebhookDeliveriesQuery, response: { 200: ZListWebhookDeliveriesResponse } } }, async (req) => ({
      status: 'OK' as const,
      deliveries: await webhooks.deliveries(requireAuth(req).userId, req.query.endpointId, req.query.limit),
    }));

    app.post(WebhookPaths.test, { ...opts, schema: { tags, body: ZWebhookIdRequest, response: { 200: ZWebhookDeliveryResponse } } }, async (req) => ({
      status: 'OK' as const,
      delivery: await webhooks.sendTest(requireAuth(req).userId, req.body.id),
    }));

    app.post(WebhookPaths.resend, { ...opts, schema: { tags, body: ZWebhookIdRequest, response: { 200: ZWebhookDeliveryResponse } } }, async (req) => ({
      status: 'OK' as const,
      delivery: await webhooks.resend(requireAuth(req).userId, req.body.id),
    }));
  };
}
