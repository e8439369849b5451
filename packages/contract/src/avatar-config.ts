import { z } from 'zod';
import { AvatarLimits } from './avatars.js';
import { FillerOptions, RealtimeVadDefaults } from './catalog.js';
import { LiveLimits } from './live/admission.js';
import { readLiveSpeech, ZLiveSpeech } from './live/session-speech.js';

/**
 * The avatar's stored configuration — the JSON document of `avatars.config` next to the row's
 * columns (spec "Avatar (agent)") — read once into typed values by `readAvatarConfig`. Every server
 * feature reads the document through it: the live sessions' admission, page and brain, the
 * avatars' save checks and hosting, the provider look-ups' stored keys.
 *
 * Stored rows may be old, partial or of another shape (saved before a field was typed, edited by
 * hand): the reader never throws. Each field below says what a missing or malformed stored value
 * becomes. Secrets are read as they are in the document given: the caller opens them first when
 * it needs them in the clear.
 *
 * A field added here is a compile error in the reader (the field is required), and in each
 * consumer that hands a whole section on and names every field of it (`everyFieldRead`).
 */

/** scheme://host[:port] of an http(s) URL or origin string (at most 2000 characters), or null. */
export function originOf(v: unknown): string | null {
  if (typeof v !== 'string' || v.length > 2000) return null;
  try {
    const u = new URL(v.trim());
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.host ? `${u.protocol}//${u.host}` : null;
  } catch {
    return null;
  }
}

/** Who may open a live session and for how long: `sessionRules` of the live sessions. */
export const ZAvatarAccess = z.object({
  /** `encKeyId`: the encryption key whose tokens open the avatar; null (no token asked) unless a number. */
  encKeyId: z.number().nullable(),
  /** `partnerOauthAppId` when `oauthEnabled` is 1 (or true) and the id reads as a number other than 0; else null. */
  oauthAppId: z.number().nullable(),
  /** `allowedOrigins`: each entry's scheme://host[:port], unreadable entries dropped, the first 20 read; empty = any site. */
  allowedOrigins: z.array(z.string()),
  /** `billingAuthURL`, trimmed; null when missing, empty or not a string. */
  billingAuthUrl: z.string().nullable(),
  /** `billingAuthHeader` as stored (sent as it is); '' when not a string. */
  billingAuthHeader: z.string(),
  /** `billingAuthPingTime` (a number or numeric string), rounded, at least 1; 30 when missing or unreadable. */
  billingPingSeconds: z.number(),
  /** `dailyLimitPerSession` in seconds; -1 (unlimited) unless a number (or numeric string) above 0. */
  dailyLimitPerSession: z.number(),
  /** `dailyLimitPerIP`, the same rule. */
  dailyLimitPerIp: z.number(),
  /** `dailyLimits.Demo`, the same rule. */
  demoSeconds: z.number(),
  /** `idleTimeout`, rounded, at most 600; 300 when missing, unreadable or not above 0. */
  idleTimeoutSeconds: z.number(),
});
export type TAvatarAccess = z.infer<typeof ZAvatarAccess>;

/** What the live session does around its brain. */
export const ZAvatarSessionSettings = z.object({
  /** `wakeUpMessage` as stored (the save trims it); '' when not a string. */
  wakeUpMessage: z.string(),
  /** `sendChatHistory === true`. */
  sendChatHistory: z.boolean(),
  /** `permissions` bit flags; 0 unless a number. */
  permissions: z.number(),
  /** `customData.transcriptionStreaming === true`. */
  transcriptionStreaming: z.boolean(),
  /** Avatar memory: `customData.summaryEnabled` is not false and `agent_pipeline_config.llm.summary_enabled` is true. */
  summaryEnabled: z.boolean(),
  /**
   * Fillers (ADR 100), the lines the avatar may say while its answer is slow: with
   * `agent_pipeline_config.fillers.enabled === true`, its `phrases` trimmed, those of 1…80
   * characters, the first 10 (none readable: FillerOptions.phrases); [] (off) otherwise.
   */
  fillers: z.array(z.string()),
});

/** The page's own documents and pictures (verbatim strings: the page and the save compare them as stored). */
export const ZAvatarPage = z.object({
  /** `avatarPhotoURL`; null when missing, empty or not a string. */
  photoUrl: z.string().nullable(),
  /** `avatarConfigURL`, the same rule. */
  avatarConfigUrl: z.string().nullable(),
  /** `clientConfigURL`, the same rule. */
  clientConfigUrl: z.string().nullable(),
  /** `avatarJson`: the hosted avatar config document's text; '' when none (or not a string). */
  avatarJson: z.string(),
  /** `clientJson`, the same rule. */
  clientJson: z.string(),
});

/**
 * The brain's settings, by engine. Strings are trimmed, '' when missing or not a string (keys
 * included: a stored key is never sent with its surrounding spaces).
 */
export const ZAvatarBrain = z.object({
  /** `agent_pipeline_config.llm`: the LLM, prompt and Assistants engines. */
  llm: z.object({
    baseUrl: z.string(),
    apiKey: z.string(),
    model: z.string(),
    instructions: z.string(),
    assistantId: z.string(),
    /** `max_tokens` (a number or numeric string) when an integer in 1…1 000 000; else null (the provider's own). */
    maxTokens: z.number().int().positive().nullable(),
  }),
  /** REST endpoint engine: `restEndPointURL`, `restApiKey`, `llm.custom_text`, `agentLanguage`. */
  rest: z.object({ url: z.string(), apiKey: z.string(), customText: z.string(), agentLanguage: z.string() }),
  /** Dialogflow ES/CX: `projectId`, `agentId`, `regionId`, `agentLanguage`, `jsonKey`, `jsonKeyBase64`. */
  dialogflow: z.object({ projectId: z.string(), agentId: z.string(), regionId: z.string(), agentLanguage: z.string(), jsonKey: z.string(), jsonKeyBase64: z.string() }),
  /** SpeechToSpeech: `speech_to_speech` and the realtime part of `vad_options`. */
  realtime: z.object({
    url: z.string(),
    apiKey: z.string(),
    model: z.string(),
    voice: z.string(),
    instructions: z.string(),
    greeting: z.string(),
    /** `vad_options.threshold` (0…1), `.prefix_padding_ms` and `.silence_duration_ms` (0…10 000, rounded); out of range or unreadable: RealtimeVadDefaults. */
    vad: z.object({ threshold: z.number(), prefixPaddingMs: z.number(), silenceDurationMs: z.number() }),
  }),
  /** ElevenLabs Conversational AI: `third_party`. */
  thirdParty: z.object({
    agentId: z.string(),
    apiKey: z.string(),
    /** `is_public === true`. */
    isPublic: z.boolean(),
    /** 'websocket' only when stored so; else 'webrtc'. */
    connectionType: z.enum(['webrtc', 'websocket']),
  }),
});
export type TAvatarBrain = z.infer<typeof ZAvatarBrain>;

export const ZAvatarConfig = z.object({
  access: ZAvatarAccess,
  session: ZAvatarSessionSettings,
  page: ZAvatarPage,
  brain: ZAvatarBrain,
  /**
   * `agent_pipeline_config.stt`, `.tts`, `.vad_options` and `.interrupt_handling` read by
   * `readLiveSpeech`: with the provider keys of the document, and with none (a session that
   * does not run the avatar's own STT and voice).
   */
  speech: z.object({ withKeys: ZLiveSpeech, withoutKeys: ZLiveSpeech }),
  /**
   * `agent_pipeline_config.stt.base_url` and `.tts.base_url`, trimmed ('' none), whatever the
   * provider: the save checks a stored OpenAI-compatible endpoint even while another provider is chosen.
   */
  speechBaseUrls: z.object({ stt: z.string(), tts: z.string() }),
  /** `functions`: the linked function ids; entries that are not positive integers are dropped, [] unless an array. */
  functionIds: z.array(z.number().int().positive()),
  /** `customData.collection_ids`: the linked knowledge collections, the same rule. */
  collectionIds: z.array(z.number().int().positive()),
  /** `customData.words_per_sec` (a number or numeric string); 3 when missing or unreadable. */
  wordsPerSecond: z.number(),
});
export type TAvatarConfig = z.infer<typeof ZAvatarConfig>;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');
const verbatim = (v: unknown): string => (typeof v === 'string' ? v : '');
const nonEmpty = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
/** A number, or a numeric string; undefined otherwise. */
const num = (v: unknown): number | undefined => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
};
const ids = (v: unknown): number[] => (Array.isArray(v) ? v.filter((n): n is number => Number.isSafeInteger(n) && (n as number) > 0) : []);
/** A limit in seconds: above 0, or -1 (unlimited). */
const limit = (v: unknown): number => {
  const n = num(v);
  return n !== undefined && n > 0 ? n : AvatarLimits.unlimited;
};
const numberIn = (v: unknown, min: number, max: number, fallback: number): number => {
  const n = num(v);
  return n !== undefined && n >= min && n <= max ? n : fallback;
};

/**
 * Only the access rules of a configuration document (`readAvatarConfig(stored).access`), for the
 * paths that need nothing else and run often: a session's heartbeat, the page's frame-ancestors.
 */
export function readAvatarAccess(stored: unknown): TAvatarAccess {
  return readAccess(obj(stored));
}

function readAccess(c: Obj): TAvatarAccess {
  const origins = Array.isArray(c.allowedOrigins) ? c.allowedOrigins.slice(0, LiveLimits.allowedOriginsMax) : [];
  const idle = Math.round(num(c.idleTimeout) ?? LiveLimits.idleTimeoutDefault);
  return {
    encKeyId: typeof c.encKeyId === 'number' ? c.encKeyId : null,
    oauthAppId: c.oauthEnabled === 1 || c.oauthEnabled === true ? Number(c.partnerOauthAppId) || null : null,
    allowedOrigins: origins.map(originOf).filter((o): o is string => o !== null),
    billingAuthUrl: text(c.billingAuthURL) || null,
    billingAuthHeader: verbatim(c.billingAuthHeader),
    billingPingSeconds: Math.max(1, Math.round(num(c.billingAuthPingTime) ?? AvatarLimits.billingAuthPingTimeDefault)),
    dailyLimitPerSession: limit(c.dailyLimitPerSession),
    dailyLimitPerIp: limit(c.dailyLimitPerIP),
    demoSeconds: limit(obj(c.dailyLimits).Demo),
    idleTimeoutSeconds: idle > 0 ? Math.min(idle, LiveLimits.idleTimeoutMax) : LiveLimits.idleTimeoutDefault,
  };
}

function readBrain(c: Obj, pipeline: Obj): TAvatarBrain {
  const llm = obj(pipeline.llm);
  const s2s = obj(pipeline.speech_to_speech);
  const vad = obj(pipeline.vad_options);
  const third = obj(pipeline.third_party);
  const maxTokens = num(llm.max_tokens);
  return {
    llm: {
      baseUrl: text(llm.base_url),
      apiKey: text(llm.api_key),
      model: text(llm.model),
      instructions: text(llm.instructions),
      assistantId: text(llm.assistant_id),
      maxTokens: maxTokens !== undefined && Number.isInteger(maxTokens) && maxTokens > 0 && maxTokens <= 1_000_000 ? maxTokens : null,
    },
    rest: { url: text(c.restEndPointURL), apiKey: text(c.restApiKey), customText: text(llm.custom_text), agentLanguage: text(c.agentLanguage) },
    dialogflow: {
      projectId: text(c.projectId),
      agentId: text(c.agentId),
      regionId: text(c.regionId),
      agentLanguage: text(c.agentLanguage),
      jsonKey: text(c.jsonKey),
      jsonKeyBase64: text(c.jsonKeyBase64),
    },
    realtime: {
      url: text(s2s.url),
      apiKey: text(s2s.api_key),
      model: text(s2s.model),
      voice: text(s2s.voice_id),
      instructions: text(s2s.instructions),
      greeting: text(s2s.greeting),
      vad: {
        threshold: numberIn(vad.threshold, 0, 1, RealtimeVadDefaults.threshold),
        prefixPaddingMs: Math.round(numberIn(vad.prefix_padding_ms, 0, 10_000, RealtimeVadDefaults.prefix_padding_ms)),
        silenceDurationMs: Math.round(numberIn(vad.silence_duration_ms, 0, 10_000, RealtimeVadDefaults.silence_duration_ms)),
      },
    },
    thirdParty: {
      agentId: text(third.agent_id),
      apiKey: text(third.api_key),
      isPublic: third.is_public === true,
      connectionType: third.connection_type === 'websocket' ? 'websocket' : 'webrtc',
    },
  };
}

/** `agent_pipeline_config.fillers` → the lines said while an answer is slow; [] when off. */
export function readFillers(f: Obj): string[] {
  if (f.enabled !== true) return [];
  const phrases = (Array.isArray(f.phrases) ? f.phrases : [])
    .map(text)
    .filter((p) => p.length > 0 && p.length <= FillerOptions.maxChars)
    .slice(0, FillerOptions.maxPhrases);
  return phrases.length ? phrases : [...FillerOptions.phrases];
}

/**
 * The avatar's configuration document (a stored row's `config`, or a save's incoming one of the
 * same shape) as typed values. Never throws.
 */
export function readAvatarConfig(stored: unknown): TAvatarConfig {
  const c = obj(stored);
  const custom = obj(c.customData);
  const pipeline = obj(custom.agent_pipeline_config);
  return {
    access: readAccess(c),
    session: {
      wakeUpMessage: verbatim(c.wakeUpMessage),
      sendChatHistory: c.sendChatHistory === true,
      permissions: typeof c.permissions === 'number' ? c.permissions : 0,
      transcriptionStreaming: custom.transcriptionStreaming === true,
      summaryEnabled: custom.summaryEnabled !== false && obj(pipeline.llm).summary_enabled === true,
      fillers: readFillers(obj(pipeline.fillers)),
    },
    page: {
      photoUrl: nonEmpty(c.avatarPhotoURL),
      avatarConfigUrl: nonEmpty(c.avatarConfigURL),
      clientConfigUrl: nonEmpty(c.clientConfigURL),
      avatarJson: verbatim(c.avatarJson),
      clientJson: verbatim(c.clientJson),
    },
    brain: readBrain(c, pipeline),
    speech: { withKeys: readLiveSpeech(pipeline, { keys: true }), withoutKeys: readLiveSpeech(pipeline, { keys: false }) },
    speechBaseUrls: { stt: text(obj(pipeline.stt).base_url), tts: text(obj(pipeline.tts).base_url) },
    functionIds: ids(c.functions),
    collectionIds: ids(custom.collection_ids),
    wordsPerSecond: num(custom.words_per_sec) ?? AvatarLimits.wordsPerSecondDefault,
  };
}
