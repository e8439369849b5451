import { z } from 'zod';
import { AvatarLimits, AvatarMessages, FillerOptions, InterruptOptions, RealtimeVadDefaults, SetupMode, VadDefaults, ZAvatarInput, ZFillers } from '@persona/contract';
import type { TAvatar } from '@persona/contract';

/** Text fields hold what was typed; numbers are converted on save. */
type Num = string | number;

export const REALTIME_VAD_KEYS = ['threshold', 'prefix_padding_ms', 'silence_duration_ms'] as const;
export const VAD_KEYS = [
  'min_endpointing_delay',
  'max_endpointing_delay',
  'min_speech_duration',
  'min_silence_duration',
  'prefix_padding_duration',
  'max_buffered_speech',
  'activation_threshold',
] as const;
export type TRealtimeVadKey = (typeof REALTIME_VAD_KEYS)[number];
export type TVadKey = (typeof VAD_KEYS)[number];

export interface AdvancedValues {
  encKeyId: string;
  /** Visitors sign in through one of the account's OAuth configs before the session starts. */
  oauthEnabled: boolean;
  partnerOauthAppId: string;
  /** The customer's billing check, called before the session starts and every ping time. */
  billingAuthURL: string;
  billingAuthHeader: string;
  billingAuthPingTime: Num;
  /** Sites that may embed the avatar page, one origin per line (empty: any site). */
  allowedOrigins: string;
  realtime: boolean;
  sendChatHistory: boolean;
  handleSttResponse: boolean;
  wakeUpMessage: string;
  wordsPerSecond: Num;
  transcriptionStreaming: boolean;
  dailyLimitPerSession: Num;
  dailyLimitPerIP: Num;
  demoLimit: Num;
  idleTimeout: Num;
  allowInterruptions: boolean;
  minInterruptionDuration: Num;
  minInterruptionWords: Num;
  /** Fillers while an answer is slow (ADR 100): on/off, and the lines, one per line of the box. */
  fillersEnabled: boolean;
  fillers: string;
  realtimeVad: Record<TRealtimeVadKey, Num>;
  vad: Record<TVadKey, Num>;
}

const isBlank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
const toNumber = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' ? Number(v.trim()) : Number.NaN);

/** A positive number (or non-negative; blank allowed where the spec says so); 'Must be a number' otherwise. */
function numberField({ allowZero = false, allowBlank = false, max, maxMessage }: { allowZero?: boolean; allowBlank?: boolean; max?: number; maxMessage?: string } = {}) {
  return z.any().superRefine((v: unknown, ctx) => {
    if (isBlank(v)) {
      if (!allowBlank) ctx.addIssue({ code: 'custom', message: allowZero ? AvatarMessages.nonNegativeNumber : AvatarMessages.positiveNumber });
      return;
    }
    const n = toNumber(v);
    if (!Number.isFinite(n)) ctx.addIssue({ code: 'custom', message: AvatarMessages.mustBeNumber });
    else if (allowZero ? n < 0 : n <= 0) ctx.addIssue({ code: 'custom', message: allowZero ? AvatarMessages.nonNegativeNumber : AvatarMessages.positiveNumber });
    else if (max !== undefined && n > max) ctx.addIssue({ code: 'custom', message: maxMessage ?? `Must be at most ${max}` });
  });
}

/** Idle timeout: required, a whole number, at most 600 s (the contract's messages). */
const idleTimeoutField = z.any().superRefine((v: unknown, ctx) => {
  if (isBlank(v)) return void ctx.addIssue({ code: 'custom', message: AvatarMessages.idleTimeoutRequired });
  const result = ZAvatarInput.shape.idleTimeout.safeParse(toNumber(v));
  if (!result.success) ctx.addIssue({ code: 'custom', message: result.error.issues[0]?.message ?? AvatarMessages.idleTimeoutRequired });
});

const THRESHOLD = { max: 1, maxMessage: 'Must be between 0.0 and 1.0' };

const isHttpUrl = (v: string) => {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
};

/** Ping time: a whole number of seconds in the contract's range (default 30). */
const pingTimeField = z.any().superRefine((v: unknown, ctx) => {
  if (isBlank(v)) return;
  const n = toNumber(v);
  const { minValue, maxValue } = ZAvatarInput.shape.billingAuthPingTime.unwrap();
  if (!Number.isInteger(n)) ctx.addIssue({ code: 'custom', message: AvatarMessages.mustBeNumber });
  else if (n < (minValue ?? 0) || n > (maxValue ?? Infinity)) ctx.addIssue({ code: 'custom', message: `Must be between ${minValue} and ${maxValue} seconds` });
});

/** The fillers box: one line each, trimmed, blank lines ignored. */
export const fillerLines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);

export const FILLERS_REQUIRED = 'Add at least one filler, or turn fillers off';

/** The contract's rules for the lines (at most 10, each at most 80 characters); at least one when on. */
function checkFillers(values: { fillersEnabled?: boolean; fillers?: string }, ctx: z.RefinementCtx) {
  const lines = fillerLines(values.fillers ?? '');
  if (values.fillersEnabled && lines.length === 0) return void ctx.addIssue({ code: 'custom', path: ['fillers'], message: FILLERS_REQUIRED });
  const result = ZFillers.shape.phrases.safeParse(lines);
  if (!result.success) ctx.addIssue({ code: 'custom', path: ['fillers'], message: result.error.issues[0]?.message ?? FILLERS_REQUIRED });
}

/** The allowed-origins box: one origin per line, blank lines ignored. */
export const originLines = (text: string) =>
  text
    .split(/\r?\n/)
    .map((line) => line.trim().replace(/\/+$/, ''))
    .filter(Boolean);

/** Each line an origin (the contract's rule and message), at most 20. */
const allowedOriginsField = z.string().superRefine((text, ctx) => {
  const result = ZAvatarInput.shape.allowedOrigins.safeParse(originLines(text));
  if (!result.success) ctx.addIssue({ code: 'custom', message: result.error.issues[0]?.message ?? AvatarMessages.allowedOrigin });
});

/**
 * Spec "OAuth on avatar": with OAuth on, the config is required and numeric; the billing URL must
 * be a URL, and its header is required once a URL is given (the server checks the same).
 */
function checkOAuthAndBilling(values: { oauthEnabled?: boolean; partnerOauthAppId?: string; billingAuthURL?: string; billingAuthHeader?: string }, ctx: z.RefinementCtx) {
  if (values.oauthEnabled) {
    const id = (values.partnerOauthAppId ?? '').trim();
    if (!id) ctx.addIssue({ code: 'custom', path: ['partnerOauthAppId'], message: AvatarMessages.oauthAppRequired });
    else if (!/^\d+$/.test(id)) ctx.addIssue({ code: 'custom', path: ['partnerOauthAppId'], message: AvatarMessages.oauthAppNumeric });
  }
  const url = (values.billingAuthURL ?? '').trim();
  if (url) {
    if (!isHttpUrl(url)) ctx.addIssue({ code: 'custom', path: ['billingAuthURL'], message: AvatarMessages.billingAuthUrl });
    else if (!(values.billingAuthHeader ?? '').trim()) ctx.addIssue({ code: 'custom', path: ['billingAuthHeader'], message: AvatarMessages.billingHeaderRequired });
  }
}

/**
 * The Advanced tab's rules: the contract's field rules and messages for the wake-up message, the
 * limits and the idle timeout; positive numbers for interruptions and VAD. Only the groups shown for
 * the mode are checked (speech-to-speech: realtime VAD, no interruptions).
 */
export function advancedSchema(isSpeechToSpeech: boolean) {
  const realtimeVad = z.object({
    threshold: numberField(THRESHOLD),
    prefix_padding_ms: numberField(),
    silence_duration_ms: numberField(),
  });
  const vad = z.object({
    min_endpointing_delay: numberField(),
    max_endpointing_delay: numberField(),
    min_speech_duration: numberField(),
    min_silence_duration: numberField(),
    prefix_padding_duration: numberField(),
    max_buffered_speech: numberField(),
    activation_threshold: numberField(THRESHOLD),
  });
  return z
    .object({
    encKeyId: z.string(),
    oauthEnabled: z.boolean(),
    partnerOauthAppId: z.string(),
    billingAuthURL: z.string().max(2000),
    billingAuthHeader: z.string().max(2000),
    billingAuthPingTime: pingTimeField,
    allowedOrigins: allowedOriginsField,
    realtime: z.boolean({ error: AvatarMessages.fieldRequired }),
    sendChatHistory: z.boolean({ error: AvatarMessages.fieldRequired }),
    handleSttResponse: z.boolean({ error: AvatarMessages.fieldRequired }),
    transcriptionStreaming: z.boolean({ error: AvatarMessages.fieldRequired }),
    wakeUpMessage: ZAvatarInput.shape.wakeUpMessage,
    wordsPerSecond: numberField({ max: 20, maxMessage: 'Words Spoken Per Second cannot be more than 20' }),
    dailyLimitPerSession: ZAvatarInput.shape.dailyLimitPerSession,
    dailyLimitPerIP: ZAvatarInput.shape.dailyLimitPerIP,
    demoLimit: ZAvatarInput.shape.dailyLimits.shape.Demo,
    idleTimeout: idleTimeoutField,
    allowInterruptions: z.boolean(),
    minInterruptionDuration: isSpeechToSpeech ? z.any() : numberField(),
    minInterruptionWords: isSpeechToSpeech ? z.any() : numberField({ allowZero: true, allowBlank: true }),
    fillersEnabled: z.boolean(),
    fillers: z.string().max(10_000),
    realtimeVad: isSpeechToSpeech ? realtimeVad : z.any(),
    vad: isSpeechToSpeech ? z.any() : vad,
    })
    .superRefine(checkOAuthAndBilling)
    .superRefine((values, ctx) => {
      if (!isSpeechToSpeech) checkFillers(values, ctx);
    });
}

type Pipeline = {
  interrupt_handling?: Record<string, unknown>;
  fillers?: { enabled?: unknown; phrases?: unknown };
  vad_options?: Record<string, unknown>;
};

const pipelineOf = (agent: Partial<TAvatar>): Pipeline =>
  ((agent.customData as { agent_pipeline_config?: Pipeline } | undefined)?.agent_pipeline_config ?? {}) as Pipeline;

const pick = (v: unknown, fallback: Num): Num => (typeof v === 'number' || (typeof v === 'string' && v !== '') ? v : fallback);

/**
 * A new avatar starts without time limits: 600 s a day per session and per IP would end every
 * call at ten minutes and make an office behind one NAT share ten minutes a day. The spec's 600
 * is what unticking Unlimited restores (AvatarLimits.dailyLimitRestore);
 * no plan sets limits of its own. Idle calls still end after the idle timeout.
 */
export const NEW_AVATAR_DEFAULTS = {
  wakeUpMessage: 'Hello! How can I help you today?',
  dailyLimitPerSession: AvatarLimits.unlimited,
  dailyLimitPerIP: AvatarLimits.unlimited,
  demoLimit: AvatarLimits.unlimited,
  idleTimeout: AvatarLimits.idleTimeoutDefault,
} as const;

const limitText = (seconds: number) => (seconds === AvatarLimits.unlimited ? 'unlimited' : `${seconds} s`);

/** The limits a new avatar gets, said where it is created (the Advanced tab's names). */
export const NEW_AVATAR_LIMITS_TEXT = `New avatars have no call limits: Daily Limit Per Session ${limitText(NEW_AVATAR_DEFAULTS.dailyLimitPerSession)}, Daily Limit Per IP ${limitText(NEW_AVATAR_DEFAULTS.dailyLimitPerIP)}, Demo duration ${limitText(NEW_AVATAR_DEFAULTS.demoLimit)}; an idle call ends after ${NEW_AVATAR_DEFAULTS.idleTimeout / 60} minutes. Set limits in the ADVANCED tab once it is created.`;

/** The form's values for an avatar (defaults from the spec's constants where it has none). */
export function advancedValuesOf(agent: Partial<TAvatar>): AdvancedValues {
  const pipeline = pipelineOf(agent);
  const ih = pipeline.interrupt_handling ?? {};
  const vad = pipeline.vad_options ?? {};
  const customData = (agent.customData ?? {}) as { words_per_sec?: number; transcriptionStreaming?: boolean };
  return {
    encKeyId: agent.encKeyId ? String(agent.encKeyId) : agent.encKey?.id ? String(agent.encKey.id) : '',
    oauthEnabled: Number(agent.oauthEnabled) === 1,
    partnerOauthAppId: agent.partnerOauthAppId !== undefined && agent.partnerOauthAppId !== null ? String(agent.partnerOauthAppId) : '',
    billingAuthURL: typeof agent.billingAuthURL === 'string' ? agent.billingAuthURL : '',
    billingAuthHeader: typeof agent.billingAuthHeader === 'string' ? agent.billingAuthHeader : '',
    billingAuthPingTime: pick(agent.billingAuthPingTime, AvatarLimits.billingAuthPingTimeDefault),
    allowedOrigins: Array.isArray(agent.allowedOrigins) ? (agent.allowedOrigins as unknown[]).filter((o): o is string => typeof o === 'string').join('\n') : '',
    realtime: agent.realtime ?? false,
    sendChatHistory: agent.sendChatHistory ?? false,
    handleSttResponse: agent.handleSttResponse ?? false,
    wakeUpMessage: agent.wakeUpMessage ?? NEW_AVATAR_DEFAULTS.wakeUpMessage,
    wordsPerSecond: pick(customData.words_per_sec, AvatarLimits.wordsPerSecondDefault),
    transcriptionStreaming: customData.transcriptionStreaming ?? false,
    dailyLimitPerSession: pick(agent.dailyLimitPerSession, NEW_AVATAR_DEFAULTS.dailyLimitPerSession),
    dailyLimitPerIP: pick(agent.dailyLimitPerIP, NEW_AVATAR_DEFAULTS.dailyLimitPerIP),
    demoLimit: pick((agent.dailyLimits as { Demo?: unknown } | undefined)?.Demo, NEW_AVATAR_DEFAULTS.demoLimit),
    idleTimeout: pick(agent.idleTimeout, AvatarLimits.idleTimeoutDefault),
    allowInterruptions: typeof ih.allow_interruptions === 'boolean' ? ih.allow_interruptions : InterruptOptions.allow_interruptions,
    minInterruptionDuration: pick(ih.min_interruption_duration ?? ih.interrupt_speech_duration, InterruptOptions.min_interruption_duration),
    minInterruptionWords: pick(ih.min_interruption_words ?? ih.interrupt_min_words, InterruptOptions.min_interruption_words),
    fillersEnabled: pipeline.fillers?.enabled === true,
    // None stored yet: the defaults are there to keep or edit when the switch is turned on.
    fillers: (Array.isArray(pipeline.fillers?.phrases) ? (pipeline.fillers.phrases as unknown[]).filter((p): p is string => typeof p === 'string') : [...FillerOptions.phrases]).join('\n'),
    realtimeVad: {
      threshold: pick(vad.threshold, RealtimeVadDefaults.threshold),
      prefix_padding_ms: pick(vad.prefix_padding_ms, RealtimeVadDefaults.prefix_padding_ms),
      silence_duration_ms: pick(vad.silence_duration_ms, RealtimeVadDefaults.silence_duration_ms),
    },
    vad: Object.fromEntries(VAD_KEYS.map((k) => [k, pick(vad[k], VadDefaults[k])])) as Record<TVadKey, Num>,
  };
}

const num = (v: Num) => (typeof v === 'number' ? v : Number(String(v).trim()));

/**
 * Writes the form's values into the agent payload, keeping every other stored field (Brain
 * settings, secrets as their masks) as it was.
 */
export function applyAdvancedValues(payload: Record<string, unknown>, values: AdvancedValues, setupMode: number): Record<string, unknown> {
  const customData = { ...((payload.customData as Record<string, unknown> | undefined) ?? {}) };
  const pipeline = { ...((customData.agent_pipeline_config as Record<string, unknown> | undefined) ?? {}) };
  const vad = { ...((pipeline.vad_options as Record<string, unknown> | undefined) ?? {}) };
  if (setupMode === SetupMode.SpeechToSpeech) {
    for (const key of REALTIME_VAD_KEYS) vad[key] = num(values.realtimeVad[key]);
  } else {
    for (const key of VAD_KEYS) vad[key] = num(values.vad[key]);
    const ih = { ...((pipeline.interrupt_handling as Record<string, unknown> | undefined) ?? {}) };
    delete ih.interrupt_speech_duration;
    delete ih.interrupt_min_words;
    pipeline.interrupt_handling = {
      ...ih,
      allow_interruptions: values.allowInterruptions,
      min_interruption_duration: num(values.minInterruptionDuration),
      min_interruption_words: isBlank(values.minInterruptionWords) ? 0 : num(values.minInterruptionWords),
    };
    pipeline.fillers = { ...((pipeline.fillers as Record<string, unknown> | undefined) ?? {}), enabled: values.fillersEnabled, phrases: fillerLines(values.fillers) };
  }
  pipeline.vad_options = vad;
  customData.agent_pipeline_config = pipeline;
  customData.words_per_sec = num(values.wordsPerSecond);
  customData.transcriptionStreaming = values.realtime ? values.transcriptionStreaming : false;
  return {
    ...payload,
    encKeyId: values.encKeyId ? Number(values.encKeyId) : null,
    oauthEnabled: values.oauthEnabled ? 1 : 0,
    partnerOauthAppId: values.oauthEnabled && values.partnerOauthAppId.trim() ? Number(values.partnerOauthAppId) : null,
    billingAuthURL: values.billingAuthURL.trim(),
    // Cleared with the URL; otherwise what was typed, or the stored mask (the server keeps the secret).
    billingAuthHeader: values.billingAuthURL.trim() ? values.billingAuthHeader : '',
    billingAuthPingTime: isBlank(values.billingAuthPingTime) ? AvatarLimits.billingAuthPingTimeDefault : num(values.billingAuthPingTime),
    allowedOrigins: originLines(values.allowedOrigins),
    realtime: values.realtime,
    sendChatHistory: values.sendChatHistory,
    handleSttResponse: values.handleSttResponse,
    wakeUpMessage: values.wakeUpMessage.trim(),
    dailyLimitPerSession: num(values.dailyLimitPerSession),
    dailyLimitPerIP: num(values.dailyLimitPerIP),
    dailyLimits: { ...((payload.dailyLimits as Record<string, unknown> | undefined) ?? {}), Demo: num(values.demoLimit) },
    idleTimeout: num(values.idleTimeout),
    customData,
  };
}
