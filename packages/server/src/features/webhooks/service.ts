import { randomBytes } from 'node:crypto';
import { checkUrl, guardedFetch, SafeFetchError } from '@persona/net';
import {
  outcomeOf,
  WEBHOOK_SIGNATURE_HEADER,
  WEBHOOK_VERSION,
  WebhookLimits,
  WebhookMessages,
  type TConversationChannel,
  type TConversationTurn,
  type TLiveHistoryEntry,
  type TLiveVoiceTurnMetrics,
  type TWebhookDelivery,
  type TWebhookEndpoint,
  type TWebhookEvent,
  type TWebhookEventType,
} from '@persona/contract';
import type { DbTx } from '../../db/client.js';
import { AppError } from '../../lib/app-error.js';
import type { SecretBox } from '../../lib/secret-box.js';
import type { ClaimedDelivery, WebhookDeliveryRow, WebhookEndpointRow, WebhooksRepository } from './repository.js';
import { newWebhookSecret, webhookSignature } from './signing.js';

/** A session's end events wait this long for the worker's report (its summary takes up to 10 s). */
export const REPORT_GRACE_MS = 15_000;
/** A claimed delivery is another sender's again after this (its sender died mid-send). */
const LEASE_MS = WebhookLimits.timeoutMs + 50_000;
/** Deliveries sent at once by one instance. */
const BATCH = 16;

export interface WebhookLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface WebhooksDeps {
  repo: WebhooksRepository;
  box: SecretBox;
  /** ALLOW_PRIVATE_URLS: http:// and private, loopback addresses too (development, tests). */
  allowPrivateUrls: boolean;
  /** The conversation view's transcript (the conversations feature's, passed by app.ts). */
  transcript(history: TLiveHistoryEntry[], voiceTurns: TLiveVoiceTurnMetrics[]): TConversationTurn[];
  log: WebhookLog;
  now?: () => Date;
  /** 0..1, for the retries' jitter (tests pass a fixed one). */
  random?: () => number;
  /** How often the queue is polled; 0: never by itself (tests call `dispatchDue`). */
  pollMs?: number;
}

/** The delay before retry `n` (1: the first retry): doubling from 30 s up to 3 h, ±20 % jitter. */
export function retryDelayMs(n: number, random: () => number = Math.random): number {
  const base = Math.min(WebhookLimits.retryBaseDelayMs * 2 ** Math.max(0, n - 1), WebhookLimits.retryMaxDelayMs);
  return Math.round(base * (0.8 + 0.4 * random()));
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

function endpointView(row: WebhookEndpointRow): TWebhookEndpoint {
  return { id: row.id, url: row.url, avatarId: row.avatarId, events: row.events, enabled: row.enabled, createdAt: row.createdAt.toISOString() };
}

export function deliveryView(row: WebhookDeliveryRow): TWebhookDelivery {
  return {
    id: row.id,
    endpointId: row.endpointId,
    eventId: row.eventId,
    type: row.eventType,
    status: row.status,
    attempts: row.attempts,
    responseStatus: row.responseStatus,
    lastError: row.lastError,
    createdAt: row.createdAt.toISOString(),
    lastAttemptAt: iso(row.lastAttemptAt),
    nextAttemptAt: row.status === 'pending' ? iso(row.nextAttemptAt) : null,
    deliveredAt: iso(row.deliveredAt),
  };
}

const eventId = () => `evt_${randomBytes(12).toString('hex')}`;

export function createWebhooksService(deps: WebhooksDeps) {
  const { repo, box, log } = deps;
  const now = deps.now ?? (() => new Date());
  const random = deps.random ?? Math.random;

  /** https only, unless ALLOW_PRIVATE_URLS; no credentials; no private address typed in the URL. */
  function checkEndpointUrl(value: string): string {
    const url = new URL(value);
    if (url.username || url.password) throw AppError.badRequest(WebhookMessages.badUrl);
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && deps.allowPrivateUrls)) throw AppError.badRequest(WebhookMessages.badUrl);
    try {
      checkUrl(url.href, deps.allowPrivateUrls);
    } catch (err) {
      if (!(err instanceof SafeFetchError)) throw err;
      throw AppError.badRequest(err.kind === 'blocked' ? WebhookMessages.privateUrl : WebhookMessages.badUrl);
    }
    if (!deps.allowPrivateUrls && /(^|\.)localhost\.?$/i.test(url.hostname)) throw AppError.badRequest(WebhookMessages.privateUrl);
    return url.href;
  }

  async function checkAvatar(userId: number, avatarId: number | null | undefined) {
    if (avatarId != null && !(await repo.avatarOwned(userId, avatarId))) throw AppError.notFound(WebhookMessages.avatarNotFound);
  }

  async function ownEndpoint(userId: number, id: number) {
    const row = await repo.findEndpoint(userId, id);
    if (!row) throw AppError.notFound(WebhookMessages.notFound);
    return row;
  }

  // ── Sending ──

  /** The event's JSON, made once (at the first attempt) and kept for retries and resends. */
  async function bodyOf(d: WebhookDeliveryRow): Promise<string | null> {
    if (d.body !== null) return d.body;
    if (!d.sessionId) return null;
    const s = await repo.sessionForEvent(d.sessionId);
    if (!s) return null;
    const head = { version: WEBHOOK_VERSION, id: d.eventId, created: d.createdAt.toISOString() } as const;
    let event: TWebhookEvent;
    if (d.eventType === 'session.started') {
      const channel: TConversationChannel = s.channel ?? (s.textOnly ? 'chat-widget' : s.origin ? 'embed' : 'avatar-page');
      event = { ...head, type: 'session.started', data: { sessionId: s.id, avatarId: s.avatarId, avatarName: s.avatarName, startedAt: s.startedAt.toISOString(), channel } };
    } else if (d.eventType === 'session.ended') {
      const endedAt = s.endedAt ?? d.createdAt;
      event = {
        ...head,
        type: 'session.ended',
        data: {
          sessionId: s.id,
          avatarId: s.avatarId,
          avatarName: s.avatarName,
          startedAt: s.startedAt.toISOString(),
          endedAt: endedAt.toISOString(),
          durationSeconds: Math.max(0, Math.round((endedAt.getTime() - s.startedAt.getTime()) / 1000)),
          turns: s.visitorTurns ?? s.history.filter((h) => h.role === 'user').length,
          outcome: outcomeOf(s.endCode),
          endCode: s.endCode,
          summary: s.summary ?? null,
        },
      };
    } else if (d.eventType === 'transcript.ready') {
      event = { ...head, type: 'transcript.ready', data: { sessionId: s.id, avatarId: s.avatarId, turns: deps.transcript(s.history, s.voiceTurns) } };
    } else return null;
    const body = JSON.stringify(event);
    await repo.setBody(d.id, body);
    return body;
  }

  /** One attempt: signed POST over the guarded fetch, no redirects, 10 s, answer bounded. */
  async function attempt(c: ClaimedDelivery): Promise<void> {
    const d = c.delivery;
    const at = now();
    const attempts = d.attempts + 1;
    const deadline = d.createdAt.getTime() + WebhookLimits.retryWindowMs;
    let responseStatus: number | null = null;
    let error: string | null = null;
    const body = await bodyOf(d);
    if (body === null) {
      await repo.recordAttempt(d.id, { status: 'failed', attempts, nextAttemptAt: null, lastAttemptAt: at, responseStatus: null, lastError: 'The conversation was deleted before the event was sent.', deliveredAt: null });
      return;
    }
    try {
      const signature = webhookSignature(box.open(c.secretSealed), body, Math.floor(at.getTime() / 1000));
      const answer = await guardedFetch(c.url, {
        method: 'POST',
        allowPrivate: deps.allowPrivateUrls,
        timeoutMs: WebhookLimits.timeoutMs,
        maxBytes: WebhookLimits.responseMaxBytes,
        maxRedirects: 0,
        headers: { 'content-type': 'application/json', 'user-agent': 'PersonaStudio-Webhooks/1', [WEBHOOK_SIGNATURE_HEADER.toLowerCase()]: signature },
        body,
        acceptErrorStatus: true,
      });
      responseStatus = answer.status;
      if (answer.status >= 300 && answer.status < 400) error = `Redirects are not followed (HTTP ${answer.status}).`;
      else if (answer.status < 200 || answer.status >= 300) error = `HTTP ${answer.status}`;
    } catch (err) {
      error = err instanceof SafeFetchError ? err.message : 'The request failed.';
      if (!(err instanceof SafeFetchError)) log.error({ err, deliveryId: d.id }, 'webhook delivery failed unexpectedly');
    }
    if (error === null) {
      await repo.recordAttempt(d.id, { status: 'delivered', attempts, nextAttemptAt: null, lastAttemptAt: at, responseStatus, lastError: null, deliveredAt: at });
      return;
    }
    const lastError = error.slice(0, WebhookLimits.errorMax);
    if (at.getTime() >= deadline) {
      log.warn({ deliveryId: d.id, endpointId: d.endpointId, attempts }, 'webhook delivery failed for good');
      await repo.recordAttempt(d.id, { status: 'failed', attempts, nextAttemptAt: null, lastAttemptAt: at, responseStatus, lastError, deliveredAt: null });
      return;
    }
    // The last attempt falls on the window's end.
    const next = new Date(Math.min(at.getTime() + retryDelayMs(attempts, random), deadline));
    await repo.recordAttempt(d.id, { status: 'pending', attempts, nextAttemptAt: next, lastAttemptAt: at, responseStatus, lastError, deliveredAt: null });
  }

  let draining: Promise<number> | null = null;
  let timer: NodeJS.Timeout | undefined;
  let stopped = true;

  /** Sends every delivery due now, a batch at a time; the number sent. */
  async function dispatchDue(): Promise<number> {
    let total = 0;
    for (;;) {
      const at = now();
      const batch = await repo.claimDue(at, new Date(at.getTime() + LEASE_MS), BATCH);
      await Promise.all(batch.map((c) => attempt(c).catch((err: unknown) => log.error({ err, deliveryId: c.delivery.id }, 'webhook delivery attempt failed'))));
      total += batch.length;
      if (batch.length < BATCH || stopped) return total;
    }
  }

  /** One drain at a time per instance; a kick during a drain is picked up by the next poll. */
  function drain(): Promise<number> {
    draining ??= dispatchDue()
      .catch((err: unknown) => {
        log.error({ err }, 'webhook dispatch failed');
        return 0;
      })
      .finally(() => {
        draining = null;
      });
    return draining;
  }

  /** Soon (after the caller's transaction commits), when the loop runs. */
  function kick() {
    if (stopped || !timer) return;
    setTimeout(() => void drain(), 20).unref();
  }

  return {
    async list(userId: number): Promise<TWebhookEndpoint[]> {
      return (await repo.listEndpoints(userId)).map(endpointView);
    },

    async add(userId: number, input: { url: string; avatarId: number | null; events: TWebhookEventType[]; enabled: boolean }): Promise<{ webhook: TWebhookEndpoint; secret: string }> {
      const url = checkEndpointUrl(input.url);
      await checkAvatar(userId, input.avatarId);
      if ((await repo.countEndpoints(userId)) >= WebhookLimits.endpointsPerAccount) throw AppError.conflict(WebhookMessages.tooMany);
      const secret = newWebhookSecret();
      const at = now();
      const row = await repo.insertEndpoint({ userId, url, avatarId: input.avatarId, events: input.events, enabled: input.enabled, secretSealed: box.seal(secret), createdAt: at, updatedAt: at });
      return { webhook: endpointView(row), secret };
    },

    async update(userId: number, input: { id: number; url?: string; avatarId?: number | null; events?: TWebhookEventType[]; enabled?: boolean }): Promise<TWebhookEndpoint> {
      await ownEndpoint(userId, input.id);
      const url = input.url === undefined ? undefined : checkEndpointUrl(input.url);
      await checkAvatar(userId, input.avatarId);
      const row = await repo.updateEndpoint(userId, input.id, {
        ...(url === undefined ? {} : { url }),
        ...(input.avatarId === undefined ? {} : { avatarId: input.avatarId }),
        ...(input.events === undefined ? {} : { events: input.events }),
        ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
        updatedAt: now(),
      });
      if (!row) throw AppError.notFound(WebhookMessages.notFound);
      if (row.enabled) kick();
      return endpointView(row);
    },

    async delete(userId: number, id: number): Promise<void> {
      if (!(await repo.deleteEndpoint(userId, id))) throw AppError.notFound(WebhookMessages.notFound);
    },

    async rollSecret(userId: number, id: number): Promise<{ webhook: TWebhookEndpoint; secret: string }> {
      await ownEndpoint(userId, id);
      const secret = newWebhookSecret();
      const row = await repo.updateEndpoint(userId, id, { secretSealed: box.seal(secret), updatedAt: now() });
      if (!row) throw AppError.notFound(WebhookMessages.notFound);
      return { webhook: endpointView(row), secret };
    },

    async deliveries(userId: number, endpointId: number, limit: number): Promise<TWebhookDelivery[]> {
      await ownEndpoint(userId, endpointId);
      return (await repo.listDeliveries(userId, endpointId, limit)).map(deliveryView);
    },

    /** A `ping` event, due now. */
    async sendTest(userId: number, endpointId: number): Promise<TWebhookDelivery> {
      await ownEndpoint(userId, endpointId);
      const at = now();
      const id = eventId();
      const body = JSON.stringify({ version: WEBHOOK_VERSION, id, created: at.toISOString(), type: 'ping', data: { endpointId, message: 'A test event from Persona Studio.' } } satisfies TWebhookEvent);
      const row = await repo.insertDelivery({ endpointId, eventId: id, eventType: 'ping', sessionId: null, body, createdAt: at, nextAttemptAt: at });
      kick();
      return deliveryView(row);
    },

    /** The same event (same id and body) queued again as a new delivery, due now, with a new 24 h window. */
    async resend(userId: number, deliveryId: number): Promise<TWebhookDelivery> {
      const d = await repo.findDelivery(userId, deliveryId);
      if (!d) throw AppError.notFound(WebhookMessages.deliveryNotFound);
      const at = now();
      const row = await repo.insertDelivery({ endpointId: d.endpointId, eventId: d.eventId, eventType: d.eventType, sessionId: d.sessionId, body: d.body, createdAt: at, nextAttemptAt: at });
      kick();
      return deliveryView(row);
    },

    /** live-sessions' hook (app.ts): queue the session's events in the transaction that records it. */
    async sessionRecorded(tx: DbTx, event: 'started' | 'ended', row: { id: string; ownerUserId: number; avatarId: number }): Promise<void> {
      const at = now();
      const types: TWebhookEventType[] = event === 'started' ? ['session.started'] : ['session.ended', 'transcript.ready'];
      const eventIds = Object.fromEntries(types.map((t) => [t, eventId()]));
      // The end's events wait for the worker's report (summary, figures), `sessionReported` ends the wait.
      const dueAt = event === 'started' ? at : new Date(at.getTime() + REPORT_GRACE_MS);
      const queued = await repo.enqueueForSession(tx, { ownerUserId: row.ownerUserId, avatarId: row.avatarId, sessionId: row.id, types, eventIds, createdAt: at, dueAt });
      if (queued && event === 'started') kick();
    },

    /** live-sessions' hook: the worker reported a failed function; sent at once (at most `functionFailuresPerSession` per session). */
    async functionFailed(row: { id: string; ownerUserId: number; avatarId: number; avatarName: string }, failure: { name: string; error: string | null }): Promise<void> {
      if ((await repo.countSessionEvents(row.id, 'function.failed')) >= WebhookLimits.functionFailuresPerSession) return;
      const at = now();
      const id = eventId();
      const body = JSON.stringify({
        version: WEBHOOK_VERSION,
        id,
        created: at.toISOString(),
        type: 'function.failed',
        data: { sessionId: row.id, avatarId: row.avatarId, avatarName: row.avatarName, function: failure.name, error: failure.error, failedAt: at.toISOString() },
      } satisfies TWebhookEvent);
      const queued = await repo.enqueueNow({ ownerUserId: row.ownerUserId, avatarId: row.avatarId, sessionId: row.id, types: ['function.failed'], eventIds: { 'function.failed': id }, bodies: { 'function.failed': body }, createdAt: at, dueAt: at });
      if (queued) kick();
    },

    async sessionReported(sessionId: string): Promise<void> {
      await repo.dueNow(sessionId, now());
      kick();
    },

    dispatchDue,

    start() {
      stopped = false;
      if (!deps.pollMs) return;
      timer = setInterval(() => void drain(), deps.pollMs);
      timer.unref();
    },

    async stop() {
      stopped = true;
      clearInterval(timer);
      timer = undefined;
      await draining;
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
