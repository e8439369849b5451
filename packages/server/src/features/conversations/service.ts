import {
  ConversationLimits,
  ConversationMessages,
  PrivacyMessages,
  conversationCursor,
  type TExportConversationsQuery,
  outcomeOf,
  type TConversationChannel,
  type TConversationDetail,
  type TConversationListItem,
  type TConversationSummary,
  type TConversationTurn,
  type TListConversationsQuery,
  type TLiveHistoryEntry,
  type TLiveVoiceTurnMetrics,
} from '@persona/contract';
import { AppError } from '../../lib/app-error.js';
import { isForgottenAddress, visitorPseudonym } from './pseudonym.js';
import { snippetParts, type ConversationListRow, type ConversationScope, type ConversationsRepository } from './repository.js';

/** A spoken turn's figures belong to the visitor's line written within this of its commit. */
const VOICE_MATCH_MS = 5_000;

export function createConversationsService(deps: { repo: ConversationsRepository; pseudonymKey: Buffer; showIp?: boolean }) {
  const { repo } = deps;

  const pseudonym = (row: Pick<ConversationListRow, 'ownerUserId' | 'visitorId' | 'clientIp'>) => visitorPseudonym(deps.pseudonymKey, row);

  function summary(row: ConversationListRow): TConversationSummary {
    // Rows admitted before the channel was stored (migration 0013) are told by what they kept.
    const channel: TConversationChannel = row.channel ?? (row.textOnly ? 'chat-widget' : row.origin ? 'embed' : 'avatar-page');
    return {
      id: row.id,
      avatarId: row.avatarId,
      avatarName: row.avatarName,
      ownerUserId: row.ownerUserId,
      startedAt: row.startedAt.toISOString(),
      endedAt: row.endedAt?.toISOString() ?? null,
      durationSeconds: row.endedAt ? Math.max(0, Math.round((row.endedAt.getTime() - row.startedAt.getTime()) / 1000)) : null,
      channel,
      hostOrigin: row.origin,
      locale: row.client.locale ?? null,
      visitor: pseudonym(row),
      // The raw address only where the operator turned it on (CONVERSATIONS_SHOW_IP).
      // An address retention forgot is not shown (it is the pseudonym).
      ...(deps.showIp && !isForgottenAddress(row.clientIp) ? { clientIp: row.clientIp } : {}),
      turns: row.turns,
      outcome: outcomeOf(row.endCode),
      endCode: row.endCode,
      voiceP50Ms: row.voiceP50Ms,
    };
  }

  return {
    async list(scope: ConversationScope, q: TListConversationsQuery): Promise<{ conversations: TConversationListItem[]; nextCursor: string | null }> {
      // One row more than asked tells whether another page follows.
      const rows = await repo.list(scope, { ...q, limit: q.limit + 1 });
      const page: TConversationListItem[] = rows.slice(0, q.limit).map(summary);
      const last = page[page.length - 1];
      if (q.q && page.length > 0) {
        // The snippets of the page's rows only (ADR 098).
        const found = await repo.matches(
          page.map((c) => c.id),
          q.q,
        );
        for (const c of page) {
          const m = found.get(c.id);
          c.match = m ? { turn: m.turn, role: m.role === 'user' ? 'visitor' : 'avatar', snippet: snippetParts(m.marked) } : null;
        }
      }
      return { conversations: page, nextCursor: rows.length > q.limit && last ? conversationCursor(last) : null };
    },

    async get(scope: ConversationScope, id: string, callerId: number, q?: string): Promise<TConversationDetail> {
      const row = await repo.find(scope, id);
      if (!row) throw AppError.notFound(ConversationMessages.notFound);
      const detail: TConversationDetail = {
        ...summary(row),
        turnList: transcript(row.history, row.voiceTurns),
        canDelete: row.ownerUserId === callerId && row.endedAt !== null,
        textRemoved: row.textRemovedAt !== null,
        summary: row.endedAt ? row.summary : null,
        pageFigures: row.pageFiguresAt ? { firstFrameMs: row.firstFrameMs, avOffsetMs: row.avOffsetMs, droppedFrames: row.droppedFrames } : null,
      };
      // The row was read within the caller's scope: its turns that hold the searched words (ADR 098).
      if (q && !detail.textRemoved) detail.matches = (await repo.turnMatches(row.id, q)).map((m) => ({ turn: m.turn, parts: snippetParts(m.marked) }));
      return detail;
    },

    /**
     * The export (ADR 094): conversations with their transcripts, newest first, read a keyset page
     * at a time — never the whole set in memory — at most `q.limit` of them. `onNext` gets the
     * cursor of the rest when more follow.
     */
    async *exportRows(scope: ConversationScope, q: TExportConversationsQuery, onNext?: (cursor: string) => void): AsyncGenerator<TConversationExport> {
      let cursor = q.cursor;
      let left = q.id ? 1 : q.limit;
      while (left > 0) {
        const size = Math.min(ConversationLimits.exportPage, left);
        // One row more than asked tells whether another page follows.
        const rows = await repo.exportPage(scope, { ...q, cursor, limit: size + 1 });
        for (const row of rows.slice(0, size)) yield { ...summary(row), turnList: transcript(row.history, row.voiceTurns) };
        const last = rows[Math.min(rows.length, size) - 1];
        if (rows.length <= size || !last) return;
        left -= size;
        cursor = { startedAt: last.startedAt, id: last.id };
        if (left === 0) onNext?.(conversationCursor({ startedAt: last.startedAt.toISOString(), id: last.id }));
      }
    },

    /** Many at once (ADR 094): every one of them, or none when one is still open or not the caller's. */
    async deleteMany(ownerUserId: number, ids: string[]): Promise<void> {
      const result = await repo.deleteMany({ ownerUserId }, ids);
      if (result === 'missing') throw AppError.notFound(ConversationMessages.someNotFound);
      if (result === 'open') throw AppError.conflict(ConversationMessages.someStillOpen);
    },

    /**
     * Per-visitor erasure (ADR 097): every ended conversation of the account with the visitor of
     * this pseudonym, the account's avatars' memories of them, and the bodies of their webhook
     * deliveries. The pseudonym cannot be turned back, so the account's visitors are named afresh
     * and compared; a conversation still going on is left (counted in `open`) — erase again once it ended.
     */
    async eraseVisitor(ownerUserId: number, visitor: string): Promise<{ sessions: number; memories: number; open: number }> {
      const visitorIds: string[] = [];
      const ips: string[] = [];
      for (const v of await repo.visitorsOf(ownerUserId)) {
        if (pseudonym({ ownerUserId, visitorId: v.visitorId, clientIp: v.clientIp ?? '' }) !== visitor) continue;
        if (v.visitorId) visitorIds.push(v.visitorId);
        else if (v.clientIp) ips.push(v.clientIp);
      }
      if (visitorIds.length === 0 && ips.length === 0) throw AppError.notFound(PrivacyMessages.visitorNotFound);
      return repo.eraseVisitor(ownerUserId, { visitorIds, ips });
    },

    /** Only the avatar's owner deletes (administrators too: only their own account's). */
    async delete(ownerUserId: number, id: string): Promise<void> {
      const result = await repo.delete({ ownerUserId }, id);
      if (result === 'missing') throw AppError.notFound(ConversationMessages.notFound);
      if (result === 'open') throw AppError.conflict(ConversationMessages.stillOpen);
    },
  };
}

/** The stored history as turns, each spoken visitor turn with the latencies measured for it. */
export function transcript(history: TLiveHistoryEntry[], voiceTurns: TLiveVoiceTurnMetrics[]): TConversationTurn[] {
  const unmatched = [...voiceTurns];
  return history.map((entry) => {
    let latency: TConversationTurn['latency'] = null;
    if (entry.role === 'user') {
      let best = -1;
      for (let i = 0; i < unmatched.length; i++) {
        const gap = Math.abs(entry.at - unmatched[i]!.at);
        if (gap <= VOICE_MATCH_MS && (best < 0 || gap < Math.abs(entry.at - unmatched[best]!.at))) best = i;
      }
      if (best >= 0) {
        const [m] = unmatched.splice(best, 1);
        latency = { endOfUtteranceMs: m!.endOfUtteranceMs, sttMs: m!.sttMs, llmFirstTokenMs: m!.llmFirstTokenMs, ttsFirstByteMs: m!.ttsFirstByteMs, endToEndMs: m!.endToEndMs };
      }
    }
    const turn: TConversationTurn = { role: entry.role === 'user' ? 'visitor' : 'avatar', text: entry.text, at: new Date(entry.at).toISOString(), interrupted: entry.interrupted === true, latency };
    // The turn's detail as stored (already redacted, ADR 102); rows written before it have none.
    if (entry.detail) turn.detail = entry.detail;
    return turn;
  });
}

/** One exported conversation: its facts and its turns. */
export type TConversationExport = TConversationSummary & { turnList: TConversationTurn[] };

export type ConversationsService = ReturnType<typeof createConversationsService>;
