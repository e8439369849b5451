import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { WorkerProtocol, ZDelVpsResponse, ZGetVpsResponse, ZListVpsResponse, ZVpsIdRequest } from '@persona/contract';
import { AppError } from '../../lib/app-error.js';
import { safeEqual } from '../../lib/tokens.js';
import type { AuthGuards } from '../../plugins/auth.js';
import type { WorkerHub } from './hub.js';

/** The workers' socket (registered in the scope of the websocket plugin: see app.ts). */
export function workerSocketRoutes(deps: { hub: WorkerHub; workerSecret: string | undefined }) {
  const { hub } = deps;
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.get(
      WorkerProtocol.path,
      {
        websocket: true,
        schema: { hide: true },
        preValidation: async (req) => {
          const given = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
          if (!deps.workerSecret || !given || !safeEqual(given, deps.workerSecret)) throw AppError.unauthorized('Invalid worker secret');
        },
      },
      (socket, req) => hub.accept(socket, req.ip),
    );
  };
}

/** The administrators' list of workers. */
export function workerRoutes(deps: { hub: WorkerHub; guards: AuthGuards }) {
  const { hub, guards } = deps;
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    app.get('/api/list_vps', { onRequest: guards.admin, schema: { tags: ['admin'], response: { 200: ZListVpsResponse } } }, async () => ({
      status: 'OK' as const,
      vpsList: await hub.list(),
    }));

    app.post(
      '/api/get_vps',
      { onRequest: guards.admin, schema: { tags: ['admin'], body: ZVpsIdRequest, response: { 200: ZGetVpsResponse } } },
      async (req) => ({ status: 'OK' as const, vpsDetail: await hub.get(req.body.vpsId), errors: [] }),
    );

    app.post(
      '/api/del_vps',
      { onRequest: guards.admin, schema: { tags: ['admin'], body: ZVpsIdRequest, response: { 200: ZDelVpsResponse } } },
      async (req) => {
        await hub.remove(req.body.vpsId);
        return { status: 'OK' as const, vpsId: req.body.vpsId, errors: [] };
      },
    );
  };
}
