import type { FastifyBaseLogger } from 'fastify';
import {
  canonicalBaseUrl,
  DefaultVoices,
  FailReason,
  isMasked,
  LlmBaseUrls,
  LlmProviders,
  ProviderLookupLimits,
  providerField,
  providerRow,
  ProviderLookupMessages as M,
  SetupMode,
  SttProvider,
  TtsProvider,
  ttsLookupFields,
  type TAvatarConfig,
  type TDeepgramModel,
  type TElevenLabsAgentCheckResponse,
  type TLiveStt,
  type TLiveTts,
  type TLlmAssistant,
  type TSttLanguage,
  type TTtsVoice,
} from '@persona/contract';
import { OFFLINE_VOICES } from '@persona/worker';
import type { z } from 'zod';
import type { TtsProviders, ZDeepgramModelsRequest, ZElevenLabsAgentCheckRequest, ZLlmAssistantsRequest, ZLlmModelsRequest, ZSttLanguagesRequest, ZTtsVoicesRequest } from '@persona/contract';
import type { ProviderUrls } from '../../config.js';
import { AppError } from '../../lib/app-error.js';
import { GOOGLE_STT_LANGUAGES } from './google-stt-languages.js';
import { isObject, LookupTransportError, str, type LookupAnswer, type LookupHttpOptions, type Target } from './http.js';
import * as api from './providers.js';

/**
 * The Brain tab's provider look-ups (spec section 7), as named calls — never an open proxy:
 * each look-up knows its provider's host (fixed, overridable only by the operator's
 * PROVIDER_*_URL), its path and its auth header. Only the custom LLM base URL is typed by the
 * user; it goes through the guarded fetch (global unicast unless ALLOW_PRIVATE_URLS).
 *
 * Keys: the form's value, or — when the form holds the masked value — the key stored on the
 * caller's own avatar (`avatarId`; another account's avatar is a 404). A stored key is used only
 * for the provider (and, for an LLM, the base URL) it was stored for, so a masked key cannot be
 * sent somewhere else. Keys are never returned nor logged.
 *
 * Failures answer 400 with the spec's message and a `reason` (missing-key, unauthorized,
 * provider-refused, timeout, too-large, blocked, invalid-url, redirect, network, empty…);
 * the precise cause goes to the log.
 */
export interface ProviderLookupsDeps {
  providers: ProviderUrls;
  timeoutMs: number;
  allowPrivateUrls: boolean;
  /** The caller's own avatar's configuration (contract readAvatarConfig), keys opened (404 for anyone else's). */
  storedConfig: (userId: number, avatarId: number) => Promise<TAvatarConfig>;
  log: FastifyBaseLogger;
  maxBytes?: number;
}

export interface LookupCaller {
  userId: number;
}

/** A stored speech provider's key ('' when its provider has none). */
function speechKey(speech: TLiveStt | TLiveTts, field: 'apiKey' | 'secretKey'): string {
  if (field === 'secretKey') return 'secretKey' in speech ? speech.secretKey : '';
  return 'apiKey' in speech ? speech.apiKey : '';
}

export function createProviderLookups(deps: ProviderLookupsDeps) {
  const { providers } = deps;
  const http: LookupHttpOptions = { timeoutMs: deps.timeoutMs, allowPrivateUrls: deps.allowPrivateUrls, maxBytes: deps.maxBytes };

  const fail = (message: string, reason: string, detail?: string): never => {
    deps.log.info({ lookupFailure: reason, detail: detail?.slice(0, 300) }, 'provider look-up failed');
    throw new AppError(400, message, FailReason.InvalidOrMissingParams, { reason });
  };

  /** Maps what went wrong in a provider call to the look-up's message. */
  const failed = (message: string, err: unknown): never => {
    if (err instanceof AppError) throw err;
    if (err instanceof LookupTransportError) return fail(message, err.reason, err.detail);
    if (err instanceof api.ProviderRefusal) return fail(message, err.status === 401 || err.status === 403 ? 'unauthorized' : 'provider-refused', err.message);
    return fail(message, 'network', err instanceof Error ? err.message : String(err));
  };

  /**
   * The key a look-up runs with: the form's, or the stored one when the form holds the mask.
   * `storedFor` tells whether the stored configuration is for this same provider/URL.
   */
  async function keyFor(
    caller: LookupCaller,
    formValue: string | undefined,
    avatarId: number | undefined,
    stored: (c: TAvatarConfig) => string,
    storedFor: (c: TAvatarConfig) => boolean,
    message: string,
  ): Promise<string> {
    const value = (formValue ?? '').trim();
    if (!isMasked(value)) return value;
    if (avatarId === undefined) return fail(message, 'missing-key', 'masked key without avatarId');
    const config = await deps.storedConfig(caller.userId, avatarId);
    if (!storedFor(config)) return fail(message, 'stored-key-elsewhere', 'the stored key belongs to another provider or URL');
    const key = stored(config);
    if (!key) return fail(message, 'missing-key', 'no stored key');
    return key;
  }

  /** Which protocol and host an LLM base URL means: the catalogue's mapped providers go to their configured hosts. */
  function llmTarget(url: string, message: string): { kind: 'openai' | 'gemini'; base: string; target: Target } {
    const normalised = canonicalBaseUrl(url);
    const known = LlmProviders.find((b) => canonicalBaseUrl(b.url) === normalised);
    if (known && 'lookup' in known) return { kind: known.lookup, base: providers[known.provider], target: 'operator' };
    let parsed: URL;
    try {
      parsed = new URL(normalised);
    } catch {
      return fail(message, 'invalid-url', 'not a URL');
    }
    if ((parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.username || parsed.password || parsed.search || parsed.hash) {
      return fail(message, 'invalid-url', 'not an http(s) base URL without credentials or query');
    }
    return { kind: 'openai', base: normalised, target: 'user' };
  }

  const llmKey = (caller: LookupCaller, form: string | undefined, avatarId: number | undefined, url: string, message: string) =>
    keyFor(
      caller,
      form,
      avatarId,
      (c) => c.brain.llm.apiKey,
      (c) => canonicalBaseUrl(c.brain.llm.baseUrl) === canonicalBaseUrl(url),
      message,
    );

  const required = (key: string, message: string) => (key ? key : fail(message, 'missing-key'));
  const nonEmpty = <T>(list: T[], message: string): T[] => (list.length ? list : fail(message, 'empty', 'the provider listed nothing'));

  /**
   * Each own TTS provider's voices call (providers.ts here), by its row's id: a provider row with
   * role 'own' (contract providers.ts) is a compile error until it has one.
   */
  const voiceLookups: Record<TOwnTtsId, (asked: VoicesAsked) => Promise<TTtsVoice[]>> = {
    polly: (k) => api.pollyVoices({ timeoutMs: deps.timeoutMs, endpoint: providers.polly }, { accessKeyId: k.apiKey, secretAccessKey: k.secretKey }, k.region),
    azure: (k) => api.azureVoices(http, providers.azureTts.replaceAll('{region}', k.region), k.apiKey),
    elevenlabs: (k) => api.elevenLabsVoices(http, providers.elevenlabs, k.apiKey),
    cartesia: (k) => api.cartesiaVoices(http, providers.cartesia, k.apiKey),
    neuphonic: (k) => api.neuphonicVoices(http, providers.neuphonic, k.apiKey, k.langCode),
  };

  return {
    /** The models of an LLM base URL. */
    async llmModels(caller: LookupCaller, input: z.infer<typeof ZLlmModelsRequest>): Promise<string[]> {
      const where = llmTarget(input.url, M.invalidUrlOrKey);
      const key = required(await llmKey(caller, input.llmAPIKey, input.avatarId, input.url, M.invalidUrlOrKey), M.invalidUrlOrKey);
      try {
        const models = where.kind === 'gemini' ? await api.geminiModels(http, where.base, key) : await api.openAiModels(http, where.base, where.target, key);
        return nonEmpty(models, M.invalidUrlOrKey);
      } catch (err) {
        return failed(M.invalidUrlOrKey, err);
      }
    },

    /**
     * The OpenAI assistants of a key (Assistants API v2). api.openai.com shut that API down on
     * 26 August 2026; gateways that still serve it answer, the others' 404/410 gets its own message.
     */
    async llmAssistants(caller: LookupCaller, input: z.infer<typeof ZLlmAssistantsRequest>): Promise<TLlmAssistant[]> {
      const url = input.url?.trim() || LlmBaseUrls[0].url;
      const where = llmTarget(url, M.assistantsFailed);
      if (where.kind !== 'openai') return fail(M.assistantsFailed, 'unsupported', 'this base URL has no assistants');
      const key = required(await llmKey(caller, input.llmAPIKey, input.avatarId, url, M.assistantsFailed), M.assistantsFailed);
      try {
        return await api.openAiAssistants(http, where.base, where.target, key);
      } catch (err) {
        if (err instanceof api.ProviderRefusal && (err.status === 404 || err.status === 410)) return fail(M.assistantsGone, 'assistants-gone', err.message);
        return failed(M.assistantsFailed, err);
      }
    },

    /** The voices of a TTS provider (spec: answer ttsProvider and ttsVoices). */
    async ttsVoices(caller: LookupCaller, input: z.infer<typeof ZTtsVoicesRequest>): Promise<TTtsVoice[]> {
      const provider = input.ttsProvider;
      if (provider === TtsProvider.None) return [];
      if (provider === TtsProvider.Default || input.setupMode === SetupMode.Simple) return defaultVoices(input.default_tts);
      const storedFor = (c: TAvatarConfig) => c.speech.withKeys.tts.provider === provider;
      const region = (input.ttsRegion ?? '').trim();
      try {
        const id = providerRow('tts', provider)?.id as TOwnTtsId | undefined;
        if (id === undefined || !Object.hasOwn(voiceLookups, id)) return fail(M.voicesFailed, 'unsupported');
        // The provider's keys, each from the request field its row names (or the stored key for a mask), then its region's shape.
        const keys: Record<string, string> = {};
        for (const field of ttsLookupFields(provider)) {
          if (!field.secret) continue;
          const form = (input as Record<string, unknown>)[field.lookup.name];
          const stored = (c: TAvatarConfig) => speechKey(c.speech.withKeys.tts, field.stored === 'secret_key' ? 'secretKey' : 'apiKey');
          const key = required(await keyFor(caller, typeof form === 'string' ? form : undefined, input.avatarId, stored, storedFor, M.voicesFailed), M.voicesFailed);
          // The spec fetches Neuphonic voices only for keys longer than 8 characters.
          if (field.lookup.minLengthExclusive !== undefined && key.length <= field.lookup.minLengthExclusive) return fail(M.voicesFailed, 'missing-key', 'key too short');
          keys[field.stored] = key;
        }
        const regionPattern = providerField('tts', provider, 'region')?.pattern;
        if (regionPattern && !regionPattern.test(region)) return fail(M.voicesFailed, 'invalid-region');
        return nonEmpty(await voiceLookups[id]({ apiKey: keys.api_key ?? '', secretKey: keys.secret_key ?? '', region, langCode: input.lang_code?.trim() || undefined }), M.voicesFailed);
      } catch (err) {
        return failed(M.voicesFailed, err);
      }
    },

    /** STT languages: Azure's locales for a key and region; Google's published table. */
    async sttLanguages(caller: LookupCaller, input: z.infer<typeof ZSttLanguagesRequest>): Promise<TSttLanguage[]> {
      if (input.sttProvider === 'google') return [...GOOGLE_STT_LANGUAGES];
      const storedFor = (c: TAvatarConfig) => c.speech.withKeys.stt.provider === SttProvider.Azure;
      const apiKey = required(await keyFor(caller, input.sttAPIKey, input.avatarId, (c) => speechKey(c.speech.withKeys.stt, 'apiKey'), storedFor, M.invalidSttKey), M.invalidSttKey);
      const region = (input.sttRegion ?? '').trim();
      if (!providerField('stt', SttProvider.Azure, 'region')?.pattern?.test(region)) return fail(M.invalidSttKey, 'invalid-region');
      try {
        return nonEmpty(await api.azureSttLocales(http, providers.azureStt.replaceAll('{region}', region), apiKey), M.invalidSttKey);
      } catch (err) {
        return failed(M.invalidSttKey, err);
      }
    },

    /** Deepgram's speech-to-text models with their languages. */
    async deepgramModels(caller: LookupCaller, input: z.infer<typeof ZDeepgramModelsRequest>): Promise<TDeepgramModel[]> {
      const storedFor = (c: TAvatarConfig) => c.speech.withKeys.stt.provider === SttProvider.Deepgram;
      const apiKey = required(await keyFor(caller, input.sttAPIKey, input.avatarId, (c) => speechKey(c.speech.withKeys.stt, 'apiKey'), storedFor, M.invalidSttKey), M.invalidSttKey);
      try {
        return nonEmpty(await api.deepgramModels(http, providers.deepgram, apiKey), M.invalidSttKey);
      } catch (err) {
        return failed(M.invalidSttKey, err);
      }
    },

    /**
     * Is an ElevenLabs agent public (a conversation token without a key), private (only with the
     * key) or not usable — the spec's states and messages.
     */
    async elevenLabsAgent(caller: LookupCaller, input: z.infer<typeof ZElevenLabsAgentCheckRequest>): Promise<Omit<TElevenLabsAgentCheckResponse, 'status'>> {
      const keyOf = async () => {
        const value = (input.api_key ?? '').trim();
        if (!isMasked(value)) return value;
        if (input.avatarId === undefined) return '';
        return (await deps.storedConfig(caller.userId, input.avatarId)).brain.thirdParty.apiKey.slice(0, ProviderLookupLimits.keyMax);
      };
      const { unverified: _unverified, ...answer } = await agentState(input.agent_id, input.connection_type ?? 'webrtc', keyOf);
      return answer;
    },

    /**
     * The same check for an avatar save, with the key in the clear (the save's new key or the
     * stored one; none for a public agent). `unverified` is set when ElevenLabs gave no verdict.
     */
    async elevenLabsAgentOnSave(input: { agentId: string; connectionType: 'webrtc' | 'websocket'; apiKey?: string }): Promise<ElevenLabsAgentVerdict> {
      return agentState(input.agentId, input.connectionType, async () => (input.apiKey ?? '').trim());
    },
  };

  /**
   * The agent's state: public (a conversation token without a key), private (a token only with
   * the key `keyOf` gives, asked for only when the agent needs one), or not usable. When
   * ElevenLabs gives no verdict on the agent — no answer in time, 429 or 5xx — the state is the
   * look-up's own (the editor shows it) and `unverified` says why.
   */
  async function agentState(agentId: string, connection: 'webrtc' | 'websocket', keyOf: () => Promise<string>): Promise<ElevenLabsAgentVerdict> {
    const token = async (key?: string): Promise<LookupAnswer | null> => {
      try {
        return await api.elevenLabsAgentToken(http, providers.elevenlabs, agentId, connection, key);
      } catch (err) {
        deps.log.info({ lookupFailure: err instanceof LookupTransportError ? err.reason : 'network', detail: err instanceof Error ? err.message.slice(0, 300) : '' }, 'elevenlabs agent check failed');
        return null;
      }
    };
    const judge = (answer: LookupAnswer | null, key: string | undefined): ElevenLabsAgentVerdict | 'needs-key' => {
      if (!answer) return { state: 'invalid_agent_id', message: M.agentCheckFailed, unverified: 'no answer' };
      if (answer.status >= 200 && answer.status < 300) return { state: key ? 'private' : 'public' };
      if (answer.status === 401 || answer.status === 403) {
        if (!key) return 'needs-key';
        return { state: 'invalid_api_key', message: key.length < ProviderLookupLimits.agentKeyMin ? M.agentKeyRequired : M.agentKeyInvalid };
      }
      if (answer.status === 404) return { state: 'invalid_agent_id', message: M.agentNotFound };
      const message = errorText(answer.json) || M.agentInvalid;
      if (answer.status === 429 || answer.status >= 500) return { state: 'invalid_agent_id', message, unverified: `HTTP ${answer.status}` };
      return { state: 'invalid_agent_id', message };
    };
    const open = judge(await token(), undefined);
    if (open !== 'needs-key') return open;
    const key = await keyOf();
    if (key.length < ProviderLookupLimits.agentKeyMin) return { state: 'invalid_api_key', message: M.agentKeyRequired };
    const withKey = judge(await token(key), key);
    return withKey === 'needs-key' ? { state: 'invalid_api_key', message: M.agentKeyRequired } : withKey;
  }
}

/** ElevenLabs' verdict on an agent; `unverified` (why) when it gave none: no answer, 429 or 5xx. */
export type ElevenLabsAgentVerdict = Omit<TElevenLabsAgentCheckResponse, 'status'> & { unverified?: string };

export type ProviderLookups = ReturnType<typeof createProviderLookups>;

/** The ids of the TTS rows with role 'own' (the avatar's own provider account). */
type TOwnTtsId = Extract<(typeof TtsProviders)[number], { role: 'own' }>['id'];
/** What a voices call gets: the keys and region its row's fields carry (checked), and Neuphonic's language. */
interface VoicesAsked {
  apiKey: string;
  secretKey: string;
  region: string;
  langCode: string | undefined;
}

/** The product's own voices: the hosted list `default_tts` names, and the offline voices every worker has. */
function defaultVoices(defaultTts: string | undefined): TTtsVoice[] {
  const hosted = defaultTts === 'offline' ? [] : defaultTts === 'polly' ? DefaultVoices.polly : DefaultVoices.azure;
  return [
    ...hosted.map((id) => ({ id, name: id })),
    ...OFFLINE_VOICES.map((v) => ({ id: v.id, name: `${v.description} — offline`, language: 'en', offline: true })),
  ];
}

/** ElevenLabs' error text: `{detail: {message}}` or `{detail: "…"}`, bounded and without control characters. */
function errorText(json: unknown): string {
  if (!isObject(json)) return '';
  const detail = json.detail;
  const text = isObject(detail) ? str(detail.message) : str(detail);
  // eslint-disable-next-line no-control-regex -- strips control characters from a provider's text
  return text.replace(/[\u0000-\u001f\u007f]/g, ' ').trim();
}
