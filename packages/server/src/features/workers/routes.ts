import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { WorkerProtocol, ZDelVpsResponse, ZGetVpsResponse, ZListVpsResponse, ZVpsIdRequest, ZWorkerCredentialIssue, ZWorkerCredentialIssued, ZWorkerCredentialList, ZWorkerCredentialRevoke } from '@persona/contract';
import { AppError } from '../../lib/app-error.js';
import { safeEqual } from '../../lib/tokens.js';
import type { AuthGuards } from '../../plugins/auth.js';
import type { WorkerAuth, WorkerHub } from './hub.js';

/** Is this TCP peer the machine itself? (The socket's own address: a proxy's X-Forwarded-For is not believed here.) */
const isLoopback = (address: string | undefined) => !!address && (/^127\./.test(address) || address === '::1' || /^::ffff:127\./.test(address));

/**
 * The workers' socket (registered in the scope of the websocket plugin: see app.ts). A worker
 * presents its own credential (ADR 086); the shared WORKER_SECRET is accepted only to enrol, and
 * only as WORKER_ENROLMENT allows: `loopback` (default: the embedded worker and `npm run worker`
 * on the portal's machine), `open` (from anywhere), `off`.
 */
export function workerSocketRoutes(deps: { hub: WorkerHub; workerSecret: string | undefined; enrolment: 'loopback' | 'open' | 'off' }) {
  const { hub } = deps;
  const auths = new WeakMap<object, WorkerAuth>();
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.get(
      WorkerProtocol.path,
      {
        websocket: true,
        schema: { hide: true },
        preValidation: async (req) => {
          const given = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
          if (!given) throw AppError.unauthorized('Invalid worker secret');
          if (deps.workerSecret && safeEqual(given, deps.workerSecret)) {
            // Through a reverse proxy on this machine the socket's peer is loopback too: a forwarded request is not from here.
            const forwarded = req.headers['x-forwarded-for'] !== undefined || req.headers.forwarded !== undefined || req.headers['x-real-ip'] !== undefined;
            const mayEnrol = deps.enrolment === 'open' || (deps.enrolment === 'loopback' && isLoopback(req.socket.remoteAddress) && !forwarded);
            if (!mayEnrol) throw AppError.unauthorized('Invalid worker secret');
            auths.set(req, { kind: 'enrol' });
            return;
          }
          const auth = await hub.authenticate(given);
          if (!auth) throw AppError.unauthorized('Invalid worker secret');
          auths.set(req, auth);
        },
      },
      (socket, req) => hub.accept(socket, req.ip, auths.get(req)!),
    );
  };
}

/** An administrator issues, lists and revokes the workers' own credentials (ADR 086). */
export function workerCredentialRoutes(deps: { hub: WorkerHub; guards: AuthGuards }) {
  const { hub, guards } = deps;
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.get('/api/admin/worker_credentials', { onRequest: guards.admin, schema: { tags: ['admin'], response: { 200: ZWorkerCredentialList } } }, async () => ({
      status: 'OK' as const,
      workerCredentials: await hub.listCredentials(),
    }));
    app.post('/api/admin/worker_credentials', { onRequest: guards.admin, schema: { tags: ['admin'], body: ZWorkerCredentialIssue, response: { 200: ZWorkerCredentialIssued } } }, async (req) => {
      const { credential, row } = await hub.issueCredential(req.body.vpsId, 'admin');
      return { status: 'OK' as const, credential, workerCredential: row };
    });
    app.post('/api/admin/worker_credentials/revoke', { onRequest: guards.admin, schema: { tags: ['admin'], body: ZWorkerCredentialRevoke, response: { 200: ZWorkerCredentialList } } }, async (req) => {
      const row = await hub.revokeCredential(req.body.id);
      return { status: 'OK' as const, workerCredentials: [row] };
    });
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
