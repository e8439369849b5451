import {
  checkEngineConfig,
  EnginesPerMode,
  isMasked,
  LlmBaseUrls,
  NlpEngine,
  RealtimeBaseUrls,
  RealtimeModels,
  RealtimeVoices,
  SetupMode,
  SimpleModeLlmModels,
  SttDefaults,
  SttProvider,
  TtsProvider,
  type TElevenLabsAgentState,
  type TNlpEngine,
  type TSetupMode,
} from '@persona/contract';
import type { TAvatar } from '@persona/contract';
import { applyLinkValues, linkValuesOf, type LinkValues } from './brain-links';
import { applySpeechValues, speechValuesOf, type SpeechValues, type SttDetails, type TtsDetails } from './speech-form';

/**
 * The Brain tab's Foundations form (spec sections 3 "Form-side detail groups", 4 "Engine change",
 * "LLM base URL change", "Setup mode change", "Third-party agent ID check", 5 "Engine forms").
 * Pure functions: what the form holds for an avatar, how it changes, what is wrong with it, and
 * how it goes back into the save payload.
 */

export type TInteractionType = 'prompt' | 'assistant';
export type TConnectionType = 'webrtc' | 'websocket';

export interface LlmDetails {
  llmProvider: string;
  /** The base URL. */
  url: string;
  llmAPIKey: string;
  llmModel: string;
  llmPrompt: string;
  interactionType: TInteractionType;
  llmAssistantId: string;
  /** Avatar memory. */
  summaryEnabled: boolean;
  llmMaxTokens: string;
}

export interface RestEndpointDetails {
  base_url: string;
  api_key: string;
  custom_text: string;
  summary_enabled: boolean;
  agent_language: string;
}

/** dialogFlowES; CX adds agent_id and region_id. */
export interface DialogflowDetails {
  project_id: string;
  /** The JSON key file's text (or its mask). */
  api_key: string;
  api_key_file_name: string;
  agent_language: string;
  agent_id: string;
  region_id: string;
}

export interface RealtimeDetails {
  url: string;
  api_key: string;
  model: string;
  instructions: string;
  greeting: string;
  voice_id: string;
}

export interface ElevenLabsDetails {
  agent_id: string;
  api_key: string;
  connection_type: TConnectionType;
  /** The agent check's state (its message is only shown: brain/engine-forms.tsx). */
  status: TElevenLabsAgentState;
}

/**
 * Speech settings: the speech forms (brain/speech-forms.tsx, lib/speech-form.ts) own these groups;
 * the engine side only reads and forces the providers (TEN and realtime set both to None).
 */
export type { SttDetails, TtsDetails };

/**
 * The whole Brain tab form: Foundations, the speech groups (SpeechValues) and the links of the
 * Knowledge Base and Functions sub-tabs (LinkValues: collection_ids and functions).
 */
export interface BrainValues extends SpeechValues, LinkValues {
  setupMode: TSetupMode;
  /** The engine as the form shows it: the older prompt/assistant engines (6, 7) are LLM (10). */
  nlpEngine: TNlpEngine;
  llmDetails: LlmDetails;
  restEndpoint: RestEndpointDetails;
  dialogFlow: DialogflowDetails;
  trulienceRealtime: RealtimeDetails;
  elevenLabsConversationAI: ElevenLabsDetails;
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');
const bool = (v: unknown, fallback: boolean): boolean => (typeof v === 'boolean' ? v : fallback);

export const GROQ = LlmBaseUrls.find((b) => b.provider === 'groq')!;
export const OPENAI = LlmBaseUrls.find((b) => b.provider === 'openai')!;
export const CUSTOM_URL = 'custom';

const trimSlash = (url: string) => url.trim().replace(/\/+$/, '');

/** The catalogue entry of a base URL, if it is one. */
export const knownBaseUrl = (url: string) => LlmBaseUrls.find((b) => trimSlash(b.url) === trimSlash(url));

/** Providers are mapped only for OpenAI, Groq and Gemini; any other base URL is 'custom'. */
export const providerOf = (url: string): string => knownBaseUrl(url)?.provider ?? 'custom';

export const isOpenAiUrl = (url: string) => knownBaseUrl(url)?.provider === 'openai';

/** Which engine the form shows for a stored one. */
export function formEngine(engine: number): TNlpEngine {
  if (engine === NlpEngine.CustomChatGPTPrompt || engine === NlpEngine.CustomChatGPTAssistant) return NlpEngine.LargeLanguageModel;
  return engine as TNlpEngine;
}

/** Realtime voices and models of a realtime URL (OpenAI unless it is Gemini's). */
export function realtimeFamily(url: string): 'openai' | 'gemini' {
  return /generativelanguage\.googleapis\.com|gemini/i.test(url) ? 'gemini' : 'openai';
}
export const realtimeVoicesOf = (url: string): readonly string[] => RealtimeVoices[realtimeFamily(url)];
export const realtimeModelsOf = (url: string): readonly string[] => RealtimeModels[realtimeFamily(url)];

/** The form's values for a saved avatar. */
export function brainValuesOf(agent: Partial<TAvatar>): BrainValues {
  const a = agent as Obj;
  const customData = obj(a.customData);
  const pipeline = obj(customData.agent_pipeline_config);
  const llm = obj(pipeline.llm);
  const s2s = obj(pipeline.speech_to_speech);
  const third = obj(pipeline.third_party);
  const engine = Number(a.nlpEngine ?? NlpEngine.EchoTest);
  const url = str(llm.base_url) || (formEngine(engine) === NlpEngine.LargeLanguageModel ? GROQ.url : '');
  const memory = bool(llm.summary_enabled, customData.summaryEnabled !== false);
  const s2sUrl = str(s2s.url) || RealtimeBaseUrls[0].url;
  return {
    setupMode: (Number(a.setupMode ?? SetupMode.Simple) as TSetupMode) ?? SetupMode.Simple,
    nlpEngine: formEngine(engine),
    llmDetails: {
      llmProvider: str(llm.provider) || (engine === NlpEngine.EchoTest ? 'echo' : url ? providerOf(url) : ''),
      url,
      llmAPIKey: str(llm.api_key),
      llmModel: str(llm.model),
      llmPrompt: str(llm.instructions),
      interactionType: engine === NlpEngine.CustomChatGPTAssistant || str(llm.assistant_id) ? 'assistant' : 'prompt',
      llmAssistantId: str(llm.assistant_id),
      summaryEnabled: memory,
      llmMaxTokens: str(llm.max_tokens),
    },
    restEndpoint: {
      base_url: str(a.restEndPointURL),
      api_key: str(a.restApiKey),
      custom_text: str(llm.custom_text),
      summary_enabled: memory,
      agent_language: str(a.agentLanguage) || str(llm.agent_language) || SttDefaults.agentLanguage,
    },
    dialogFlow: {
      project_id: str(a.projectId) || str(llm.project_id),
      api_key: str(a.jsonKey) || str(a.jsonKeyBase64),
      api_key_file_name: str(llm.api_key_file_name),
      agent_language: str(a.agentLanguage) || str(llm.agent_language) || SttDefaults.agentLanguage,
      agent_id: str(a.agentId) || str(llm.agent_id),
      region_id: str(a.regionId) || str(llm.region_id),
    },
    trulienceRealtime: {
      url: s2sUrl,
      api_key: str(s2s.api_key),
      model: str(s2s.model),
      instructions: str(s2s.instructions),
      greeting: str(s2s.greeting),
      voice_id: str(s2s.voice_id),
    },
    elevenLabsConversationAI: {
      agent_id: str(third.agent_id),
      api_key: str(third.api_key),
      // Default webrtc; websocket when a saved value says so.
      connection_type: third.connection_type === 'websocket' ? 'websocket' : 'webrtc',
      status: third.is_public === true ? 'public' : str(third.agent_id) && third.is_public === false ? 'private' : 'idle',
    },
    ...speechValuesOf(agent),
    ...linkValuesOf(agent),
  };
}

/** STT and TTS are hidden for None and SpeechToSpeech. */
export const hasSpeechSections = (mode: TSetupMode) => mode === SetupMode.Simple || mode === SetupMode.Composite;

/**
 * Spec "Interaction type radio (prompt/assistant): shown only for Composite, non-realtime, OpenAI
 * base URL."
 */
export const showsInteractionType = (values: Pick<BrainValues, 'setupMode' | 'llmDetails'>, isRealtime: boolean) =>
  values.setupMode === SetupMode.Composite && !isRealtime && isOpenAiUrl(values.llmDetails.url);

/** The engine change (spec section 4): what else changes with it. */
export function withEngine(values: BrainValues, engine: TNlpEngine): BrainValues {
  const next: BrainValues = { ...values, nlpEngine: engine, llmDetails: { ...values.llmDetails } };
  if (engine === NlpEngine.EchoTest) next.llmDetails.llmProvider = 'echo';
  if (engine === NlpEngine.LargeLanguageModel) {
    next.llmDetails = withBaseUrl(next, GROQ.url).llmDetails;
  }
  if (engine === NlpEngine.Ten) next.llmDetails.llmProvider = 'none';
  if (engine === NlpEngine.Ten || engine === NlpEngine.TrulienceRealtime) {
    next.sttDetails = { ...values.sttDetails, sttProvider: SttProvider.None };
    next.ttsDetails = { ...values.ttsDetails, ttsProvider: TtsProvider.None };
  }
  if (engine === NlpEngine.TrulienceRealtime && !next.trulienceRealtime.url) next.trulienceRealtime = { ...next.trulienceRealtime, url: RealtimeBaseUrls[0].url };
  return next;
}

/**
 * The LLM base URL change: clears the model, the key and the assistant, the interaction type goes
 * back to prompt and the provider follows the URL. Simple mode forces Groq and its first model.
 */
export function withBaseUrl(values: BrainValues, url: string): BrainValues {
  if (values.setupMode === SetupMode.Simple) {
    return {
      ...values,
      llmDetails: { ...values.llmDetails, url: GROQ.url, llmProvider: 'groq', llmModel: SimpleModeLlmModels[0], llmAPIKey: '', llmAssistantId: '', interactionType: 'prompt' },
    };
  }
  return {
    ...values,
    llmDetails: { ...values.llmDetails, url, llmProvider: providerOf(url), llmModel: '', llmAPIKey: '', llmAssistantId: '', interactionType: 'prompt' },
  };
}

/**
 * The setup mode change: every detail goes back to the saved avatar; the model name is cleared
 * when the mode differs from the saved one; an engine the mode does not offer becomes the mode's
 * first engine (with that engine's own changes).
 */
export function withSetupMode(saved: BrainValues, current: BrainValues, mode: TSetupMode): BrainValues {
  let next: BrainValues = { ...saved, setupMode: mode, nlpEngine: current.nlpEngine, llmDetails: { ...saved.llmDetails } };
  if (mode !== saved.setupMode) next.llmDetails.llmModel = '';
  const allowed = EnginesPerMode[mode];
  if (!allowed.includes(next.nlpEngine)) next = withEngine(next, allowed[0]!);
  else if (next.nlpEngine !== saved.nlpEngine) next = withEngine(next, next.nlpEngine);
  if (mode === SetupMode.Simple && next.nlpEngine === NlpEngine.LargeLanguageModel) next = withBaseUrl(next, GROQ.url);
  return next;
}

const isBlank = (v: string | undefined) => !v || v.trim() === '';

export interface BrainIssue {
  path: string;
  message: string;
}

/**
 * What is wrong with the engine form (spec section 5 "Engine forms"): the engine's rules
 * (contract `checkEngineConfig`, the engine's row) on the form's fields, trimmed. Only the engine
 * in use is checked. A key counts as given when the form holds one (a mask stands for the stored
 * key). `isRealtime` is the avatar's realtime setting (the interaction type depends on it); the
 * ElevenLabs agent's id and key go by the form's agent check.
 */
export function brainIssues(values: BrainValues, isRealtime: boolean): BrainIssue[] {
  const out: BrainIssue[] = [];
  const engine = values.nlpEngine;
  if (!EnginesPerMode[values.setupMode].includes(engine)) out.push({ path: 'nlpEngine', message: 'Avatar Engine is not available in the selected mode' });
  const read = (path: string, trim = true): unknown => {
    const value = path.split('.').reduce<unknown>((cur, part) => (cur && typeof cur === 'object' ? (cur as Obj)[part] : undefined), values);
    return trim && typeof value === 'string' ? value.trim() : value;
  };
  const issues = checkEngineConfig({
    engine,
    setupMode: values.setupMode,
    // A key file's text is checked as the save sends it (untrimmed), as the server checks it.
    read: (field) => read(field.form, field.rule?.test !== 'serviceAccountJson'),
    hasSecret: (field) => !isBlank(read(field.form) as string | undefined),
    assistant: showsInteractionType(values, isRealtime) && values.llmDetails.interactionType === 'assistant',
    agentCheck: values.elevenLabsConversationAI.status,
  });
  for (const issue of issues) out.push({ path: issue.field, message: issue.message });
  return out;
}

/**
 * Writes the Foundations form into the save payload: the engine and mode, the engine's group of
 * `agent_pipeline_config` and the top-level fields the runtime reads (REST and Dialogflow).
 * Secrets travel as typed, or as their mask (the server keeps the stored one). Groups of other
 * engines are kept as stored, so switching back finds them. The speech groups (applySpeechValues)
 * and the sub-tabs' links (applyLinkValues) are written here too: one call saves the whole tab.
 */
export function applyBrainValues(payload: Obj, values: BrainValues, isRealtime: boolean): Obj {
  const customData = { ...obj(payload.customData) };
  const pipeline = { ...obj(customData.agent_pipeline_config) };
  const next: Obj = { ...payload, setupMode: values.setupMode, nlpEngine: values.nlpEngine };
  const engine = values.nlpEngine;
  const llm = { ...obj(pipeline.llm) };
  if (engine === NlpEngine.EchoTest) llm.provider = 'echo';
  if (engine === NlpEngine.Ten) llm.provider = 'none';
  if (engine === NlpEngine.LargeLanguageModel) {
    const l = values.llmDetails;
    const isAssistant = showsInteractionType(values, isRealtime) && l.interactionType === 'assistant';
    Object.assign(llm, {
      provider: providerOf(l.url),
      base_url: trimSlash(l.url),
      api_key: values.setupMode === SetupMode.Simple ? '' : l.llmAPIKey.trim(),
      model: l.llmModel.trim(),
      instructions: l.llmPrompt,
      assistant_id: isAssistant ? l.llmAssistantId : '',
      summary_enabled: l.summaryEnabled,
    });
    if (isBlank(l.llmMaxTokens)) delete llm.max_tokens;
    else llm.max_tokens = Number(l.llmMaxTokens.trim());
    // The runtime runs an assistant with the assistant engine.
    if (isAssistant) next.nlpEngine = NlpEngine.CustomChatGPTAssistant;
    customData.summaryEnabled = l.summaryEnabled;
  }
  if (engine === NlpEngine.RestEndpoint) {
    const r = values.restEndpoint;
    next.restEndPointURL = r.base_url.trim();
    next.restApiKey = r.api_key.trim();
    next.agentLanguage = r.agent_language.trim();
    Object.assign(llm, { custom_text: r.custom_text, summary_enabled: r.summary_enabled, agent_language: r.agent_language.trim() });
    customData.summaryEnabled = r.summary_enabled;
  }
  if (engine === NlpEngine.DialogflowES || engine === NlpEngine.DialogflowCX) {
    const d = values.dialogFlow;
    next.projectId = d.project_id.trim();
    // A mask keeps the stored key (also one stored as jsonKeyBase64).
    if (!isMasked(d.api_key)) next.jsonKey = d.api_key;
    next.agentLanguage = d.agent_language.trim();
    Object.assign(llm, { project_id: d.project_id.trim(), api_key_file_name: d.api_key_file_name, agent_language: d.agent_language.trim() });
    if (engine === NlpEngine.DialogflowCX) {
      next.agentId = d.agent_id.trim();
      next.regionId = d.region_id.trim();
      Object.assign(llm, { agent_id: d.agent_id.trim(), region_id: d.region_id.trim() });
    }
  }
  pipeline.llm = llm;
  if (engine === NlpEngine.TrulienceRealtime) {
    const r = values.trulienceRealtime;
    pipeline.speech_to_speech = {
      ...obj(pipeline.speech_to_speech),
      url: r.url.trim(),
      api_key: r.api_key.trim(),
      model: r.model,
      instructions: r.instructions,
      greeting: r.greeting,
      voice_id: r.voice_id,
    };
  }
  if (engine === NlpEngine.ElevenLabsConversationAI) {
    const e = values.elevenLabsConversationAI;
    const isPublic = e.status === 'public';
    pipeline.third_party = {
      ...obj(pipeline.third_party),
      agent_id: e.agent_id.trim(),
      // A public agent needs no key: the check cleared it.
      api_key: isPublic ? '' : e.api_key.trim(),
      is_public: isPublic,
      connection_type: e.connection_type,
    };
  }
  // SPEECH: Simple and Composite write the whole stt/tts groups from the speech forms
  // (applySpeechValues: Simple forces the product's own providers, TEN and realtime carry the None
  // that withEngine set). The other modes have no speech forms: only the providers the engine
  // forces are written, the rest of the stored groups stays.
  if (!hasSpeechSections(values.setupMode)) {
    pipeline.stt = { ...obj(pipeline.stt), provider: values.sttDetails.sttProvider };
    pipeline.tts = { ...obj(pipeline.tts), provider: values.ttsDetails.ttsProvider };
  }
  customData.agent_pipeline_config = pipeline;
  next.customData = customData;
  // Then the Knowledge Base and Functions links (customData.collection_ids, functions).
  return applyLinkValues(applySpeechValues(next, values, values.setupMode), values);
}
