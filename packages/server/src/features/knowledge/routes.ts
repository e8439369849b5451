import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Transform } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import {
  FailReason,
  KnowledgeFileTypes,
  KnowledgeMessages,
  knowledgeFileMaxBytes,
  ZCollectionDeleteResponse,
  ZCollectionForm,
  ZCollectionIdParams,
  ZCollectionListResponse,
  ZCollectionResponse,
  ZCrawlRequest,
  ZCrawlResponse,
  ZCreateKnowledge,
  ZCreateKnowledgeBody,
  ZDeleteKnowledgeResponse,
  ZGenerateUploadRequest,
  ZGenerateUploadResponse,
  ZKnowledgeIdParams,
  ZKnowledgeItemResponse,
  ZKnowledgeListResponse,
  ZKnowledgeTokenResponse,
  ZListKnowledgeQuery,
  ZSimilaritySearchRequest,
  ZSimilaritySearchResponse,
  ZUpdateKnowledge,
  type TKnowledgeFileType,
} from '@persona/contract';
import { uploadRoutes } from '../../plugins/uploads.js';
import { writeFileStream } from '../../lib/write-file-stream.js';
import { AppError } from '../../lib/app-error.js';
import { markGuard, requireAuth, type AuthGuards } from '../../plugins/auth.js';
import { UploadTooLarge } from '../../plugins/storage.js';
import { isDocx, looksBinary } from './extract.js';
import { PolicyError, type KnowledgeFiles } from './files.js';
import type { KnowledgeTokens } from './jwt.js';
import type { KnowledgeService } from './service.js';

const callers = new WeakMap<FastifyRequest, number>();

/** The user a knowledge call is made for (set by the JWT guard). */
const callerOf = (req: FastifyRequest) => {
  const id = callers.get(req);
  if (!id) throw new AppError(401, KnowledgeMessages.tokenInvalid, FailReason.InvalidToken);
  return id;
};

export function knowledgeRoutes(deps: { service: KnowledgeService; tokens: KnowledgeTokens; files: KnowledgeFiles; guards: AuthGuards; tmpDir: string }) {
  const { service, tokens, files, guards } = deps;

  /**
   * The knowledge calls' only credential: `Authorization: Bearer <jwt from /api/token/jwt>`, good
   * while the session it was issued from is live (logout, disable and reset end it at once).
   */
  const jwtGuard = markGuard(async (req: FastifyRequest, _reply: FastifyReply) => {
    const match = /^Bearer\s+([\w-]+\.[\w-]+\.[\w-]+)$/i.exec(req.headers.authorization?.trim() ?? '');
    const claims = match ? tokens.verify(match[1]!) : null;
    const session = claims ? await guards.sessionById(claims.sessionId) : null;
    if (!claims || !session || session.userId !== claims.userId) throw new AppError(401, KnowledgeMessages.tokenInvalid, FailReason.InvalidToken);
    callers.set(req, claims.userId);
  });

  return async function plugin(fastify: FastifyInstance) {
    const app = fastify.withTypeProvider<ZodTypeProvider>();
    const tags = ['knowledge'];

    app.get(
      '/api/token/jwt',
      { onRequest: guards.session, schema: { tags, response: { 200: ZKnowledgeTokenResponse } } },
      async (req, reply) => {
        reply.header('cache-control', 'no-store');
        const caller = requireAuth(req);
        const { token, expiresAt } = tokens.issue(caller.userId, caller.sessionId);
        return { status: 'OK' as const, jwtToken: token, expiresAt: expiresAt.toISOString() };
      },
    );

    // ── Collections ──
    app.get('/knowledge_collection', { onRequest: jwtGuard, schema: { tags, response: { 200: ZCollectionListResponse } } }, async (req) => ({
      status: 'OK' as const,
      data: await service.listCollections(callerOf(req)),
    }));
    app.post('/knowledge_collection', { onRequest: jwtGuard, schema: { tags, body: ZCollectionForm, response: { 200: ZCollectionResponse } } }, async (req) => ({
      status: 'OK' as const,
      data: await service.createCollection(callerOf(req), req.body.name),
    }));
    app.put(
      '/knowledge_collection/:id',
      { onRequest: jwtGuard, schema: { tags, params: ZCollectionIdParams, body: ZCollectionForm, response: { 200: ZCollectionResponse } } },
      async (req) => ({ status: 'OK' as const, data: await service.renameCollection(callerOf(req), req.params.id, req.body.name) }),
    );
    app.delete(
      '/knowledge_collection/:id',
      { onRequest: jwtGuard, schema: { tags, params: ZCollectionIdParams, response: { 200: ZCollectionDeleteResponse } } },
      async (req) => {
        const { avatarsUpdated } = await service.deleteCollection(callerOf(req), req.params.id);
        return { status: 'OK' as const, id: req.params.id, avatars_updated: avatarsUpdated };
      },
    );

    // ── Items ──
    app.get('/knowledge', { onRequest: jwtGuard, schema: { tags, querystring: ZListKnowledgeQuery, response: { 200: ZKnowledgeListResponse } } }, async (req) => ({
      status: 'OK' as const,
      data: await service.listItems(callerOf(req), req.query.collection_id),
    }));
    app.post(
      '/knowledge',
      { onRequest: jwtGuard, bodyLimit: 8 * 1024 * 1024, schema: { tags, body: ZCreateKnowledgeBody } },
      async (req, reply) => {
        const userId = callerOf(req);
        if (!Array.isArray(req.body)) {
          const parsed = ZCreateKnowledge.safeParse(req.body);
          if (!parsed.success) throw AppError.badRequest([...new Set(parsed.error.issues.map((i) => i.message))]);
          return { status: 'OK' as const, data: await service.createItem(userId, parsed.data) };
        }
        const results = await service.createItems(userId, req.body);
        if (results.every((r) => r.status === 'FAIL')) {
          return reply.status(400).send({ status: 'FAIL', errors: [...new Set(results.flatMap((r) => r.errors ?? []))], failReason: FailReason.InvalidOrMissingParams, data: results });
        }
        return { status: 'OK' as const, data: results };
      },
    );
    app.put(
      '/knowledge/:id',
      { onRequest: jwtGuard, bodyLimit: 8 * 1024 * 1024, schema: { tags, params: ZKnowledgeIdParams, body: ZUpdateKnowledge, response: { 200: ZKnowledgeItemResponse } } },
      async (req) => ({ status: 'OK' as const, data: await service.updateItem(callerOf(req), req.params.id, req.body) }),
    );
    app.delete(
      '/knowledge/:id',
      { onRequest: jwtGuard, schema: { tags, params: ZKnowledgeIdParams, response: { 200: ZDeleteKnowledgeResponse } } },
      async (req) => {
        await service.deleteItem(callerOf(req), req.params.id);
        return { status: 'OK' as const, id: req.params.id };
      },
    );

    app.post(
      '/knowledge/crawl',
      { onRequest: jwtGuard, config: { rateLimit: { max: 20, timeWindow: '1 minute' } }, schema: { tags, body: ZCrawlRequest, response: { 200: ZCrawlResponse } } },
      async (req) => ({ status: 'OK' as const, data: await service.crawl(req.body.url, req.body.limit) }),
    );

    app.post(
      '/knowledge/similarity-search',
      { onRequest: jwtGuard, config: { rateLimit: { max: 300, timeWindow: '1 minute' } }, schema: { tags, body: ZSimilaritySearchRequest, response: { 200: ZSimilaritySearchResponse } } },
      async (req) => {
        const { hits, mode } = await service.search(callerOf(req), req.body);
        return { status: 'OK' as const, data: hits, mode };
      },
    );

    // ── Files: the presigned POST ──
    app.post(
      '/knowledge/generate-s3-url',
      { onRequest: jwtGuard, config: { rateLimit: { max: 60, timeWindow: '1 minute' } }, schema: { tags, body: ZGenerateUploadRequest, response: { 200: ZGenerateUploadResponse } } },
      async (req, reply) => {
        reply.header('cache-control', 'no-store');
        return { status: 'OK' as const, ...(await service.issueUpload(callerOf(req), req.body.file_type)) };
      },
    );

    /**
     * Local storage's stand-in for the bucket: a multipart form (policy fields, then `file`) checked
     * like S3 checks it, the content checked against its declared type, stored under the signed key.
     * Nothing is kept when anything is wrong. Answers 204 like S3.
     */
    await uploadRoutes(fastify, (uploads) =>
      uploads.post('/knowledge/upload', { config: { rateLimit: { max: 30, timeWindow: '1 minute' } }, schema: { hide: true } }, async (req, reply) => {
        if (files.kind !== 'local') throw AppError.notFound();
        if (!req.isMultipart()) throw AppError.badRequest(KnowledgeMessages.fileRequired);
        const fields: Record<string, string> = {};
        let stored = false;
        for await (const part of req.parts({ limits: { fileSize: 26 * 1024 * 1024, files: 1, fields: 20 } })) {
          if (part.type === 'field') {
            fields[part.fieldname] = String(part.value);
            continue;
          }
          if (part.fieldname !== 'file' || stored) {
            part.file.resume();
            continue;
          }
          let checked;
          try {
            checked = files.verifyPost(fields);
          } catch (err) {
            part.file.resume();
            if (err instanceof PolicyError) throw new AppError(403, [KnowledgeMessages.uploadPolicyInvalid, err.message]);
            throw err;
          }
          if (await files.exists(checked.key)) {
            part.file.resume();
            throw new AppError(403, [KnowledgeMessages.uploadPolicyInvalid, 'this form was already used']);
          }
          const quota = await service.arrivalLimit(checked.key);
          const size = await receiveFile(part.file, checked, quota, files, deps.tmpDir);
          await service.recordArrival(checked.key, size);
          stored = true;
        }
        if (!stored) throw AppError.badRequest(KnowledgeMessages.fileRequired);
        return reply.status(204).send();
      }),
    );
  };
}

/** Streams the file to a temporary file while checking size and type, then moves it to storage. */
async function receiveFile(
  stream: NodeJS.ReadableStream & { truncated?: boolean; resume(): void },
  checked: { key: string; fileType: TKnowledgeFileType; minBytes: number; maxBytes: number },
  quota: { maxBytes: number; message: string } | null,
  files: KnowledgeFiles,
  tmpDir: string,
): Promise<number> {
  const { label, maxMb } = KnowledgeFileTypes[checked.fileType];
  // The form's limit (the type's, or less when the quota left less), and what the quota leaves now.
  const limit = Math.min(checked.maxBytes, quota?.maxBytes ?? Number.POSITIVE_INFINITY);
  let size = 0;
  const tooLarge = () =>
    new UploadTooLarge(
      size > knowledgeFileMaxBytes(checked.fileType)
        ? KnowledgeMessages.fileTooLarge(maxMb, label)
        : (quota?.message ?? KnowledgeMessages.quotaTooSmall(Math.floor((checked.maxBytes / 1024 / 1024) * 10) / 10)),
    );
  const wrongType = () => AppError.badRequest(KnowledgeMessages.invalidFile);
  await fsp.mkdir(tmpDir, { recursive: true });
  const tmp = path.join(tmpDir, `upload-${randomBytes(12).toString('hex')}`);
  let head = Buffer.alloc(0);
  let headChecked = false;
  const checkHead = () => {
    headChecked = true;
    if (checked.fileType === 'application/pdf') return head.subarray(0, 5).toString('latin1') === '%PDF-';
    if (checked.fileType === 'text/plain') return !looksBinary(head) && !head.subarray(0, 5).toString('latin1').startsWith('%PDF-') && !(head[0] === 0x50 && head[1] === 0x4b);
    return head.length >= 4 && head[0] === 0x50 && head[1] === 0x4b && head[2] === 3 && head[3] === 4;
  };
  const guard = new Transform({
    transform(chunk: Buffer, _enc, done) {
      size += chunk.length;
      if (size > limit) return done(tooLarge());
      if (!headChecked) {
        head = Buffer.concat([head, chunk]);
        if (head.length >= 8192 && !checkHead()) return done(wrongType());
      }
      done(null, chunk);
    },
    flush(done) {
      if (!headChecked && !checkHead()) return done(wrongType());
      if (size < Math.max(1, checked.minBytes)) return done(AppError.badRequest(KnowledgeMessages.fileRequired));
      done();
    },
  });
  try {
    await writeFileStream(stream, guard, tmp);
    if (stream.truncated) throw tooLarge();
    if (checked.fileType === 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' && !isDocx(await fsp.readFile(tmp))) throw wrongType();
    return await files.putStream(checked.key, fs.createReadStream(tmp));
  } catch (err) {
    stream.resume();
    throw err;
  } finally {
    await fsp.rm(tmp, { force: true });
  }
}

export const defaultUploadTmpDir = () => path.join(os.tmpdir(), 'persona-knowledge-uploads');
