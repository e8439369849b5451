import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { AnalyticsPaths, ZAnalyticsQuery, ZAnalyticsResponse, ZPageFiguresRequest } from '@persona/contract';
import { z } from 'zod';
import { requireAuth, type AuthGuards } from '../../plugins/auth.js';
import type { AnalyticsService } from './service.js';

/**
 * Analytics (ADR 099): the caller's account's figures (API keys: `conversations:read`), every
 * account's at the admin twin; and the avatar page's report of its own figures (public: the
 * session's resume token is the credential).
 */
export function analyticsRoutes(deps: { analytics: AnalyticsService; guards: AuthGuards }) {
  const { analytics, guards } = deps;
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const schema = { tags: ['analytics'], querystring: ZAnalyticsQuery, response: { 200: ZAnalyticsResponse } };

    // Each call aggregates up to a year of sessions: only so many a minute per address.
    const limit = { rateLimit: { max: 60, timeWindow: '1 minute' } };
    app.get(AnalyticsPaths.get, { onRequest: guards.session, config: { ...limit, apiKeyScope: 'conversations:read' }, schema }, async (req) => ({
      status: 'OK' as const,
      analytics: await analytics.get({ ownerUserId: requireAuth(req).userId }, req.query),
    }));

    app.get(AnalyticsPaths.adminGet, { onRequest: guards.admin, config: limit, schema: { ...schema, tags: ['admin'] } }, async (req) => ({
      status: 'OK' as const,
      analytics: await analytics.get({ all: true }, req.query),
    }));

    app.post(
      AnalyticsPaths.pageFigures,
      { config: { rateLimit: { max: 30, timeWindow: '1 minute' } }, schema: { tags: ['live'], body: ZPageFiguresRequest, response: { 200: z.object({ status: z.literal('OK') }) } } },
      async (req) => {
        await analytics.recordPageFigures(req.body);
        return { status: 'OK' as const };
      },
    );
  };
}
