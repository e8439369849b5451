import type { TLiveCode, TLiveHistoryEntry } from '@persona/contract';
import { ProviderError } from '../../core/errors.js';

/**
 * What every speech-to-speech or third-party agent connection gives a live session
 * (live/realtime-session.ts), whatever its wire protocol: OpenAI Realtime, Gemini Live,
 * ElevenLabs Conversational AI. Each provider's file keeps its wire format to itself and emits
 * these events; the session never sees a provider's JSON.
 */
export type RealtimeEvent =
  /** The visitor started speaking (the provider's VAD): the avatar must stop. */
  | { type: 'speech-started' }
  /**
   * Speech over utterance `utt` that is not an interruption yet (a connection that listens itself,
   * with the avatar's turn-taking rules): its playback is held; `speech-started` follows if the
   * speech interrupts, `speech-resumed` if it does not.
   */
  | { type: 'speech-paused'; utt: number }
  | { type: 'speech-resumed'; utt: number }
  | { type: 'speech-stopped' }
  /** The visitor's audio became a conversation item (its transcript follows). */
  | { type: 'user-item'; itemId: string }
  /**
   * The visitor's words: a final text, or an interim delta added to those before it — or, with
   * `replace`, a revised interim in place of those before it (a recogniser that changed its mind:
   * the transcript keeps the earlier version as a correction, ADR 102).
   */
  | { type: 'user-transcript'; itemId: string; text: string; final: boolean; replace?: boolean }
  /** A transcription failed: the item keeps no text. */
  | { type: 'user-transcript-failed'; itemId: string }
  | { type: 'response-start'; responseId: string }
  /** Audio of the answer (at the connection's `outputSampleRate`) for the assistant item `itemId`. */
  | { type: 'audio'; responseId: string; itemId: string; pcm: Int16Array }
  /** The answer's words as they are spoken (the audio transcript, or text in text-only mode). */
  | { type: 'text'; responseId: string; itemId: string; delta: string }
  /** The model calls a tool (a linked function or the knowledge search): answer with `toolResult`. */
  | { type: 'tool-call'; callId: string; name: string; /** JSON text of the arguments. */ args: string }
  /** The provider withdrew calls it had made (Gemini's toolCallCancellation): stop them; no result is sent. */
  | { type: 'tool-cancelled'; callIds: string[] }
  | { type: 'response-done'; responseId: string; status: string; error: ProviderError | null }
  /** The provider reported an error; the connection stays. */
  | { type: 'error'; error: ProviderError }
  /** The connection is gone (`error` null: we closed it). */
  | { type: 'closed'; error: ProviderError | null };

/** A tool offered to the model (JSON Schema parameters, as the LLM brain's tools). */
export interface RealtimeTool {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface RealtimeConnection {
  /** PCM16 mono rate the provider takes (`appendAudio`) and gives (`audio` events). */
  readonly inputSampleRate: number;
  readonly outputSampleRate: number;
  appendAudio(pcm: Int16Array): void;
  /** A typed message from the visitor, answered at once. */
  sendUserText(text: string): void;
  /** The model says `text` itself (the greeting, sendMessageToAvatar). */
  say(text: string): void;
  /** Earlier turns (a resume, a reconnect), as conversation items. */
  seedHistory(history: readonly TLiveHistoryEntry[]): void;
  /** The visitor heard `audioEndMs` of the item: the provider forgets the rest. */
  truncate(itemId: string, audioEndMs: number): void;
  /**
   * Stops the answers in progress that this connection has seen start — those only: an answer that
   * the provider has already ended (its own VAD heard the visitor) and the one it began for the
   * visitor's new turn are not touched.
   */
  cancelResponse(): void;
  /** The result of a `tool-call` (JSON or text); the model goes on with its answer. */
  toolResult(callId: string, name: string, output: string): void;
  /**
   * The avatar utterance the visitor hears now (null: none) and its words so far — for a
   * connection that detects barge-in itself (an external agent with the worker's transcripts).
   */
  avatarHeard?(utt: number | null, text: string): void;
  close(): void;
}

/**
 * Opens one connection offering `tools` to the model (none: []); events go to `onEvent` until it
 * closes. Rejects with a ProviderError.
 */
export type RealtimeConnector = (onEvent: (ev: RealtimeEvent) => void, signal: AbortSignal, tools: readonly RealtimeTool[]) => Promise<RealtimeConnection>;

/**
 * A connection refused for a reason the visitor should read as a notice (its LiveCode), not as the
 * generic provider error: e.g. no external agent is connected for the avatar (ADR 072).
 */
export class RealtimeNoticeError extends ProviderError {
  constructor(
    provider: string,
    readonly code: TLiveCode,
    message: string,
  ) {
    super(provider, message);
    this.name = 'RealtimeNoticeError';
  }
}
