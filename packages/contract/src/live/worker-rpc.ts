import { z } from 'zod';
import { LiveLimits } from './admission.js';
import { LiveCode, type TLiveCode } from './codes.js';
import { ZLiveHistoryEntry } from './protocol.js';
import { ZLiveSpeech } from './session-speech.js';

const ZLiveCode = z.enum(Object.values(LiveCode) as [TLiveCode, ...TLiveCode[]]);

/**
 * Worker ⇄ portal calls over the existing worker socket (/api/worker/ws): the worker never holds
 * database credentials; it asks the portal for a session's configuration (with the avatar's
 * secrets decrypted), for knowledge passages, and reports heartbeats, history and the end.
 * Requests: `{type:'rpc', id, method, params}` → `{type:'rpc-result', id, ok, result | error}`.
 * The portal may push `{type:'session-stop', sessionId, code}`.
 */

/** What a brain needs, normalised by the portal from the stored avatar (secrets in clear). */
export const ZLiveBrainConfig = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('echo') }),
  z.object({
    kind: z.literal('llm'),
    /** OpenAI-compatible base URL (…/v1, Groq, Gemini's /v1beta/openai…). */
    baseUrl: z.string(),
    apiKey: z.string(),
    model: z.string(),
    /** The avatar's prompt, or the 15–35-word default when empty. */
    instructions: z.string(),
    maxTokens: z.number().int().positive().nullable(),
    /** Simple mode: the operator's platform model. */
    platform: z.boolean(),
  }),
  z.object({
    kind: z.literal('assistant'),
    baseUrl: z.string(),
    apiKey: z.string(),
    assistantId: z.string(),
    instructions: z.string(),
    maxTokens: z.number().int().positive().nullable(),
  }),
  z.object({
    kind: z.literal('rest'),
    url: z.string(),
    apiKey: z.string(),
    customText: z.string(),
    agentLanguage: z.string(),
    sendChatHistory: z.boolean(),
  }),
  z.object({
    kind: z.literal('dialogflow'),
    version: z.enum(['es', 'cx']),
    projectId: z.string(),
    agentId: z.string(),
    regionId: z.string(),
    language: z.string(),
    /** The service-account JSON key (client_email, private_key, token_uri). */
    serviceAccountJson: z.string(),
  }),
  /**
   * SpeechToSpeech (engine 9): a multimodal realtime model hears the visitor and answers aloud
   * (OpenAI Realtime or Gemini Live over WebSocket). `platform`: the product's own realtime
   * (always OpenAI) — no key stored on the avatar, the worker uses the operator's key and URL.
   */
  z.object({
    kind: z.literal('realtime'),
    provider: z.enum(['openai', 'gemini']),
    /** The avatar's realtime URL (wss://…/v1/realtime, wss://generativelanguage.googleapis.com/ws); '' with `platform`. */
    url: z.string(),
    /** The avatar's key; '' with `platform`. */
    apiKey: z.string(),
    platform: z.boolean(),
    model: z.string(),
    voice: z.string(),
    instructions: z.string(),
    /** Said first when the session opens (the realtime greeting, else the wake-up message). */
    greeting: z.string(),
    /** The provider's server VAD (vad_options.threshold, prefix_padding_ms, silence_duration_ms). */
    vad: z.object({ threshold: z.number(), prefixPaddingMs: z.number(), silenceDurationMs: z.number() }),
  }),
  /**
   * None mode, engine ElevenLabsConversationAI (11): an ElevenLabs Conversational AI agent hears
   * the visitor and answers aloud over one WebSocket per session (ADR 071). Public agents connect
   * by id; private ones through a signed URL the worker fetches with `apiKey` (never sent on).
   */
  z.object({
    kind: z.literal('elevenlabs'),
    agentId: z.string(),
    /** The avatar's ElevenLabs key (private agents); '' for a public agent. */
    apiKey: z.string(),
    isPublic: z.boolean(),
    /** The editor's choice; the worker always connects by WebSocket (WebRTC needs ElevenLabs' media servers). */
    connectionType: z.enum(['webrtc', 'websocket']),
    /** Said first by asking the agent; '' (the default): the agent's own first message greets. */
    greeting: z.string(),
  }),
  /**
   * None mode, engines Ten (8) and CUSTOM_STT_LLM_TTS (12): the customer's own agent joins the
   * session over the agent API (ADR 072) and answers with its own audio.
   */
  z.object({
    kind: z.literal('agent'),
    framework: z.enum(['ten', 'custom']),
    /** The wake-up message: the agent is asked to say it first. */
    greeting: z.string(),
  }),
  /** The engine is configured but cannot run here (platform model unset, realtime not yet…). */
  z.object({ kind: z.literal('unavailable'), code: ZLiveCode, detail: z.string() }),
]);
export type TLiveBrainConfig = z.infer<typeof ZLiveBrainConfig>;

export const ZLiveFunction = z.object({
  id: z.number().int(),
  name: z.string(),
  code: z.string(),
  /** Only functions whose template needs the network get the guarded fetch helper. */
  allowNetwork: z.boolean(),
});
export type TLiveFunction = z.infer<typeof ZLiveFunction>;

export const ZLiveSessionConfig = z.object({
  sessionId: z.string(),
  resumed: z.boolean(),
  avatar: z.object({
    id: z.number().int(),
    name: z.string(),
    ownerUserId: z.number().int(),
    nlpEngine: z.number().int(),
    setupMode: z.number().int(),
    wakeUpMessage: z.string(),
    idleTimeoutSeconds: z.number(),
    /** -1: no demo limit. */
    demoSeconds: z.number(),
    /** The session's start (ms), for the demo limit across a resume. */
    startedAt: z.number(),
    sendChatHistory: z.boolean(),
    permissions: z.number().int(),
    summaryEnabled: z.boolean(),
    hasKnowledge: z.boolean(),
    /** Lines said while an answer is slow (ADR 100); missing or []: no fillers. */
    fillers: z.array(z.string().max(200)).max(20).optional(),
  }),
  brain: ZLiveBrainConfig,
  /** How the session listens, speaks and takes turns (session-speech.ts), with only the keys it uses. */
  speech: ZLiveSpeech,
  functions: z.array(ZLiveFunction),
  /** Over a daily limit at admission: answer in echo-back. */
  echo: z.boolean(),
  history: z.array(ZLiveHistoryEntry),
  /** Avatar memory: the summary of this visitor's earlier sessions with this avatar. */
  memory: z.string().nullable(),
  visitorId: z.string().nullable(),
  /** May outbound calls (REST brain, functions' fetch) reach private addresses (ALLOW_PRIVATE_URLS)? */
  allowPrivateUrls: z.boolean(),
  textOnly: z.boolean(),
});
export type TLiveSessionConfig = z.infer<typeof ZLiveSessionConfig>;

export const ZLivePassage = z.object({
  text: z.string(),
  /** Item name (file name, URL or title) for "according to …". */
  source: z.string(),
  collectionId: z.number().int(),
  itemId: z.number().int(),
});
export type TLivePassage = z.infer<typeof ZLivePassage>;

/** One knowledge item's title and text (its chunks' text, overlaps removed) for an avatar's speech model. */
export const ZLiveVocabularyItem = z.object({ title: z.string(), text: z.string() });
export type TLiveVocabularyItem = z.infer<typeof ZLiveVocabularyItem>;

export const ZLiveTurnMetrics = z.object({
  /** ms from the visitor's turn to the brain's first output. */
  firstTokenMs: z.number().nullable(),
  totalMs: z.number(),
  toolCalls: z.number().int(),
  retrievalMs: z.number().nullable(),
  error: z.string().nullable(),
});

/** One spoken turn's latency figures (ms), kept with the session and sent with its end. */
export const LiveProviderErrorLimits = { entries: 20, countMax: 100_000 } as const;

/** How often one provider failed in one phase (start, speech, listening, summary…) of a session. */
export const ZLiveProviderErrorCount = z.object({
  provider: z.string().min(1).max(64),
  phase: z.string().min(1).max(32),
  count: z.number().int().min(1).max(LiveProviderErrorLimits.countMax),
});
export type TLiveProviderErrorCount = z.infer<typeof ZLiveProviderErrorCount>;

export const ZLiveVoiceTurnMetrics = z.object({
  /** ms since 1970 when the turn was committed. */
  at: z.number(),
  /** End of the visitor's speech → turn committed (endpointing + STT). */
  endOfUtteranceMs: z.number().nullable(),
  /** Asking the STT for the final text → getting it. */
  sttMs: z.number().nullable(),
  /** Turn committed → the brain's first text. */
  llmFirstTokenMs: z.number().nullable(),
  /** The brain's first text → the first avatar audio sent. */
  ttsFirstByteMs: z.number().nullable(),
  /** End of the visitor's speech → the first avatar audio sent. */
  endToEndMs: z.number().nullable(),
  interrupted: z.boolean(),
});
export type TLiveVoiceTurnMetrics = z.infer<typeof ZLiveVoiceTurnMetrics>;

/** method → params and result schemas. */
export const LiveRpc = {
  'session.claim': {
    params: z.object({ sessionId: z.string().max(64), jti: z.string().max(64) }),
    result: ZLiveSessionConfig,
  },
  'session.heartbeat': {
    params: z.object({ sessionId: z.string().max(64), lastUserActivityAt: z.number().nullable() }),
    /** echo: switch to echo-back (daily limit); end: the portal ends the session. */
    result: z.object({ echo: z.boolean(), end: ZLiveCode.nullable() }),
  },
  'session.history': {
    params: z.object({ sessionId: z.string().max(64), history: z.array(ZLiveHistoryEntry).max(200), metrics: ZLiveTurnMetrics.optional() }),
    result: z.object({}),
  },
  /** A function (tool) the brain called failed: the portal sends the `function.failed` webhook (ADR 093). */
  'session.function_failed': {
    params: z.object({ sessionId: z.string().max(64), name: z.string().max(200), error: z.string().max(500).nullable() }),
    result: z.object({}),
  },
  'session.end': {
    params: z.object({
      sessionId: z.string().max(64),
      code: ZLiveCode,
      summary: z.string().max(4000).nullable(),
      turns: z.array(ZLiveVoiceTurnMetrics).max(200).optional(),
      /** The session's provider failures by provider and phase (ADR 099: analytics). */
      providerErrors: z.array(ZLiveProviderErrorCount).max(LiveProviderErrorLimits.entries).optional(),
    }),
    result: z.object({}),
  },
  /** Bring your own agent: offer this session to an agent connected for its avatar (ADR 072). */
  'agent.offer': {
    params: z.object({ sessionId: z.string().max(64) }),
    result: z.object({ offered: z.boolean() }),
  },
  'knowledge.search': {
    params: z.object({ sessionId: z.string().max(64), query: z.string().max(2000), k: z.number().int().min(1).max(10) }),
    result: z.object({ passages: z.array(ZLivePassage) }),
  },
  /**
   * The titles and text of the session's avatar's knowledge base, for its speech model (ADR 105):
   * the owner's collections only, in a fixed order, cut at LiveLimits.vocabularyMaxChars in all.
   */
  'knowledge.vocabulary': {
    params: z.object({ sessionId: z.string().max(64) }),
    result: z.object({ items: z.array(ZLiveVocabularyItem) }).refine((r) => r.items.reduce((n, i) => n + i.title.length + i.text.length, 0) <= LiveLimits.vocabularyMaxChars, { message: `at most ${LiveLimits.vocabularyMaxChars} characters` }),
  },
} as const;
export type TLiveRpcMethod = keyof typeof LiveRpc;
export type TLiveRpcParams<M extends TLiveRpcMethod> = z.infer<(typeof LiveRpc)[M]['params']>;
export type TLiveRpcResult<M extends TLiveRpcMethod> = z.infer<(typeof LiveRpc)[M]['result']>;

export const ZWorkerRpcRequest = z.object({
  type: z.literal('rpc'),
  id: z.number().int().nonnegative(),
  method: z.enum(Object.keys(LiveRpc) as [TLiveRpcMethod, ...TLiveRpcMethod[]]),
  params: z.unknown(),
});
export type TWorkerRpcRequest = z.infer<typeof ZWorkerRpcRequest>;

export const ZWorkerRpcResult = z.object({
  type: z.literal('rpc-result'),
  id: z.number().int().nonnegative(),
  ok: z.boolean(),
  result: z.unknown().optional(),
  /** A LiveCode when the portal refuses (e.g. session-not-found), else a short reason. */
  error: z.string().optional(),
});

export const ZWorkerSessionStop = z.object({ type: z.literal('session-stop'), sessionId: z.string(), code: ZLiveCode });
