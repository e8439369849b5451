import { LiveCode, LiveLimits, LiveRpc, functionUsesNetwork, readAvatarAccess, readAvatarConfig, type TLiveCode, type TLiveRpcMethod, type TLiveProviderErrorCount, type TLiveSessionConfig, type TLiveVoiceTurnMetrics } from '@persona/contract';
import { redactEntry } from '../../lib/redaction.js';
import type { LiveContext } from './context.js';
import type { LiveSessionRow } from './repository.js';
import { toLiveSessionConfig } from './session-config.js';

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

/** The workers' RPC calls: claim, heartbeat, history, end, the agent offer, knowledge search and the knowledge's vocabulary. */
export function createWorkerRpc(ctx: LiveContext) {
  const { deps, repo, log, now, presenceEntry, presenceTtl, isOverDailyLimit, checkBilling, endSession } = ctx;

  async function openSessionFor(workerId: number, sessionId: string): Promise<LiveSessionRow> {
    const row = await repo.find(sessionId);
    if (!row || row.endedAt || row.workerId !== workerId) throw new RpcRefusal(LiveCode.sessionNotFound);
    return row;
  }

  /** The avatar's privacy rules (ADR 097): every text of its conversations passes `redact` before it is stored or sent. */
  async function textRulesOf(avatarId: number) {
    const rules = (await deps.textRules?.(avatarId)) ?? { redact: null, retention: 'forever' as const };
    const redact = rules.redact;
    return { ...rules, text: (s: string) => (redact ? redact(s) : s) };
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
      const rules = readAvatarAccess(deps.openSecrets(avatar.config));
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
      const row = await openSessionFor(workerId, params.sessionId);
      const { redact } = await textRulesOf(row.avatarId);
      const history = params.history.slice(-LiveLimits.historyMaxTurns * 2);
      await repo.setHistory(params.sessionId, redact ? history.map((h) => redactEntry(h, redact)) : history);
      return {};
    },

    async 'session.function_failed'(workerId, params: { sessionId: string; name: string; error: string | null }) {
      const row = await openSessionFor(workerId, params.sessionId);
      // What the function answered may quote the visitor: redacted like the transcript (ADR 097).
      const { text } = await textRulesOf(row.avatarId);
      await deps.onSessionEvent?.functionFailed(row, { name: params.name, error: params.error === null ? null : text(params.error) });
      return {};
    },

    async 'session.end'(workerId, params: { sessionId: string; code: TLiveCode; summary: string | null; turns?: TLiveVoiceTurnMetrics[]; providerErrors?: TLiveProviderErrorCount[] }) {
      const row = await repo.find(params.sessionId);
      if (!row || row.workerId !== workerId) return {};
      const rules = await textRulesOf(row.avatarId);
      // Redacted once, before both places it is kept: the session's summary and the visitor's memory (ADR 097).
      const summary = params.summary?.trim() ? rules.text(params.summary.trim().slice(0, 2000)) : undefined;
      // Spoken turns' latency figures: kept with the session for its transcript (ADR 092), and in the
      // portal's log; the summary for the session.ended webhook (ADR 093). Stored before the end
      // records it, so that an end by this report has them.
      // A report after the retention removed the text (ADR 097) brings none of it back.
      const textKept = row.textRemovedAt === null;
      if (params.turns?.length && textKept) {
        const voiceTurns = params.turns.slice(-LiveLimits.historyMaxTurns * 2);
        const p50 = voiceTurnSummary(voiceTurns).endToEndMs?.p50;
        await repo.update(row.id, { voiceTurns, voiceP50Ms: p50 === undefined ? null : Math.round(p50) });
      }
      if (summary && textKept) await repo.update(row.id, { summary });
      // Provider failures by provider and phase, for analytics (ADR 099): counts, no text.
      if (params.providerErrors?.length) await repo.update(row.id, { providerErrors: params.providerErrors });
      await endSession(row.id, params.code);
      await deps.onSessionEvent?.reported(row.id);
      if (params.turns?.length) log.info({ sessionId: row.id, avatarId: row.avatarId, ownerUserId: row.ownerUserId, voiceTurns: voiceTurnSummary(params.turns) }, 'live session voice turns');
      // "Keep nothing but counts" keeps no memory of the visitor either.
      if (summary && row.visitorId && rules.retention !== 'counts') {
        // Kept only while the avatar still wants a memory (its owner may have turned it off since).
        const avatar = await repo.findAvatar(row.avatarId);
        if (avatar && readAvatarConfig(deps.openSecrets(avatar.config)).session.summaryEnabled) {
          await repo.saveMemory(row.avatarId, row.visitorId, summary, now());
        }
      }
      return {};
    },

    async 'agent.offer'(workerId, params: { sessionId: string }) {
      // Only for an open session of this worker; the agents feature picks an agent of its avatar.
      const row = await openSessionFor(workerId, params.sessionId);
      const offered = deps.offerToAgent ? await deps.offerToAgent({ sessionId: row.id, avatarId: row.avatarId, workerId }) : false;
      if (offered) await repo.update(row.id, { channel: 'agent-api' });
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

    async 'knowledge.vocabulary'(workerId, params: { sessionId: string }) {
      // Only for an open session of this worker; only the avatar owner's collections (the knowledge feature checks again).
      const row = await openSessionFor(workerId, params.sessionId);
      const avatar = await repo.findAvatar(row.avatarId);
      if (!avatar || !deps.knowledgeVocabulary) return { items: [] };
      const collections = readAvatarConfig(avatar.config).collectionIds;
      if (collections.length === 0) return { items: [] };
      return { items: await deps.knowledgeVocabulary(avatar.userId, collections, LiveLimits.vocabularyMaxChars) };
    },
  };

  return {
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

  };
}

class RpcRefusal extends Error {
  constructor(readonly code: TLiveCode) {
    super(code);
  }
}

