import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  AdminMessages,
  ZAdminUserResponse,
  ZAdminUserStatusRequest,
  ZAdminUsersQuery,
  ZAdminUsersResponse,
  type TAdminUser,
  type TSubscriptionType,
} from '@persona/contract';
import { AppError } from '../../lib/app-error.js';
import { requireAuth, type AuthGuards } from '../../plugins/auth.js';
import type { createUsersService } from './service.js';

type UsersService = ReturnType<typeof createUsersService>;
type UserRow = Awaited<ReturnType<UsersService['search']>>['rows'][number];

function presentUser(u: UserRow, callerId: number): TAdminUser {
  return {
    id: u.id,
    name: `${u.firstName} ${u.lastName}`.trim(),
    email: u.email,
    companyName: u.companyName,
    userType: u.userType,
    status: u.status,
    subscriptionType: u.subscriptionType as TSubscriptionType,
    created: u.createdAt.toISOString(),
    isSelf: u.id === callerId,
  };
}

/** The admin console's Users page: search accounts, disable or enable them. */
export function adminUsersRoutes(deps: { users: UsersService; guards: AuthGuards }) {
  const { users, guards } = deps;
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/api/admin/users',
      { onRequest: guards.admin, schema: { tags: ['admin'], querystring: ZAdminUsersQuery, response: { 200: ZAdminUsersResponse } } },
      async (req) => {
        const { rows, total } = await users.search(req.query.search, req.query.limit, req.query.offset);
        const callerId = requireAuth(req).userId;
        return { status: 'OK' as const, users: rows.map((u) => presentUser(u, callerId)), total };
      },
    );

    app.post(
      '/api/admin/users/status',
      { onRequest: guards.admin, schema: { tags: ['admin'], body: ZAdminUserStatusRequest, response: { 200: ZAdminUserResponse } } },
      async (req) => {
        const callerId = requireAuth(req).userId;
        if (req.body.userId === callerId) throw new AppError(400, AdminMessages.cannotDisableSelf);
        return { status: 'OK' as const, user: presentUser(await users.setStatus(req.body.userId, req.body.status), callerId) };
      },
    );
  };
}
