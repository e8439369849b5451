import { z } from 'zod';
import { ZStatus, ZId, INT32_MAX, TextChecks } from './common.js';
import { engineEnum, engineNames, enginesOfMode, type TNlpEngineNumber } from './engines.js';
import { SttProvider, TtsProvider } from './providers.js';
import { FillerOptions } from './catalog.js';

/**
 * Engine (nlpEngine), spec numbers, read from the engines' rows (engines.ts): EchoTest 0,
 * RestEndpoint 1, DialogflowES 2, DialogflowCX 3, CustomChatGPTPrompt 6, CustomChatGPTAssistant 7,
 * Ten 8, TrulienceRealtime 9, LargeLanguageModel 10, ElevenLabsConversationAI 11, CUSTOM_STT_LLM_TTS 12.
 */
export const NlpEngine = engineEnum();
export type TNlpEngine = TNlpEngineNumber;
export const NlpEngineName: Record<TNlpEngine, string> = engineNames();
export const ZNlpEngine = z.union(Object.values(NlpEngine).map((v) => z.literal(v)) as unknown as [z.ZodLiteral<TNlpEngine>, ...z.ZodLiteral<TNlpEngine>[]], {
  error: 'Avatar Engine is required',
});

/** Avatar AI mode (setupMode), spec numbers. */
export const SetupMode = { Simple: 0, Composite: 1, SpeechToSpeech: 2, None: 3 } as const;
export type TSetupMode = (typeof SetupMode)[keyof typeof SetupMode];
export const SetupModeLabel: Record<TSetupMode, string> = {
  0: 'Simple - Trulience STT/LLM/TTS'.replace('Trulience', 'Persona Studio'),
  1: 'Composite - Any STT/LLM/TTS',
  2: 'Speech to Speech - Multimodal LLMs',
  3: '3rd Party AI - Conversational AI Frameworks',
};
export const ZSetupMode = z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]);

/** Engines allowed per mode (spec "Engines per mode"), in menu order: each engine row's `modes`. */
export const EnginesPerMode: Record<TSetupMode, TNlpEngine[]> = {
  0: enginesOfMode(SetupMode.Simple),
  1: enginesOfMode(SetupMode.Composite),
  2: enginesOfMode(SetupMode.SpeechToSpeech),
  3: enginesOfMode(SetupMode.None),
};

/** Read from the providers' rows (providers.ts). */
export { SttProvider, TtsProvider };
export const ContentSource = { None: 0, String: 1, File: 2 } as const;

/** Digital-human (avatar) type. The spec names the kinds; these numbers are ours (dhType). */
export const DhType = { Image: 1, UpperBody3D: 2, FullBody3D: 3, Video: 4 } as const;
export type TDhType = (typeof DhType)[keyof typeof DhType];
export const DhTypeName: Record<TDhType, string> = { 1: 'Image', 2: 'Upper Body 3D', 3: 'Full Body 3D', 4: 'Video' };
export const ZDhType = z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)], { error: 'Avatar Type is required' });

/** permissions bit flags. */
export const Permission = { canSendChatHistory: 1, canHandleSttResponse: 2 } as const;
export const hasPermission = (permissions: number, flag: number) => (permissions & flag) === flag;

export const AvatarMessages = {
  selectionRequired: 'Avatar selection is required. Please select an avatar from the list above.',
  selectOnSubmit: 'Please select an avatar from the grid to create one.',
  selectToast: 'Please select an avatar appearance from the grid to start creating your avatar.',
  nameRequired: 'Avatar Name is required',
  engineRequired: 'Avatar Engine is required',
  typeRequired: 'Avatar Type is required',
  someFieldsInvalidTabs: 'Some fields are invalid. Please correct them before changing tabs.',
  someFieldsInvalidSubmit: 'Some fields are invalid. Please correct them before submitting.',
  jsonInvalid: 'JSON is invalid',
  notAValidUrl: 'Not a valid URL',
  dailyLimitPerSession: 'Daily Limit Per Session must be greater than 0 or -1 for unlimited',
  dailyLimitPerIP: 'Daily Limit Per IP must be greater than 0 or -1 for unlimited',
  demoLimit: 'Demo duration limit must be greater than 0 or -1 for unlimited',
  dailyLimitPerSessionRequired: 'Daily Limit Per Session is required',
  dailyLimitPerIPRequired: 'Daily Limit Per IP is required',
  demoLimitRequired: 'Demo duration limit is required',
  mustBeNumber: 'Must be a number',
  wakeUpRequired: 'Wake Up Message is required',
  fieldRequired: 'This field is required',
  idleTimeoutRequired: 'Idle timeout is required',
  idleTimeoutMax: 'Idle timeout cannot be more than 600 seconds',
  idleTimeoutInteger: 'Idle timeout must be a whole number of seconds',
  invalidAdvanced: 'Invalid advance tab form',
  positiveNumber: 'Must be a positive number',
  nonNegativeNumber: 'Must be a non-negative number',
  oauthAppRequired: 'OAuth config is required when OAuth is enabled',
  oauthAppNumeric: 'OAuth config id must be a number',
  billingAuthUrl: 'Billing Auth URL must be a valid URL',
  allowedOrigin: 'Each allowed origin must be a site address such as https://www.example.com (no path)',
  billingHeaderRequired: 'Billing Auth Header is required when a Billing Auth URL is given',
  configUrl: 'Config URL must be a valid URL',
  fileTooBig: (mb: number, type: string) => `File size exceeds ${mb}MB for ${type}.`,
  fileWrongType: (type: string, allowed: string) => `The ${type} must be ${allowed}.`,
  deleteDialog: (name: string) => `Are you sure you want to delete ${name}? This action will delete Avatar permanently and cannot be undone.`,
  deleteFailed: 'Error! Unable to delete avatar.',
  activeUsersFailed: 'Failed to fetch the active user count.',
  agentsFailed: 'Failed to fetch agents. Please verify...: No Agents Found in your account. If problem persists, please contact system administrator.',
  created: 'Interactive Avatar Created',
  updated: 'Updated Successfully',
  deleted: 'Deleted Successfully!',
  limitReached: 'You have reached the maximum number of avatars for your plan.',
  notFound: 'Avatar not found.',
  higherPlanRequired: 'Higher Subscription Plan Required',
} as const;

export const AvatarLimits = {
  idleTimeoutDefault: 300,
  idleTimeoutMax: 600,
  unlimited: -1,
  dailyLimitRestore: 600,
  wordsPerSecondDefault: 3,
  billingAuthPingTimeDefault: 30,
  backgroundImageMaxMb: 10,
  backgroundVideoMaxMb: 25,
  sceneMaxMb: 25,
  /** A customer's own 3D avatar (.glb / .vrm), like the spec's .glb limit. */
  avatarModelMaxMb: 25,
  avatarPhotoMaxPx: 800,
  previewHeightPx: 240,
  listWidthPx: 328,
  maxAdditionalSttLanguages: 10,
  nameMax: 100,
  wakeUpMessageMax: 2000,
} as const;

const optionalNum = z.union([z.number(), z.string()]).optional();

export const ZInterruptHandling = z
  .object({
    allow_interruptions: z.boolean().optional(),
    min_interruption_duration: optionalNum,
    min_interruption_words: optionalNum,
    /** Older names, still accepted. */
    interrupt_speech_duration: optionalNum,
    interrupt_min_words: optionalNum,
  })
  .loose();

/** `agent_pipeline_config.fillers` (ADR 100): on/off and the lines, each 1…80 characters, at most 10. */
export const ZFillers = z
  .object({
    enabled: z.boolean().optional(),
    phrases: z
      .array(z.string().trim().min(1, 'A filler cannot be empty').max(FillerOptions.maxChars, `A filler must be at most ${FillerOptions.maxChars} characters`))
      .max(FillerOptions.maxPhrases, `At most ${FillerOptions.maxPhrases} fillers`)
      .optional(),
  })
  .loose();

export const ZVadOptions = z
  .object({
    threshold: optionalNum,
    prefix_padding_ms: optionalNum,
    silence_duration_ms: optionalNum,
    min_endpointing_delay: optionalNum,
    max_endpointing_delay: optionalNum,
    min_speech_duration: optionalNum,
    min_silence_duration: optionalNum,
    prefix_padding_duration: optionalNum,
    max_buffered_speech: optionalNum,
    activation_threshold: optionalNum,
  })
  .loose();

const str = z.string().max(20_000).optional();
const secret = z.string().max(100_000).optional();

export const ZAgentPipelineConfig = z
  .object({
    stt: z
      .object({ provider: z.union([z.number(), z.string()]).optional(), default_stt: str, region: str, api_key: secret, context_phrases: str, languages: str, model: str, api_key_file_name: str })
      .loose()
      .optional(),
    tts: z
      .object({ provider: z.union([z.number(), z.string()]).optional(), default_tts: str, voice_id: str, model: str, region: str, speed: optionalNum, api_key: secret, secret_key: secret, lang_code: str })
      .loose()
      .optional(),
    llm: z
      .object({
        provider: z.union([z.number(), z.string()]).optional(),
        instructions: str,
        model: str,
        base_url: str,
        project_id: str,
        api_key: secret,
        assistant_id: str,
        max_tokens: optionalNum,
        summary_enabled: z.boolean().optional(),
        custom_text: str,
        agent_language: str,
        agent_id: str,
        region_id: str,
        api_key_file_name: str,
      })
      .loose()
      .optional(),
    interrupt_handling: ZInterruptHandling.optional(),
    vad_options: ZVadOptions.optional(),
    fillers: ZFillers.optional(),
    speech_to_speech: z.object({ url: str, api_key: secret, model: str, instructions: str, greeting: str, voice_id: str }).loose().optional(),
    third_party: z
      .object({ agent_id: str, api_key: secret, is_public: z.boolean().optional(), connection_type: z.enum(['webrtc', 'websocket']).optional() })
      .loose()
      .optional(),
  })
  .loose();
export type TAgentPipelineConfig = z.infer<typeof ZAgentPipelineConfig>;

export const ZCustomData = z
  .object({
    transcriptionStreaming: z.boolean().default(false),
    words_per_sec: z.number().min(0.5).max(20).default(AvatarLimits.wordsPerSecondDefault),
    summaryEnabled: z.boolean().default(true),
    collection_ids: z.array(ZId).max(100).default([]),
    agent_pipeline_config: ZAgentPipelineConfig.default({}),
  })
  .loose();
export type TCustomData = z.infer<typeof ZCustomData>;

/** The 15 Oculus viseme morph targets (the catalogue personas and Ready Player Me models carry them). */
export const OculusVisemes = [
  'viseme_sil', 'viseme_PP', 'viseme_FF', 'viseme_TH', 'viseme_DD', 'viseme_kk', 'viseme_CH', 'viseme_SS',
  'viseme_nn', 'viseme_RR', 'viseme_aa', 'viseme_E', 'viseme_I', 'viseme_O', 'viseme_U',
] as const;

/** What the avatar page can draw smoothly (checked when a customer uploads their own model). */
export const AvatarModelBudget = {
  maxVertices: 150_000,
  /** Above this, the upload is kept with a warning (phones). */
  comfortableVertices: 60_000,
  maxTextures: 32,
  maxTextureSide: 4096,
  maxTextureMegapixels: 64,
} as const;

/** What an uploaded model was found to hold and do. */
export const ZAvatarModelReport = z.object({
  format: z.enum(['glb', 'vrm']),
  vertices: z.number().int(),
  triangles: z.number().int(),
  meshes: z.number().int(),
  textures: z.number().int(),
  maxTextureSide: z.number().int(),
  morphTargets: z.number().int(),
  /** How its mouth is driven: VRM expressions, Oculus visemes, ARKit blend shapes, or not at all. */
  lipSync: z.enum(['vrm', 'oculus', 'arkit', 'none']),
  blink: z.boolean(),
  warnings: z.array(z.string()),
});
export type TAvatarModelReport = z.infer<typeof ZAvatarModelReport>;

export const ZMediaItem = z.object({
  id: z.number().int(),
  url: z.string(),
  name: z.string().optional(),
  type: z.string().optional(),
  size: z.number().optional(),
  /** Own avatar models: what the upload check found. */
  model: ZAvatarModelReport.optional(),
});
export const ZMediaDetails = z.object({ backgroundImage: z.array(ZMediaItem), scene: z.array(ZMediaItem), avatarModel: z.array(ZMediaItem).optional() });
export type TMediaDetails = z.infer<typeof ZMediaDetails>;

export const ZEncKeyRef = z.object({ id: z.number().int(), name: z.string(), defaultKey: z.boolean().optional() });

/** A limit in seconds: required, a number, -1 (unlimited) or above 0. */
const limitField = (message: string, required: string) =>
  z.any().transform((v: unknown, ctx) => {
    if (v === undefined || v === null || v === '') {
      ctx.addIssue({ code: 'custom', message: required });
      return z.NEVER;
    }
    const n = typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : Number.NaN;
    if (!Number.isFinite(n)) {
      ctx.addIssue({ code: 'custom', message: AvatarMessages.mustBeNumber });
      return z.NEVER;
    }
    if (!(n === -1 || n > 0)) {
      ctx.addIssue({ code: 'custom', message });
      return z.NEVER;
    }
    if (n > 86_400) {
      ctx.addIssue({ code: 'custom', message: `${message.split(' must')[0]} cannot be more than 86400 seconds` });
      return z.NEVER;
    }
    return n;
  });

/** The fields an avatar save carries (create when id is absent, update otherwise). */
/** The avatar's known fields (ZAvatarInput also keeps unknown ones). */
export const ZAvatarFields = z.object({
    id: z.optional(ZId),
    /** The version the editor loaded; an older one than stored is StaleRequest. */
    version: z.coerce.number().int().min(1).max(INT32_MAX).optional(),
    name: z.string({ error: AvatarMessages.nameRequired }).trim().min(1, { error: AvatarMessages.nameRequired, abort: true }).max(AvatarLimits.nameMax, { error: 'Avatar Name is too long' }).check(TextChecks.singleLine()),
    nlpEngine: ZNlpEngine,
    dhType: ZDhType,
    setupMode: ZSetupMode.default(0),
    callBackURL: z.string().max(2000).optional(),
    projectId: str,
    agentId: str,
    regionId: str,
    jsonKey: secret,
    jsonKeyBase64: secret,
    restApiKey: secret,
    restEndPointURL: str,
    poolName: str,
    agentLanguage: str,
    operatorAssistanceNeeded: z.boolean().optional(),
    avatarPhotoURL: z.string().max(2000).optional(),
    oauthEnabled: z.union([z.literal(0), z.literal(1)]).default(0),
    partnerOauthAppId: z.union([z.number(), z.string()]).optional().nullable(),
    billingAuthURL: z.string().max(2000).optional(),
    billingAuthPingTime: z.coerce.number().int().min(5).max(3600).default(AvatarLimits.billingAuthPingTimeDefault),
    billingAuthHeader: z.string().max(2000).optional(),
    encKeyId: z.optional(z.nullable(ZId)),
    /** Sites that may embed the avatar page (scheme://host[:port]); empty = any. */
    allowedOrigins: z
      .array(
        z
          .string()
          .trim()
          .max(200)
          .refine((v) => {
            try {
              const u = new URL(v);
              return (u.protocol === 'https:' || u.protocol === 'http:') && u.origin === v.replace(/\/+$/, '');
            } catch {
              return false;
            }
          }, { error: AvatarMessages.allowedOrigin }),
      )
      .max(20, { error: 'At most 20 allowed origins' })
      .optional(),
    wakeUpMessage: z.string({ error: AvatarMessages.wakeUpRequired }).trim().min(1, { error: AvatarMessages.wakeUpRequired }).max(AvatarLimits.wakeUpMessageMax),
    dailyLimitPerSession: limitField(AvatarMessages.dailyLimitPerSession, AvatarMessages.dailyLimitPerSessionRequired),
    dailyLimitPerIP: limitField(AvatarMessages.dailyLimitPerIP, AvatarMessages.dailyLimitPerIPRequired),
    dailyLimits: z.object({ Demo: limitField(AvatarMessages.demoLimit, AvatarMessages.demoLimitRequired) }),
    idleTimeout: z.coerce
      .number({ error: AvatarMessages.idleTimeoutRequired })
      .int({ error: AvatarMessages.idleTimeoutInteger })
      .min(10, { error: 'Idle timeout must be at least 10 seconds' })
      .max(AvatarLimits.idleTimeoutMax, { error: AvatarMessages.idleTimeoutMax })
      .default(AvatarLimits.idleTimeoutDefault),
    sendChatHistory: z.boolean({ error: AvatarMessages.fieldRequired }).default(false),
    handleSttResponse: z.boolean({ error: AvatarMessages.fieldRequired }).default(false),
    realtime: z.boolean().default(false),
    permissions: z.number().int().min(0).max(3).default(0),
    avatarConfigURL: z.string().max(2000).optional(),
    clientConfigURL: z.string().max(2000).optional(),
    avatarJson: z.string().max(500_000).optional(),
    clientJson: z.string().max(500_000).optional(),
    functions: z.array(ZId).max(100).default([]),
    customData: ZCustomData.default({ transcriptionStreaming: false, words_per_sec: 3, summaryEnabled: true, collection_ids: [], agent_pipeline_config: {} }),
    /** Media ids to delete on this save. */
    deleteMediaIds: z.array(ZId).max(100).optional(),
    /** Confirmed "Transfer Configuration File Hosting": adopt self-hosted config URLs. */
    transferConfigHosting: z.boolean().optional(),
});
export const ZAvatarInput = ZAvatarFields.loose();
export type TAvatarInput = z.input<typeof ZAvatarInput>;
export type TAvatarInputParsed = z.infer<typeof ZAvatarInput>;

export const ZAvatarIdRequest = z.object({ agentId: ZId, mode: z.enum(['get', 'delete']) });

/*
 * The avatar as the API returns it (secrets masked): what the portal's editor and the live
 * runtime read. Columns are strict; the fields kept in the stored config document are typed but
 * lenient: a stored value of the wrong type (data saved before a field was typed) is left out of
 * the answer instead of failing it, numbers stored as numeric strings are read as numbers, and
 * keys the schema does not name are kept. The server parses with ZAvatar before answering, and the
 * route's response schema (compiled into its serializer) writes exactly this shape.
 */

/** A field of the stored config: typed, optional, and left out when the stored value does not fit. */
const lenient = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);
type Lenient<S extends z.ZodRawShape> = { [K in keyof S]: z.ZodCatch<z.ZodOptional<S[K]>> };
const lenientShape = <S extends z.ZodRawShape>(shape: S) =>
  Object.fromEntries(Object.entries(shape).map(([key, schema]) => [key, lenient(schema as z.ZodType)])) as unknown as Lenient<S>;
/** An object of lenient fields that keeps the keys it does not name. */
const lenientObject = <S extends z.ZodRawShape>(shape: S) => z.object(lenientShape(shape)).loose();

/** A number, also when stored as a numeric string. */
const storedNumber = z.preprocess((v) => (typeof v === 'string' && v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v), z.number());
const numberOrString = z.union([z.number(), z.string()]);
const text = z.string();

export const ZAgentPipelineConfigRecord = lenientObject({
  stt: lenientObject({ provider: numberOrString, default_stt: text, region: text, api_key: text, context_phrases: text, languages: text, model: text, api_key_file_name: text }),
  tts: lenientObject({ provider: numberOrString, default_tts: text, voice_id: text, model: text, region: text, speed: numberOrString, api_key: text, secret_key: text, lang_code: text }),
  llm: lenientObject({
    provider: numberOrString,
    instructions: text,
    model: text,
    base_url: text,
    project_id: text,
    api_key: text,
    assistant_id: text,
    max_tokens: numberOrString,
    summary_enabled: z.boolean(),
    custom_text: text,
    agent_language: text,
    agent_id: text,
    region_id: text,
    api_key_file_name: text,
  }),
  interrupt_handling: lenientObject({ allow_interruptions: z.boolean(), min_interruption_duration: numberOrString, min_interruption_words: numberOrString }),
  vad_options: lenientObject({
    threshold: numberOrString,
    prefix_padding_ms: numberOrString,
    silence_duration_ms: numberOrString,
    min_endpointing_delay: numberOrString,
    max_endpointing_delay: numberOrString,
    min_speech_duration: numberOrString,
    min_silence_duration: numberOrString,
    prefix_padding_duration: numberOrString,
    max_buffered_speech: numberOrString,
    activation_threshold: numberOrString,
  }),
  fillers: lenientObject({ enabled: z.boolean(), phrases: z.array(text) }),
  speech_to_speech: lenientObject({ url: text, api_key: text, model: text, instructions: text, greeting: text, voice_id: text }),
  third_party: lenientObject({ agent_id: text, api_key: text, is_public: z.boolean(), connection_type: z.enum(['webrtc', 'websocket']) }),
});
export type TAgentPipelineConfigRecord = z.output<typeof ZAgentPipelineConfigRecord>;

export const ZCustomDataRecord = lenientObject({
  transcriptionStreaming: z.boolean(),
  words_per_sec: storedNumber,
  summaryEnabled: z.boolean(),
  collection_ids: z.array(z.number().int()),
  agent_pipeline_config: ZAgentPipelineConfigRecord,
});
export type TCustomDataRecord = z.output<typeof ZCustomDataRecord>;

export const ZAvatar = z
  .object({
    // The stored config document's fields (spec "Avatar (agent)").
    ...lenientShape({
      callBackURL: text,
      projectId: text,
      agentId: text,
      regionId: text,
      jsonKey: text,
      jsonKeyBase64: text,
      restApiKey: text,
      restEndPointURL: text,
      poolName: text,
      agentLanguage: text,
      operatorAssistanceNeeded: z.boolean(),
      oauthEnabled: z.union([z.literal(0), z.literal(1)]),
      partnerOauthAppId: numberOrString.nullable(),
      billingAuthURL: text,
      billingAuthPingTime: storedNumber,
      billingAuthHeader: text,
      encKeyId: z.number().int().nullable(),
      encKey: ZEncKeyRef.nullable(),
      wakeUpMessage: text,
      dailyLimitPerSession: storedNumber,
      dailyLimitPerIP: storedNumber,
      dailyLimits: lenientObject({ Demo: storedNumber }),
      idleTimeout: storedNumber,
      sendChatHistory: z.boolean(),
      handleSttResponse: z.boolean(),
      realtime: z.boolean(),
      permissions: z.number().int(),
      avatarConfigURL: text,
      clientConfigURL: text,
      avatarJson: text,
      clientJson: text,
      functions: z.array(z.number().int()),
      customData: ZCustomDataRecord,
      avatarPhotoURL: text,
      /** A token the portal's own Connect link and preview use (avatars with an encryption key). */
      token: text,
    }),
    // Columns and what the server derives.
    id: z.number().int(),
    version: z.number().int(),
    name: z.string(),
    nlpEngine: ZNlpEngine,
    nlpEngineName: z.string(),
    dhType: ZDhType,
    dhTypeName: z.string(),
    setupMode: ZSetupMode,
    usersCount: z.number().int(),
    created: z.string(),
    updated: z.string(),
    mediaDetails: ZMediaDetails,
    /** The public page of the avatar (Connect, preview, embed). */
    accessLink: z.string(),
  })
  .loose();
export type TAvatar = z.output<typeof ZAvatar>;

export const ZListAvatarsResponse = z.object({ status: ZStatus, agents: z.array(ZAvatar) });
export const ZGetAvatarResponse = z.object({ status: ZStatus, agent: ZAvatar });
export const ZSaveAvatarResponse = z.object({ status: ZStatus, agent: ZAvatar, errors: z.array(z.string()) });
export const ZDeleteAvatarResponse = z.object({ status: ZStatus, agentId: z.number().int(), errors: z.array(z.string()) });
/** A hosted avatar or client config document (/config/avatars/{id}.json, /config/clients/…, /config/custom/…): any JSON object. */
export const ZConfigDocument = z.record(z.string(), z.unknown());
export type TConfigDocument = z.infer<typeof ZConfigDocument>;

/** Files an avatar takes (add_avatar_v2 and the image-avatar requests): types with their extensions, size limits. */
export const AvatarMedia = {
  backgroundImage: { types: { 'image/jpeg': ['.jpg', '.jpeg'], 'image/png': ['.png'] }, maxMb: AvatarLimits.backgroundImageMaxMb, label: 'image' },
  backgroundVideo: { types: { 'video/mp4': ['.mp4'], 'video/quicktime': ['.mov'] }, maxMb: AvatarLimits.backgroundVideoMaxMb, label: 'video' },
  scene: { types: { 'model/gltf-binary': ['.glb'] }, maxMb: AvatarLimits.sceneMaxMb, label: 'glb' },
  /** A customer's own 3D avatar: a .glb, or a .vrm (a .glb with the VRM extension). */
  avatarModel: { types: { 'model/gltf-binary': ['.glb', '.vrm'] }, maxMb: AvatarLimits.avatarModelMaxMb, label: 'avatar model' },
  avatarPhoto: { types: { 'image/jpeg': ['.jpg', '.jpeg'] }, maxMb: 2, maxPx: AvatarLimits.avatarPhotoMaxPx, label: 'avatar photo' },
  /** The face photo of an image-avatar request, and the admin's thumbnail of the finished one. */
  imageAvatarPhoto: { types: { 'image/jpeg': ['.jpg', '.jpeg'], 'image/png': ['.png'] }, maxMb: 10, label: 'image' },
} as const satisfies Record<string, { types: Record<string, readonly string[]>; maxMb: number; label: string; maxPx?: number }>;
export const AvatarMediaMessages = {
  backgroundWrongType: 'The background must be a .jpg or .png image, or a .mp4 or .mov video.',
  sceneWrongType: 'The 3D environment must be a .glb file.',
  avatarModelWrongType: 'The avatar model must be a .glb or .vrm file.',
  avatarPhotoWrongType: 'The avatar photo must be a JPEG image.',
  avatarPhotoTooLarge: `The avatar photo must be at most ${AvatarLimits.avatarPhotoMaxPx} × ${AvatarLimits.avatarPhotoMaxPx} pixels.`,
  imageAvatarPhotoWrongType: 'The photo must be a .jpg or .png image.',
} as const;

/** Masked secret placeholder: a save that sends it back keeps the stored value. */
export const SECRET_MASK_PREFIX = '••••';
export const isMasked = (v: unknown) => typeof v === 'string' && v.startsWith(SECRET_MASK_PREFIX);
export const maskSecret = (v: string) => (v ? `${SECRET_MASK_PREFIX}${v.length > 8 ? v.slice(-4) : ''}` : '');

/** Image (photo clone) avatars: the customer's request and the finished custom avatar. */
export const ImageAvatarMessages = {
  permissionRequired: 'Please confirm that you have the permission of the person in the photo.',
  photoRequired: 'A face photo is required.',
  nameRequired: 'Avatar Name is required',
  requested: 'Request received. Your image avatar will be ready in about 24-48 hours; we will e-mail you.',
  thumbnailRequired: 'An image of the finished avatar is required.',
  alreadyDecided: 'This request has already been completed or declined.',
  landmarksInvalid: 'The face landmarks sent with the photo are not valid.',
  faceSearching: 'Looking for the face in the photo…',
  faceFound: 'Face found: the mouth will move as the avatar speaks.',
  faceNotFound: 'No face found: the photo will sway and breathe, but its mouth will not move.',
  faceSearchFailed: 'The face could not be searched for in this browser: the photo will not move its mouth.',
} as const;

export const ZImageAvatarRequestInput = z.object({
  name: z.string({ error: ImageAvatarMessages.nameRequired }).trim().min(1, { error: ImageAvatarMessages.nameRequired }).max(100).check(TextChecks.singleLine()),
  notes: z.string().trim().max(2000).default(''),
  permissionConfirmed: z.literal(true, { error: ImageAvatarMessages.permissionRequired }),
});

export const ZImageAvatarRequest = z.object({
  id: z.number().int(),
  userId: z.number().int(),
  email: z.string(),
  userName: z.string(),
  name: z.string(),
  notes: z.string(),
  photoUrl: z.string(),
  status: z.enum(['PENDING', 'COMPLETED', 'DECLINED']),
  reason: z.string().nullable(),
  created: z.string(),
  decided: z.string().nullable(),
});
export type TImageAvatarRequest = z.infer<typeof ZImageAvatarRequest>;

export const ZCustomAvatar = z.object({
  id: z.string(),
  name: z.string(),
  dhType: z.number().int(),
  thumbnail: z.string(),
  avatarConfigURL: z.string(),
});
export type TCustomAvatar = z.infer<typeof ZCustomAvatar>;

export const ZImageAvatarRequestResponse = z.object({ status: ZStatus, request: ZImageAvatarRequest });
export const ZImageAvatarRequestsResponse = z.object({ status: ZStatus, requests: z.array(ZImageAvatarRequest) });
export const ZCustomAvatarsResponse = z.object({ status: ZStatus, image: z.array(ZCustomAvatar) });

const ZPoint = z.tuple([z.number().finite().min(0).max(20_000), z.number().finite().min(0).max(20_000)]);

/**
 * A talking photo's face, found once when the admin attaches it (dlib's 68-point layout): the
 * image size the points refer to, the jaw line (0-16), each eye (36-41, 42-47), the outer and
 * inner lips (48-67) and, when found, the brows (17-26) and nose (27-35). The avatar page animates
 * the face from them.
 */
export const ZPhotoLandmarks = z.object({
  width: z.number().int().min(1).max(20_000),
  height: z.number().int().min(1).max(20_000),
  jaw: z.array(ZPoint).length(17),
  leftEye: z.array(ZPoint).length(6),
  rightEye: z.array(ZPoint).length(6),
  mouth: z.array(ZPoint).length(20),
  /** Each brow (17-21, 22-26) and the nose (bridge 27-30, base 31-35): optional, absent on photos attached before they were kept. */
  leftBrow: z.array(ZPoint).length(5).optional(),
  rightBrow: z.array(ZPoint).length(5).optional(),
  nose: z.array(ZPoint).length(9).optional(),
});
export type TPhotoLandmarks = z.infer<typeof ZPhotoLandmarks>;

export const ZCompleteImageAvatarInput = z.object({
  requestId: ZId,
  decision: z.enum(['complete', 'decline']),
  name: z.string().trim().max(100).optional(),
  reason: z.string().trim().max(500).optional(),
  /** JSON of ZPhotoLandmarks (a multipart field), when the admin's browser found the face. */
  landmarks: z.string().max(20_000).optional(),
});
