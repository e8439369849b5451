import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  AvatarMedia,
  AvatarMediaMessages,
  ZCompleteImageAvatarInput,
  ZConfigDocument,
  ZCustomAvatarsResponse,
  ZIdJsonFile,
  ZImageAvatarRequestResponse,
  ZImageAvatarRequestsResponse,
} from '@persona/contract';
import { AppError } from '../../lib/app-error.js';
import { requireAuth, type AuthGuards } from '../../plugins/auth.js';
import { assertNoNul } from '../../plugins/input-guard.js';
import { uploadRoutes } from '../../plugins/uploads.js';
import type { Storage, StoredFile, UploadRule } from '../../plugins/storage.js';
import type { createImageAvatarService } from './service.js';

const MB = 1024 * 1024;
const photo = AvatarMedia.imageAvatarPhoto;
const IMAGE_RULE: UploadRule = {
  accept: Object.fromEntries(Object.keys(photo.types).map((type) => [type, { maxBytes: photo.maxMb * MB, maxMb: photo.maxMb, label: photo.label }])),
  wrongType: AvatarMediaMessages.imageAvatarPhotoWrongType,
};

/** Reads a multipart request with one image file and text fields (multipart is registered by the avatars feature). */
async function readForm(req: FastifyRequest, storage: Storage, fileField: string, prefix: string) {
  if (!req.isMultipart()) throw AppError.badRequest('Send multipart/form-data.');
  const fields: Record<string, string> = {};
  let file: StoredFile | undefined;
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        if (part.fieldname !== fileField || file) {
          part.file.resume();
          throw AppError.badRequest(`Unexpected file field "${part.fieldname}".`);
        }
        file = await storage.putUpload(part.file, prefix, IMAGE_RULE);
      } else {
        fields[part.fieldname] = String(part.value);
      }
    }
    assertNoNul(fields);
  } catch (err) {
    if (file) await storage.delete(file.key).catch(() => {});
    throw err;
  }
  return { fields, file };
}

export function imageAvatarRoutes(deps: { service: ReturnType<typeof createImageAvatarService>; guards: AuthGuards; storage: Storage }) {
  const { service, guards, storage } = deps;
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    // The two multipart routes, in a scope with the multipart plugin.
    await uploadRoutes(fastify, (uploads) => {
    /** The customer's request: multipart with `photo` and fields name, notes, permissionConfirmed=true. */
    uploads.post(
      '/api/image_avatar_requests',
      { onRequest: guards.session, schema: { tags: ['avatars'], consumes: ['multipart/form-data'], response: { 200: ZImageAvatarRequestResponse } } },
      async (req) => {
        const { userId } = requireAuth(req);
        const { fields, file } = await readForm(req, storage, 'photo', `image-requests/${userId}`);
        const request = await service.request(userId, { ...fields, permissionConfirmed: fields.permissionConfirmed === 'true' }, file);
        return { status: 'OK' as const, request };
      },
    );

    /** multipart: fields requestId, decision (complete|decline), name, reason; file `thumbnail` when completing. */
    uploads.post('/api/admin/image_avatar_requests/decide', { onRequest: guards.admin, schema: { tags: ['admin'], consumes: ['multipart/form-data'], response: { 200: ZImageAvatarRequestResponse } } }, async (req) => {
      const { userId } = requireAuth(req);
      const { fields, file } = await readForm(req, storage, 'thumbnail', 'custom-avatars');
      const parsed = ZCompleteImageAvatarInput.safeParse(fields);
      if (!parsed.success) {
        if (file) await storage.delete(file.key).catch(() => {});
        throw AppError.badRequest(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
      }
      return { status: 'OK' as const, request: await service.decide(userId, parsed.data, file) };
    });
    });

    app.get('/api/image_avatar_requests', { onRequest: guards.session, schema: { tags: ['avatars'], response: { 200: ZImageAvatarRequestsResponse } } }, async (req) => ({
      status: 'OK' as const,
      requests: await service.list(undefined, requireAuth(req).userId),
    }));

    app.get('/api/custom_avatars', { onRequest: guards.session, schema: { tags: ['avatars'], response: { 200: ZCustomAvatarsResponse } } }, async (req) => ({
      status: 'OK' as const,
      image: await service.customAvatars(requireAuth(req).userId),
    }));

    app.get('/config/custom/:file', { schema: { hide: true, params: z.object({ file: ZIdJsonFile }), response: { 200: ZConfigDocument } } }, async (req, reply) => {
      reply.header('access-control-allow-origin', '*');
      return service.customConfig(req.params.file);
    });

    app.get(
      '/api/admin/image_avatar_requests',
      { onRequest: guards.admin, schema: { tags: ['admin'], querystring: z.object({ status: z.enum(['PENDING', 'COMPLETED', 'DECLINED']).optional() }), response: { 200: ZImageAvatarRequestsResponse } } },
      async (req) => ({ status: 'OK' as const, requests: await service.list(req.query.status) }),
    );

  };
}
