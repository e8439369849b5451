import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import fastifyStatic from '@fastify/static';
import { z } from 'zod';
import { AvatarLimits, ZAvatarIdRequest } from '@persona/contract';
import { AppError } from '../../lib/app-error.js';
import { requireAuth, type AuthGuards } from '../../plugins/auth.js';
import type { Storage, UploadRule } from '../../plugins/storage.js';
import type { AvatarService, UploadedMedia } from './service.js';

const MB = 1024 * 1024;
export const catalogDir = fileURLToPath(new URL('../../../catalog', import.meta.url));

const RULES: Record<UploadedMedia['field'], UploadRule> = {
  backgroundImage: {
    accept: {
      'image/jpeg': { maxBytes: AvatarLimits.backgroundImageMaxMb * MB, maxMb: AvatarLimits.backgroundImageMaxMb, label: 'image' },
      'image/png': { maxBytes: AvatarLimits.backgroundImageMaxMb * MB, maxMb: AvatarLimits.backgroundImageMaxMb, label: 'image' },
      'video/mp4': { maxBytes: AvatarLimits.backgroundVideoMaxMb * MB, maxMb: AvatarLimits.backgroundVideoMaxMb, label: 'video' },
      'video/quicktime': { maxBytes: AvatarLimits.backgroundVideoMaxMb * MB, maxMb: AvatarLimits.backgroundVideoMaxMb, label: 'video' },
    },
    wrongType: 'The background must be a .jpg or .png image, or a .mp4 or .mov video.',
  },
  scene: {
    accept: { 'model/gltf-binary': { maxBytes: AvatarLimits.sceneMaxMb * MB, maxMb: AvatarLimits.sceneMaxMb, label: 'glb' } },
    wrongType: 'The 3D environment must be a .glb file.',
  },
  avatarPhoto: {
    accept: { 'image/jpeg': { maxBytes: 2 * MB, maxMb: 2, label: 'avatar photo' } },
    wrongType: 'The avatar photo must be a JPEG image.',
  },
};

const ZGetAvatarQuery = z.object({ agentId: z.coerce.number().int().positive() });

export function avatarRoutes(deps: { avatars: AvatarService; guards: AuthGuards; storage: Storage }) {
  const { avatars, guards, storage } = deps;
  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();

    const caller = (req: FastifyRequest) => {
      const auth = requireAuth(req);
      return { userId: auth.userId, adminProxy: auth.adminProxy };
    };

    app.get('/api/list_avatar', { preHandler: guards.session, schema: { tags: ['avatars'] } }, async (req) => ({
      status: 'OK' as const,
      agents: await avatars.list(requireAuth(req).userId),
    }));

    app.get('/api/get_avatar', { preHandler: guards.session, schema: { tags: ['avatars'], querystring: ZGetAvatarQuery } }, async (req) => ({
      status: 'OK' as const,
      agent: await avatars.get(requireAuth(req).userId, req.query.agentId),
    }));
    app.post('/api/get_avatar', { preHandler: guards.session, schema: { tags: ['avatars'], body: ZAvatarIdRequest } }, async (req) => ({
      status: 'OK' as const,
      agent: await avatars.get(requireAuth(req).userId, req.body.agentId),
    }));

    /** JSON only: the full agent payload. */
    app.post('/api/add_avatar', { preHandler: guards.session, schema: { tags: ['avatars'], body: z.record(z.string(), z.unknown()) } }, async (req) => ({
      status: 'OK' as const,
      agent: await avatars.save(caller(req), req.body),
      errors: [],
    }));

    /** Multipart: `json` (the full agent payload) plus files backgroundImage, scene, avatarPhoto. */
    app.post('/api/add_avatar_v2', { preHandler: guards.session, schema: { tags: ['avatars'], consumes: ['multipart/form-data'] } }, async (req) => {
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
            files.push({ ...stored, field, name: path.basename(part.filename || field) });
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
        const agent = await avatars.save(who, payload, files);
        files.length = 0;
        return { status: 'OK' as const, agent, errors: [] };
      } finally {
        // A refused request keeps nothing (save() deletes on its own failures).
        await Promise.all(files.map((f) => storage.delete(f.key).catch(() => {})));
      }
    });

    app.post('/api/del_avatar', { preHandler: guards.session, schema: { tags: ['avatars'], body: ZAvatarIdRequest } }, async (req) => {
      await avatars.remove(requireAuth(req).userId, req.body.agentId);
      return { status: 'OK' as const, agentId: req.body.agentId, errors: [] };
    });

    // Hosted config files: public, since the avatar page and embeds read them.
    const cors = (reply: FastifyReply) => reply.header('access-control-allow-origin', '*').header('cache-control', 'no-cache');
    app.get('/config/avatars/:file', { schema: { hide: true, params: z.object({ file: z.string().regex(/^\d+\.json$/) }) } }, async (req, reply) => {
      cors(reply);
      return avatars.hostedConfig(Number.parseInt(req.params.file, 10), 'avatar');
    });
    app.get('/config/clients/:file', { schema: { hide: true, params: z.object({ file: z.string().regex(/^\d+\.json$/) }) } }, async (req, reply) => {
      cors(reply);
      return avatars.hostedConfig(Number.parseInt(req.params.file, 10), 'client');
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
