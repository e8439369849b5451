import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  AdminMessages,
  ZGetOnlineUserRequest,
  ZGetOnlineUserResponse,
  ZListAvatarUsersRequest,
  ZListAvatarUsersResponse,
  ZListOnlineUsersRequest,
  ZListOnlineUsersResponse,
} from '@persona/contract';
import type { Db } from '../../db/client.js';
import { createPresenceRepository } from './repository.js';
import { AppError } from '../../lib/app-error.js';
import { requireAuth, type AuthGuards } from '../../plugins/auth.js';
import { toOnlineUser, type PresenceRegistry } from './registry.js';

export function presenceRoutes(deps: { presence: PresenceRegistry; guards: AuthGuards; db: Db }) {
  const { presence, guards } = deps;
  const repo = createPresenceRepository(deps.db);
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.post(
      '/api/list_online_users',
      { onRequest: guards.admin, schema: { tags: ['admin'], body: ZListOnlineUsersRequest, response: { 200: ZListOnlineUsersResponse } } },
      async () => ({ status: 'OK' as const, onlineUsers: (await presence.list()).map(toOnlineUser) }),
    );

    app.post(
      '/api/get_online_user',
      { onRequest: guards.admin, schema: { tags: ['admin'], body: ZGetOnlineUserRequest, response: { 200: ZGetOnlineUserResponse } } },
      async (req) => {
        const all = await presence.list();
        const entry = all.find((e) => e.sessionId === req.body.sessionId);
        if (!entry) throw AppError.notFound(AdminMessages.sessionNotFound);
        const { ownerUserId: _owner, avatarId: _avatar, ...detail } = entry;
        const deviceCount = all.filter((e) => e.deviceId === entry.deviceId).length;
        return { status: 'OK' as const, userDetail: { ...detail, deviceCount }, errors: [] };
      },
    );

    app.post(
      '/api/list_avatar_users',
      { onRequest: guards.session, schema: { tags: ['avatars'], body: ZListAvatarUsersRequest, response: { 200: ZListAvatarUsersResponse } } },
      async (req) => {
        const { userId } = requireAuth(req);
        const owned = await repo.ownedAvatarId(req.body.agentId, userId);
        if (!owned) throw AppError.notFound();
        const users = await presence.listByAvatar(owned);
        return { agentId: owned, status: 'OK' as const, onlineUsers: users.map(toOnlineUser), errors: [] };
      },
    );
  };
}
