/**
 * The Brain tab's engine forms (avatar creator spec section 5 "Engine forms"): the rules both the
 * browser and the server apply to the engine in use, with the form-side field each message
 * belongs to, so both say the same thing. What each engine asks for, and the messages, are its
 * row's (engines.ts).
 */
import { isMasked } from './avatars.js';
import { ELEVENLABS_AGENT_ID, EngineLimits, EngineMessages as M } from './brain.js';
import { engineRow, type TEngineField } from './engines.js';
import { ProviderLookupLimits, type TElevenLabsAgentState } from './provider-lookups.js';

export interface EngineIssue {
  /** The form-side field ('llmDetails.url', 'dialogFlow.api_key', …). */
  field: string;
  message: string;
}

/**
 * What the rules read; the browser reads its form, the server the save.
 * - `read(field)`: a field's value (the browser's form fields trimmed, the server's as sent).
 * - `hasSecret(field)`: whether a key counts as given. The server: a new value, or its mask (or
 *   nothing) while one is stored at the field's path (or `alsoStored`); the browser: a value in
 *   the form (a mask stands for the stored key).
 * - `assistant`: the form runs an OpenAI assistant on a prompt engine (the Brain tab's
 *   interaction type; a save names the assistant engine instead).
 * - `agentCheck`: the browser's ElevenLabs agent check; absent on a save (the server asks
 *   ElevenLabs itself after these rules).
 */
export interface EngineCheckInput {
  engine: number;
  setupMode: number;
  read: (field: TEngineField) => unknown;
  hasSecret: (field: TEngineField) => boolean;
  assistant?: boolean;
  agentCheck?: TElevenLabsAgentState;
}

const isBlank = (v: unknown) => v === undefined || v === null || (typeof v === 'string' && v.trim() === '');
const isGiven = (v: unknown) => v !== undefined && v !== null && v !== '';
/** A secret's value that is new: typed, not the mask of the stored one, not cleared. */
const isNewSecret = (v: unknown): v is string => typeof v === 'string' && v !== '' && !isMasked(v);

const isUrl = (v: unknown, protocols: string[]) => {
  try {
    return protocols.includes(new URL(String(v).trim()).protocol);
  } catch {
    return false;
  }
};

/** Whether a JSON key file's text is a service-account key (or its mask). */
export function isServiceAccountJson(text: string): boolean {
  if (isMasked(text)) return true;
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    return typeof parsed === 'object' && parsed !== null && typeof parsed.client_email === 'string' && typeof parsed.private_key === 'string';
  } catch {
    return false;
  }
}

/**
 * The engine's issues (empty when it is fine), in its row's field order: a blank required field
 * says its message (a key: when none counts as given); a given value breaking its rule says the
 * rule's. An engine no row has, and the engines with no settings, have none.
 */
export function checkEngineConfig(input: EngineCheckInput): EngineIssue[] {
  const issues: EngineIssue[] = [];
  const row = engineRow(input.engine);
  if (!row) return issues;
  const add = (field: TEngineField, message: string) => issues.push({ field: field.form, message });
  for (const field of row.fields) {
    const value = input.read(field);
    if (field.rule?.test === 'elevenLabsAgentId' || field.rule?.test === 'elevenLabsAgentKey') {
      checkElevenLabs(field, value, input, add);
      continue;
    }
    if (field.boolean !== undefined) {
      if (typeof value !== 'boolean') add(field, field.boolean);
      continue;
    }
    const required =
      field.required !== undefined &&
      !(field.optionalIn ?? []).includes(input.setupMode) &&
      (field.requiredWhen === undefined || (field.requiredWhen === 'assistant' && input.assistant === true));
    if (field.secret) {
      if (!input.hasSecret(field)) {
        if (required) add(field, field.required!);
      } else if (field.rule && isNewSecret(value) && !passes(field.rule.test, value)) add(field, field.rule.message);
      continue;
    }
    if (required && isBlank(value)) add(field, field.required!);
    else if (field.rule && isGiven(value) && !passes(field.rule.test, value)) add(field, field.rule.message);
  }
  return issues;
}

function passes(test: NonNullable<TEngineField['rule']>['test'], value: unknown): boolean {
  switch (test) {
    case 'httpUrl':
      return isUrl(value, ['http:', 'https:']);
    case 'httpOrWsUrl':
      return isUrl(value, ['http:', 'https:', 'ws:', 'wss:']);
    case 'maxTokens': {
      const n = Number(typeof value === 'string' ? value.trim() : value);
      return Number.isInteger(n) && n > 0 && n <= EngineLimits.maxTokensMax;
    }
    case 'serviceAccountJson':
      return isServiceAccountJson(String(value));
    default:
      return true;
  }
}

/**
 * The ElevenLabs agent's id and key. The two sides differ and both are kept:
 * - the editor (`agentCheck` given) goes by its check of the agent: too short only before a
 *   check, invalid when the check said so or the id is malformed; the key required or invalid
 *   as the check answered, and required for a private agent;
 * - a save (no `agentCheck`) goes by the id's length (above ProviderLookupLimits.agentIdMax is
 *   invalid too), a new key shorter than ProviderLookupLimits.agentKeyMin, and a key required
 *   unless the save says the agent is public; ElevenLabs is asked afterwards.
 */
function checkElevenLabs(field: TEngineField, value: unknown, input: EngineCheckInput, add: (field: TEngineField, message: string) => void) {
  const check = input.agentCheck;
  if (field.rule?.test === 'elevenLabsAgentId') {
    const id = typeof value === 'string' ? value.trim() : '';
    if (!id) add(field, field.required ?? M.agentIdRequired);
    else if ((check === undefined || check === 'idle') && id.length < EngineLimits.agentIdShort) add(field, M.agentIdTooShort);
    else if (check === undefined ? !ELEVENLABS_AGENT_ID.test(id) || id.length > ProviderLookupLimits.agentIdMax : check === 'invalid_agent_id' || !ELEVENLABS_AGENT_ID.test(id)) add(field, M.agentIdInvalid);
    return;
  }
  const given = input.hasSecret(field);
  if (check === undefined) {
    if (isNewSecret(value) && value.trim().length < ProviderLookupLimits.agentKeyMin) add(field, M.agentKeyInvalid);
    else if (input.read(IS_PUBLIC) !== true && !given) add(field, M.agentKeyRequired);
    return;
  }
  if (check === 'invalid_api_key') add(field, given ? M.agentKeyInvalid : M.agentKeyRequired);
  else if (check === 'private' && !given) add(field, M.agentKeyRequired);
}

/** Whether a save says its ElevenLabs agent is public (read by the save's rules only). */
const IS_PUBLIC: TEngineField = { stored: 'customData.agent_pipeline_config.third_party.is_public', form: 'elevenLabsConversationAI.status' };
