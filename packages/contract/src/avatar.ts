import { z } from 'zod';
import { ZStatus } from './common.js';

/** Engine (nlpEngine), spec numbers. */
export const NlpEngine = {
  EchoTest: 0,
  RestEndpoint: 1,
  DialogflowES: 2,
  DialogflowCX: 3,
  CustomChatGPTPrompt: 6,
  CustomChatGPTAssistant: 7,
  Ten: 8,
  TrulienceRealtime: 9,
  LargeLanguageModel: 10,
  ElevenLabsConversationAI: 11,
  CUSTOM_STT_LLM_TTS: 12,
} as const;
export type TNlpEngine = (typeof NlpEngine)[keyof typeof NlpEngine];
export const NlpEngineName: Record<TNlpEngine, string> = {
  0: 'Echo Test',
  1: 'REST Endpoint',
  2: 'Google Dialogflow ES',
  3: 'Google Dialogflow CX',
  6: 'Custom ChatGPT Prompt',
  7: 'Custom ChatGPT Assistant',
  8: 'TEN',
  9: 'Persona Studio Realtime',
  10: 'Large Language Model',
  11: 'ElevenLabs Conversational AI',
  12: 'Custom STT/LLM/TTS',
};
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

/** Engines allowed per mode (spec "Engines per mode"). */
export const EnginesPerMode: Record<TSetupMode, TNlpEngine[]> = {
  0: [NlpEngine.EchoTest, NlpEngine.LargeLanguageModel, NlpEngine.RestEndpoint],
  1: [NlpEngine.EchoTest, NlpEngine.LargeLanguageModel, NlpEngine.RestEndpoint, NlpEngine.DialogflowCX, NlpEngine.DialogflowES],
  2: [NlpEngine.TrulienceRealtime],
  3: [NlpEngine.Ten, NlpEngine.ElevenLabsConversationAI, NlpEngine.CUSTOM_STT_LLM_TTS],
};

export const SttProvider = { Default: 0, Google: 1, Azure: 2, Deepgram: 3, None: 4 } as const;
export const TtsProvider = { Polly: 0, Azure: 1, ElevenLabs: 2, Default: 3, None: 4, Cartesia: 5, Neuphonic: 6 } as const;
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
    collection_ids: z.array(z.number().int()).max(100).default([]),
    agent_pipeline_config: ZAgentPipelineConfig.default({}),
  })
  .loose();
export type TCustomData = z.infer<typeof ZCustomData>;

export const ZMediaItem = z.object({ id: z.number().int(), url: z.string(), name: z.string().optional(), type: z.string().optional(), size: z.number().optional() });
export const ZMediaDetails = z.object({ backgroundImage: z.array(ZMediaItem), scene: z.array(ZMediaItem) });
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
    id: z.coerce.number().int().positive().optional(),
    /** The version the editor loaded; an older one than stored is StaleRequest. */
    version: z.coerce.number().int().min(1).optional(),
    name: z.string({ error: AvatarMessages.nameRequired }).trim().min(1, { error: AvatarMessages.nameRequired, abort: true }).max(AvatarLimits.nameMax, { error: 'Avatar Name is too long' }),
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
    encKeyId: z.coerce.number().int().positive().optional().nullable(),
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
    functions: z.array(z.coerce.number().int().positive()).max(100).default([]),
    customData: ZCustomData.default({ transcriptionStreaming: false, words_per_sec: 3, summaryEnabled: true, collection_ids: [], agent_pipeline_config: {} }),
    /** Media ids to delete on this save. */
    deleteMediaIds: z.array(z.number().int().positive()).max(100).optional(),
    /** Confirmed "Transfer Configuration File Hosting": adopt self-hosted config URLs. */
    transferConfigHosting: z.boolean().optional(),
});
export const ZAvatarInput = ZAvatarFields.loose();
export type TAvatarInput = z.input<typeof ZAvatarInput>;
export type TAvatarInputParsed = z.infer<typeof ZAvatarInput>;

/** The avatar as the API returns it (secrets masked). */
export type TAvatar = Omit<z.infer<typeof ZAvatarFields>, 'id' | 'version' | 'deleteMediaIds' | 'transferConfigHosting'> & {
  id: number;
  version: number;
  nlpEngineName: string;
  dhTypeName: string;
  usersCount: number;
  created: string;
  updated: string;
  token?: string;
  encKey?: z.infer<typeof ZEncKeyRef> | null;
  mediaDetails: TMediaDetails;
  avatarPhotoURL?: string;
  /** The public page of the avatar (Connect, preview, embed). */
  accessLink: string;
};

export const ZAvatarIdRequest = z.object({ agentId: z.coerce.number().int().positive(), mode: z.enum(['get', 'delete']) });
export const ZAvatarAnswer = z.object({ status: ZStatus, agent: z.unknown().optional(), errors: z.array(z.string()).optional(), failReason: z.number().optional() });

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
} as const;

export const ZImageAvatarRequestInput = z.object({
  name: z.string({ error: ImageAvatarMessages.nameRequired }).trim().min(1, { error: ImageAvatarMessages.nameRequired }).max(100),
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

export const ZCompleteImageAvatarInput = z.object({
  requestId: z.coerce.number().int().positive(),
  decision: z.enum(['complete', 'decline']),
  name: z.string().trim().max(100).optional(),
  reason: z.string().trim().max(500).optional(),
});
