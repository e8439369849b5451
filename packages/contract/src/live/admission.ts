// zod/mini: loaded by the avatar page.
import { z } from 'zod/mini';
import { ZStatus } from '../common.js';
import { ZLiveCode } from './codes.js';

/**
 * Live-session admission: the avatar page asks the portal (control plane) for a session; the
 * portal checks the avatar, its token, OAuth gate, billing-auth URL, concurrency and limits,
 * picks a worker and answers with a single-use ticket and the worker's WebSocket address.
 * See docs/decisions/013-live-sessions.md.
 */
export const LivePaths = {
  /** GET: what the page needs before Connect (public; no secrets). */
  pageConfig: (avatarId: number | string) => `/api/live/avatars/${avatarId}`,
  /** POST ZLiveStartRequest → ZLiveStartAnswer. */
  start: '/api/live/sessions',
  /** POST ZLiveResumeRequest → ZLiveStartAnswer: reconnect a session to a (new) worker. */
  resume: '/api/live/sessions/resume',
  /** POST {sessionId, resumeToken}: the visitor hung up (also sent by the worker). */
  end: '/api/live/sessions/end',
  /** The avatar page itself. */
  page: (avatarId: number | string) => `/avatar/${avatarId}`,
  /** The chat-only widget. */
  chatWidget: (avatarId: number | string) => `/react/chatWidget/${avatarId}`,
  /** Path of the worker's page socket (embedded worker: on the portal's own port). */
  workerSocket: '/avatar-ws',
} as const;

export const LiveLimits = {
  /** Ticket lifetime: the page must open the socket within it. */
  ticketTtlSeconds: 60,
  /** Resume tokens last as long as a session may stay unreachable before it is closed. */
  resumeWindowSeconds: 120,
  /** Text a visitor may send in one message. */
  textMax: 2000,
  /** Visitor ids are random and opaque. */
  visitorIdMax: 64,
  /** Live sessions one IP may hold at once (per portal). */
  maxSessionsPerIp: 10,
  /** Idle timeout bounds (seconds; the avatar's idleTimeout, spec default 300, max 600). */
  idleTimeoutDefault: 300,
  idleTimeoutMax: 600,
  /** Worker ⇄ portal heartbeat per live session. */
  heartbeatSeconds: 10,
  /** A session whose worker has not reported for this long is closed and billed by the sweep. */
  staleSessionSeconds: 45,
  /** Chat history kept per session (turns) and sent to a resuming worker. */
  historyMaxTurns: 100,
  /** Allowed embedding origins per avatar. */
  allowedOriginsMax: 20,
  /** Knowledge text (titles and text, characters) a worker gets for an avatar's speech model (ADR 105). */
  vocabularyMaxChars: 200_000,
} as const;

const id = z.number().check(z.int(), z.positive(), z.maximum(2_147_483_647));
const text = (max: number) => z.string().check(z.maxLength(max));

/** GET pageConfig answer: public facts about the avatar, enough to draw the page before Connect. */
export const ZLivePageConfig = z.object({
  status: ZStatus,
  avatar: z.object({
    id,
    name: z.string(),
    /** Photo or appearance thumbnail (until the renderer of the next issue). */
    photoUrl: z.nullable(z.string()),
    dhType: z.number(),
    /** The avatar config JSON (ParentConfig chain root) the renderer will read. */
    avatarConfigUrl: z.nullable(z.string()),
    /** An ES256 token is required (an encryption key is set). */
    tokenRequired: z.boolean(),
    /** Visitors sign in through the avatar's OAuth config first. */
    oauth: z.nullable(z.object({ appId: id, startUrl: z.string(), provider: z.string() })),
    /** The engine's display name. */
    engineName: z.string(),
  }),
  errors: z.optional(z.array(z.string())),
});
export type TLivePageConfig = z.infer<typeof ZLivePageConfig>;

export const ZLiveClientInfo = z.object({
  deviceOS: z.optional(text(100)),
  locale: z.optional(text(35)),
  spokenLanguage: z.optional(text(35)),
});

export const ZLiveStartRequest = z.object({
  avatarId: id,
  /** The `token` URL parameter (ES256 JWT) when the avatar has an encryption key. */
  token: z.optional(text(8192)),
  /** One-time OAuth grant from the visitor's sign-in (never put in a URL). */
  oauthGrant: z.optional(text(4096)),
  /** Anonymous, stable per browser and avatar: daily limits and avatar memory. */
  visitorId: z.optional(z.string().check(z.regex(/^[A-Za-z0-9_-]{8,64}$/))),
  /** The embedding page's origin (document.referrer / ancestorOrigins), checked with Origin. */
  hostOrigin: z.optional(text(500)),
  client: z.optional(ZLiveClientInfo),
  /** The chat-only widget (no audio). */
  textOnly: z.optional(z.boolean()),
});
export type TLiveStartRequest = z.infer<typeof ZLiveStartRequest>;

export const ZLiveResumeRequest = z.object({
  sessionId: text(64),
  resumeToken: text(512),
});
export type TLiveResumeRequest = z.infer<typeof ZLiveResumeRequest>;

export const ZLiveEndRequest = ZLiveResumeRequest;

/** UI settings the page applies (from the avatar config and advanced settings). */
export const ZLiveUiConfig = z.object({
  wakeUpMessage: z.string(),
  /** Seconds; the page may show a countdown. -1 = none. */
  demoSeconds: z.number(),
  idleTimeoutSeconds: z.number(),
  subtitles: z.boolean(),
  transcriptionStreaming: z.boolean(),
  /** permissions bit 2: the host page may receive what the visitor said. */
  canHandleSttResponse: z.boolean(),
});
export type TLiveUiConfig = z.infer<typeof ZLiveUiConfig>;

export const ZLiveStartAnswer = z.object({
  status: ZStatus,
  sessionId: z.optional(z.string()),
  /** Single-use, ≈60 s, HMAC-signed; the worker refuses it after first use or expiry. */
  ticket: z.optional(z.string()),
  /** ws(s):// address of the chosen worker's page socket. */
  wsUrl: z.optional(z.string()),
  /** Keeps the session reachable after a worker loss (POST resume). */
  resumeToken: z.optional(z.string()),
  ui: z.optional(ZLiveUiConfig),
  /** Refusal: our code, the spec's failReason and the text. */
  code: z.optional(ZLiveCode),
  failReason: z.optional(z.int()),
  errors: z.optional(z.array(z.string())),
});
export type TLiveStartAnswer = z.infer<typeof ZLiveStartAnswer>;

/** Claims inside a ticket (HMAC-SHA256 with a key derived from WORKER_SECRET). */
export const ZLiveTicketClaims = z.object({
  /** Session id. */
  sid: z.string(),
  /** Worker row id the ticket is for. */
  wid: z.number(),
  /** Avatar id. */
  aid: z.number(),
  /** Expiry, seconds since 1970. */
  exp: z.number(),
  /** Unique id: a worker accepts each only once. */
  jti: z.string(),
});
export type TLiveTicketClaims = z.infer<typeof ZLiveTicketClaims>;
