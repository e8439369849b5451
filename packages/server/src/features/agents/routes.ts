import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AgentApi } from '@persona/contract';
import { AppError } from '../../lib/app-error.js';
import type { AgentAuth, AgentsService } from './service.js';

/**
 * The agents' dispatch socket (ADR 072), registered in the scope of the websocket plugin (app.ts).
 * The token is checked before the upgrade: a refused agent gets a plain 401/403.
 */
export function agentSocketRoutes(deps: { agents: AgentsService }) {
  const authenticated = new WeakMap<FastifyRequest, Extract<AgentAuth, { ok: true }>>();
  return async function plugin(app: FastifyInstance) {
    app.get(
      AgentApi.dispatchPath,
      {
        websocket: true,
        schema: { hide: true },
        config: { rateLimit: { max: 30, timeWindow: '1 minute' } },
        preValidation: async (req) => {
          const auth = await deps.agents.authenticate(req.headers.authorization);
          if (!auth.ok) {
            req.log.warn({ reason: auth.reason }, 'agent refused');
            throw auth.status === 403 ? AppError.forbidden(auth.message) : AppError.unauthorized(auth.message);
          }
          authenticated.set(req, auth);
        },
      },
      (socket, req) => {
        const auth = authenticated.get(req);
        if (!auth) return socket.close(AgentApi.dispatchClose.badFrame, 'not authenticated');
        void deps.agents.attach(socket, auth);
      },
    );
  };
}
