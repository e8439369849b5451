import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  ZAddEncryptionKeyRequest,
  ZAddEncryptionKeyResponse,
  ZDelEncryptionKeyRequest,
  ZDelEncryptionKeyResponse,
  ZListEncryptionKeysResponse,
} from '@persona/contract';
import { requireAuth, type AuthGuards } from '../../plugins/auth.js';
import type { EncryptionKeysService } from './service.js';

export function encryptionKeyRoutes(deps: { keys: EncryptionKeysService; guards: AuthGuards }) {
  const { keys, guards } = deps;
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get(
      '/api/list_encryption_keys',
      { onRequest: guards.session, schema: { tags: ['encryption keys'], response: { 200: ZListEncryptionKeysResponse } } },
      async (req) => ({ status: 'OK' as const, encKeys: await keys.list(requireAuth(req).userId) }),
    );

    app.post(
      '/api/add_encryption_key',
      {
        onRequest: guards.session,
        config: { rateLimit: { max: 30, timeWindow: '1 minute' } },
        schema: { tags: ['encryption keys'], body: ZAddEncryptionKeyRequest, response: { 200: ZAddEncryptionKeyResponse } },
      },
      async (req, reply) => {
        reply.header('cache-control', 'no-store');
        return { status: 'OK' as const, encKey: await keys.create(requireAuth(req).userId, req.body.name) };
      },
    );

    app.post(
      '/api/del_encryption_key',
      { onRequest: guards.session, schema: { tags: ['encryption keys'], body: ZDelEncryptionKeyRequest, response: { 200: ZDelEncryptionKeyResponse } } },
      async (req) => {
        await keys.remove(requireAuth(req).userId, req.body.id);
        return { status: 'OK' as const, id: req.body.id };
      },
    );
  };
}
