import { createHmac, randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify';
import pino from 'pino';
import rateLimit from '@fastify/rate-limit';
import swagger from '@fastify/swagger';
import { jsonSchemaTransform, validatorCompiler } from 'fastify-type-provider-zod';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import { assertGuardsRunFirst, createAuthGuards } from './plugins/auth.js';
import { createMemoryRevocationBus, createRedisRevocationBus } from './plugins/revocations.js';
import { AccessLog } from './plugins/access-log.js';
import { frameworkErrors, registerErrorHandler } from './plugins/errors.js';
import { connectRedis } from './plugins/redis.js';
import { redisRateLimitStore } from './plugins/rate-limit.js';
import { registerInputGuard } from './plugins/input-guard.js';
import { serializerCompiler } from './plugins/serializer.js';
import { lazyRequestLogger } from './plugins/request-logger.js';
import { portalCspDirectives, registerSecurityHeaders } from './plugins/security-headers.js';
import { createMailer, type Mailer } from './plugins/mail.js';
import { registerWebApp } from './plugins/web-app.js';
import { registerMetrics } from './plugins/metrics.js';
import path from 'node:path';
import websocket from '@fastify/websocket';
import { createLocalStorage, registerFileRoutes, type Storage } from './plugins/storage.js';
import { createS3Storage } from './plugins/storage-s3.js';
import { parseS3Url } from './lib/s3.js';
import { createAvatarsRepository } from './features/avatars/repository.js';
import { createAvatarService } from './features/avatars/service.js';
import { avatarRoutes } from './features/avatars/routes.js';
import { createImageAvatarsRepository } from './features/image-avatars/repository.js';
import { createImageAvatarService } from './features/image-avatars/service.js';
import { imageAvatarRoutes } from './features/image-avatars/routes.js';
import { createSecretBox, parseMasterKey, type SecretBox } from './lib/secret-box.js';
import { loadOrCreateKeyFile } from './lib/key-file.js';
import { withSafeErrorLogging } from './lib/error-log.js';
import { createAccountRepository } from './features/account/repository.js';
import { createBillingRepository } from './features/account/billing-repository.js';
import { createAccountService } from './features/account/service.js';
import { accountRoutes } from './features/account/routes.js';
import { adminUsersRoutes } from './features/users/admin-routes.js';
import { createUsersService } from './features/users/service.js';
import { createMemoryPresence, createRedisPresence, withPresenceFallbacks, type PresenceRegistry } from './features/presence/registry.js';
import { presenceRoutes } from './features/presence/routes.js';
import { conversationRoutes } from './features/conversations/routes.js';
import { analyticsRoutes } from './features/analytics/routes.js';
import { createAnalyticsRepository } from './features/analytics/repository.js';
import { createAnalyticsService } from './features/analytics/service.js';
import { createConversationsRepository } from './features/conversations/repository.js';
import { createConversationsService, transcript } from './features/conversations/service.js';
import { createPrivacyRepository } from './features/privacy/repository.js';
import { createPrivacyService, type PrivacyService } from './features/privacy/service.js';
import { visitorPseudonym } from './features/conversations/pseudonym.js';
import { privacyRoutes } from './features/privacy/routes.js';
import { createWebhooksRepository } from './features/webhooks/repository.js';
import { createWebhooksService, type WebhooksService } from './features/webhooks/service.js';
import { webhookRoutes } from './features/webhooks/routes.js';
import { createApiKeysRepository } from './features/api-keys/repository.js';
import { createApiKeysService } from './features/api-keys/service.js';
import { apiKeyRoutes } from './features/api-keys/routes.js';
import { apiKeyOpenApi } from './features/api-keys/openapi.js';
import { createWorkersRepository } from './features/workers/repository.js';
import { createWorkerHub, type WorkerHub } from './features/workers/hub.js';
import { workerCredentialRoutes, workerRoutes, workerSocketRoutes } from './features/workers/routes.js';
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
import { createKnowledgeFeature } from './features/knowledge/feature.js';
import { publicConfigRoutes } from './features/public-config/routes.js';
import { createProviderLookups } from './features/provider-lookups/service.js';
import { platformServicesRoute, providerLookupRoutes } from './features/provider-lookups/routes.js';
import { createLiveSessionsRepository } from './features/live-sessions/repository.js';
import { createLiveSessionsService, type LiveSessionsService } from './features/live-sessions/service.js';
import { liveSessionRoutes, liveSocketRoutes, type LiveSocketHost } from './features/live-sessions/routes.js';
import { billingCheck } from './features/live-sessions/billing-auth.js';
import { openSecrets } from './features/avatars/secrets.js';
import { guardConnections, httpServerOptions } from '@persona/net';
import { agentTicketKey, ticketKey } from '@persona/worker';
import { ApiKeyLimits, platformSpeechInfo } from '@persona/contract';
import { createAgentsService, type AgentsService } from './features/agents/service.js';
import { agentSocketRoutes } from './features/agents/routes.js';
import { createMemoryAgentDispatch, type AgentDispatch } from './features/agents/dispatch.js';
import { createRedisAgentDispatch } from './features/agents/redis-dispatch.js';

declare module 'fastify' {
  interface FastifyInstance {
    mailer: Mailer;
    secretBox: SecretBox;
    presence: PresenceRegistry;
    storage: Storage;
    workerHub: WorkerHub;
    live: LiveSessionsService;
    /** The embedded worker takes the page sockets of /avatar-ws here (main.ts sets it). */
    liveSockets: LiveSocketHost;
    /** Bring your own agent: the connected agents (features/agents). */
    agents: AgentsService;
    /** Webhooks (ADR 093): endpoints and the delivery queue's sender. */
    webhooks: WebhooksService;
    /** Privacy (ADR 097): avatars' redaction and retention, and the retention sweep. */
    privacy: PrivacyService;
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
  /** Defaults to the bucket of STORAGE_URL when it names one (s3:, http(s):), else local files under DATA_DIR/files. */
  storage?: Storage;
  /** Worker liveness timings (defaults: the protocol's 30 s timeout, swept every 5 s). */
  workerTimings?: { pingTimeoutMs?: number; sweepIntervalMs?: number };
  /** Live-session sweep timings (defaults: LiveLimits.staleSessionSeconds, swept every 10 s). */
  liveTimings?: { staleSessionSeconds?: number; sweepIntervalMs?: number };
  /** Which instance holds which external agents: defaults to Redis when REDIS_URL is set, else this process's memory. */
  agentDispatch?: AgentDispatch;
  /** How often the webhooks' queue is polled (default 1 s); 0: never by itself (tests call `app.webhooks.dispatchDue`). */
  webhookTimings?: { pollMs?: number; random?: () => number };
  /** How often the retention sweep runs (default 60 s); 0: never by itself (tests call `app.privacy.sweep`). */
  privacyTimings?: { retentionSweepMs?: number };
}

/** Builds the whole app from its dependencies; main.ts only listens. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { config, database } = deps;
  const app = Fastify({
    // Logs are written off the request path: sonic-boom buffers lines and writes them in the
    // background (flushed on exit); a write per log line to stdout blocked every request.
    // Past 16 MB of unwritten lines (a stalled terminal or collector) lines are dropped.
    // Database errors are logged as code/table/constraint: never their bind values.
    logger: withSafeErrorLogging(deps.logger ?? { level: config.logLevel, stream: pino.destination({ dest: 1, sync: false, maxLength: 16 * 1024 * 1024 }) }),
    logController: new AccessLog(),
    // request.log becomes a pino child only when a line is written (plugins/request-logger.ts).
    childLoggerFactory: lazyRequestLogger,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
    trustProxy: config.trustProxy,
    // Half-sent requests and upgrades are not held: headers and whole-request timeouts
    // checked every ≤ 1 s (Fastify would turn Node's request timeout off); the per-address cap and
    // the upgrade deadline are applied below.
    http: httpServerOptions(config.connectionLimits),
    requestTimeout: config.connectionLimits.requestTimeoutMs,
    bodyLimit: 1024 * 1024,
    // URLs Fastify refuses before routing (/api/%zz) answered like every other error.
    frameworkErrors: frameworkErrors({ trustProxy: config.trustProxy }),
  });
  let refusedSince = 0;
  const connections = guardConnections(app.server, config.connectionLimits, {
    // Said at most once a minute: a flood of refused connections is not a flood of log lines.
    onRefused: (address) => {
      if (Date.now() - refusedSince < 60_000) return;
      refusedSince = Date.now();
      app.log.warn({ address, maxConnectionsPerIp: config.connectionLimits.maxConnectionsPerIp, refused: connections.refused }, 'connections refused: too many open from one address');
    },
  });
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  app.decorateRequest('auth', null);
  assertGuardsRunFirst(app);
  registerErrorHandler(app);
  // Before any route: it attaches itself to the routes registered after it.
  registerInputGuard(app);
  // GET /metrics (METRICS_TOKEN) and its HTTP hook, before the routes so that the hook sees them all.
  const metrics = registerMetrics(app, { token: config.metricsToken, db: database.db });

  registerSecurityHeaders(
    app,
    {
      // connect-src: own origin, WORKER_WS_ORIGINS and the STORAGE_URL bucket only.
      contentSecurityPolicy: { directives: portalCspDirectives(config) },
      crossOriginEmbedderPolicy: false,
    },
    // Every answer names its request (the id in the log lines): support can find a user's call.
    { requestIdHeader: 'x-request-id' },
  );
  // With REDIS_URL, rate limits and presence are shared by every server instance.
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, app) : undefined;
  // With Redis, counted in Redis and, while it is unreachable, in this instance (plugins/rate-limit.ts).
  await app.register(rateLimit, { global: false, ...(redis ? { store: redisRateLimitStore(redis, { prefix: 'persona:rl:', log: app.log }) } : {}) });
  await app.register(swagger, {
    // The bearer schemes and, on each route a key may call, the scope it needs (ADR 094).
    openapi: { info: { title: 'Persona Studio API', version: '0.1.0' }, ...apiKeyOpenApi.document },
    transform: apiKeyOpenApi.transform(jsonSchemaTransform),
  });

  const mailer = deps.mailer ?? (await createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, db: database.db, log: app.log }));
  app.decorate('mailer', mailer);
  app.addHook('onClose', async () => mailer.close());

  // Secrets at rest: SECRET_KEY, or the key main.ts keeps in DATA_DIR.
  const masterKey = config.secretKey ?? (await loadOrCreateKeyFile(config.dataDir, 'secret-key'));
  const secretBox = createSecretBox(masterKey);
  app.decorate('secretBox', secretBox);

  // Sessions are cached for a few seconds; logout, disable, reset and admin-session ends reach every instance at once.
  const revocations = redis ? await createRedisRevocationBus(redis, app.log) : createMemoryRevocationBus();
  app.addHook('onClose', async () => revocations.close());

  // Writes and counts carry on without Redis; the admin lists answer 503 (features/presence/registry.ts).
  const presence = withPresenceFallbacks(deps.presence ?? (redis ? createRedisPresence(redis) : createMemoryPresence()), app.log);
  app.decorate('presence', presence);

  // Private files (knowledge uploads, face photos) are served only through signed, short-lived URLs.
  const fileUrlKey = createHmac('sha256', parseMasterKey(masterKey)).update('persona-file-urls-v1').digest();
  // With a bucket every instance serves every file (ADR 077); uploads wait in DATA_DIR/tmp while checked.
  const bucket = parseS3Url(config.storageUrl);
  const storage =
    deps.storage ??
    (bucket
      ? createS3Storage(bucket, { signer: { key: fileUrlKey }, tmpDir: path.join(config.dataDir, 'tmp', 'uploads'), now: deps.now, log: app.log })
      : createLocalStorage(path.join(config.dataDir, 'files'), { key: fileUrlKey, now: deps.now }));
  app.decorate('storage', storage);
  const workerSecret = config.workerSecret ?? (await loadOrCreateKeyFile(config.dataDir, 'worker-secret'));

  // ── The features' services, each after what it uses ──
  const authService = createAuthService({
    repo: createAuthRepository(database.db),
    mailer,
    log: app.log,
    publicUrl: config.publicUrl,
    allowRegistration: config.allowRegistration,
    revocations,
    now: deps.now,
  });
  // API keys for servers (ADR 094): `Bearer ps_live_…` acts as its account on the routes of its scopes; signing visitor tokens with the account's key.
  const apiKeys = createApiKeysService({
    repo: createApiKeysRepository(database.db),
    mintToken: (ownerId, avatarId, opts) => encryptionKeysService.mintPortalToken(ownerId, avatarId, opts),
    now: deps.now,
  });
  const callsOfKey = app.createRateLimit({ max: ApiKeyLimits.callsPerMinute, timeWindow: '1 minute', keyGenerator: (req) => `api-key:${req.auth?.apiKey?.id ?? ''}` });
  const guards = createAuthGuards({
    appKey: config.appKey,
    resolveSession: authService.resolveSession,
    resolveSessionById: authService.resolveSessionById,
    resolveApiKey: apiKeys.resolve,
    allowApiKeyCall: async (req) => {
      const verdict = await callsOfKey(req);
      return verdict.isAllowed || !verdict.isExceeded;
    },
  });
  // OAuth configs, encryption keys (avatar tokens) and functions (with moderation).
  const oauthService = createOAuthService({
    repo: createOAuthRepository(database.db),
    secretBox,
    publicUrl: config.publicUrl,
    allowPrivateUrls: config.allowPrivateUrls,
    log: app.log,
    now: deps.now,
  });
  const encryptionKeysService = createEncryptionKeysService({
    repo: createEncryptionKeysRepository(database.db),
    secretBox,
    sessionOf: authService.resolveSessionById,
    now: deps.now,
  });
  const accountService = createAccountService({
    repo: createAccountRepository(database.db),
    billing: createBillingRepository(database.db),
    mailer,
    log: app.log,
    publicUrl: config.publicUrl,
    contactEmail: config.contactEmail,
    planMaxAvatars: config.planMaxAvatars,
    now: deps.now,
    encKeys: async (userId) => (await encryptionKeysService.list(userId)).map((k) => ({ id: k.id, name: k.name, defaultKey: k.defaultKey })),
  });
  const usersService = createUsersService(database.db, deps.now, revocations.publish);
  // Knowledge base: collections, items, background ingestion and retrieval (JWT-authenticated calls at the root).
  const knowledge = await createKnowledgeFeature(app, { config, db: database.db, storage, guards, now: deps.now });
  const functionsService = createFunctionsService({
    repo: createFunctionsRepository(database.db),
    mailer,
    log: app.log,
    publicUrl: config.publicUrl,
    now: deps.now,
    analyse: knowledge.analysePython,
  });
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
      foreignCollectionIds: (userId, ids) => knowledge.service.foreignCollectionIds(userId, ids),
      mintToken: (ownerId, avatarId, sessionId) => encryptionKeysService.mintPortalToken(ownerId, avatarId, { sessionId }),
    },
    allowPrivateUrls: config.allowPrivateUrls,
    // The look-ups and the avatars use each other: resolved at call time.
    brainChecks: { elevenLabsAgent: (input) => providerLookups.elevenLabsAgentOnSave(input) },
  });
  // The Brain tab's provider look-ups (models, assistants, voices, languages, agent check), with the avatar's stored keys.
  const providerLookups = createProviderLookups({
    providers: config.providers,
    timeoutMs: config.providerLookupTimeoutMs,
    allowPrivateUrls: config.allowPrivateUrls,
    storedConfig: (userId, avatarId) => avatarService.storedConfig(userId, avatarId),
    log: app.log,
  });
  const imageAvatars = createImageAvatarService({ repo: createImageAvatarsRepository(database.db), storage, mailer, log: app.log, publicUrl: config.publicUrl });
  const workerHub = createWorkerHub({
    repo: createWorkersRepository(database.db),
    log: app.log,
    now: deps.now,
    shared: redis !== undefined,
    redis,
    // Each worker is given the ticket keys when it registers: it needs no shared secret (ADR 086).
    ticketKeys: { live: ticketKey(workerSecret), agent: agentTicketKey(workerSecret) },
    ...deps.workerTimings,
  });
  app.decorate('workerHub', workerHub);
  // Bring your own agent (ADR 072): agents authenticated with the avatar's key, offered its sessions.
  const workersRepo = createWorkersRepository(database.db);
  const agents = createAgentsService({
    // The live sessions and the agents use each other: resolved at call time.
    avatarAuth: (avatarId) => live.agentAuth(avatarId),
    workerUrl: async (workerId) => (await workersRepo.find(workerId))?.webSocket ?? null,
    ticketKey: agentTicketKey(workerSecret),
    // With REDIS_URL an agent connected to any instance is offered the sessions of workers connected to any other.
    dispatch: deps.agentDispatch ?? (redis ? await createRedisAgentDispatch({ redis, log: app.log }) : createMemoryAgentDispatch()),
    log: app.log,
    now: deps.now,
  });
  app.decorate('agents', agents);
  // Webhooks (ADR 093): signed events of the live sessions, queued in the database with the session's start or end.
  const webhooks = createWebhooksService({
    repo: createWebhooksRepository(database.db),
    box: secretBox,
    allowPrivateUrls: config.allowPrivateUrls,
    transcript,
    log: app.log,
    now: deps.now,
    pollMs: deps.webhookTimings?.pollMs ?? 1_000,
    random: deps.webhookTimings?.random,
  });
  app.decorate('webhooks', webhooks);
  // Privacy (ADR 097): each avatar's redaction, applied by the live sessions before its text is stored, and retention, kept by a sweep.
  const pseudonymKey = createHmac('sha256', parseMasterKey(masterKey)).update('persona-visitor-pseudonyms-v1').digest();
  const privacy = createPrivacyService({ repo: createPrivacyRepository(database.db), log: app.log, now: deps.now, pseudonymOf: (row) => visitorPseudonym(pseudonymKey, row) });
  // Live sessions: admission, the avatar page, the embedded worker's socket, the workers' RPC.
  const live = createLiveSessionsService({
    repo: createLiveSessionsRepository(database.db),
    openSecrets: (c) => openSecrets(c, secretBox),
    presence,
    verifyToken: (ownerId, keyId, avatarId, token) => encryptionKeysService.verifyToken(ownerId, keyId, avatarId, token),
    publicKeyOf: async (ownerId, keyId) => (await encryptionKeysService.findKey(ownerId, keyId))?.publicKey ?? null,
    oauthApp: (appId, avatarId) => oauthService.publicInfo(appId, avatarId),
    consumeOAuthGrant: (appId, grant) => oauthService.consumeGrant(appId, grant),
    billingCheck: (url, header, body) => billingCheck(url, header, body, { allowPrivate: config.allowPrivateUrls, log: app.log }),
    searchKnowledge: knowledge.passages,
    knowledgeVocabulary: knowledge.vocabulary,
    ticketKey: ticketKey(workerSecret),
    allowPrivateUrls: config.allowPrivateUrls,
    publicUrl: config.publicUrl,
    platformLlm: config.platformLlm,
    log: app.log,
    now: deps.now,
    staleSessionSeconds: deps.liveTimings?.staleSessionSeconds,
    offerToAgent: (offer) => agents.offer(offer),
    onAdmission: (kind, refusal) => metrics.admission(kind, refusal),
    textRules: (avatarId) => privacy.textRules(avatarId),
    onSessionEvent: { recorded: (tx, event, row) => webhooks.sessionRecorded(tx, event, row), reported: (sessionId) => webhooks.sessionReported(sessionId), functionFailed: (row, failure) => webhooks.functionFailed(row, failure) },
  });
  app.decorate('live', live);
  app.decorate('privacy', privacy);
  // Conversations: the stored live sessions as the customer reads them; visitors named by a keyed pseudonym (ADR 092).
  const conversations = createConversationsService({
    repo: createConversationsRepository(database.db),
    pseudonymKey,
    showIp: config.conversationsShowIp,
  });
  // Analytics: the account's figures, and the pages' own (ADR 099).
  const analytics = createAnalyticsService({ repo: createAnalyticsRepository(database.db), now: deps.now, embed: knowledge.embed, log: app.log });
  const liveSockets: LiveSocketHost = { accept: null };
  app.decorate('liveSockets', liveSockets);

  // ── What runs beside the requests: the workers' RPC, the sweeps, the metrics' gauges ──
  workerHub.setRpcHandler((workerId, method, params) => live.handleRpc(workerId, method, params));
  app.addHook('onReady', async () => workerHub.start());
  app.addHook('preClose', async () => workerHub.stop());
  app.addHook('preClose', async () => agents.close());
  let liveSweeper: NodeJS.Timeout | undefined;
  app.addHook('onReady', async () => {
    liveSweeper = setInterval(() => void live.sweep().catch((err: unknown) => app.log.error({ err }, 'live session sweep failed')), deps.liveTimings?.sweepIntervalMs ?? 10_000);
    liveSweeper.unref();
  });
  app.addHook('preClose', async () => clearInterval(liveSweeper));
  let retentionSweeper: NodeJS.Timeout | undefined;
  const retentionSweepMs = deps.privacyTimings?.retentionSweepMs ?? 60_000;
  app.addHook('onReady', async () => {
    if (!retentionSweepMs) return;
    retentionSweeper = setInterval(() => void privacy.sweep().catch((err: unknown) => app.log.error({ err }, 'retention sweep failed')), retentionSweepMs);
    retentionSweeper.unref();
  });
  app.addHook('preClose', async () => clearInterval(retentionSweeper));
  app.addHook('onReady', async () => webhooks.start());
  app.addHook('preClose', async () => webhooks.stop());
  metrics.observe({ workersConnected: () => workerHub.connectedCount(), extraction: () => knowledge.extractor.stats() });

  // ── Routes ──
  await app.register(healthRoutes({ ping: database.ping, pingRedis: redis ? async () => void (await redis.ping()) : undefined }));
  await app.register(
    publicConfigRoutes({
      allowRegistration: config.allowRegistration,
      appKey: config.appKey,
      companyName: config.companyName,
      docsUrl: config.docsUrl,
      productName: 'Persona Studio',
      publicUrl: config.publicUrl,
    }),
  );
  await app.register(authRoutes({ auth: authService, guards }));
  await app.register(accountRoutes({ account: accountService, guards }));
  await app.register(adminUsersRoutes({ users: usersService, guards }));
  await app.register(presenceRoutes({ presence, guards, db: database.db }));
  await app.register(conversationRoutes({ conversations, guards }));
  await app.register(analyticsRoutes({ analytics, guards }));
  await app.register(webhookRoutes({ webhooks, guards }));
  await app.register(privacyRoutes({ privacy, guards }));
  await app.register(apiKeyRoutes({ apiKeys, guards }));
  await app.register(oauthRoutes({ oauth: oauthService, guards, publicUrl: config.publicUrl }));
  await app.register(encryptionKeyRoutes({ keys: encryptionKeysService, guards }));
  await app.register(functionRoutes({ functions: functionsService, guards }));
  // Multipart is registered by the upload routes only (plugins/uploads.ts); every file part is
  // streamed to storage by the route that reads it.
  registerFileRoutes(app, storage);
  await app.register(avatarRoutes({ avatars: avatarService, guards, storage }));
  await app.register(providerLookupRoutes({ lookups: providerLookups, guards }));
  await app.register(imageAvatarRoutes({ service: imageAvatars, guards, storage }));
  await app.register(knowledge.routes);
  await app.register(platformServicesRoute({ guards, platform: async () => ({ llm: config.platformLlm !== null, realtime: await workerHub.hasProductRealtime(), ...platformSpeechInfo(config.platformTts, config.platformStt) }) }));
  await app.register(workerRoutes({ hub: workerHub, guards }));
  await app.register(workerCredentialRoutes({ hub: workerHub, guards }));
  await app.register(liveSessionRoutes({ live, publicUrl: config.publicUrl, csp: config, webDistDir: config.webDistDir }));
  // The WebSocket routes (the workers' socket, the avatar page's) in a scope of their own with the
  // websocket plugin: it adds an onRequest and an onResponse hook to every route of its scope.
  await app.register(async (scope) => {
    await scope.register(websocket, { options: { maxPayload: 1024 * 1024 } });
    // A WebSocket now: the upgrade deadline of guardConnections no longer applies to its socket.
    scope.websocketServer.on('connection', (_ws: unknown, req: IncomingMessage) => connections.upgraded(req.socket));
    await scope.register(workerSocketRoutes({ hub: workerHub, workerSecret, enrolment: config.workerEnrolment }));
    await scope.register(liveSocketRoutes({ sockets: liveSockets }));
    await scope.register(agentSocketRoutes({ agents }));
  });

  // The OpenAPI document is made once, when the app is ready, and served as the same text: made on
  // a visitor's request it would cost ~150 ms of the event loop.
  let openApi: string | null = null;
  app.addHook('onReady', async () => {
    openApi = JSON.stringify(app.swagger());
  });
  app.get('/api/docs', { schema: { hide: true } }, async (_req, reply) => {
    openApi ??= JSON.stringify(app.swagger());
    return reply.type('application/json; charset=utf-8').send(openApi);
  });
  await registerWebApp(app, config.webDistDir);
  return app;
}
