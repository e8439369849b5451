import type { TDeepgramModel, TLlmAssistant, TSttLanguage, TTtsVoice } from '@persona/contract';
import { isObject, joinUrl, lookupRequest, LookupTransportError, str, type LookupAnswer, type LookupHttpOptions, type Target } from './http.js';

/**
 * One function per provider API the Brain tab needs, each speaking that API's documented
 * request and answer (paths, auth headers, status codes). They return the portal's own shapes
 * or throw a ProviderRefusal (the provider answered, but not with a list) — the service turns
 * both into the spec's messages. Answers are bounded: at most MAX_ITEMS entries, strings cut.
 */
export const MAX_ITEMS = 2000;

/** The provider answered with something other than the list (status kept for the mapping). */
export class ProviderRefusal extends Error {
  override readonly name = 'ProviderRefusal';
  constructor(
    readonly status: number,
    detail: string,
  ) {
    super(detail);
  }
}

const refuse = (answer: LookupAnswer, what: string): never => {
  const msg = isObject(answer.json) ? (str((answer.json.error as Record<string, unknown> | undefined)?.message) || str(answer.json.message) || str(answer.json.detail)) : '';
  throw new ProviderRefusal(answer.status, `${what}: HTTP ${answer.status}${msg ? ` ${msg}` : ''}`);
};

const ok = (answer: LookupAnswer) => answer.status >= 200 && answer.status < 300;
const unique = <T>(items: T[], keyOf: (t: T) => string) => {
  const seen = new Set<string>();
  return items.filter((t) => {
    const k = keyOf(t);
    if (!k || seen.has(k)) return false;
    seen.add(k);
    return true;
  });
};

// ── LLM ────────────────────────────────────────────────────────────────────────────────────

/** OpenAI-style `GET {base}/models` with a bearer key → `data[].id`. */
export async function openAiModels(http: LookupHttpOptions, base: string, target: Target, apiKey: string): Promise<string[]> {
  const answer = await lookupRequest(joinUrl(base, 'models'), target, http, { headers: { authorization: `Bearer ${apiKey}` } });
  if (!ok(answer) || !isObject(answer.json) || !Array.isArray(answer.json.data)) return refuse(answer, 'models');
  return unique(answer.json.data.map((m) => (isObject(m) ? str(m.id) : '')), (s) => s).slice(0, MAX_ITEMS);
}

/**
 * Gemini's own `GET {base}/models?key=` → `models[].name` ("models/gemini-2.0-flash"), paged by
 * `nextPageToken`; only models that generate content, named as its OpenAI-compatible endpoint takes them.
 */
export async function geminiModels(http: LookupHttpOptions, base: string, apiKey: string): Promise<string[]> {
  const names: string[] = [];
  let pageToken = '';
  for (let page = 0; page < 5; page++) {
    const query = new URLSearchParams({ key: apiKey, pageSize: '1000', ...(pageToken ? { pageToken } : {}) });
    const answer = await lookupRequest(`${joinUrl(base, 'models')}?${query}`, 'operator', http);
    if (!ok(answer) || !isObject(answer.json) || !Array.isArray(answer.json.models)) return refuse(answer, 'gemini models');
    for (const m of answer.json.models) {
      if (!isObject(m)) continue;
      const methods = Array.isArray(m.supportedGenerationMethods) ? m.supportedGenerationMethods : null;
      if (methods && !methods.includes('generateContent')) continue;
      names.push(str(m.name).replace(/^models\//, ''));
    }
    pageToken = str(answer.json.nextPageToken, 500);
    if (!pageToken || names.length >= MAX_ITEMS) break;
  }
  return unique(names, (s) => s).slice(0, MAX_ITEMS);
}

/** Assistants API v2: `GET {base}/assistants?order=desc&limit=100` → `data[]` {id, name}. */
export async function openAiAssistants(http: LookupHttpOptions, base: string, target: Target, apiKey: string): Promise<TLlmAssistant[]> {
  const answer = await lookupRequest(`${joinUrl(base, 'assistants')}?order=desc&limit=100`, target, http, {
    headers: { authorization: `Bearer ${apiKey}`, 'openai-beta': 'assistants=v2' },
  });
  if (!ok(answer) || !isObject(answer.json) || !Array.isArray(answer.json.data)) return refuse(answer, 'assistants');
  const list = answer.json.data.filter(isObject).map((a) => ({ id: str(a.id), name: str(a.name) || str(a.id) }));
  return unique(list, (a) => a.id).slice(0, 100);
}

// ── TTS voices ─────────────────────────────────────────────────────────────────────────────

/** Azure Speech: `GET https://{region}.tts.speech.microsoft.com/cognitiveservices/voices/list` with the subscription key. */
export async function azureVoices(http: LookupHttpOptions, base: string, apiKey: string): Promise<TTtsVoice[]> {
  const answer = await lookupRequest(joinUrl(base, 'cognitiveservices/voices/list'), 'operator', http, { headers: { 'ocp-apim-subscription-key': apiKey } });
  if (!ok(answer) || !Array.isArray(answer.json)) return refuse(answer, 'azure voices');
  const voices = answer.json.filter(isObject).map((v) => ({
    id: str(v.ShortName),
    name: `${str(v.DisplayName) || str(v.LocalName) || str(v.ShortName)}${v.LocaleName ? ` (${str(v.LocaleName)})` : ''}`,
    language: str(v.Locale) || undefined,
    gender: str(v.Gender) || undefined,
  }));
  return unique(voices, (v) => v.id).slice(0, MAX_ITEMS);
}

/** ElevenLabs: `GET /v1/voices` with `xi-api-key` → `voices[]` {voice_id, name, labels}. */
export async function elevenLabsVoices(http: LookupHttpOptions, base: string, apiKey: string): Promise<TTtsVoice[]> {
  const answer = await lookupRequest(joinUrl(base, 'v1/voices'), 'operator', http, { headers: { 'xi-api-key': apiKey } });
  if (!ok(answer) || !isObject(answer.json) || !Array.isArray(answer.json.voices)) return refuse(answer, 'elevenlabs voices');
  const voices = answer.json.voices.filter(isObject).map((v) => {
    const labels = isObject(v.labels) ? v.labels : {};
    return { id: str(v.voice_id), name: str(v.name) || str(v.voice_id), language: str(labels.language) || str(labels.accent) || undefined, gender: str(labels.gender) || undefined };
  });
  return unique(voices, (v) => v.id).slice(0, MAX_ITEMS);
}

export const CARTESIA_VERSION = '2025-04-16';

/**
 * Cartesia: `GET /voices?limit=100` with `X-API-Key` and `Cartesia-Version` → a page
 * `{data, has_more, next_page}` (older versions answered a bare array), followed with `starting_after`.
 */
export async function cartesiaVoices(http: LookupHttpOptions, base: string, apiKey: string): Promise<TTtsVoice[]> {
  const out: TTtsVoice[] = [];
  let after = '';
  for (let page = 0; page < 10; page++) {
    const query = new URLSearchParams({ limit: '100', ...(after ? { starting_after: after } : {}) });
    const answer = await lookupRequest(`${joinUrl(base, 'voices')}?${query}`, 'operator', http, { headers: { 'x-api-key': apiKey, 'cartesia-version': CARTESIA_VERSION } });
    const list = Array.isArray(answer.json) ? answer.json : isObject(answer.json) && Array.isArray(answer.json.data) ? answer.json.data : null;
    if (!ok(answer) || !list) return refuse(answer, 'cartesia voices');
    const voices = list.filter(isObject).map((v) => ({ id: str(v.id), name: str(v.name) || str(v.id), language: str(v.language) || undefined, gender: str(v.gender) || undefined }));
    out.push(...voices);
    const more = isObject(answer.json) && answer.json.has_more === true;
    after = voices.at(-1)?.id ?? '';
    if (!more || !after || out.length >= MAX_ITEMS) break;
  }
  return unique(out, (v) => v.id).slice(0, MAX_ITEMS);
}

/** Neuphonic: `GET /voices` with `X-API-KEY` → `data.voices[]` {voice_id, name|voice_name, lang_code}. */
export async function neuphonicVoices(http: LookupHttpOptions, base: string, apiKey: string, langCode?: string): Promise<TTtsVoice[]> {
  const answer = await lookupRequest(joinUrl(base, 'voices'), 'operator', http, { headers: { 'x-api-key': apiKey } });
  const data = isObject(answer.json) && isObject(answer.json.data) ? answer.json.data : null;
  if (!ok(answer) || !data || !Array.isArray(data.voices)) return refuse(answer, 'neuphonic voices');
  const voices = data.voices
    .filter(isObject)
    .map((v) => ({ id: str(v.voice_id), name: str(v.name) || str(v.voice_name) || str(v.voice_id), language: str(v.lang_code) || undefined }))
    .filter((v) => !langCode || !v.language || v.language === langCode);
  return unique(voices, (v) => v.id).slice(0, MAX_ITEMS);
}

/**
 * Amazon Polly `DescribeVoices` through `@aws-sdk/client-polly` (SigV4), every page; each voice
 * listed once per engine the spec offers — "Joanna (standard)", "Joanna (neural)" — which is how
 * the worker reads `voice_id`.
 */
export async function pollyVoices(
  opts: { timeoutMs: number; endpoint: string | undefined },
  credentials: { accessKeyId: string; secretAccessKey: string },
  region: string,
): Promise<TTtsVoice[]> {
  const { PollyClient, DescribeVoicesCommand } = await import('@aws-sdk/client-polly');
  const client = new PollyClient({
    region,
    credentials,
    ...(opts.endpoint ? { endpoint: opts.endpoint } : {}),
    maxAttempts: 1,
    requestHandler: { connectionTimeout: Math.min(5_000, opts.timeoutMs), requestTimeout: opts.timeoutMs },
  });
  const signal = AbortSignal.timeout(opts.timeoutMs);
  const out: TTtsVoice[] = [];
  try {
    let next: string | undefined;
    for (let page = 0; page < 10; page++) {
      const answer = await client.send(new DescribeVoicesCommand({ NextToken: next }), { abortSignal: signal });
      for (const v of answer.Voices ?? []) {
        for (const engine of ['standard', 'neural'] as const) {
          if (!v.Id || !(v.SupportedEngines ?? []).includes(engine)) continue;
          out.push({ id: `${v.Id} (${engine})`, name: `${v.Name ?? v.Id} (${engine}, ${v.LanguageName ?? v.LanguageCode ?? ''})`, language: v.LanguageCode, gender: v.Gender });
        }
      }
      next = answer.NextToken;
      if (!next || out.length >= MAX_ITEMS) break;
    }
  } catch (err) {
    const e = err as { name?: string; code?: string; message?: string; $metadata?: { httpStatusCode?: number } };
    const status = e.$metadata?.httpStatusCode;
    if (status) throw new ProviderRefusal(status, `polly: ${e.name ?? 'Error'} ${str(e.message)}`);
    // No answer: the SDK's own timeouts and the abort signal, or the connection failed.
    const isTimeout = signal.aborted || e.name === 'AbortError' || e.name === 'TimeoutError' || /timeout/i.test(`${e.code ?? ''} ${e.message ?? ''}`);
    throw new LookupTransportError(isTimeout ? 'timeout' : 'network', `polly: ${e.name ?? 'Error'} ${str(e.message)}`);
  } finally {
    client.destroy();
  }
  return unique(out, (v) => v.id).slice(0, MAX_ITEMS);
}

// ── STT ────────────────────────────────────────────────────────────────────────────────────

const languageNames = new Intl.DisplayNames(['en'], { type: 'language' });
const nameOf = (code: string) => {
  try {
    return languageNames.of(code) ?? code;
  } catch {
    return code;
  }
};

/** Azure Speech to text: `GET https://{region}.api.cognitive.microsoft.com/speechtotext/v3.2/transcriptions/locales` → locale codes. */
export async function azureSttLocales(http: LookupHttpOptions, base: string, apiKey: string): Promise<TSttLanguage[]> {
  const answer = await lookupRequest(joinUrl(base, 'speechtotext/v3.2/transcriptions/locales'), 'operator', http, { headers: { 'ocp-apim-subscription-key': apiKey } });
  if (!ok(answer) || !Array.isArray(answer.json)) return refuse(answer, 'azure stt locales');
  const codes = unique(answer.json.map((c) => str(c, 40)).filter((c) => /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(c)), (c) => c);
  return codes.slice(0, MAX_ITEMS).map((code) => ({ code, name: nameOf(code) }));
}

/** Deepgram: `GET /v1/models` with `Authorization: Token <key>` → `stt[]` {name, canonical_name, languages}. */
export async function deepgramModels(http: LookupHttpOptions, base: string, apiKey: string): Promise<TDeepgramModel[]> {
  const answer = await lookupRequest(joinUrl(base, 'v1/models'), 'operator', http, { headers: { authorization: `Token ${apiKey}` } });
  if (!ok(answer) || !isObject(answer.json) || !Array.isArray(answer.json.stt)) return refuse(answer, 'deepgram models');
  // One entry per canonical name (Deepgram lists a model once per version), languages merged.
  const byName = new Map<string, TDeepgramModel>();
  for (const m of answer.json.stt.filter(isObject)) {
    const canonical = str(m.canonical_name);
    if (!canonical) continue;
    const languages = Array.isArray(m.languages) ? m.languages.map((l) => str(l, 40)).filter(Boolean) : [];
    const entry = byName.get(canonical) ?? { name: str(m.name) || canonical, canonical_name: canonical, languages: [] };
    entry.languages = [...new Set([...entry.languages, ...languages])].slice(0, 500);
    byName.set(canonical, entry);
    if (byName.size >= MAX_ITEMS) break;
  }
  return [...byName.values()];
}

// ── ElevenLabs Conversational AI ────────────────────────────────────────────────────────────

/**
 * The token a conversation starts with: WebRTC `GET /v1/convai/conversation/token?agent_id=`,
 * WebSocket `GET /v1/convai/conversation/get-signed-url?agent_id=` — with `xi-api-key` for
 * private agents. Only the status matters here; the token is not kept nor returned.
 */
export async function elevenLabsAgentToken(http: LookupHttpOptions, base: string, agentId: string, connection: 'webrtc' | 'websocket', apiKey?: string): Promise<LookupAnswer> {
  const path = connection === 'websocket' ? 'v1/convai/conversation/get-signed-url' : 'v1/convai/conversation/token';
  return lookupRequest(`${joinUrl(base, path)}?agent_id=${encodeURIComponent(agentId)}`, 'operator', http, { headers: apiKey ? { 'xi-api-key': apiKey } : {} });
}
