import { DefaultRedaction, DefaultRetention, PrivacyLimits, PrivacyMessages, type TAvatarPrivacy, type TRedactStoredRequest, type TRedactStoredResponse, type TRetentionMode } from '@persona/contract';
import { AvatarMessages } from '@persona/contract';
import { AppError } from '../../lib/app-error.js';
import { checkPattern, createRedactor, redactEntry, type Redactor } from '../../lib/redaction.js';
import type { AvatarPrivacyRow, PrivacyRepository } from './repository.js';

/** Batches of the repository's size one sweep removes at most (the next sweep goes on). */
const SWEEP_BATCHES = 20;
/** A delivery retries for 24 h: bodies of sessions whose text went within this are looked at again. */
const WEBHOOK_RETRY_MARGIN_MS = 25 * 3_600_000;
/**
 * How long a session's address outlives its text: the per-address limits (open sessions, seconds
 * a day: live-sessions/repository.ts) look back 24 h; an hour more of margin.
 */
const ADDRESS_KEPT_MS = 25 * 3_600_000;
/** Compiled redactors kept, by their settings (a change of settings makes a new one). */
const REDACTOR_CACHE_MAX = 500;

export interface PrivacyLogger {
  info(obj: object, msg: string): void;
}

/** What the live sessions apply to one avatar's text: its redactor (null: none) and its retention. */
export interface AvatarTextRules {
  redact: Redactor | null;
  retention: TRetentionMode;
}

/**
 * Where "apply to stored conversations" goes on: conversations after a start and id
 * (`s:<ms>:<id>`), then memories after a visitor (`m:<base64url>`, `m:` for the first).
 */
type RedactCursor = { phase: 'sessions'; after: { startedAt: Date; id: string } | null } | { phase: 'memories'; after: string | null };

function readCursor(raw: string | undefined): RedactCursor {
  if (raw === undefined) return { phase: 'sessions', after: null };
  const s = /^s:(\d{1,15}):([0-9a-zA-Z-]{1,64})$/.exec(raw);
  if (s) return { phase: 'sessions', after: { startedAt: new Date(Number(s[1])), id: s[2]! } };
  const m = /^m:([A-Za-z0-9_-]*)$/.exec(raw);
  if (m) return { phase: 'memories', after: m[1] ? Buffer.from(m[1], 'base64url').toString('utf8') : null };
  throw AppError.badRequest(PrivacyMessages.badCursor);
}

/** Every string value of a JSON text through `redact` (a webhook body: its ids and times have none of what is redacted). */
function redactJson(text: string, redact: Redactor): string {
  const walk = (v: unknown): unknown => {
    if (typeof v === 'string') return redact(v);
    if (Array.isArray(v)) return v.map(walk);
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x)]));
    return v;
  };
  try {
    const parsed: unknown = JSON.parse(text);
    const out = JSON.stringify(walk(parsed));
    return out === JSON.stringify(parsed) ? text : out;
  } catch {
    return redact(text);
  }
}

function view(avatarId: number, row: AvatarPrivacyRow | undefined): TAvatarPrivacy {
  if (!row) return { avatarId, redaction: DefaultRedaction, retention: DefaultRetention };
  return { avatarId, redaction: { ...DefaultRedaction, ...row.redaction }, retention: { mode: row.retentionMode, days: row.retentionMode === 'days' ? row.retentionDays : null } };
}

/** Per-avatar redaction and retention (ADR 097). */
export function createPrivacyService(deps: {
  repo: PrivacyRepository;
  log: PrivacyLogger;
  /** The visitor's pseudonym (conversations/pseudonym.ts), which replaces a forgotten address. */
  pseudonymOf: (row: { ownerUserId: number; visitorId: string | null; clientIp: string }) => string;
  now?: () => Date;
}) {
  const { repo } = deps;
  const now = deps.now ?? (() => new Date());
  const redactors = new Map<string, Redactor | null>();

  function redactorOf(settings: TAvatarPrivacy['redaction']): Redactor | null {
    const key = JSON.stringify(settings);
    if (redactors.has(key)) return redactors.get(key)!;
    const made = createRedactor(settings);
    if (redactors.size >= REDACTOR_CACHE_MAX) redactors.delete(redactors.keys().next().value!);
    redactors.set(key, made);
    return made;
  }

  async function owned(userId: number, avatarId: number): Promise<void> {
    if (!(await repo.avatarOwned(userId, avatarId))) throw AppError.notFound(AvatarMessages.notFound);
  }

  return {
    async get(userId: number, avatarId: number): Promise<TAvatarPrivacy> {
      await owned(userId, avatarId);
      return view(avatarId, await repo.find(avatarId));
    },

    async set(userId: number, input: TAvatarPrivacy): Promise<TAvatarPrivacy> {
      await owned(userId, input.avatarId);
      // Each pattern is compiled as it will run: one the linear-time engine refuses is refused here.
      const problems = input.redaction.patterns.flatMap((p, i) => {
        const why = checkPattern(p);
        return why ? [PrivacyMessages.badPattern(i + 1, why)] : [];
      });
      if (problems.length) throw AppError.badRequest(problems);
      const row = await repo.save({
        avatarId: input.avatarId,
        redaction: input.redaction,
        retentionMode: input.retention.mode,
        retentionDays: input.retention.mode === 'days' ? input.retention.days : null,
        updatedAt: now(),
      });
      return view(input.avatarId, row);
    },

    /**
     * "Apply to stored conversations": the avatar's saved redaction over what was stored before it
     * (or before its last change) — each conversation's history with its details and its summary
     * (the search index follows by its trigger), the stored webhook bodies of those conversations,
     * then the avatar's memories of visitors. A page a call, so that no request holds the database
     * for long; the caller goes on with `nextCursor` until it is null. Redacting is idempotent:
     * a placeholder does not match again, so a page looked at twice changes nothing.
     */
    async redactStored(userId: number, req: TRedactStoredRequest): Promise<Omit<TRedactStoredResponse, 'status'>> {
      await owned(userId, req.avatarId);
      const cursor = readCursor(req.after);
      const redact = redactorOf(view(req.avatarId, await repo.find(req.avatarId)).redaction);
      if (!redact) throw AppError.conflict(PrivacyMessages.redactStoredOff);
      const limit = PrivacyLimits.redactStoredPage;
      if (cursor.phase === 'sessions') {
        const rows = await repo.storedSessions(req.avatarId, cursor.after, limit);
        const changed = rows.flatMap((r) => {
          const history = r.history.map((h) => redactEntry(h, redact));
          const summary = r.summary === null ? null : redact(r.summary);
          return JSON.stringify(history) !== JSON.stringify(r.history) || summary !== r.summary ? [{ id: r.id, history, summary }] : [];
        });
        await repo.rewriteSessions(changed, rows.map((r) => r.id), (body) => redactJson(body, redact));
        const last = rows.at(-1);
        return { phase: 'conversations', looked: rows.length, changed: changed.length, nextCursor: rows.length < limit || !last ? 'm:' : `s:${last.startedAt.getTime()}:${last.id}` };
      }
      const rows = await repo.storedMemories(req.avatarId, cursor.after, limit);
      const changed = rows.flatMap((r) => {
        const summary = redact(r.summary);
        return summary !== r.summary ? [{ visitorId: r.visitorId, summary }] : [];
      });
      await repo.rewriteMemories(req.avatarId, changed);
      const last = rows.at(-1);
      return { phase: 'memories', looked: rows.length, changed: changed.length, nextCursor: rows.length < limit || !last ? null : `m:${Buffer.from(last.visitorId, 'utf8').toString('base64url')}` };
    },

    /** The live sessions' question before they store an avatar's text (one read by primary key). */
    async textRules(avatarId: number): Promise<AvatarTextRules> {
      const v = view(avatarId, await repo.find(avatarId));
      return { redact: redactorOf(v.redaction), retention: v.retention.mode };
    },

    /**
     * The retention sweep: the text of every session past its avatar's retention is removed
     * (`days` after the start; `counts` once ended for PrivacyLimits.countsOnlyGraceMs, so that the
     * end's webhooks are made first), a batch at a time until none is left (at most
     * SWEEP_BATCHES a run, a turn of the event loop between them), with the avatars' memories of visitors as old. Returns the sessions whose text went.
     */
    async sweep(): Promise<number> {
      const at = now();
      let removed = 0;
      for (let i = 0; i < SWEEP_BATCHES; i++) {
        const n = await repo.removeText(at, new Date(at.getTime() - PrivacyLimits.countsOnlyGraceMs));
        removed += n;
        if (n < repo.batchSize) break;
        // Requests go first between batches (with PGlite a query runs on this very thread).
        await new Promise((resolve) => setImmediate(resolve));
      }
      // Addresses go with the text, once the per-address limits no longer count the session.
      let addresses = 0;
      for (let i = 0; i < SWEEP_BATCHES; i++) {
        const n = await repo.forgetAddresses(new Date(at.getTime() - ADDRESS_KEPT_MS), deps.pseudonymOf);
        addresses += n;
        if (n < repo.batchSize) break;
        await new Promise((resolve) => setImmediate(resolve));
      }
      const bodies = await repo.dropFinishedDeliveryBodies(new Date(at.getTime() - WEBHOOK_RETRY_MARGIN_MS));
      const memories = await repo.dropMemories(at);
      if (removed || bodies || memories || addresses) deps.log.info({ sessions: removed, webhookBodies: bodies, memories, addresses }, 'retention removed conversation text');
      return removed;
    },
  };
}

export type PrivacyService = ReturnType<typeof createPrivacyService>;
