import { z } from 'zod';
import { ZId, ZStatus } from './common.js';
import { OutboundUrlLimits } from './brain.js';
import { ZConversationChannel, ZConversationOutcome, ZConversationTurn } from './conversations.js';

/**
 * Webhooks (issue 30, ADR 093): endpoints of an account (one avatar's or all its avatars'), told
 * of its live sessions by signed JSON POSTs from a durable queue in the database.
 */
export const WebhookPaths = {
  /** GET → ZListWebhooksResponse. */
  list: '/api/list_webhook',
  /** POST ZAddWebhookRequest → ZWebhookSecretResponse (the secret, this once). */
  add: '/api/add_webhook',
  /** POST ZUpdateWebhookRequest → ZWebhookResponse. */
  update: '/api/update_webhook',
  /** POST ZWebhookIdRequest → ZWebhookIdResponse. */
  delete: '/api/del_webhook',
  /** POST ZWebhookIdRequest → ZWebhookSecretResponse: a new secret, the old one stops at once. */
  rollSecret: '/api/roll_webhook_secret',
  /** GET ZListWebhookDeliveriesQuery → ZListWebhookDeliveriesResponse. */
  deliveries: '/api/list_webhook_delivery',
  /** POST ZWebhookIdRequest → ZWebhookDeliveryResponse: a `ping` event queued for the endpoint. */
  test: '/api/test_webhook',
  /** POST ZWebhookIdRequest (a delivery's id) → ZWebhookDeliveryResponse: the same event queued again. */
  resend: '/api/resend_webhook_delivery',
} as const;

/** What an endpoint may subscribe to. */
export const ZWebhookEventType = z.enum(['session.started', 'session.ended', 'transcript.ready', 'function.failed']);
export type TWebhookEventType = z.infer<typeof ZWebhookEventType>;
export const WebhookEventTypes = ZWebhookEventType.options;
/** Every event body's type: the subscribed ones and the test event. */
export type TWebhookBodyType = TWebhookEventType | 'ping';

/** The version of the event bodies (the `version` field): a change of shape gets a new one. */
export const WEBHOOK_VERSION = 1;
/** The signature header: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>`. */
export const WEBHOOK_SIGNATURE_HEADER = 'Persona-Signature';

export const WebhookLimits = {
  urlMax: OutboundUrlLimits.urlMax,
  endpointsPerAccount: 20,
  /** A delivery is retried for this long after its event, then marked failed. */
  retryWindowMs: 24 * 3_600_000,
  /** The first retry's delay; each next one doubles (with jitter), at most `retryMaxDelayMs`. */
  retryBaseDelayMs: 30_000,
  retryMaxDelayMs: 3 * 3_600_000,
  /** Until the receiver's answer headers and body. */
  timeoutMs: 10_000,
  /** The receiver's answer body read at most (a larger one fails the attempt). */
  responseMaxBytes: 64 * 1024,
  /** What the log keeps of an answer or an error. */
  errorMax: 300,
  deliveryPageDefault: 50,
  deliveryPageMax: 100,
  /** function.failed events of one session sent at most (a looping model cannot flood a receiver). */
  functionFailuresPerSession: 20,
  /** Receivers are told to refuse signatures older than this (docs/webhooks.md). */
  toleranceSeconds: 300,
} as const;

export const WebhookMessages = {
  listFailed: 'Failed to fetch webhooks.',
  notFound: 'This webhook does not exist or has been deleted.',
  deliveryNotFound: 'This delivery does not exist.',
  avatarNotFound: 'This avatar does not exist.',
  tooMany: `An account may have at most ${WebhookLimits.endpointsPerAccount} webhooks.`,
  badUrl: 'URL must be an https URL (at most 2048 characters, no user name or password).',
  privateUrl: 'URL points to a private, local or reserved address.',
  noEvents: 'Choose at least one event.',
  badEvent: 'Unknown event.',
  saved: 'Webhook saved.',
  deleted: 'Webhook deleted.',
  deleteConfirm: 'Delete this webhook? Its deliveries are removed and nothing more is sent to it.',
  secretOnce: 'Copy this signing secret now: it is shown only once.',
  rollConfirm: 'Make a new signing secret? The current one stops working at once.',
  testQueued: 'Test event queued.',
  resendQueued: 'Delivery queued again.',
} as const;

export const ZWebhookDeliveryStatus = z.enum(['pending', 'delivered', 'failed']);
export type TWebhookDeliveryStatus = z.infer<typeof ZWebhookDeliveryStatus>;

export const WebhookLabels = {
  event: {
    'session.started': 'Session started',
    'session.ended': 'Session ended',
    'transcript.ready': 'Transcript ready',
    'function.failed': 'Function failed',
  } satisfies Record<TWebhookEventType, string>,
  status: { pending: 'Pending', delivered: 'Delivered', failed: 'Failed' } satisfies Record<TWebhookDeliveryStatus, string>,
} as const;

const ZWebhookUrl = z
  .string({ error: WebhookMessages.badUrl })
  .trim()
  .min(1, { error: WebhookMessages.badUrl })
  .max(WebhookLimits.urlMax, { error: WebhookMessages.badUrl })
  .refine((s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol), { error: WebhookMessages.badUrl });

const ZEvents = z
  .array(z.enum(WebhookEventTypes, { error: WebhookMessages.badEvent }), { error: WebhookMessages.noEvents })
  .min(1, { error: WebhookMessages.noEvents })
  .max(WebhookEventTypes.length)
  .transform((list) => [...new Set(list)]);

export const ZAddWebhookRequest = z
  .object({
    url: ZWebhookUrl,
    /** null: every avatar of the account. */
    avatarId: z.nullable(ZId),
    events: ZEvents,
    enabled: z.boolean().default(true),
  })
  .strict();
export type TAddWebhookRequest = z.input<typeof ZAddWebhookRequest>;

export const ZUpdateWebhookRequest = z
  .object({ id: ZId, url: ZWebhookUrl.optional(), avatarId: z.optional(z.nullable(ZId)), events: ZEvents.optional(), enabled: z.boolean().optional() })
  .strict();
export type TUpdateWebhookRequest = z.input<typeof ZUpdateWebhookRequest>;

export const ZWebhookIdRequest = z.object({ id: ZId }).strict();

export const ZListWebhookDeliveriesQuery = z
  .object({
    endpointId: ZId,
    limit: z.coerce.number().int().min(1).max(WebhookLimits.deliveryPageMax).default(WebhookLimits.deliveryPageDefault),
  })
  .strict();

/** An endpoint as the portal shows it: never its secret. */
export const ZWebhookEndpoint = z.object({
  id: z.number().int(),
  url: z.string(),
  avatarId: z.number().int().nullable(),
  events: z.array(ZWebhookEventType),
  enabled: z.boolean(),
  createdAt: z.string(),
});
export type TWebhookEndpoint = z.infer<typeof ZWebhookEndpoint>;

export const ZWebhookDelivery = z.object({
  id: z.number().int(),
  endpointId: z.number().int(),
  eventId: z.string(),
  type: z.string(),
  status: ZWebhookDeliveryStatus,
  attempts: z.number().int(),
  /** The receiver's last HTTP status (null: no answer). */
  responseStatus: z.number().int().nullable(),
  lastError: z.string().nullable(),
  createdAt: z.string(),
  lastAttemptAt: z.string().nullable(),
  /** When the next attempt is due (pending only). */
  nextAttemptAt: z.string().nullable(),
  deliveredAt: z.string().nullable(),
});
export type TWebhookDelivery = z.infer<typeof ZWebhookDelivery>;

export const ZListWebhooksResponse = z.object({ status: ZStatus, webhooks: z.array(ZWebhookEndpoint) });
export const ZWebhookResponse = z.object({ status: ZStatus, webhook: ZWebhookEndpoint });
/** The secret, shown this once (add, roll). */
export const ZWebhookSecretResponse = z.object({ status: ZStatus, webhook: ZWebhookEndpoint, secret: z.string() });
export type TWebhookSecretResponse = z.infer<typeof ZWebhookSecretResponse>;
export const ZWebhookIdResponse = z.object({ status: ZStatus, id: z.number().int() });
export const ZListWebhookDeliveriesResponse = z.object({ status: ZStatus, deliveries: z.array(ZWebhookDelivery) });
export const ZWebhookDeliveryResponse = z.object({ status: ZStatus, delivery: ZWebhookDelivery });

// ── The event bodies (what receivers get) ──

export const ZWebhookSessionStarted = z.object({
  sessionId: z.string(),
  avatarId: z.number().int(),
  avatarName: z.string(),
  startedAt: z.string(),
  channel: ZConversationChannel,
});

export const ZWebhookSessionEnded = z.object({
  sessionId: z.string(),
  avatarId: z.number().int(),
  avatarName: z.string(),
  startedAt: z.string(),
  endedAt: z.string(),
  durationSeconds: z.number().int(),
  /** The visitor's turns stored. */
  turns: z.number().int(),
  outcome: ZConversationOutcome,
  endCode: z.string().nullable(),
  /** The avatar's language model's summary of the session; null when it made none. */
  summary: z.string().nullable(),
});

export const ZWebhookTranscriptReady = z.object({
  sessionId: z.string(),
  avatarId: z.number().int(),
  /** The transcript as the portal's conversation view shows it. */
  turns: z.array(ZConversationTurn),
});

export const ZWebhookFunctionFailed = z.object({
  sessionId: z.string(),
  avatarId: z.number().int(),
  avatarName: z.string(),
  /** The function's name, as the model called it. */
  function: z.string(),
  /** What the function (or its sandbox) answered the model, at most 500 characters; null when not told. */
  error: z.string().nullable(),
  /** When the worker reported it (ISO). */
  failedAt: z.string(),
});

export const ZWebhookPing = z.object({ endpointId: z.number().int(), message: z.string() });

/** Every body: `{version, id, type, created, data}`; `created` an ISO instant; the same `id` on a resend. */
export const ZWebhookEvent = z.discriminatedUnion('type', [
  z.object({ version: z.literal(WEBHOOK_VERSION), id: z.string(), created: z.string(), type: z.literal('session.started'), data: ZWebhookSessionStarted }),
  z.object({ version: z.literal(WEBHOOK_VERSION), id: z.string(), created: z.string(), type: z.literal('session.ended'), data: ZWebhookSessionEnded }),
  z.object({ version: z.literal(WEBHOOK_VERSION), id: z.string(), created: z.string(), type: z.literal('transcript.ready'), data: ZWebhookTranscriptReady }),
  z.object({ version: z.literal(WEBHOOK_VERSION), id: z.string(), created: z.string(), type: z.literal('function.failed'), data: ZWebhookFunctionFailed }),
  z.object({ version: z.literal(WEBHOOK_VERSION), id: z.string(), created: z.string(), type: z.literal('ping'), data: ZWebhookPing }),
]);
export type TWebhookEvent = z.infer<typeof ZWebhookEvent>;
