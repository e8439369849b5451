import { LiveCode, LiveMessages, LiveProviderErrorLimits, type TLiveProviderErrorCount, type TLiveTurnError, type TWorkerFrame } from '@persona/contract';
import { ProviderError } from '../core/errors.js';
import { turnError } from './turn-detail.js';
import type { BrainLogger } from '../core/types.js';
import type { SpeechTurnMetrics } from '../speech/pipeline.js';
import type { ConversationMetrics } from './metrics.js';

/**
 * A notice about the recogniser is not repeated within this time: a visitor who keeps talking to
 * a recogniser that is down is told again now and then, not after every sentence.
 */
export const LISTENING_NOTICE_GAP_MS = 5_000;

export interface ProviderFaultsOptions {
  metrics?: ConversationMetrics;
  log: BrainLogger;
  /** The avatar and session the owner's log line names. */
  context: () => { avatarId: number; sessionId: string };
  send: (frame: TWorkerFrame) => void;
  /** A new utterance id for a line the avatar writes (conversation's `utt`). */
  nextUtt: () => number;
  now: () => number;
  /** Each failure as the transcript shows it with its turn (ADR 102). */
  onError?: (e: TLiveTurnError) => void;
}

/**
 * What a conversation does when one of the avatar's providers fails: each failure is
 * counted once in `provider_errors_total{provider,phase}` and logged for the owner, and the
 * visitor is told in a few words while the session goes on. The model's failure is the turn's
 * own apology (conversation.ts, spoken when the voice works); the voice's and the recogniser's
 * are told here, once per run of failures rather than on every piece or sentence.
 */
export class ProviderFaults {
  private voiceDown = false;
  private listeningToldAt = -Infinity;

  /** Failures by provider and phase, sent with the session's end (ADR 099: analytics). */
  private readonly counted = new Map<string, TLiveProviderErrorCount>();

  constructor(private readonly o: ProviderFaultsOptions) {}

  /** The session's failures so far, the most frequent first (at most LiveProviderErrorLimits.entries). */
  counts(): TLiveProviderErrorCount[] {
    return [...this.counted.values()].sort((a, b) => b.count - a.count).slice(0, LiveProviderErrorLimits.entries);
  }

  /** Counts and logs one failure; `fallback` names the provider when the error does not. */
  report(err: unknown, phase: string, fallback: string) {
    const provider = err instanceof ProviderError ? err.provider : fallback;
    this.o.metrics?.providerError(provider, phase);
    const key = `${provider}\n${phase}`;
    const seen = this.counted.get(key);
    if (seen) seen.count = Math.min(LiveProviderErrorLimits.countMax, seen.count + 1);
    else this.counted.set(key, { provider: provider.slice(0, 64) || 'unknown', phase: phase.slice(0, 32) || 'unknown', count: 1 });
    this.o.onError?.(turnError(err, phase, provider));
    this.o.log.warn('the avatar\u2019s provider failed', {
      ...this.o.context(),
      provider,
      status: err instanceof ProviderError ? (err.status ?? null) : null,
      phase,
      error: err instanceof Error ? err.message : String(err),
    });
  }

  /**
   * An utterance's voice ended (`speech.done`): after a failure the visitor reads, once, that the
   * voice dropped out and the answer goes on in the chat; an utterance heard in full ends the run.
   */
  voiceEnded(m: SpeechTurnMetrics) {
    if (m.error === null) {
      if (m.audioMs > 0 && !m.interrupted) this.voiceDown = false;
      return;
    }
    if (this.voiceDown) return;
    this.voiceDown = true;
    this.o.send({ type: 'assistant', utt: this.o.nextUtt(), text: LiveMessages['voice-error'], final: true });
    this.o.send({ type: 'error', code: LiveCode.voiceError, message: LiveMessages['voice-error'], fatal: false });
  }

  /** The recogniser failed (counted), and the visitor is asked to say it again or type it. */
  listeningFailed(err: unknown, provider: string) {
    this.report(err, 'listening', provider);
    this.tellListening();
  }

  /** The visitor spoke while the recogniser was still down (not counted again). */
  unheard() {
    this.tellListening();
  }

  /** A spoken turn came through: the next failure is told at once. */
  listeningWorked() {
    this.listeningToldAt = -Infinity;
  }

  private tellListening() {
    const now = this.o.now();
    if (now - this.listeningToldAt < LISTENING_NOTICE_GAP_MS) return;
    this.listeningToldAt = now;
    this.o.send({ type: 'error', code: LiveCode.listeningError, message: LiveMessages['listening-error'], fatal: false });
  }
}
