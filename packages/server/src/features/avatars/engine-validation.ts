import { checkEngineConfig, engineRow, enginesCalling, EngineMessages as M, isMasked, NlpEngine, ProviderLookupMessages, readAvatarConfig, type TAvatarInputParsed } from '@persona/contract';
import { getPath } from './secrets.js';

/**
 * The engine forms' rules (avatar creator spec section 5 "Engine forms"), checked again on save:
 * the editor checks them too, but the save call is public API. Only the engine in use is checked,
 * and only when the save changes the engine, the mode or that engine's settings: a save of another
 * tab sends the brain back as it was stored, and is not refused for data stored before these rules.
 */

type Obj = Record<string, unknown>;
const text = (v: string | undefined): string => (v ?? '').trim();

/** What the save does to a secret: keeps the stored one (mask or absent), clears it, or sets a new one. */
function secretState(value: unknown): 'kept' | 'cleared' | 'new' {
  if (value === undefined || value === null || isMasked(value)) return 'kept';
  return value === '' ? 'cleared' : 'new';
}

/** The engines whose settings are the `llm` section: those that call the LLM base URL (their rows). */
const LLM_ENGINES: number[] = enginesCalling('llmBaseUrl');

/**
 * The engine's settings as a comparable value: plain fields as they are, secrets by what happens to
 * them. Compared as documents, not read (readAvatarConfig would make a changed but unreadable value
 * — a max_tokens of "abc" over a stored "" — equal to the stored one, and skip its check).
 */
function engineProjection(engine: number, config: Obj, secretsAsStored: boolean): unknown {
  const section = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
  const pipeline = section(section(config.customData).agent_pipeline_config);
  const secret = (path: string) => (secretsAsStored ? 'kept' : secretState(getPath(config, path)));
  const llm = section(pipeline.llm);
  const plainLlm = { ...llm, api_key: secret('customData.agent_pipeline_config.llm.api_key') };
  if (LLM_ENGINES.includes(engine)) return plainLlm;
  if (engine === NlpEngine.RestEndpoint) return [config.restEndPointURL, secret('restApiKey'), plainLlm];
  if (engine === NlpEngine.DialogflowES || engine === NlpEngine.DialogflowCX) {
    return [config.projectId, config.agentId, config.regionId, config.agentLanguage, secret('jsonKey'), plainLlm];
  }
  if (engine === NlpEngine.TrulienceRealtime) return { ...section(pipeline.speech_to_speech), api_key: secret('customData.agent_pipeline_config.speech_to_speech.api_key') };
  if (engine === NlpEngine.ElevenLabsConversationAI) return { ...section(pipeline.third_party), api_key: secret('customData.agent_pipeline_config.third_party.api_key') };
  // Any other engine: its row's fields (none for echo and the own-agent engines).
  return (engineRow(engine)?.fields ?? []).map((f) => (f.secret ? secret(f.stored) : getPath(config, f.stored)));
}

/** JSON with sorted keys (stored documents come back with their keys in another order). */
const stable = (v: unknown): string =>
  Array.isArray(v)
    ? `[${v.map(stable).join(',')}]`
    : v && typeof v === 'object'
      ? `{${Object.keys(v)
          .filter((k) => (v as Obj)[k] !== undefined)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${stable((v as Obj)[k])}`)
          .join(',')}}`
      : JSON.stringify(v ?? null);
const same = (a: unknown, b: unknown) => stable(a) === stable(b);

/** Whether the save changes the engine, the mode or the engine's settings. */
export function touchesEngine(input: TAvatarInputParsed, stored: { nlpEngine: number; setupMode: number; config: Obj } | undefined): boolean {
  if (!stored) return true;
  if (input.nlpEngine !== stored.nlpEngine || input.setupMode !== stored.setupMode) return true;
  return !same(engineProjection(input.nlpEngine, input as unknown as Obj, false), engineProjection(input.nlpEngine, stored.config, true));
}

/**
 * The engine's messages (empty when it is fine): the engine forms' rules (contract
 * `checkEngineConfig`, the engine's row) on the save's values. A secret counts as given when the
 * save sends a new one, or sends its mask (or nothing) and one is stored.
 */
export function engineErrors(input: TAvatarInputParsed, storedConfig: Obj | undefined): string[] {
  // The save's own values, as its contract schema (ZAvatarInput) typed them; secrets by their paths.
  const config = input as unknown as Obj;
  const secretGiven = (path: string) => {
    const state = secretState(getPath(config, path));
    if (state === 'new') return true;
    if (state === 'cleared') return false;
    return storedConfig !== undefined && getPath(storedConfig, path) !== undefined && getPath(storedConfig, path) !== '';
  };
  return checkEngineConfig({
    engine: input.nlpEngine,
    setupMode: input.setupMode,
    read: (field) => getPath(config, field.stored),
    hasSecret: (field) => [field.stored, ...(field.secret?.alsoStored ?? [])].some(secretGiven),
  }).map((issue) => issue.message);
}

const THIRD_PARTY_KEY = 'customData.agent_pipeline_config.third_party.api_key';
const connectionOf = (v: unknown): 'webrtc' | 'websocket' => (v === 'websocket' ? 'websocket' : 'webrtc');

/** What the save asks ElevenLabs about, and with which key: the save's new one, the stored one, or none. */
export interface AgentToCheck {
  agentId: string;
  connectionType: 'webrtc' | 'websocket';
  key: { from: 'save'; value: string } | { from: 'stored' } | { from: 'none' };
}

/**
 * The ElevenLabs Conversational AI agent the save must have checked by ElevenLabs (the Brain
 * tab's look-up, again), or null: only for that engine, and only when the save makes it the
 * engine or changes the agent id, the connection type or the key. A save that sends them back as
 * stored (another tab, the mask for the key, an empty key where none is stored) asks nothing.
 * Called after engineErrors found nothing, so the id is well-formed.
 */
export function agentToCheck(input: TAvatarInputParsed, stored: { nlpEngine: number; config: Obj }): AgentToCheck | null {
  if (input.nlpEngine !== NlpEngine.ElevenLabsConversationAI) return null;
  const third = input.customData.agent_pipeline_config.third_party ?? {};
  const storedThird = readAvatarConfig(stored.config).brain.thirdParty;
  const keyValue = getPath(input as unknown as Obj, THIRD_PARTY_KEY);
  const keyState = secretState(keyValue);
  const storedKey = getPath(stored.config, THIRD_PARTY_KEY);
  const hasStoredKey = storedKey !== undefined && storedKey !== null && storedKey !== '';
  const keyChanged = keyState === 'new' || (keyState === 'cleared' && hasStoredKey);
  const changed =
    stored.nlpEngine !== NlpEngine.ElevenLabsConversationAI ||
    text(third.agent_id) !== storedThird.agentId ||
    connectionOf(third.connection_type) !== storedThird.connectionType ||
    keyChanged;
  if (!changed) return null;
  const key: AgentToCheck['key'] = keyState === 'new' ? { from: 'save', value: String(keyValue).trim() } : keyState === 'kept' && hasStoredKey ? { from: 'stored' } : { from: 'none' };
  return { agentId: text(third.agent_id), connectionType: connectionOf(third.connection_type), key };
}

/** ElevenLabs' verdict on an agent (the provider look-up's); `unverified` says why there is none. */
export interface ElevenLabsAgentVerdict {
  state: 'public' | 'private' | 'invalid_agent_id' | 'invalid_api_key';
  message?: string;
  unverified?: string;
}

/**
 * The save's messages for ElevenLabs' verdict: the engine form's, as the editor shows them under
 * the fields on submit. No verdict (ElevenLabs unreachable, 429, 5xx) refuses nothing: see the
 * service for why.
 */
export function agentVerdictErrors(verdict: ElevenLabsAgentVerdict): string[] {
  if (verdict.unverified) return [];
  if (verdict.state === 'invalid_api_key') return [verdict.message === ProviderLookupMessages.agentKeyRequired ? M.agentKeyRequired : M.agentKeyInvalid];
  if (verdict.state === 'invalid_agent_id') return [M.agentIdInvalid];
  return [];
}
