import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ZHealth } from '@persona/contract';

export function healthRoutes(deps: { ping: () => Promise<void> }) {
  const started = Date.now();
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    app.get(
      '/api/health',
      { logLevel: 'warn', schema: { tags: ['system'], response: { 200: ZHealth, 503: ZHealth } } },
      async (_req, reply) => {
        const uptimeSeconds = Math.round((Date.now() - started) / 1000);
        try {
          await deps.ping();
          return { status: 'OK' as const, database: 'up' as const, uptimeSeconds };
        } catch (err) {
          _req.log.error({ err }, 'health check: database unreachable');
          return reply.status(503).send({ status: 'FAIL' as const, database: 'down' as const, uptimeSeconds });
        }
      },
    );
  };
}
