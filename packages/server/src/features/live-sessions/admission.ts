import { randomUUID } from 'node:crypto';
import { hasPermission, LiveCode, LiveLimits, NlpEngineName, originOf, Permission, readAvatarAccess, readAvatarConfig, WorkerProtocol, type TAvatarAccess, type TLivePageConfig, type TLiveResumeRequest, type TLiveStartAnswer, type TLiveStartRequest, type TNlpEngine } from '@persona/contract';
import { signTicket } from '@persona/worker';
import { hashToken, randomToken, safeEqual } from '../../lib/tokens.js';
import type { LiveContext } from './context.js';
import { refuse } from './rules.js';
import { cataloguePicture } from './catalogue-picture.js';

/**
 * Admission on the portal, in the order of ADR 013: avatar, origin, token, OAuth grant, IP
 * concurrency, billing-auth, daily limits, worker choice; the page's config, resume and hang-up.
 */
export function createAdmission(ctx: LiveContext) {
  const { deps, repo, log, now, ownPath, loadAvatar, presenceEntry, presenceTtl, isOverDailyLimit, checkBilling, endSession } = ctx;

  async function pickWorker(): Promise<{ id: number; webSocket: string }> {
    const [best] = await repo.availableWorkers(new Date(now().getTime() - WorkerProtocol.pingTimeoutMs));
    if (!best || !best.webSocket) throw refuse(LiveCode.noWorker);
    return best;
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
          // No photo of its own: the catalogue look's picture (the page's connect screen and poster).
          photoUrl: ownPath(avatar.photoUrl ?? page.photoUrl) ?? cataloguePicture(page.avatarJson),
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
      return avatar ? readAvatarAccess(avatar.config).allowedOrigins : null;
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
        // Where the visitor talks (ADR 092); an own agent taking it later makes it `agent-api` (worker-rpc).
        channel: input.textOnly === true ? 'chat-widget' : input.hostOrigin ? 'embed' : 'avatar-page',
        echo,
        resumeHash: hashToken(resumeToken),
        ticketJti: claims.jti,
        oauthSubject,
        startedAt: at,
        lastHeartbeatAt: at,
        billingCheckedAt: rules.billingAuthUrl ? at : null,
      }, deps.onSessionEvent && ((tx, inserted) => deps.onSessionEvent!.recorded(tx, 'started', inserted)));
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

    /** Who may speak for an avatar as its own agent (features/agents): its owner, the public key its tokens are checked with, its engine. */
    async agentAuth(avatarId: number): Promise<{ ownerUserId: number; publicKey: string | null; nlpEngine: number } | null> {
      const avatar = await deps.repo.findAvatar(avatarId);
      if (!avatar) return null;
      const { encKeyId } = readAvatarAccess(avatar.config);
      const publicKey = encKeyId !== null && deps.publicKeyOf ? await deps.publicKeyOf(avatar.userId, encKeyId) : null;
      return { ownerUserId: avatar.userId, publicKey, nlpEngine: avatar.nlpEngine };
    },
  };
}
