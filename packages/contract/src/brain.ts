/**
 * The Brain tab's engine forms (avatar creator spec section 5 "Engine forms"): the messages the
 * editor shows and the server answers (InvalidOrMissingParams) when an engine's settings are
 * missing or wrong, and the limits both sides check.
 */
export const EngineMessages = {
  restUrlRequired: 'REST Endpoint URL is required',
  notAValidUrl: 'Not a valid URL',
  restKeyRequired: 'REST API Key is required',
  memoryRequired: 'A value for Avatar Memory is required',
  dialogflowProjectRequired: 'Dialogflow Project Id is required',
  dialogflowKeyRequired: 'Dialogflow JSON Key is required',
  dialogflowKeyInvalid: 'Dialogflow JSON Key must be a service account key file (JSON)',
  dialogflowAgentRequired: 'Dialogflow Agent Id is required',
  dialogflowRegionRequired: 'Dialogflow Region Id is required',
  llmModelRequired: 'LLM Model is required',
  llmUrlRequired: 'LLM Base URL is required',
  llmKeyRequired: 'LLM API Key is required',
  assistantRequired: 'Select a Assistant',
  maxTokens: 'Max Tokens must be an integer greater than 0',
  realtimeUrlRequired: 'Realtime URL is required',
  realtimeKeyRequired: 'Realtime API Key is required',
  realtimeModelRequired: 'Realtime Model is required',
  realtimeVoiceRequired: 'Realtime Voice is required',
  agentIdRequired: 'Agent ID is required',
  agentIdInvalid: 'Agent ID is invalid',
  agentKeyInvalid: 'API Key is invalid',
  agentKeyRequired: 'API Key is required for this agent',
  agentIdTooShort: 'Agent ID is too short',
} as const;

export const EngineLimits = {
  /** 'Agent ID is too short' below this (while the check is idle); the check itself needs 12. */
  agentIdShort: 10,
  maxTokensMax: 1_000_000,
  /** A Dialogflow service-account key file. */
  jsonKeyMaxBytes: 64 * 1024,
  promptMax: 20_000,
} as const;

/** An ElevenLabs agent id (the provider's ids are letters, digits, `_` and `-`). */
export const ELEVENLABS_AGENT_ID = /^[A-Za-z0-9_-]+$/;

/**
 * User-typed URLs the server or the worker will call (LLM base URL, REST endpoint, realtime URL,
 * OpenAI-compatible STT/TTS endpoints, billing-auth URL), checked on save with the outbound-URL
 * rule the calls themselves follow: http(s) (ws(s) for realtime), no user name or password, at
 * most `OutboundUrlLimits.urlMax` characters, and no private, loopback or reserved address
 * unless the server allows them (ALLOW_PRIVATE_URLS). Each message names the field.
 */
export const OutboundUrlFields = {
  llmBaseUrl: 'LLM Base URL',
  restEndpointUrl: 'REST Endpoint URL',
  realtimeUrl: 'Realtime URL',
  sttBaseUrl: 'Speech-to-text endpoint URL',
  ttsBaseUrl: 'Text-to-speech endpoint URL',
  billingAuthUrl: 'Billing Auth URL',
} as const;

export const OutboundUrlLimits = { urlMax: 2048 } as const;

export const OutboundUrlMessages = {
  invalid: (field: string, schemes = 'http(s)') => `${field} must be a valid ${schemes} URL`,
  credentials: (field: string) => `${field} must not contain a user name or password`,
  tooLong: (field: string) => `${field} is too long (at most ${OutboundUrlLimits.urlMax} characters)`,
  privateAddress: (field: string) => `${field} must not point to a private, local or reserved address`,
} as const;
