import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import multipart from '@fastify/multipart';

/** Limits of every multipart request (routes may narrow them per call). */
export const UPLOAD_LIMITS = { fileSize: 26 * 1024 * 1024, files: 6, fields: 12, fieldSize: 2 * 1024 * 1024, parts: 20 };

/**
 * Registers routes that read multipart bodies in a scope of their own with the multipart plugin.
 * The plugin adds an async onRequest hook (a 'close' listener) and an async onResponse hook (a
 * temp-file sweep) to every route of the scope it is registered in; registered at the root they
 * cost every call of the API, uploads or not. Elsewhere a multipart body is refused with 415.
 */
export async function uploadRoutes(fastify: FastifyInstance, routes: (app: ZodApp) => void): Promise<void> {
  await fastify.register(async (scope) => {
    await scope.register(multipart, { limits: UPLOAD_LIMITS });
    routes(zod(scope));
  });
}

const zod = (scope: FastifyInstance) => scope.withTypeProvider<ZodTypeProvider>();
type ZodApp = ReturnType<typeof zod>;
