import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ZAccountInfoResponse,
  ZAccountStatsQuery,
  ZAccountStatsResponse,
  ZAccountUpgradeRequest,
  ZAccountUpgradeResponse,
  ZDecidePlanRequest,
  ZDecidePlanResponse,
  ZPlanRequestsQuery,
  ZPlanRequestsResponse,
  ZWithdrawPlanRequestResponse,
} from '@persona/contract';
import { requireAuth, type AuthGuards } from '../../plugins/auth.js';
import type { AccountService } from './service.js';

export function accountRoutes(deps: { account: AccountService; guards: AuthGuards }) {
  const { account, guards } = deps;
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get('/api/account_info', { onRequest: guards.session, schema: { tags: ['account'], response: { 200: ZAccountInfoResponse } } }, async (req) => ({
      status: 'OK' as const,
      accountDetails: await account.getAccountDetails(requireAuth(req).userId),
    }));

    app.get(
      '/api/account_stats',
      { onRequest: guards.session, schema: { tags: ['account'], querystring: ZAccountStatsQuery, response: { 200: ZAccountStatsResponse } } },
      async (req) => account.getStats(requireAuth(req).userId, req.query.startDate, req.query.endDate),
    );

    app.post(
      '/api/account_upgrade',
      { onRequest: guards.session, schema: { tags: ['account'], body: ZAccountUpgradeRequest, response: { 200: ZAccountUpgradeResponse } } },
      async (req) => ({
        status: 'OK' as const,
        request: await account.requestPlanChange(requireAuth(req).userId, req.body.subType, req.body.dhType),
        errors: [],
      }),
    );

    app.post(
      '/api/account_upgrade_withdraw',
      { onRequest: guards.session, schema: { tags: ['account'], response: { 200: ZWithdrawPlanRequestResponse } } },
      async (req) => ({ status: 'OK' as const, request: await account.withdrawPlanRequest(requireAuth(req).userId) }),
    );

    app.get(
      '/api/admin/plan_requests',
      { onRequest: guards.admin, schema: { tags: ['admin'], querystring: ZPlanRequestsQuery, response: { 200: ZPlanRequestsResponse } } },
      async (req) => ({ status: 'OK' as const, requests: await account.listRequests(req.query.status) }),
    );

    app.post(
      '/api/admin/plan_requests/decide',
      { onRequest: guards.admin, schema: { tags: ['admin'], body: ZDecidePlanRequest, response: { 200: ZDecidePlanResponse } } },
      async (req) => ({
        status: 'OK' as const,
        request: await account.decideRequest(requireAuth(req).userId, req.body.requestId, req.body.decision, req.body.reason),
      }),
    );
  };
}
