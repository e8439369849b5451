import { LiveCode, LiveLimits, type TAvatarAccess, type TLiveCode, type TLivePassage, type TLiveVocabularyItem, type TRetentionMode } from '@persona/contract';
import type { PlatformLlm } from './brain-config.js';
import type { DbTx } from '../../db/client.js';
import type { LiveSessionRow, LiveSessionsRepository } from './repository.js';
import { refuse } from './rules.js';

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
  /** The titles and text of the owner's collections, cut at maxChars (an avatar's speech model, ADR 105); none when absent. */
  knowledgeVocabulary?(ownerUserId: number, collectionIds: number[], maxChars: number): Promise<TLiveVocabularyItem[]>;
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
  /** The public key (PEM) of an owner's encryption key, or null (the encryption-keys feature). */
  publicKeyOf?: (ownerId: number, keyId: number) => Promise<string | null>;
  /** Each admission's outcome, for /metrics: null when admitted, else why not (a LiveCode, or 'error'). */
  onAdmission?: (kind: 'start' | 'resume', refusal: TLiveCode | 'error' | null) => void;
  /**
   * A session's start or end, in the transaction that records it (app.ts: the webhooks feature
   * queues its deliveries there, ADR 093); `reported`: the worker's end report (summary, figures) is stored.
   */
  /**
   * What an avatar's privacy settings (ADR 097) ask of its conversations' text: the redactor every
   * stored or sent text goes through (null: none) and the retention (`counts`: no visitor memory).
   */
  textRules?(avatarId: number): Promise<{ redact: ((text: string) => string) | null; retention: TRetentionMode }>;
  onSessionEvent?: {
    recorded(tx: DbTx, event: 'started' | 'ended', row: LiveSessionRow): Promise<void>;
    reported(sessionId: string): Promise<void>;
    /** A function the session's brain called failed (the worker's report). */
    functionFailed(row: LiveSessionRow, failure: { name: string; error: string | null }): Promise<void>;
  };
}

/**
 * What admission, the workers' RPC and the sweep share: the service's dependencies and clock, and
 * the steps more than one of them takes (an avatar loaded or refused, a presence entry, the daily
 * limits, billing-auth, a session ended).
 */
export function createLiveContext(deps: LiveSessionsDeps) {
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

  async function endSession(id: string, code: TLiveCode, at: Date = now()): Promise<LiveSessionRow | undefined> {
    const hook = deps.onSessionEvent;
    const ended = await repo.end(id, code, at, hook && ((tx, row) => hook.recorded(tx, 'ended', row)));
    await deps.presence.remove(id);
    if (ended) log.info({ sessionId: id, avatarId: ended.avatarId, code, seconds: Math.round((ended.endedAt!.getTime() - ended.startedAt.getTime()) / 1000) }, 'live session ended');
    return ended;
  }

  return { deps, repo, log, now, ownPath, loadAvatar, presenceEntry, presenceTtl, isOverDailyLimit, checkBilling, endSession };
}

export type LiveContext = ReturnType<typeof createLiveContext>;
