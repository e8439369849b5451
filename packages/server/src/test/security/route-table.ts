// Who may call each route of the server, and what a refusal looks like (issue 16). One entry per
// METHOD + path of the app's route table; route-matrix.test.ts calls every route with every role
// (anonymous, user A, user B, admin, admin-proxy: an administrator signed in as user A) and with
// the other account's ids, and fails on a route that has no entry here.
//
// A new route: add an entry with its access rule; when it names objects of an account (an avatar,
// a function, a collection…) give it a `call` that builds a well-formed request from the objects
// of `f` and set `owned: true` (callers of another account then get 404, never the object).

import { SECRET_MASK_PREFIX, type TApiKeyScope } from '@persona/contract';

/** Objects of one account, made on demand (fresh ones for calls that use them up: `consumes`). */
export interface Fixtures {
  userId: number;
  email: string;
  avatar(): Promise<number>;
  fn(): Promise<{ id: number; version: number; name: string }>;
  collection(): Promise<number>;
  item(): Promise<number>;
  key(): Promise<number>;
  oauthApp(): Promise<number>;
  /** A live session of one of the account's avatars (its visitor's id and resume token). */
  liveSession(): Promise<{ sessionId: string; resumeToken: string }>;
  /** An ended live session of one of the account's avatars (a conversation that may be deleted): its id. */
  conversation(): Promise<string>;
  /** A webhook endpoint of the account (ADR 093), and a delivery in its log. */
  webhook(): Promise<number>;
  webhookDelivery(): Promise<number>;
  /** The pseudonym of a visitor of one of the account's ended conversations (ADR 097). */
  visitor(): Promise<string>;
  /** An avatar that admits visitors with a token only (its encKeyId set). */
  protectedAvatar(): Promise<number>;
  /** One of the account's API keys (ADR 094): its id. */
  apiKey(): Promise<string>;
  /** For calls about another account (sign-in, administrators' changes): a spare account, never A or B. */
  spareUser(): Promise<{ id: number; email: string; password: string }>;
  /** A pending plan request of a spare account. */
  planRequest(): Promise<number>;
  /** A worker row (VPS). */
  vps(): Promise<number>;
}

export interface Call {
  url: string;
  payload?: unknown;
  /** Sent as multipart/form-data. */
  multipart?: Record<string, string>;
}

export type Access =
  /** Anyone, with the app key or nothing: the refusals the route gives are about its input. */
  | 'public'
  /** Anyone with the app key (`Bearer <APP_KEY>`, no session); no header 401. */
  | 'appKey'
  /** Any signed-in account (users, administrators, admin-proxy); without a session 401. */
  | 'session'
  /** An administrator's own session; users and admin-proxy sessions 403, no session 401. */
  | 'admin'
  /** The knowledge calls: the session's knowledge JWT (GET /api/token/jwt); without it 401. */
  | 'jwt'
  /** The workers' socket: WORKER_SECRET only, 401 to every other caller. */
  | 'worker'
  /** An external agent's socket (ADR 072): its avatar's agent token only; portal sessions 401/403. */
  | 'agent'
  /** The avatar page's socket: a single-use ticket in its hello frame (never an HTTP answer with data). */
  | 'ticket'
  /** Prometheus metrics: `Bearer <METRICS_TOKEN>` only (404 when unset), 401 to every other caller, portal sessions included. */
  | 'metricsToken';

export interface RouteRule {
  access: Access;
  /** A well-formed request naming the objects of `f`'s account (default: the path as is, no body). */
  call?: (f: Fixtures) => Call | Promise<Call>;
  /** The request names an account's objects: callers of another account get `foreign`. */
  owned?: boolean;
  /** Status of the call when allowed (default 200; 'any' = whatever but 401/403/5xx). */
  ok?: number | number[] | 'any';
  /** Status a caller of another account gets (default 404: ids cannot be probed). */
  foreign?: number | number[];
  /** The call uses its object up (a delete): every allowed call gets fresh objects. */
  consumes?: boolean;
  /** The call ends the caller's session (logout): the role signs in again after it. */
  endsSession?: boolean;
  /** Public by design: what it answers may show an account's object (the avatar page's config). */
  publicData?: boolean;
  /**
   * The scope an API key needs here (ADR 094; the route's `config.apiKeyScope`, checked by
   * api-key-matrix.test.ts). None: every API key is refused.
   */
  apiKeyScope?: TApiKeyScope;
  /** Refused (403) to an administrator signed in as the account (login-as): e.g. making a credential that would outlive the visit. */
  notAsProxy?: true;
}

const code = (name: string, body = 'return 1') => `def ${name}(x: int = 1) -> int:\n    """Does ${name}."""\n    ${body}\n`;
const avatarPayload = (agentId: number) => ({
  id: agentId,
  name: 'Receptionist',
  nlpEngine: 0,
  dhType: 2,
  setupMode: 0,
  wakeUpMessage: 'Hello! How can I help?',
  dailyLimitPerSession: 600,
  dailyLimitPerIP: 600,
  dailyLimits: { Demo: 600 },
  idleTimeout: 300,
  avatarJson: JSON.stringify({ ParentConfig: '/catalog/avatar-configs/maya-upper.json', Subtitle: { Enabled: true } }),
});
let serial = 0;
const unique = () => `${Date.now().toString(36)}${(serial += 1)}`;
/** A provider host nothing listens on: look-ups fail fast and never leave the machine. */
const CLOSED = 'http://127.0.0.1:9';

export const ROUTE_TABLE: Record<string, RouteRule> = {
  // ── Public: health, configuration, sign-in and the calls around it ──────────────────────────
  'GET /api/health': { access: 'public' },
  'GET /api/config': { access: 'public' },
  'GET /api/docs': { access: 'public' },
  'GET /metrics': { access: 'metricsToken' },
  'GET /': { access: 'public', ok: 'any' },
  'GET /react': { access: 'public', ok: 'any' },
  'GET /react/': { access: 'public', ok: 'any' },
  'GET /react/*': { access: 'public', call: () => ({ url: '/react/avatars' }), ok: 'any' },
  'POST /api/login': { access: 'appKey', call: async (f) => ({ url: '/api/login', payload: { email: (await f.spareUser()).email, password: 'correct horse battery' } }) },
  'POST /api/register': { access: 'appKey', call: () => ({ url: '/api/register', payload: { firstName: 'Reg', lastName: 'Ister', email: `reg-${unique()}@example.com`, password: 'correct horse battery 1A!' } }), ok: 'any' },
  'POST /api/email_verification': { access: 'appKey', call: () => ({ url: '/api/email_verification', payload: { verificationCode: 'no-such-code', mode: 'verify' } }), ok: 'any' },
  'POST /api/forgot_password': { access: 'appKey', call: async (f) => ({ url: '/api/forgot_password', payload: { email: (await f.spareUser()).email } }), ok: 'any' },
  'POST /api/reset_password': { access: 'appKey', call: () => ({ url: '/api/reset_password', payload: { mode: 'validate', resetToken: 'no-such-token' } }), ok: 'any' },
  // The visitor's OAuth sign-in for an avatar: no portal session (the config's public facts only).
  // Without the signed start an avatar's page config carries, nobody is redirected to the config's OAuth URL (issue 26).
  'GET /api/oauth/start/:appId': { access: 'public', call: async (f) => ({ url: `/api/oauth/start/${await f.oauthApp()}` }), ok: 400, publicData: true },
  'GET /api/oauth/callback/:appId': { access: 'public', call: async (f) => ({ url: `/api/oauth/callback/${await f.oauthApp()}?code=x&state=forged` }), ok: 'any' },
  'POST /api/oauth/grant': { access: 'public', call: async (f) => ({ url: '/api/oauth/grant', payload: { appId: await f.oauthApp(), code: 'forged-code' } }), ok: 'any' },
  // Files: signed, short-lived URLs (plugins/storage.ts); the catalogue and the avatars' hosted configs are public.
  // Without a valid signature a private file is refused to everybody, signed in or not.
  'GET /files/*': { access: 'public', call: () => ({ url: '/files/knowledge/1/secret.txt' }), ok: [403, 404] },
  'GET /catalog/*': { access: 'public', call: () => ({ url: '/catalog/avatar-configs/maya-upper.json' }), ok: 'any' },
  'GET /config/avatars/:file': { access: 'public', call: async (f) => ({ url: `/config/avatars/${await f.avatar()}.json` }), ok: 'any', publicData: true },
  'GET /config/clients/:file': { access: 'public', call: async (f) => ({ url: `/config/clients/${await f.avatar()}.json` }), ok: 'any', publicData: true },
  'GET /config/custom/:file': { access: 'public', call: () => ({ url: '/config/custom/1.json' }), ok: 'any', publicData: true },

  // ── The live runtime's public side: the avatar's own rules admit visitors ────────────────────
  'GET /api/live/avatars/:id': { access: 'public', call: async (f) => ({ url: `/api/live/avatars/${await f.avatar()}` }), publicData: true },
  'GET /avatar/:id': { access: 'public', call: async (f) => ({ url: `/avatar/${await f.avatar()}` }) },
  'POST /api/live/sessions': { access: 'public', call: async (f) => ({ url: '/api/live/sessions', payload: { avatarId: await f.avatar(), textOnly: true } }), publicData: true },
  // Resume and end: the session's resume token is the credential (another session's → 404).
  'POST /api/live/sessions/resume': { access: 'public', call: async (f) => ({ url: '/api/live/sessions/resume', payload: await f.liveSession() }) },
  'POST /api/live/sessions/end': { access: 'public', call: async (f) => ({ url: '/api/live/sessions/end', payload: await f.liveSession() }), consumes: true },
  // The page's own figures (ADR 099): once per session, with its resume token.
  'POST /api/live/sessions/figures': {
    access: 'public',
    call: async (f) => ({ url: '/api/live/sessions/figures', payload: { ...(await f.liveSession()), firstFrameMs: 850, avOffsetMs: 40, droppedFrames: 3 } }),
    // 409: that session has reported already (each session reports once). The account's one live
    // session serves every call: fresh ones would stay open, and the sweep would end them later,
    // in another route's snapshot.
    ok: [200, 409],
  },
  'GET /api/worker/ws': { access: 'worker' },
  'GET /api/agent/ws': { access: 'agent' },
  'GET /avatar-ws': { access: 'ticket' },

  // ── A signed-in account's own things ─────────────────────────────────────────────────────────
  'GET /api/logout': { access: 'session', endsSession: true },
  'GET /api/account_info': { access: 'session' },
  'GET /api/account_stats': { access: 'session', call: () => ({ url: `/api/account_stats?startDate=${Date.now() - 30 * 86_400_000}&endDate=${Date.now()}` }) },
  'POST /api/account_upgrade': { access: 'session', call: () => ({ url: '/api/account_upgrade', payload: { subType: 2 } }), ok: [200, 409] },
  'POST /api/account_upgrade_withdraw': { access: 'session', ok: [200, 404, 409] },
  'GET /api/token/jwt': { access: 'session' },
  // Conversations (ADR 092): the caller's account's only; another account's id is a 404, like a missing one.
  'GET /api/list_conversation': { access: 'session', apiKeyScope: 'conversations:read' },
  'GET /api/get_conversation': { access: 'session', apiKeyScope: 'conversations:read', owned: true, call: async (f) => ({ url: `/api/get_conversation?id=${await f.conversation()}` }) },
  'POST /api/del_conversation': { access: 'session', apiKeyScope: 'conversations:delete', owned: true, consumes: true, call: async (f) => ({ url: '/api/del_conversation', payload: { ids: [await f.conversation()] } }) },
  'GET /api/export_conversation': { access: 'session', apiKeyScope: 'conversations:read', owned: true, call: async (f) => ({ url: `/api/export_conversation?format=csv&id=${await f.conversation()}` }) },
  // Privacy (ADR 097): an avatar's redaction and retention; erasing a visitor of the caller's account.
  'GET /api/get_avatar_privacy': { access: 'session', apiKeyScope: 'avatars:read', owned: true, call: async (f) => ({ url: `/api/get_avatar_privacy?avatarId=${await f.avatar()}` }) },
  'POST /api/set_avatar_privacy': {
    access: 'session',
    apiKeyScope: 'avatars:write',
    owned: true,
    call: async (f) => ({ url: '/api/set_avatar_privacy', payload: { avatarId: await f.avatar(), redaction: { email: true }, retention: { mode: 'forever' } } }),
  },
  'POST /api/erase_visitor': { access: 'session', apiKeyScope: 'conversations:delete', owned: true, consumes: true, call: async (f) => ({ url: '/api/erase_visitor', payload: { visitor: await f.visitor() } }) },
  // Redacting what is stored rewrites it (a kind of deleting); 409 while the avatar's redaction is off.
  'POST /api/redact_stored_conversations': {
    access: 'session',
    apiKeyScope: 'conversations:delete',
    owned: true,
    call: async (f) => ({ url: '/api/redact_stored_conversations', payload: { avatarId: await f.avatar() } }),
    ok: [200, 409],
  },
  // Analytics (ADR 099): the caller's account's figures; another account's avatar is a 404.
  'GET /api/get_analytics': { access: 'session', apiKeyScope: 'conversations:read', owned: true, call: async (f) => ({ url: `/api/get_analytics?avatarId=${await f.avatar()}` }) },
  // Webhooks (ADR 093): the caller's account's endpoints and deliveries; another account's id is a 404.
  'GET /api/list_webhook': { access: 'session' },
  'POST /api/add_webhook': { access: 'session', call: () => ({ url: '/api/add_webhook', payload: { url: 'https://hooks.invalid/persona', avatarId: null, events: ['session.ended'] } }), ok: [200, 409] },
  'POST /api/update_webhook': { access: 'session', owned: true, call: async (f) => ({ url: '/api/update_webhook', payload: { id: await f.webhook(), enabled: true } }) },
  'POST /api/del_webhook': { access: 'session', owned: true, consumes: true, call: async (f) => ({ url: '/api/del_webhook', payload: { id: await f.webhook() } }) },
  'POST /api/roll_webhook_secret': { access: 'session', owned: true, call: async (f) => ({ url: '/api/roll_webhook_secret', payload: { id: await f.webhook() } }) },
  'GET /api/list_webhook_delivery': { access: 'session', owned: true, call: async (f) => ({ url: `/api/list_webhook_delivery?endpointId=${await f.webhook()}` }) },
  'POST /api/test_webhook': { access: 'session', owned: true, call: async (f) => ({ url: '/api/test_webhook', payload: { id: await f.webhook() } }) },
  'POST /api/resend_webhook_delivery': { access: 'session', owned: true, call: async (f) => ({ url: '/api/resend_webhook_delivery', payload: { id: await f.webhookDelivery() } }) },
  // API keys (ADR 094): managed with a portal session only; the visitor token is for keys (and sessions).
  'GET /api/list_api_key': { access: 'session' },
  'POST /api/add_api_key': { access: 'session', notAsProxy: true, call: () => ({ url: '/api/add_api_key', payload: { name: `Key ${unique()}`, scopes: ['avatars:read'], expiresInDays: 30 } }) },
  'POST /api/del_api_key': { access: 'session', owned: true, consumes: true, call: async (f) => ({ url: '/api/del_api_key', payload: { id: await f.apiKey() } }) },
  'POST /api/create_visitor_token': { access: 'session', apiKeyScope: 'tokens:create', owned: true, call: async (f) => ({ url: '/api/create_visitor_token', payload: { avatarId: await f.protectedAvatar(), ttlSeconds: 600 } }) },
  'POST /api/list_avatar_users': { access: 'session', owned: true, call: async (f) => ({ url: '/api/list_avatar_users', payload: { agentId: await f.avatar(), mode: 'get' } }) },

  'GET /api/list_oauthapp': { access: 'session' },
  'POST /api/get_oauthapp': { access: 'session', owned: true, call: async (f) => ({ url: '/api/get_oauthapp', payload: { appId: await f.oauthApp(), mode: 'get' } }) },
  'POST /api/add_oauthapp': {
    access: 'session',
    owned: true,
    call: async (f) => ({
      url: '/api/add_oauthapp',
      payload: { appId: await f.oauthApp(), appName: 'Renamed', partner: 'Google', clientId: 'client-id-0123456789', clientSecret: '', oauthURL: 'https://accounts.example.com/authorize', tokenIssueURL: 'https://accounts.example.com/token' },
    }),
  },
  'POST /api/del_oauthapp': { access: 'session', owned: true, consumes: true, call: async (f) => ({ url: '/api/del_oauthapp', payload: { appId: await f.oauthApp(), mode: 'delete' } }) },

  'GET /api/list_encryption_keys': { access: 'session' },
  'POST /api/add_encryption_key': { access: 'session', call: () => ({ url: '/api/add_encryption_key', payload: { name: `Key ${unique()}` } }) },
  'POST /api/del_encryption_key': { access: 'session', owned: true, consumes: true, call: async (f) => ({ url: '/api/del_encryption_key', payload: { id: await f.key(), mode: 'delete' } }) },

  'GET /api/list_functions': { access: 'session' },
  'POST /api/functions': {
    access: 'session',
    owned: true,
    call: async (f) => {
      const fn = await f.fn();
      return { url: '/api/functions', payload: { functions: [{ action: 'update', id: fn.id, code: code(fn.name, `return ${serial++}`) }] } };
    },
  },
  'GET /api/function_templates': { access: 'session' },
  'GET /api/realtime/functions': { access: 'session' },

  'GET /api/list_avatar': { access: 'session', apiKeyScope: 'avatars:read' },
  'GET /api/get_avatar': { access: 'session', apiKeyScope: 'avatars:read', owned: true, call: async (f) => ({ url: `/api/get_avatar?agentId=${await f.avatar()}` }) },
  'POST /api/get_avatar': { access: 'session', apiKeyScope: 'avatars:read', owned: true, call: async (f) => ({ url: '/api/get_avatar', payload: { agentId: await f.avatar(), mode: 'get' } }) },
  'POST /api/add_avatar': { access: 'session', apiKeyScope: 'avatars:write', owned: true, call: async (f) => ({ url: '/api/add_avatar', payload: avatarPayload(await f.avatar()) }) },
  'POST /api/add_avatar_v2': { access: 'session', apiKeyScope: 'avatars:write', owned: true, call: async (f) => ({ url: '/api/add_avatar_v2', multipart: { json: JSON.stringify(avatarPayload(await f.avatar())) } }) },
  'POST /api/del_avatar': { access: 'session', owned: true, consumes: true, call: async (f) => ({ url: '/api/del_avatar', payload: { agentId: await f.avatar(), mode: 'delete' } }) },

  // The Brain tab's look-ups: a masked key (the form's "••••") means "the avatar's stored key",
  // which only the avatar's owner may use (another account's avatarId: 404).
  'GET /api/lookups/platform': { access: 'session' },
  'POST /api/lookups/llm_models': { access: 'session', owned: true, ok: 'any', call: async (f) => ({ url: '/api/lookups/llm_models', payload: { avatarId: await f.avatar(), url: `${CLOSED}/v1`, llmAPIKey: SECRET_MASK_PREFIX } }) },
  'POST /api/lookups/llm_assistants': { access: 'session', owned: true, ok: 'any', call: async (f) => ({ url: '/api/lookups/llm_assistants', payload: { avatarId: await f.avatar(), url: `${CLOSED}/v1`, llmAPIKey: SECRET_MASK_PREFIX } }) },
  'POST /api/lookups/tts_voices': { access: 'session', owned: true, ok: 'any', call: async (f) => ({ url: '/api/lookups/tts_voices', payload: { avatarId: await f.avatar(), ttsProvider: 2, elevenLabsAPIKey: SECRET_MASK_PREFIX } }) },
  'POST /api/lookups/stt_languages': { access: 'session', owned: true, ok: 'any', call: async (f) => ({ url: '/api/lookups/stt_languages', payload: { avatarId: await f.avatar(), sttProvider: 'azure', sttAPIKey: SECRET_MASK_PREFIX } }) },
  'POST /api/lookups/deepgram_models': { access: 'session', owned: true, ok: 'any', call: async (f) => ({ url: '/api/lookups/deepgram_models', payload: { avatarId: await f.avatar(), sttAPIKey: SECRET_MASK_PREFIX } }) },
  // The stored key is read only when ElevenLabs says the agent needs one (never here: no ElevenLabs).
  'POST /api/lookups/elevenlabs_agent': { access: 'session', ok: 'any', call: async (f) => ({ url: '/api/lookups/elevenlabs_agent', payload: { avatarId: await f.avatar(), agent_id: 'agent_0123456789abcdef' } }) },

  'POST /api/image_avatar_requests': { access: 'session', ok: 'any', call: () => ({ url: '/api/image_avatar_requests', multipart: { name: 'Ada', notes: 'n', permissionConfirmed: 'true' } }) },
  'GET /api/image_avatar_requests': { access: 'session' },
  'GET /api/custom_avatars': { access: 'session' },

  // ── Knowledge base: the session's knowledge JWT ──────────────────────────────────────────────
  'GET /knowledge_collection': { access: 'jwt' },
  'POST /knowledge_collection': { access: 'jwt', call: () => ({ url: '/knowledge_collection', payload: { name: `Collection ${unique()}` } }) },
  'PUT /knowledge_collection/:id': { access: 'jwt', owned: true, call: async (f) => ({ url: `/knowledge_collection/${await f.collection()}`, payload: { name: `Renamed ${unique()}` } }) },
  'DELETE /knowledge_collection/:id': { access: 'jwt', owned: true, consumes: true, call: async (f) => ({ url: `/knowledge_collection/${await f.collection()}` }) },
  'GET /knowledge': { access: 'jwt', owned: true, call: async (f) => ({ url: `/knowledge?collection_id=${await f.collection()}` }) },
  'POST /knowledge': { access: 'jwt', owned: true, call: async (f) => ({ url: '/knowledge', payload: { collection_id: await f.collection(), name: 'Note', knowledge_type: 'text', content: 'A note.' } }) },
  'PUT /knowledge/:id': { access: 'jwt', owned: true, call: async (f) => ({ url: `/knowledge/${await f.item()}`, payload: { name: `Renamed ${unique()}` } }) },
  'DELETE /knowledge/:id': { access: 'jwt', owned: true, consumes: true, call: async (f) => ({ url: `/knowledge/${await f.item()}` }) },
  'POST /knowledge/crawl': { access: 'jwt', ok: 'any', call: () => ({ url: '/knowledge/crawl', payload: { url: `${CLOSED}/`, limit: 1 } }) },
  'POST /knowledge/similarity-search': { access: 'jwt', owned: true, call: async (f) => ({ url: '/knowledge/similarity-search', payload: { collection_ids: [await f.collection()], query: 'note' } }) },
  'POST /knowledge/generate-s3-url': { access: 'jwt', call: () => ({ url: '/knowledge/generate-s3-url', payload: { file_type: 'text/plain' } }) },
  // The upload itself is authorised by the signed form generate-s3-url handed out (no form: refused).
  'POST /knowledge/upload': { access: 'public', ok: 'any', call: () => ({ url: '/knowledge/upload', multipart: { key: 'knowledge/1/forged.txt' } }) },

  // ── Administrators ───────────────────────────────────────────────────────────────────────────
  'POST /api/admin/users/login_as': { access: 'admin', call: async (f) => ({ url: '/api/admin/users/login_as', payload: { userId: (await f.spareUser()).id } }) },
  'GET /api/admin/users': { access: 'admin' },
  'POST /api/admin/users/status': { access: 'admin', consumes: true, call: async (f) => ({ url: '/api/admin/users/status', payload: { userId: (await f.spareUser()).id, status: 'DISABLED' } }) },
  'GET /api/admin/plan_requests': { access: 'admin' },
  'POST /api/admin/plan_requests/decide': { access: 'admin', consumes: true, call: async (f) => ({ url: '/api/admin/plan_requests/decide', payload: { requestId: await f.planRequest(), decision: 'decline', reason: 'no' } }) },
  'POST /api/list_online_users': { access: 'admin', call: () => ({ url: '/api/list_online_users', payload: { mode: 'get' } }) },
  'POST /api/get_online_user': { access: 'admin', ok: [200, 404], call: () => ({ url: '/api/get_online_user', payload: { sessionId: 'no-such-session', mode: 'get' } }) },
  'GET /api/admin/functions': { access: 'admin' },
  'GET /api/admin/list_conversation': { access: 'admin' },
  // Every account's: A's conversation too.
  'GET /api/admin/get_conversation': { access: 'admin', call: async (f) => ({ url: `/api/admin/get_conversation?id=${await f.conversation()}` }) },
  'GET /api/admin/get_analytics': { access: 'admin' },
  // 409 once the function was reviewed at this version already.
  'POST /api/admin/functions/review': {
    access: 'admin',
    ok: [200, 409],
    call: async (f) => {
      const fn = await f.fn();
      return { url: '/api/admin/functions/review', payload: { id: fn.id, version: fn.version, decision: 'approve' } };
    },
  },
  'GET /api/admin/image_avatar_requests': { access: 'admin' },
  'POST /api/admin/image_avatar_requests/decide': { access: 'admin', ok: 'any', call: () => ({ url: '/api/admin/image_avatar_requests/decide', multipart: { requestId: '999999', decision: 'decline', reason: 'no' } }) },
  'GET /api/list_vps': { access: 'admin' },
  'POST /api/get_vps': { access: 'admin', call: async (f) => ({ url: '/api/get_vps', payload: { vpsId: await f.vps(), mode: 'get' } }) },
  'POST /api/del_vps': { access: 'admin', consumes: true, call: async (f) => ({ url: '/api/del_vps', payload: { vpsId: await f.vps(), mode: 'delete' } }) },
  // Workers' own credentials (ADR 086): administrators only; a revoke of an unknown id is a 404.
  'GET /api/admin/worker_credentials': { access: 'admin' },
  'POST /api/admin/worker_credentials': { access: 'admin', call: () => ({ url: '/api/admin/worker_credentials', payload: { vpsId: 'route-matrix-worker' } }) },
  'POST /api/admin/worker_credentials/revoke': { access: 'admin', ok: 404, call: () => ({ url: '/api/admin/worker_credentials/revoke', payload: { id: 999_999 } }) },
};
