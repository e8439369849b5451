import type { TLiveCode, TLiveHistoryEntry, TLiveProviderErrorCount, TLiveSessionConfig, TLiveVoiceTurnMetrics } from '@persona/contract';
import type { BrainLogger } from '../core/types.js';
import type { Brain } from '../brains/types.js';
import type { Clock, ConversationListening } from '../listening/turns.js';
import type { SpeechPipeline } from '../speech/pipeline.js';
import type { RealtimeSessionFactory } from './realtime-session.js';
import type { ConversationMetrics } from './metrics.js';

/** What a Conversation (conversation.ts) is given: the page's socket, the portal, its stages. */

/** The page's socket as a session sees it (the transport seam: ws today, WebRTC data later). */
export interface PageSocket {
  send(data: string): void;
  /** Audio frames (LiveProtocol's 8-byte header + PCM16LE). */
  sendBinary?(data: Uint8Array): void;
  close(code: number, reason?: string): void;
  readonly isOpen: boolean;
}

/** What a conversation reports to the portal (worker RPC), injected so it runs alone in tests. */
export interface PortalLink {
  heartbeat(lastUserActivityAt: number | null): Promise<{ echo: boolean; end: TLiveCode | null }>;
  history(history: TLiveHistoryEntry[]): Promise<void>;
  end(code: TLiveCode, summary: string | null, turns?: TLiveVoiceTurnMetrics[], providerErrors?: TLiveProviderErrorCount[]): Promise<void>;
  /** A function the brain called failed (the portal's `function.failed` webhook, ADR 093). */
  functionFailed?(name: string, error: string | null): Promise<void>;
}

export interface ConversationOptions {
  config: TLiveSessionConfig;
  /** The avatar's brain; null answers in echo-back (EchoTest, over the daily limit). */
  brain: Brain | null;
  /** The avatar's voice; null for text only (the chat widget, TTS None). */
  speech?: SpeechPipeline | null;
  /** The page's speaker at hello (off: nothing is synthesised until it is turned on). */
  speakerOn?: boolean;
  listening?: ConversationListening | null;
  /** The page's mic at hello. */
  micOn?: boolean;
  /** SpeechToSpeech: a realtime model hears and answers instead of listener → brain → voice. */
  realtime?: RealtimeSessionFactory | null;
  portal: PortalLink;
  log: BrainLogger;
  heartbeatMs?: number;
  now?: () => number;
  /** The fillers' timer (ADR 100); default: the listening clock, else real time. */
  clock?: Clock;
  /** The worker's metrics (turns, per-stage latencies, provider errors): live/metrics.ts. */
  metrics?: ConversationMetrics;
  /** Called once the conversation is over (ended or its socket dropped). */
  onClosed?: () => void;
}
