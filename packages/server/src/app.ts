import { randomUUID } from 'node:crypto';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { Redis } from 'ioredis';
import swagger from '@fastify/swagger';
import { jsonSchemaTransform, serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { createAuthGuards } from './plugins/auth.js';
import { registerErrorHandler } from './plugins/errors.js';
import { registerSecurityHeaders } from './plugins/security-headers.js';
import { createMailer, type Mailer } from './plugins/mail.js';
import { registerWebApp } from './plugins/web-app.js';
import path from 'node:path';
import websocket from '@fastify/websocket';
import multipart from '@fastify/multipart';
import { createLocalStorage, registerFileRoutes, type Storage } from './plugins/storage.js';
import { createAvatarsRepository } from './features/avatars/repository.js';
import { createAvatarService } from './features/avatars/service.js';
import { avatarRoutes } from './features/avatars/routes.js';
import { createImageAvatarsRepository } from './features/image-avatars/repository.js';
import { createImageAvatarService } from './features/image-avatars/service.js';
import { imageAvatarRoutes } from './features/image-avatars/routes.js';
import { createSecretBox, type SecretBox } from './lib/secret-box.js';
import { loadOrCreateKeyFile } from './lib/key-file.js';
import { createAccountRepository } from './features/account/repository.js';
import { createBillingRepository } from './features/account/billing-repository.js';
import { createAccountService } from './features/account/service.js';
import { accountRoutes } from './features/account/routes.js';
import { adminUsersRoutes } from './features/admin-users/routes.js';
import { createUsersService } from './features/users/service.js';
import { createMemoryPresence, createRedisPresence, type PresenceRegistry } from './features/presence/registry.js';
import { presenceRoutes } from './features/presence/routes.js';
import { createWorkersRepository } from './features/workers/repository.js';
import { createWorkerHub, type WorkerHub } from './features/workers/hub.js';
import { workerRoutes } from './features/workers/routes.js';
import { createAuthRepository } from './features/auth/repository.js';
import { createAuthService } from './features/auth/service.js';
import { authRoutes } from './features/auth/routes.js';
import { createOAuthRepository } from './features/oauth/repository.js';
import { createOAuthService } from './features/oauth/service.js';
import { oauthRoutes } from './features/oauth/routes.js';
import { createEncryptionKeysRepository } from './features/encryption-keys/repository.js';
import { createEncryptionKeysService } from './features/encryption-keys/service.js';
import { encryptionKeyRoutes } from './features/encryption-keys/routes.js';
import { createFunctionsRepository } from './features/functions/repository.js';
import { createFunctionsService } from './features/functions/service.js';
import { functionRoutes } from './features/functions/routes.js';
import { healthRoutes } from './features/health/routes.js';
import { registerKnowledge } from './features/knowledge/feature.js';
import { publicConfigRoutes } from './features/public-config/routes.js';

declare module 'fastify' {
  interface FastifyInstance {
    mailer: Mailer;
    secretBox: SecretBox;
    presence: PresenceRegistry;
    storage: Storage;
    workerHub: WorkerHub;
  }
}

export interface AppDeps {
  config: Config;
  database: Database;
  /** Defaults to SMTP when SMTP_URL is set, else the outbox. */
  mailer?: Mailer;
  /** Fastify logger options; tests pass false. */
  logger?: FastifyServerOptions['logger'];
  now?: () => Date;
  /** Defaults to Redis when REDIS_URL is set, else this process's memory. */
  presence?: PresenceRegistry;
  /** Defaults to local files under DATA_DIR/files. */
  storage?: Storage;
  /** Worker liveness timings (defaults: the protocol's 30 s timeout, swept every 5 s). */
  workerTimings?: { pingTimeoutMs?: number; sweepIntervalMs?: number };
}

/** Builds the whole app from its dependencies; main.ts only listens. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database } = deps;
  const app = Fastify({
    logger: deps.logger ?? { level: config.logLevel },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
    trustProxy: config.trustProxy,
    bodyLimit: 1024 * 1024,
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('auth', null);
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  registerErrorHandler(app);

  registerSecurityHeaders(app, {
    contentSecurityPolicy: {
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'", "'unsafe-inline'"],
        imgSrc: ["'self'", 'data:', 'blob:', 'https:'],
        mediaSrc: ["'self'", 'blob:', 'https:'],
        connectSrc: ["'self'", 'ws:', 'wss:'],
        frameSrc: ["'self'"],
        fontSrc: ["'self'", 'data:'],
        objectSrc: ["'none'"],
        upgradeInsecureRequests: null,
      },
    },
    crossOriginEmbedderPolicy: false,
  });
  // With REDIS_URL, rate limits and presence are shared by every server instance.
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, app) : undefined;
  await app.register(rateLimit, { global: false, ...(redis ? { redis, nameSpace: 'persona:rl:' } : {}) });
  await app.register(swagger, {
    openapi: { info: { title: 'Persona Studio API', version: '0.1.0' } },
    transform: jsonSchemaTransform,
  });

  const mailer = deps.mailer ?? (await createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, db: database.db, log: app.log }));
  app.decorate('mailer', mailer);
  app.addHook('onClose', async () => mailer.close());

  // Secrets at rest: SECRET_KEY, or the key main.ts keeps in DATA_DIR.
  const secretBox = createSecretBox(config.secretKey ?? (await loadOrCreateKeyFile(config.dataDir, 'secret-key')));
  app.decorate('secretBox', secretBox);

  const authService = createAuthService({
    repo: createAuthRepository(database.db),
    mailer,
    log: app.log,
    publicUrl: config.publicUrl,
    allowRegistration: config.allowRegistration,
    now: deps.now,
  });
  const guards = createAuthGuards({ appKey: config.appKey, resolveSession: authService.resolveSession });

  await app.register(healthRoutes({ ping: database.ping }));
  await app.register(
    publicConfigRoutes({
      allowRegistration: config.allowRegistration,
      appKey: config.appKey,
      companyName: config.companyName,
      docsUrl: config.docsUrl,
      productName: 'Persona Studio',
    }),
  );
  await app.register(authRoutes({ auth: authService, guards }));

  const accountService = createAccountService({
    repo: createAccountRepository(database.db),
    billing: createBillingRepository(database.db),
    mailer,
    log: app.log,
    publicUrl: config.publicUrl,
    planMaxAvatars: config.planMaxAvatars,
    now: deps.now,
    // Resolved at request time: the keys feature is built further down.
    encKeys: async (userId) => (await encryptionKeysService.list(userId)).map((k) => ({ id: k.id, name: k.name, defaultKey: k.defaultKey })),
  });
  await app.register(accountRoutes({ account: accountService, guards }));
  await app.register(adminUsersRoutes({ users: createUsersService(database.db, deps.now), guards }));

  const presence = deps.presence ?? (redis ? createRedisPresence(redis) : createMemoryPresence());
  app.decorate('presence', presence);
  await app.register(presenceRoutes({ presence, guards, db: database.db }));

  // OAuth configs, encryption keys (avatar tokens) and functions (with moderation).
  const oauthService = createOAuthService({
    repo: createOAuthRepository(database.db),
    secretBox,
    publicUrl: config.publicUrl,
    allowPrivateUrls: config.allowPrivateUrls,
    log: app.log,
    now: deps.now,
  });
  await app.register(oauthRoutes({ oauth: oauthService, guards }));
  const encryptionKeysService = createEncryptionKeysService({ repo: createEncryptionKeysRepository(database.db), secretBox, now: deps.now });
  await app.register(encryptionKeyRoutes({ keys: encryptionKeysService, guards }));
  const functionsService = createFunctionsService({ repo: createFunctionsRepository(database.db), mailer, log: app.log, publicUrl: config.publicUrl, now: deps.now });
  await app.register(functionRoutes({ functions: functionsService, guards }));

  // Multipart for uploads; every file part is streamed to storage by the route that reads it.
  await app.register(multipart, { limits: { fileSize: 26 * 1024 * 1024, files: 6, fields: 12, fieldSize: 2 * 1024 * 1024, parts: 20 } });
  const storage = deps.storage ?? createLocalStorage(path.join(config.dataDir, 'files'), config.publicUrl);
  app.decorate('storage', storage);
  registerFileRoutes(app, storage);
  const avatarService = createAvatarService({
    repo: createAvatarsRepository(database.db),
    box: secretBox,
    storage,
    log: app.log,
    publicUrl: config.publicUrl,
    maxAvatarsFor: accountService.maxAvatarsFor,
    onlineCount: async (id) => (await presence.countByAvatar([id])).get(id) ?? 0,
    onlineCounts: (ids) => presence.countByAvatar(ids),
    links: {
      assertFunctionsLinkable: (userId, ids) => functionsService.assertLinkable(userId, ids),
      findEncKey: (userId, id) => encryptionKeysService.findKey(userId, id),
      assertOAuthApp: async (userId, id) => {
        await oauthService.get(userId, id);
      },
      mintToken: (ownerId, avatarId) => encryptionKeysService.mintPortalToken(ownerId, avatarId),
    },
  });
  await app.register(avatarRoutes({ avatars: avatarService, guards, storage }));
  const imageAvatars = createImageAvatarService({ repo: createImageAvatarsRepository(database.db), storage, mailer, log: app.log, publicUrl: config.publicUrl });
  await app.register(imageAvatarRoutes({ service: imageAvatars, guards, storage }));
  // Knowledge base: collections, items, background ingestion and retrieval (JWT-authenticated calls at the root).
  await registerKnowledge(app, { config, db: database.db, storage, guards, now: deps.now });

  await app.register(websocket, { options: { maxPayload: 1024 * 1024 } });
  const workerHub = createWorkerHub({ repo: createWorkersRepository(database.db), log: app.log, now: deps.now, ...deps.workerTimings });
  app.decorate('workerHub', workerHub);
  app.addHook('onReady', async () => workerHub.start());
  app.addHook('preClose', async () => workerHub.stop());
  await app.register(workerRoutes({ hub: workerHub, guards, workerSecret: config.workerSecret }));

  app.get('/api/docs', { schema: { hide: true } }, async () => app.swagger());
  await registerWebApp(app, config.webDistDir);
  return app;
}

async function connectRedis(url: string, app: FastifyInstance): Promise<Redis> {
  const { Redis: RedisClient } = await import('ioredis');
  const redis = new RedisClient(url, { lazyConnect: true, maxRetriesPerRequest: 2 });
  await redis.connect();
  app.addHook('onClose', async () => {
    await redis.quit();
  });
  return redis;
}
