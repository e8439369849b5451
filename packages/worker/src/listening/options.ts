import { InterruptOptions, VadDefaults } from '@persona/contract';

/**
 * Turn-taking options of one avatar, from its stored `agent_pipeline_config.vad_options` and
 * `interrupt_handling` (LiveKit Agents' names and semantics, DESIGN.md "Live avatar runtime"),
 * in milliseconds. Stored values may be numbers or numeric strings; out-of-range or missing ones
 * fall back to the defaults of the Brain tab (VadDefaults, InterruptOptions).
 */
export interface TurnOptions {
  /** A 32 ms window is speech when the probability exceeds this. */
  activationThreshold: number;
  /** Start of speech after this much consecutive speech. */
  minSpeechMs: number;
  /** End of speech after this much consecutive non-speech. */
  minSilenceMs: number;
  /** Audio kept from before the start of speech (for STT). */
  prefixPaddingMs: number;
  /** Cap of one utterance's buffer; further audio of the same utterance is dropped. */
  maxBufferedSpeechMs: number;
  /** The turn is committed at last speech + this. */
  minEndpointingMs: number;
  /** …or + this when what was said looks unfinished (a trailing "and", "so", "um", a comma…). */
  maxEndpointingMs: number;
  allowInterruptions: boolean;
  /** The visitor's speech must last this long to interrupt the avatar. */
  minInterruptionMs: number;
  /** …and have this many transcribed words (0: any word at all, see ADR 067). */
  minInterruptionWords: number;
  /** A pause with no words after it: the avatar resumes this long after the speech ended. */
  falseInterruptionMs: number;
  /** Speech starting this soon after the avatar's utterance starts is taken for its own echo. */
  echoGuardMs: number;
  /** Batch STT: transcribe what was said so far after this much silence, before the end of speech. */
  earlyTranscriptMs: number;
}

const num = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
};
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
/** Seconds → ms, clamped; the default when missing or out of range. */
const seconds = (v: unknown, def: number, min: number, max: number) => {
  const n = num(v);
  return Math.round((n === undefined || n < min || n > max ? def : n) * 1000);
};

export const TURN_DEFAULTS: TurnOptions = {
  activationThreshold: VadDefaults.activation_threshold,
  minSpeechMs: VadDefaults.min_speech_duration * 1000,
  minSilenceMs: VadDefaults.min_silence_duration * 1000,
  prefixPaddingMs: VadDefaults.prefix_padding_duration * 1000,
  maxBufferedSpeechMs: VadDefaults.max_buffered_speech * 1000,
  minEndpointingMs: VadDefaults.min_endpointing_delay * 1000,
  maxEndpointingMs: VadDefaults.max_endpointing_delay * 1000,
  allowInterruptions: InterruptOptions.allow_interruptions,
  minInterruptionMs: InterruptOptions.min_interruption_duration * 1000,
  minInterruptionWords: InterruptOptions.min_interruption_words,
  falseInterruptionMs: 2000,
  echoGuardMs: 300,
  earlyTranscriptMs: 200,
};

export function turnOptionsFrom(pipeline: Record<string, unknown> | null | undefined, overrides: Partial<TurnOptions> = {}): TurnOptions {
  const vad = obj(pipeline?.vad_options);
  const ih = obj(pipeline?.interrupt_handling);
  const threshold = num(vad.activation_threshold);
  const minEndpointingMs = seconds(vad.min_endpointing_delay, VadDefaults.min_endpointing_delay, 0, 10);
  const words = num(ih.min_interruption_words ?? ih.interrupt_min_words);
  return {
    ...TURN_DEFAULTS,
    activationThreshold: threshold !== undefined && threshold > 0 && threshold < 1 ? threshold : VadDefaults.activation_threshold,
    minSpeechMs: seconds(vad.min_speech_duration, VadDefaults.min_speech_duration, 0, 5),
    minSilenceMs: seconds(vad.min_silence_duration, VadDefaults.min_silence_duration, 0, 10),
    prefixPaddingMs: seconds(vad.prefix_padding_duration, VadDefaults.prefix_padding_duration, 0, 5),
    maxBufferedSpeechMs: seconds(vad.max_buffered_speech, VadDefaults.max_buffered_speech, 1, 600),
    minEndpointingMs,
    maxEndpointingMs: Math.max(minEndpointingMs, seconds(vad.max_endpointing_delay, VadDefaults.max_endpointing_delay, 0, 30)),
    allowInterruptions: typeof ih.allow_interruptions === 'boolean' ? ih.allow_interruptions : InterruptOptions.allow_interruptions,
    minInterruptionMs: seconds(ih.min_interruption_duration ?? ih.interrupt_speech_duration, InterruptOptions.min_interruption_duration, 0, 10),
    minInterruptionWords: words !== undefined && words >= 0 && words <= 50 ? Math.floor(words) : InterruptOptions.min_interruption_words,
    ...overrides,
  };
}

/** Words that leave a sentence hanging: the visitor is probably not done. */
const HANGING = new Set(['and', 'so', 'but', 'or', 'because', 'um', 'umm', 'uh', 'uhm', 'er', 'erm', 'hmm']);

/** The text rule standing in for LiveKit's turn model: true when the turn looks unfinished. */
export function looksUnfinished(text: string): boolean {
  const t = text.trim();
  if (!t) return false;
  if (/[,;:\-–—]$|\.\.\.$|…$/.test(t)) return true;
  if (/[.!?]$/.test(t)) return false;
  const last = t.toLowerCase().match(/([a-z']+)\W*$/)?.[1];
  return last !== undefined && HANGING.has(last);
}

export const wordsOf = (text: string): string[] => text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? [];

/** Most of the transcribed words are what the avatar is saying: its own voice through the speakers. */
export function looksLikeEcho(transcript: string, avatarText: string): boolean {
  const heard = wordsOf(transcript);
  if (heard.length === 0 || !avatarText) return false;
  const said = new Set(wordsOf(avatarText));
  const found = heard.filter((w) => said.has(w)).length;
  return found / heard.length >= 0.8;
}
