import type { VisemeItem, WordItem } from '../../core/visemes.js';

/**
 * One text-to-speech engine as the voice pipeline sees it (providers/tts/*.ts, the offline voice).
 * A client keeps its provider's wire format to itself: it yields PCM and, where the provider
 * gives them, visemes (already in the Oculus set) and word times.
 */
export interface TtsChunk {
  /** Mono 16-bit samples. */
  pcm: Int16Array;
  /** Rate of these samples (the pipeline resamples when it differs from the session's). */
  sampleRate: number;
  /**
   * Timings found with (or before) this audio, in ms from the first sample of this synthesis
   * (not of the chunk). They may arrive before, with or after the audio they describe.
   */
  marks?: { visemes?: VisemeItem[]; words?: WordItem[] };
}

export interface TtsSynthesizeOptions {
  /** Aborted on interruption: stop the request at once. */
  signal: AbortSignal;
  /** The text spoken just before (providers that use it for continuity). */
  previousText?: string;
  /**
   * A speaking rate on top of the configured speed, as a multiplier (absent: 1): the answer's
   * `<trl-config speechSpeed>` (ADR 088). Each client keeps the product within its provider's range.
   */
  rate?: number;
}

export interface TtsEngine {
  /** 'polly', 'azure', 'elevenlabs', 'cartesia', 'neuphonic', 'openai-compatible', 'offline'. */
  readonly provider: string;
  /** The rate this engine produces (the session's audio rate is chosen from it). */
  readonly sampleRate: number;
  /**
   * What its marks give: 'visemes' (exact), 'words' (times of words), 'none' (the pipeline
   * derives visemes from the text, scaled to the audio).
   */
  readonly marks: 'visemes' | 'words' | 'none';
  /**
   * Streams one piece of speech. Failures are ProviderErrors (with the HTTP status when there was
   * one); the caller's abort passes through as the signal's reason.
   */
  synthesize(text: string, options: TtsSynthesizeOptions): AsyncIterable<TtsChunk>;
  /** Releases connections. */
  close?(): void;
}

/**
 * Speech speed as the editor stores it (`tts.speed`): 0 is the voice's own pace, -1 … 1 slower
 * … faster (the editor's range for Azure), read as a rate of 2^speed (½× … 2×). Neuphonic's
 * field is a plain multiplier (default 1) and is read as such by its client.
 */
export function speedToRate(speed: number | undefined): number {
  if (speed === undefined || !Number.isFinite(speed)) return 1;
  const s = Math.max(-1, Math.min(1, speed));
  return Math.pow(2, s);
}

export const clamp = (x: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, x));
