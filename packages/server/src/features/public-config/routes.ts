import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { ZPublicConfig, type TPublicConfig } from '@persona/contract';

/** What the browser needs before sign-in. */
export function publicConfigRoutes(config: TPublicConfig) {
  return async function plugin(fastify: FastifyInstance) {
    fastify
      .withTypeProvider<ZodTypeProvider>()
      .get('/api/config', { schema: { tags: ['system'], response: { 200: ZPublicConfig } } }, async (_req, reply) => {
        reply.header('cache-control', 'no-cache');
        return config;
      });
  };
}
