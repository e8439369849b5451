import { randomUUID } from 'node:crypto';
import {
  LiveCode,
  LiveFailReason,
  LiveLimits,
  LiveMessages,
  LiveRpc,
  NlpEngineName,
  WorkerProtocol,
  functionUsesNetwork,
  hasPermission,
  originOf,
  Permission,
  readAvatarConfig,
  type TAvatarAccess,
  type TLiveCode,
  type TLivePageConfig,
  type TLivePassage,
  type TLiveResumeRequest,
  type TLiveRpcMethod,
  type TLiveSessionConfig,
  type TLiveStartAnswer,
  type TLiveStartRequest,
  type TLiveVoiceTurnMetrics,
  type TNlpEngine,
} from '@persona/contract';
import { signTicket } from '@persona/worker';
import { AppError } from '../../lib/app-error.js';
import { hashToken, randomToken, safeEqual } from '../../lib/tokens.js';
import type { PlatformLlm } from './brain-config.js';
import { toLiveSessionConfig } from './session-config.js';
import type { LiveSessionRow, LiveSessionsRepository } from './repository.js';

type Obj = Record<string, unknown>;

export interface LiveLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What the billing-auth URL answered: allowed, refused (401/402/403) or not reachable. */
export type BillingVerdict = 'allowed' | 'refused' | 'unavailable';

export interface LiveSessionsDeps {
  repo: LiveSessionsRepository;
  /** Opens the avatar's sealed secrets (the avatars feature's rule). */
  openSecrets(config: Obj): Obj;
  presence: {
    upsert(entry: {
      sessionId: string;
      ownerUserId: number;
      avatarId: number;
      userName: string;
      deviceOS: string;
      onlineStatus: string;
      locale: string;
      lastConnectTimeStamp: number;
      ipAddress: string;
      spokenLanguage: string;
      userId: string;
      deviceId: string;
      avatarIdAndType: string;
    }, ttlMs?: number): Promise<void>;
    remove(sessionId: string): Promise<void>;
  };
  /** ES256 token check of the encryption-keys feature. */
  verifyToken(ownerId: number, keyId: number | null | undefined, avatarId: number, token: string): Promise<{ ok: true } | { ok: false; reason: string }>;
  /** The OAuth config shown on the page, with the signed link that starts a sign-in from it (null: gone). */
  oauthApp(appId: number, avatarId: number): Promise<{ id: number; name: string; startUrl: string } | null>;
  /** Uses up a one-time OAuth grant of this config; null when unknown, used or expired. */
  consumeOAuthGrant(appId: number, grant: string): Promise<{ subject: string | null } | null>;
  /** Calls the avatar's billing-auth URL through the server's guarded fetch. */
  billingCheck(url: string, header: string, body: Obj): Promise<BillingVerdict>;
  /** Hybrid search in the owner's collections. */
  searchKnowledge(ownerUserId: number, collectionIds: number[], query: string, k: number): Promise<TLivePassage[]>;
  ticketKey: Buffer;
  allowPrivateUrls: boolean;
  /**
   * PUBLIC_URL: the product's own URLs stored in an avatar (its hosted config, a photo) are handed
   * to the page as same-origin paths, so the page works at whatever address it was opened
   * (the CSP allows its own origin only).
   */
  publicUrl?: string;
  platformLlm: PlatformLlm | null;
  log: LiveLogger;
  now?: () => Date;
  /** A session whose worker has not reported for this long is closed by the sweep (default LiveLimits). */
  staleSessionSeconds?: number;
  /** Bring your own agent (features/agents): offers a session to an agent connected for its avatar. */
  offerToAgent?: (offer: { sessionId: string; avatarId: number; workerId: number }) => Promise<boolean>;
}

export class LiveRefusal extends AppError {
  constructor(
    readonly code: TLiveCode,
    status: number,
    message: string = LiveMessages[code],
  ) {
    super(status, message, LiveFailReason[code], { code });
  }
}

const REFUSAL_STATUS: Partial<Record<TLiveCode, number>> = {
  'avatar-not-found': 404,
  'token-required': 401,
  'token-invalid': 401,
  'token-expired': 401,
  'oauth-required': 401,
  'oauth-failed': 401,
  'origin-not-allowed': 403,
  'billing-refused': 402,
  'billing-unavailable': 503,
  'no-worker': 503,
  'ip-concurrency': 429,
  'session-not-found': 404,
};
const refuse = (code: TLiveCode) => new LiveRefusal(code, REFUSAL_STATUS[code] ?? 400);

/** Median and worst of each spoken-turn figure (ms), and the turns interrupted. */
export function voiceTurnSummary(turns: TLiveVoiceTurnMetrics[]) {
  const stat = (key: Exclude<keyof TLiveVoiceTurnMetrics, 'at' | 'interrupted'>) => {
    const v = turns.map((t) => t[key]).filter((n): n is number => typeof n === 'number').sort((a, b) => a - b);
    return v.length ? { p50: v[Math.floor((v.length - 1) / 2)]!, max: v[v.length - 1]! } : null;
  };
  return {
    turns: turns.length,
    interrupted: turns.filter((t) => t.interrupted).length,
    endOfUtteranceMs: stat('endOfUtteranceMs'),
    sttMs: stat('sttMs'),
    llmFirstTokenMs: stat('llmFirstTokenMs'),
    ttsFirstByteMs: stat('ttsFirstByteMs'),
    endToEndMs: stat('endToEndMs'),
  };
}

/**
 * Live sessions (ADR 013): admission on the portal (avatar, origin, token, OAuth grant, IP
 * concurrency, billing-auth, daily limits, worker choice), the worker's RPC calls (claim,
 * heartbeat, history, end, knowledge), presence, call records and the sweep of sessions whose
 * worker went silent.
 */
export function createLiveSessionsService(deps: LiveSessionsDeps) {
  const { repo, log } = deps;
  const now = deps.now ?? (() => new Date());
  const own = deps.publicUrl?.replace(/\/+$/, '');
  /** A URL of the product itself as a same-origin path; anything else as it is. */
  const ownPath = (url: string | null): string | null => (url && own && url.startsWith(`${own}/`) ? url.slice(own.length) : url);

  async function loadAvatar(id: number) {
    const row = await repo.findAvatar(id);
    if (!row) throw refuse(LiveCode.avatarNotFound);
    return row;
  }

  function presenceEntry(row: LiveSessionRow, dhType: number) {
    return {
      sessionId: row.id,
      ownerUserId: row.ownerUserId,
      avatarId: row.avatarId,
      userName: row.oauthSubject ?? (row.visitorId ? `Visitor ${row.visitorId.slice(0, 8)}` : 'Visitor'),
      deviceOS: row.client.deviceOS ?? '',
      onlineStatus: 'ONLINE',
      locale: row.client.locale ?? '',
      lastConnectTimeStamp: row.startedAt.getTime(),
      ipAddress: row.clientIp,
      spokenLanguage: row.client.spokenLanguage ?? '',
      userId: row.visitorId ?? row.id,
      deviceId: row.visitorId ?? row.id,
      avatarIdAndType: `${row.avatarId}_${dhType}`,
    };
  }
  const presenceTtl = () => LiveLimits.staleSessionSeconds * 1000 + 15_000;
  /** Since when the sweep reads the database: this service's start, or the end of the last outage it met. */
  let readableSince = now().getTime();
  let sweepFailed = false;

  async function pickWorker(): Promise<{ id: number; webSocket: string }> {
    const [best] = await repo.availableWorkers(new Date(now().getTime() - WorkerProtocol.pingTimeoutMs));
    if (!best || !best.webSocket) throw refuse(LiveCode.noWorker);
    return best;
  }

  async function isOverDailyLimit(avatarId: number, rules: TAvatarAccess, who: { visitorId: string | null; ip: string; sessionId?: string }, at: Date) {
    if (rules.dailyLimitPerSession > 0 && who.visitorId) {
      if ((await repo.secondsInLastDay(avatarId, { visitorId: who.visitorId }, at)) >= rules.dailyLimitPerSession) return true;
    }
    if (rules.dailyLimitPerIp > 0 && (await repo.secondsInLastDay(avatarId, { ip: who.ip }, at)) >= rules.dailyLimitPerIp) return true;
    return false;
  }

  async function checkBilling(rules: TAvatarAccess, body: Obj): Promise<TLiveCode | null> {
    if (!rules.billingAuthUrl) return null;
    const verdict = await deps.billingCheck(rules.billingAuthUrl, rules.billingAuthHeader, body);
    if (verdict === 'allowed') return null;
    return verdict === 'refused' ? LiveCode.billingRefused : LiveCode.billingUnavailable;
  }

  function checkOrigin(rules: TAvatarAccess, hostOrigin: string | undefined, headers: { origin?: string; referer?: string }, portalOrigin: string) {
    if (rules.allowedOrigins.length === 0) return;
    const allowed = new Set([...rules.allowedOrigins, portalOrigin]);
    // The page's own request comes from the portal's origin; the host page's origin is what it
    // was framed by. A call from another site's script carries that site's Origin.
    const seen = [originOf(headers.origin) ?? originOf(headers.referer), hostOrigin === undefined ? null : (originOf(hostOrigin) ?? 'invalid')].filter((o): o is string => o !== null);
    for (const o of seen) if (!allowed.has(o)) throw refuse(LiveCode.originNotAllowed);
  }

  function issueTicket(sessionId: string, workerId: number, avatarId: number) {
    return signTicket(deps.ticketKey, { sid: sessionId, wid: workerId, aid: avatarId }, now().getTime());
  }

  async function endSession(id: string, code: TLiveCode, at: Date = now()): Promise<LiveSessionRow | undefined> {
    const ended = await repo.end(id, code, at);
    await deps.presence.remove(id);
    if (ended) log.info({ sessionId: id, avatarId: ended.avatarId, code, seconds: Math.round((ended.endedAt!.getTime() - ended.startedAt.getTime()) / 1000) }, 'live session ended');
    return ended;
  }

  async function openSessionFor(workerId: number, sessionId: string): Promise<LiveSessionRow> {
    const row = await repo.find(sessionId);
    if (!row || row.endedAt || row.workerId !== workerId) throw new RpcRefusal(LiveCode.sessionNotFound);
    return row;
  }

  const rpc: { [M in TLiveRpcMethod]: (workerId: number, params: never) => Promise<unknown> } = {
    async 'session.claim'(workerId, params: { sessionId: string; jti: string }) {
      const at = now();
      const before = await repo.find(params.sessionId);
      const row = await repo.claim(params.sessionId, workerId, params.jti, at);
      if (!row) throw new RpcRefusal(LiveCode.sessionNotFound);
      const avatar = await repo.findAvatar(row.avatarId);
      if (!avatar) {
        await endSession(row.id, LiveCode.avatarNotFound, at);
        throw new RpcRefusal(LiveCode.avatarNotFound);
      }
      const config = readAvatarConfig(deps.openSecrets(avatar.config));
      const fns = await repo.approvedFunctions(avatar.userId, config.functionIds);
      // Avatar memory: what this returning visitor told the avatar before (the page's visitor id).
      const memory = config.session.summaryEnabled && row.visitorId ? await repo.memoryOf(avatar.id, row.visitorId) : null;
      await deps.presence.upsert(presenceEntry(row, avatar.dhType), presenceTtl());
      const answer: TLiveSessionConfig = toLiveSessionConfig(
        {
          row,
          resumed: before?.claimedJti != null,
          avatar,
          config,
          functions: fns.map((f) => ({ id: f.id, name: f.name, code: f.code, allowNetwork: functionUsesNetwork(f) })),
          memory,
        },
        { platformLlm: deps.platformLlm, allowPrivateUrls: deps.allowPrivateUrls },
      );
      return answer;
    },

    async 'session.heartbeat'(workerId, params: { sessionId: string; lastUserActivityAt: number | null }) {
      const row = await openSessionFor(workerId, params.sessionId);
      const at = now();
      const avatar = await repo.findAvatar(row.avatarId);
      if (!avatar) {
        await endSession(row.id, LiveCode.avatarNotFound, at);
        return { echo: row.echo, end: LiveCode.avatarNotFound };
      }
      const rules = readAvatarConfig(deps.openSecrets(avatar.config)).access;
      await repo.update(row.id, { lastHeartbeatAt: at });
      await deps.presence.upsert(presenceEntry(row, avatar.dhType), presenceTtl());
      // The session may have ended while this heartbeat ran (a bye, the sweep): its end removed the
      // presence entry before the upsert above put it back, so take it out again.
      if ((await repo.find(row.id))?.endedAt) {
        await deps.presence.remove(row.id);
        return { echo: row.echo, end: LiveCode.sessionEnded };
      }
      if (rules.demoSeconds > 0 && at.getTime() - row.startedAt.getTime() >= rules.demoSeconds * 1000) {
        await endSession(row.id, LiveCode.demoEnded, at);
        return { echo: row.echo, end: LiveCode.demoEnded };
      }
      if (rules.billingAuthUrl && (!row.billingCheckedAt || at.getTime() - row.billingCheckedAt.getTime() >= rules.billingPingSeconds * 1000 - 500)) {
        const refusal = await checkBilling(rules, { event: 'ping', avatarId: row.avatarId, sessionId: row.id, visitorId: row.visitorId, clientIp: row.clientIp });
        if (refusal) {
          log.warn({ sessionId: row.id, avatarId: row.avatarId, code: refusal }, 'billing-auth refused a live session');
          await endSession(row.id, refusal, at);
          return { echo: row.echo, end: refusal };
        }
        await repo.update(row.id, { billingCheckedAt: at });
      }
      let echo = row.echo;
      if (!echo && (await isOverDailyLimit(row.avatarId, rules, { visitorId: row.visitorId, ip: row.clientIp }, at))) {
        echo = true;
        await repo.update(row.id, { echo: true });
      }
      return { echo, end: null };
    },

    async 'session.history'(workerId, params: { sessionId: string; history: TLiveSessionConfig['history'] }) {
      await openSessionFor(workerId, params.sessionId);
      await repo.setHistory(params.sessionId, params.history.slice(-LiveLimits.historyMaxTurns * 2));
      return {};
    },

    async 'session.end'(workerId, params: { sessionId: string; code: TLiveCode; summary: string | null; turns?: TLiveVoiceTurnMetrics[] }) {
      const row = await repo.find(params.sessionId);
      if (!row || row.workerId !== workerId) return {};
      await endSession(row.id, params.code);
      // Spoken turns' latency figures: in the portal's log with the session's end.
      if (params.turns?.length) log.info({ sessionId: row.id, avatarId: row.avatarId, ownerUserId: row.ownerUserId, voiceTurns: voiceTurnSummary(params.turns) }, 'live session voice turns');
      const summary = params.summary?.trim();
      if (summary && row.visitorId) {
        // Kept only while the avatar still wants a memory (its owner may have turned it off since).
        const avatar = await repo.findAvatar(row.avatarId);
        if (avatar && readAvatarConfig(deps.openSecrets(avatar.config)).session.summaryEnabled) {
          await repo.saveMemory(row.avatarId, row.visitorId, summary.slice(0, 2000), now());
        }
      }
      return {};
    },

    async 'agent.offer'(workerId, params: { sessionId: string }) {
      // Only for an open session of this worker; the agents feature picks an agent of its avatar.
      const row = await openSessionFor(workerId, params.sessionId);
      const offered = deps.offerToAgent ? await deps.offerToAgent({ sessionId: row.id, avatarId: row.avatarId, workerId }) : false;
      return { offered };
    },

    async 'knowledge.search'(workerId, params: { sessionId: string; query: string; k: number }) {
      const row = await openSessionFor(workerId, params.sessionId);
      const avatar = await repo.findAvatar(row.avatarId);
      if (!avatar) return { passages: [] };
      const collections = readAvatarConfig(avatar.config).collectionIds;
      if (collections.length === 0) return { passages: [] };
      return { passages: await deps.searchKnowledge(avatar.userId, collections, params.query, params.k) };
    },
  };

  return {
    /** GET /api/live/avatars/:id — public facts, no secrets. */
    async pageConfig(avatarId: number): Promise<TLivePageConfig> {
      const avatar = await loadAvatar(avatarId);
      const { access: rules, page } = readAvatarConfig(avatar.config);
      const app = rules.oauthAppId ? await deps.oauthApp(rules.oauthAppId, avatar.id) : null;
      return {
        status: 'OK',
        avatar: {
          id: avatar.id,
          name: avatar.name,
          photoUrl: ownPath(avatar.photoUrl ?? page.photoUrl),
          dhType: avatar.dhType,
          avatarConfigUrl: ownPath(page.avatarConfigUrl),
          tokenRequired: rules.encKeyId !== null,
          oauth: app ? { appId: app.id, startUrl: app.startUrl, provider: app.name } : null,
          engineName: NlpEngineName[avatar.nlpEngine as TNlpEngine] ?? 'Unknown',
        },
      };
    },

    /** The avatar's allowed origins for the page's frame-ancestors (empty: any); null when it does not exist. */
    async frameAncestors(avatarId: number): Promise<string[] | null> {
      const avatar = await repo.findAvatar(avatarId);
      return avatar ? readAvatarConfig(avatar.config).access.allowedOrigins : null;
    },

    /** POST /api/live/sessions — admission, in the order of ADR 013. */
    async start(input: TLiveStartRequest, req: { ip: string; origin?: string; referer?: string; portalOrigin: string }): Promise<TLiveStartAnswer> {
      const avatar = await loadAvatar(input.avatarId);
      const config = readAvatarConfig(deps.openSecrets(avatar.config));
      const rules = config.access;
      checkOrigin(rules, input.hostOrigin, req, req.portalOrigin);
      if (rules.encKeyId !== null) {
        if (!input.token) throw refuse(LiveCode.tokenRequired);
        const verdict = await deps.verifyToken(avatar.userId, rules.encKeyId, avatar.id, input.token);
        if (!verdict.ok) throw refuse(verdict.reason === 'expired' ? LiveCode.tokenExpired : LiveCode.tokenInvalid);
      }
      let oauthSubject: string | null = null;
      if (rules.oauthAppId !== null) {
        if (!input.oauthGrant) throw refuse(LiveCode.oauthRequired);
        const grant = await deps.consumeOAuthGrant(rules.oauthAppId, input.oauthGrant);
        if (!grant) throw refuse(LiveCode.oauthFailed);
        oauthSubject = grant.subject;
      }
      if ((await repo.openCountByIp(req.ip)) >= LiveLimits.maxSessionsPerIp) throw refuse(LiveCode.ipConcurrency);
      const sessionId = randomUUID();
      const refusal = await checkBilling(rules, { event: 'start', avatarId: avatar.id, sessionId, visitorId: input.visitorId ?? null, clientIp: req.ip });
      if (refusal) throw refuse(refusal);
      const at = now();
      const echo = await isOverDailyLimit(avatar.id, rules, { visitorId: input.visitorId ?? null, ip: req.ip }, at);
      const worker = await pickWorker();
      const { ticket, claims } = issueTicket(sessionId, worker.id, avatar.id);
      const resumeToken = randomToken();
      const row = await repo.insert({
        id: sessionId,
        avatarId: avatar.id,
        ownerUserId: avatar.userId,
        avatarName: avatar.name,
        workerId: worker.id,
        visitorId: input.visitorId ?? null,
        clientIp: req.ip,
        origin: input.hostOrigin ? originOf(input.hostOrigin) : null,
        client: input.client ?? {},
        textOnly: input.textOnly === true,
        echo,
        resumeHash: hashToken(resumeToken),
        ticketJti: claims.jti,
        oauthSubject,
        startedAt: at,
        lastHeartbeatAt: at,
        billingCheckedAt: rules.billingAuthUrl ? at : null,
      });
      await deps.presence.upsert(presenceEntry(row, avatar.dhType), presenceTtl());
      log.info({ sessionId, avatarId: avatar.id, workerId: worker.id, echo }, 'live session admitted');
      return {
        status: 'OK',
        sessionId,
        ticket,
        wsUrl: worker.webSocket,
        resumeToken,
        ui: {
          wakeUpMessage: config.session.wakeUpMessage,
          demoSeconds: rules.demoSeconds,
          idleTimeoutSeconds: rules.idleTimeoutSeconds,
          subtitles: true,
          transcriptionStreaming: config.session.transcriptionStreaming,
          canHandleSttResponse: hasPermission(config.session.permissions, Permission.canHandleSttResponse),
        },
      };
    },

    /** POST /api/live/sessions/resume — the page lost its worker: a ticket for another one. */
    async resume(input: TLiveResumeRequest): Promise<TLiveStartAnswer> {
      const row = await repo.find(input.sessionId);
      if (!row || row.endedAt || !safeEqual(hashToken(input.resumeToken), row.resumeHash)) throw refuse(LiveCode.sessionNotFound);
      const worker = await pickWorker();
      const { ticket, claims } = issueTicket(row.id, worker.id, row.avatarId);
      const moved = await repo.reassign(row.id, { workerId: worker.id, ticketJti: claims.jti, now: now() });
      if (!moved) throw refuse(LiveCode.sessionNotFound);
      log.info({ sessionId: row.id, avatarId: row.avatarId, from: row.workerId, to: worker.id }, 'live session resumed on a worker');
      return { status: 'OK', sessionId: row.id, ticket, wsUrl: worker.webSocket, resumeToken: input.resumeToken };
    },

    /** POST /api/live/sessions/end — the visitor hung up. */
    async end(input: TLiveResumeRequest): Promise<void> {
      const row = await repo.find(input.sessionId);
      if (!row || !safeEqual(hashToken(input.resumeToken), row.resumeHash)) throw refuse(LiveCode.sessionNotFound);
      await endSession(row.id, LiveCode.hangUp);
    },

    /** One RPC call from a worker: params checked against the contract, refusals as LiveCodes. */
    async handleRpc(workerId: number, method: TLiveRpcMethod, params: unknown): Promise<{ ok: true; result: unknown } | { ok: false; error: string }> {
      const parsed = LiveRpc[method].params.safeParse(params);
      if (!parsed.success) return { ok: false, error: LiveCode.badFrame };
      try {
        return { ok: true, result: await rpc[method](workerId, parsed.data as never) };
      } catch (err) {
        if (err instanceof RpcRefusal) return { ok: false, error: err.code };
        log.error({ err, method, workerId }, 'live rpc failed');
        return { ok: false, error: LiveCode.serverError };
      }
    },

    /**
     * Closes silent sessions (no heartbeat for the stale time), billed up to their last heartbeat
     * (once: the end is a conditional update). A silent session whose worker still reports was
     * left by its page (its connection lost, no resume): it ends as a hang-up, in the info log.
     * Only those whose worker stopped reporting too are the warning (and end worker-lost). A page
     * that closes its socket itself (a closed tab) is ended by the worker at once.
     */
    async sweep(): Promise<number> {
      const staleMs = (deps.staleSessionSeconds ?? LiveLimits.staleSessionSeconds) * 1000;
      const cutoff = new Date(now().getTime() - staleMs);
      let closed = 0;
      let left = 0;
      try {
        const stale = await repo.stale(cutoff);
        if (sweepFailed) {
          sweepFailed = false;
          readableSince = now().getTime();
        }
        // Heartbeats could not be written while the database was down (or this portal was): a
        // session is lost only once its worker has had the whole stale time since to report (ADR 078).
        if (now().getTime() - readableSince < staleMs) return 0;
        const reporting = await repo.workersReporting([...new Set(stale.map((r) => r.workerId))], new Date(now().getTime() - WorkerProtocol.pingTimeoutMs));
        for (const row of stale) {
          if (reporting.has(row.workerId)) {
            if (await endSession(row.id, LiveCode.hangUp, row.lastHeartbeatAt)) left++;
          } else if (await endSession(row.id, LiveCode.workerLost, row.lastHeartbeatAt)) closed++;
        }
      } catch (err) {
        sweepFailed = true;
        throw err;
      }
      if (left) log.info({ closed: left }, 'closed live sessions whose page left without coming back');
      if (closed) log.warn({ closed }, 'closed live sessions whose worker stopped reporting');
      return closed + left;
    },
  };
}

class RpcRefusal extends Error {
  constructor(readonly code: TLiveCode) {
    super(code);
  }
}

export type LiveSessionsService = ReturnType<typeof createLiveSessionsService>;
