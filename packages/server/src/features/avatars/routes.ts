import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import fastifyStatic from '@fastify/static';
import { z } from 'zod';
import {
  AvatarMedia,
  AvatarMediaMessages,
  ZAvatarIdRequest,
  ZConfigDocument,
  ZDeleteAvatarResponse,
  ZGetAvatarResponse,
  ZId,
  ZIdJsonFile,
  ZListAvatarsResponse,
  ZSaveAvatarResponse,
} from '@persona/contract';
import { AppError } from '../../lib/app-error.js';
import { requireAuth, type AuthGuards } from '../../plugins/auth.js';
import { assertNoNul } from '../../plugins/input-guard.js';
import type { Storage, UploadRule } from '../../plugins/storage.js';
import { inspectModel } from './model-check.js';
import type { AvatarService, UploadedMedia } from './service.js';
import { uploadRoutes } from '../../plugins/uploads.js';

const MB = 1024 * 1024;
export const catalogDir = fileURLToPath(new URL('../../../catalog', import.meta.url));

type Media = (typeof AvatarMedia)[keyof typeof AvatarMedia];
/** The contract's media limits as upload rules (the type is sniffed from the content). */
const accepting = (...media: Media[]): UploadRule['accept'] =>
  Object.fromEntries(media.flatMap((m) => Object.keys(m.types).map((type) => [type, { maxBytes: m.maxMb * MB, maxMb: m.maxMb, label: m.label }])));

const RULES: Record<UploadedMedia['field'], UploadRule> = {
  backgroundImage: { accept: accepting(AvatarMedia.backgroundImage, AvatarMedia.backgroundVideo), wrongType: AvatarMediaMessages.backgroundWrongType },
  scene: { accept: accepting(AvatarMedia.scene), wrongType: AvatarMediaMessages.sceneWrongType },
  avatarModel: { accept: accepting(AvatarMedia.avatarModel), wrongType: AvatarMediaMessages.avatarModelWrongType },
  avatarPhoto: { accept: accepting(AvatarMedia.avatarPhoto), wrongType: AvatarMediaMessages.avatarPhotoWrongType },
};

const ZGetAvatarQuery = z.object({ agentId: ZId });

/** A just-stored upload read back whole (bounded by its rule's size limit). */
async function readStored(storage: Storage, key: string): Promise<Buffer> {
  const file = await storage.read(key);
  if (!file) throw new Error(`stored file ${key} is missing`);
  const chunks: Buffer[] = [];
  for await (const chunk of file.body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export function avatarRoutes(deps: { avatars: AvatarService; guards: AuthGuards; storage: Storage }) {
  const { avatars, guards, storage } = deps;
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    const caller = (req: FastifyRequest) => {
      const auth = requireAuth(req);
      return { userId: auth.userId, adminProxy: auth.adminProxy, sessionId: auth.sessionId };
    };

    app.get('/api/list_avatar', { onRequest: guards.session, config: { apiKeyScope: 'avatars:read' }, schema: { tags: ['avatars'], response: { 200: ZListAvatarsResponse } } }, async (req) => ({
      status: 'OK' as const,
      agents: await avatars.list(caller(req)),
    }));

    app.get('/api/get_avatar', { onRequest: guards.session, config: { apiKeyScope: 'avatars:read' }, schema: { tags: ['avatars'], querystring: ZGetAvatarQuery, response: { 200: ZGetAvatarResponse } } }, async (req) => ({
      status: 'OK' as const,
      agent: await avatars.get(caller(req), req.query.agentId),
    }));
    app.post('/api/get_avatar', { onRequest: guards.session, config: { apiKeyScope: 'avatars:read' }, schema: { tags: ['avatars'], body: ZAvatarIdRequest, response: { 200: ZGetAvatarResponse } } }, async (req) => ({
      status: 'OK' as const,
      agent: await avatars.get(caller(req), req.body.agentId),
    }));

    /** JSON only: the full agent payload. */
    app.post('/api/add_avatar', { onRequest: guards.session, config: { apiKeyScope: 'avatars:write' }, schema: { tags: ['avatars'], body: z.record(z.string(), z.unknown()), response: { 200: ZSaveAvatarResponse } } }, async (req) => ({
      status: 'OK' as const,
      agent: await avatars.save(caller(req), req.body),
      errors: [],
    }));

    /** Multipart: `json` (the full agent payload) plus files backgroundImage, scene, avatarModel, avatarPhoto. */
    await uploadRoutes(fastify, (uploads) =>
      uploads.post('/api/add_avatar_v2', { onRequest: guards.session, config: { apiKeyScope: 'avatars:write' }, schema: { tags: ['avatars'], consumes: ['multipart/form-data'], response: { 200: ZSaveAvatarResponse } } }, async (req) => {
        if (!req.isMultipart()) throw AppError.badRequest('Send multipart/form-data with a "json" field.');
        const who = caller(req);
        const files: UploadedMedia[] = [];
        let json: string | undefined;
        try {
          for await (const part of req.parts()) {
            if (part.type === 'file') {
              const field = part.fieldname as UploadedMedia['field'];
              const rule = RULES[field];
              if (!rule) {
                part.file.resume();
                throw AppError.badRequest(`Unexpected file field "${part.fieldname}".`);
              }
              const stored = await storage.putUpload(part.file, `avatars/${who.userId}`, rule);
              const upload: UploadedMedia = { ...stored, field, name: path.basename(part.filename || field) };
              files.push(upload);
              // An own avatar model is kept only if the avatar page can draw it (budget, container).
              if (field === 'avatarModel') upload.model = inspectModel(await readStored(storage, stored.key));
            } else if (part.fieldname === 'json') {
              json = String(part.value);
            }
          }
          if (!json) throw AppError.badRequest('The "json" field with the avatar is required.');
          let payload: unknown;
          try {
            payload = JSON.parse(json);
          } catch {
            throw AppError.badRequest('The "json" field is not valid JSON.');
          }
          assertNoNul(payload, ['json']);
          const agent = await avatars.save(who, payload, files);
          files.length = 0;
          return { status: 'OK' as const, agent, errors: [] };
        } finally {
          // A refused request keeps nothing (save() deletes on its own failures).
          await Promise.all(files.map((f) => storage.delete(f.key).catch(() => {})));
        }
      }),
    );

    app.post('/api/del_avatar', { onRequest: guards.session, schema: { tags: ['avatars'], body: ZAvatarIdRequest, response: { 200: ZDeleteAvatarResponse } } }, async (req) => {
      await avatars.remove(requireAuth(req).userId, req.body.agentId);
      return { status: 'OK' as const, agentId: req.body.agentId, errors: [] };
    });

    // Hosted config files: public, since the avatar page and embeds read them.
    const cors = (reply: FastifyReply) => reply.header('access-control-allow-origin', '*').header('cache-control', 'no-cache');
    app.get('/config/avatars/:file', { schema: { hide: true, params: z.object({ file: ZIdJsonFile }), response: { 200: ZConfigDocument } } }, async (req, reply) => {
      cors(reply);
      return avatars.hostedConfig(req.params.file, 'avatar');
    });
    app.get('/config/clients/:file', { schema: { hide: true, params: z.object({ file: ZIdJsonFile }), response: { 200: ZConfigDocument } } }, async (req, reply) => {
      cors(reply);
      return avatars.hostedConfig(req.params.file, 'client');
    });

    await app.register(fastifyStatic, {
      root: catalogDir,
      prefix: '/catalog/',
      decorateReply: false,
      index: false,
      cacheControl: false,
      setHeaders(res) {
        res.header('cache-control', 'public, max-age=3600');
        res.header('access-control-allow-origin', '*');
        res.header('cross-origin-resource-policy', 'cross-origin');
      },
    });
  };
}
