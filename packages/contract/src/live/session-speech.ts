import { z } from 'zod';
import { InterruptOptions, VadDefaults } from '../catalog.js';
import { providerNumber, SttProvider, TtsProvider } from '../providers.js';

/**
 * How a live session listens, speaks and takes turns: the avatar's stored
 * `agent_pipeline_config.stt`, `.tts`, `.vad_options` and `.interrupt_handling`, read once by the
 * portal (`readLiveSpeech`, called by live-sessions/session-config.ts) into typed values — the
 * provider as its SttProvider / TtsProvider number (or 'openai' for an OpenAI-compatible endpoint,
 * 'unknown' with the stored name), numbers as numbers, strings trimmed, defaults applied, and of
 * the secrets only those the provider uses. The worker's choosers (speech/tts-choice.ts,
 * providers/stt/network.ts, listening/options.ts) take these types and decode nothing.
 *
 * A worker reading a provider's settings names every field of it and hands the rest to
 * `everyFieldRead`: a field added here is then a compile error in the portal's reader (the field
 * is required) and in each worker place that must handle it (the rest is no longer empty).
 */

/** Compile-time check that a destructuring named every field: its rest must be empty. */
export function everyFieldRead(_rest: Record<string, never>): void {}

/** A BCP-47 language tag as the STT providers take it: letters, digits, dashes (the one pattern for all of them). */
export const LANGUAGE_TAG = /^[A-Za-z]{2,8}(?:-[A-Za-z0-9]{1,8}){0,3}$/;

const sttCommon = {
  /** Simple mode and Default: the operator's STT to prefer (azure, google, deepgram, openai), lower case; '' any. */
  defaultStt: z.string(),
  /** Valid tags, the main one first, at most 11, no repeats; ['en-US'] when none is stored. */
  languages: z.array(z.string()).min(1),
  model: z.string().optional(),
  /** Context phrases, one per stored line, at most 500; absent when none. */
  phrases: z.array(z.string()).optional(),
  /** Endpointing hint (Deepgram), 1…10 000 ms; absent: the provider's own. */
  endpointingMs: z.number().int().positive().max(10_000).optional(),
};
/** The avatar's speech to text. Keys are '' when the session does not run the avatar's own STT. */
export const ZLiveStt = z.discriminatedUnion('provider', [
  /** Default (and unset): the operator's hosted STT. */
  z.object({ provider: z.literal(SttProvider.Default), ...sttCommon }),
  z.object({ provider: z.literal(SttProvider.None), ...sttCommon }),
  z.object({ provider: z.literal(SttProvider.Google), ...sttCommon, apiKey: z.string(), /** '' : the provider's default. */ region: z.string() }),
  z.object({ provider: z.literal(SttProvider.Azure), ...sttCommon, apiKey: z.string(), region: z.string() }),
  z.object({ provider: z.literal(SttProvider.Deepgram), ...sttCommon, apiKey: z.string() }),
  z.object({ provider: z.literal('openai'), ...sttCommon, apiKey: z.string(), baseUrl: z.string() }),
  /** A provider this version does not know (the stored name, for the owner's log). */
  z.object({ provider: z.literal('unknown'), ...sttCommon, name: z.string() }),
]);
export type TLiveStt = z.infer<typeof ZLiveStt>;

const ttsCommon = {
  /** Simple mode and Default: the operator's voice to prefer (azure, polly, openai, offline), lower case; '' any. */
  defaultTts: z.string(),
  /** The stored voice ('' none): the provider's voice id, the hosted voice's name, the offline voice's hint. */
  voice: z.string(),
  /** The stored speed (-1…1 in the Brain tab); absent: the provider's own. */
  speed: z.number().optional(),
};
/** The avatar's text to speech. Keys are '' when the session does not run the avatar's own voice. */
export const ZLiveTts = z.discriminatedUnion('provider', [
  /** Default (and unset): the operator's hosted voice. */
  z.object({ provider: z.literal(TtsProvider.Default), ...ttsCommon }),
  z.object({ provider: z.literal(TtsProvider.None), ...ttsCommon }),
  /** `apiKey`: the access key id; `model`: the engine (standard, neural…); `region`: us-east-1 when none is stored. */
  z.object({ provider: z.literal(TtsProvider.Polly), ...ttsCommon, apiKey: z.string(), secretKey: z.string(), region: z.string(), model: z.string().optional() }),
  z.object({ provider: z.literal(TtsProvider.Azure), ...ttsCommon, apiKey: z.string(), region: z.string() }),
  z.object({ provider: z.literal(TtsProvider.ElevenLabs), ...ttsCommon, apiKey: z.string(), model: z.string().optional(), langCode: z.string().optional() }),
  z.object({ provider: z.literal(TtsProvider.Cartesia), ...ttsCommon, apiKey: z.string(), model: z.string().optional(), langCode: z.string().optional() }),
  /** `langCode`: en when none is stored. */
  z.object({ provider: z.literal(TtsProvider.Neuphonic), ...ttsCommon, apiKey: z.string(), model: z.string().optional(), langCode: z.string() }),
  z.object({ provider: z.literal('openai'), ...ttsCommon, apiKey: z.string(), baseUrl: z.string(), model: z.string().optional() }),
  z.object({ provider: z.literal('unknown'), ...ttsCommon, name: z.string() }),
]);
export type TLiveTts = z.infer<typeof ZLiveTts>;

/**
 * Turn-taking (LiveKit Agents' names and semantics, DESIGN.md "Live avatar runtime"), in ms, from
 * `vad_options` and `interrupt_handling`; a missing or out-of-range stored value is the Brain tab's
 * default (VadDefaults, InterruptOptions).
 */
export const ZLiveTurns = z.object({
  /** A 32 ms window is speech when the probability exceeds this. */
  activationThreshold: z.number(),
  /** Start of speech after this much consecutive speech. */
  minSpeechMs: z.number(),
  /** End of speech after this much consecutive non-speech. */
  minSilenceMs: z.number(),
  /** Audio kept from before the start of speech (for STT). */
  prefixPaddingMs: z.number(),
  /** Cap of one utterance's buffer; further audio of the same utterance is dropped. */
  maxBufferedSpeechMs: z.number(),
  /** The turn is committed at last speech + this. */
  minEndpointingMs: z.number(),
  /** …or + this when what was said looks unfinished (a trailing "and", "so", "um", a comma…). */
  maxEndpointingMs: z.number(),
  allowInterruptions: z.boolean(),
  /** The visitor's speech must last this long to interrupt the avatar. */
  minInterruptionMs: z.number(),
  /** …and have this many transcribed words (0: any word at all, see ADR 067). */
  minInterruptionWords: z.number(),
});
export type TLiveTurns = z.infer<typeof ZLiveTurns>;

export const ZLiveSpeech = z.object({ stt: ZLiveStt, tts: ZLiveTts, turns: ZLiveTurns });
export type TLiveSpeech = z.infer<typeof ZLiveSpeech>;

export const LiveTurnDefaults: TLiveTurns = {
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
};

/** Nothing stored: the operator's hosted STT and voice, the Brain tab's turn-taking. */
export const LiveSpeechDefaults: TLiveSpeech = {
  stt: { provider: SttProvider.Default, defaultStt: '', languages: ['en-US'] },
  tts: { provider: TtsProvider.Default, defaultTts: '', voice: '' },
  turns: LiveTurnDefaults,
};

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');
const optional = (v: unknown): string | undefined => text(v) || undefined;
/** A number, or a numeric string; undefined otherwise. */
const num = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
};

/** A stored provider (number, numeric string or name): its number, 'openai', null when unset, 'unknown'. */
function providerOf(value: unknown, kind: 'stt' | 'tts'): number | 'openai' | 'unknown' | null {
  if (typeof value !== 'number' && typeof value !== 'string') return null;
  if (typeof value === 'string' && /^openai(-compatible)?$/i.test(value.trim())) return 'openai';
  const n = providerNumber(value, kind);
  return n === undefined ? null : Number.isNaN(n) ? 'unknown' : n;
}
/** The stored provider's name as the owner's log shows it. */
const nameOf = (value: unknown) => String(value).slice(0, 40);

function readStt(stored: Obj, keys: boolean): TLiveStt {
  const languages = [
    ...new Set(
      text(stored.languages)
        .split(',')
        .map((l) => l.trim())
        .filter((l) => LANGUAGE_TAG.test(l)),
    ),
  ].slice(0, 11);
  const phrases = text(stored.context_phrases)
    .split(/\r?\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .slice(0, 500);
  const rawEndpointing = stored.endpointing ?? stored.deepgramEndpoint ?? stored.deepgram_endpoint;
  const endpointing = typeof rawEndpointing === 'number' || typeof rawEndpointing === 'string' ? Number(rawEndpointing) : NaN;
  const model = optional(stored.model);
  const common = {
    defaultStt: text(stored.default_stt).toLowerCase(),
    languages: languages.length ? languages : ['en-US'],
    ...(model ? { model } : {}),
    ...(phrases.length ? { phrases } : {}),
    ...(Number.isInteger(endpointing) && endpointing > 0 ? { endpointingMs: Math.min(endpointing, 10_000) } : {}),
  };
  const apiKey = keys ? text(stored.api_key) : '';
  const provider = providerOf(stored.provider, 'stt');
  switch (provider) {
    case null:
    case SttProvider.Default:
      return { provider: SttProvider.Default, ...common };
    case SttProvider.None:
      return { provider: SttProvider.None, ...common };
    case SttProvider.Google:
      return { provider: SttProvider.Google, ...common, apiKey, region: text(stored.region) };
    case SttProvider.Azure:
      return { provider: SttProvider.Azure, ...common, apiKey, region: text(stored.region) };
    case SttProvider.Deepgram:
      return { provider: SttProvider.Deepgram, ...common, apiKey };
    case 'openai':
      return { provider: 'openai', ...common, apiKey, baseUrl: text(stored.base_url) };
    default:
      return { provider: 'unknown', ...common, name: nameOf(stored.provider) };
  }
}

function readTts(stored: Obj, keys: boolean): TLiveTts {
  const speed = num(stored.speed);
  const common = { defaultTts: text(stored.default_tts).toLowerCase(), voice: text(stored.voice_id), ...(speed !== undefined ? { speed } : {}) };
  const apiKey = keys ? text(stored.api_key) : '';
  const model = optional(stored.model);
  const withModel = model ? { model } : {};
  const langCode = optional(stored.lang_code);
  const withLang = langCode ? { langCode } : {};
  const provider = providerOf(stored.provider, 'tts');
  switch (provider) {
    case null:
    case TtsProvider.Default:
      return { provider: TtsProvider.Default, ...common };
    case TtsProvider.None:
      return { provider: TtsProvider.None, ...common };
    case TtsProvider.Polly:
      return { provider: TtsProvider.Polly, ...common, apiKey, secretKey: keys ? text(stored.secret_key) : '', region: text(stored.region) || 'us-east-1', ...withModel };
    case TtsProvider.Azure:
      return { provider: TtsProvider.Azure, ...common, apiKey, region: text(stored.region) };
    case TtsProvider.ElevenLabs:
      return { provider: TtsProvider.ElevenLabs, ...common, apiKey, ...withModel, ...withLang };
    case TtsProvider.Cartesia:
      return { provider: TtsProvider.Cartesia, ...common, apiKey, ...withModel, ...withLang };
    case TtsProvider.Neuphonic:
      return { provider: TtsProvider.Neuphonic, ...common, apiKey, ...withModel, langCode: langCode ?? 'en' };
    case 'openai':
      return { provider: 'openai', ...common, apiKey, baseUrl: text(stored.base_url), ...withModel };
    default:
      return { provider: 'unknown', ...common, name: nameOf(stored.provider) };
  }
}

/** Seconds → ms, rounded; the default when missing or out of range. */
const seconds = (v: unknown, def: number, min: number, max: number) => {
  const n = num(v);
  return Math.round((n === undefined || n < min || n > max ? def : n) * 1000);
};

function readTurns(vad: Obj, ih: Obj): TLiveTurns {
  const threshold = num(vad.activation_threshold);
  const minEndpointingMs = seconds(vad.min_endpointing_delay, VadDefaults.min_endpointing_delay, 0, 10);
  const words = num(ih.min_interruption_words ?? ih.interrupt_min_words);
  return {
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
  };
}

/**
 * The session's speech from the avatar's stored `agent_pipeline_config` (secrets opened).
 * `keys`: does the session run the avatar's own STT and voice (Composite mode, an own agent)? Without,
 * no key leaves: the provider's key fields are ''.
 */
export function readLiveSpeech(pipeline: unknown, opts: { keys: boolean }): TLiveSpeech {
  const p = obj(pipeline);
  return { stt: readStt(obj(p.stt), opts.keys), tts: readTts(obj(p.tts), opts.keys), turns: readTurns(obj(p.vad_options), obj(p.interrupt_handling)) };
}
