import { ProviderError, type GuardedFetch } from '../../brains/types.js';
import { accessToken, CLOUD_PLATFORM_SCOPE, forgetToken, parseServiceAccount, type ServiceAccount } from '../google/service-account.js';
import { createWatchdog, httpFailure, joinUrl, providerFailure, safeToken } from '../http.js';
import { DEFAULT_STT_TIMEOUTS, MAX_STT_ANSWER_BYTES, batchSession, languageTag } from './batch.js';
import type { SttTimeouts } from './batch.js';
import type { SttEngine } from './types.js';

/**
 * Google Cloud Speech-to-Text v1, synchronous recognition, one request per utterance:
 * `POST https://speech.googleapis.com/v1/speech:recognize` (regional:
 * `https://{region}-speech.googleapis.com`) with either an API key (`X-Goog-Api-Key` header) or a service-account
 * key (the JWT bearer exchange in providers/google/service-account.ts → `Authorization: Bearer`),
 * body `{config: {encoding: LINEAR16, sampleRateHertz: 16000, audioChannelCount: 1, languageCode,
 * alternativeLanguageCodes (≤ 3), model, enableAutomaticPunctuation, speechContexts: [{phrases}]},
 * audio: {content: base64}}`; the answer `{results: [{alternatives: [{transcript}], languageCode}]}`.
 *
 * Batch: Google's streaming recognition is gRPC only (no REST/WebSocket form), so no interim
 * results. The Brain tab's model names are mapped to v1's (`long` → `latest_long`, `short` →
 * `latest_short`; `chirp_2` exists only in v2 → `latest_long`). At most 60 s per utterance.
 */
export const GOOGLE_STT = 'google';

export interface GoogleSttSettings {
  /** An API key, or a service-account key as JSON (what the Brain tab's key file holds). */
  apiKey: string;
  /** 'global' (default) or a region such as 'europe-west4' (regional endpoint). */
  region?: string;
  /** Replaces the API origin (proxy, local fake); `{region}` is filled in. */
  baseUrl?: string;
  fetch: GuardedFetch;
  now?: () => number;
  timeouts?: Partial<SttTimeouts>;
}

const MODELS: Record<string, string> = { long: 'latest_long', short: 'latest_short', chirp_2: 'latest_long', chirp: 'latest_long' };
const V1_MODELS = new Set(['latest_long', 'latest_short', 'command_and_search', 'phone_call', 'video', 'default', 'medical_conversation', 'medical_dictation', 'telephony', 'telephony_short']);

export function googleModel(model: string | undefined): string | undefined {
  if (!model) return undefined;
  const m = MODELS[model] ?? model;
  return V1_MODELS.has(m) ? m : 'latest_long';
}

export function googleRecognizeBody(pcm: Int16Array, sampleRate: number, languages: readonly string[], model: string | undefined, phrases: readonly string[] | undefined) {
  const tags = languages.map((l) => languageTag(l, GOOGLE_STT)!).filter((l) => l && l !== 'multi');
  const config: Record<string, unknown> = {
    encoding: 'LINEAR16',
    sampleRateHertz: sampleRate,
    audioChannelCount: 1,
    languageCode: tags[0] ?? 'en-US',
    enableAutomaticPunctuation: true,
  };
  if (tags.length > 1) config.alternativeLanguageCodes = tags.slice(1, 4);
  const m = googleModel(model);
  if (m) config.model = m;
  // Google: at most 5000 phrases of at most 100 characters; we keep a sane 500.
  const ps = (phrases ?? []).map((p) => p.trim().slice(0, 100)).filter(Boolean).slice(0, 500);
  if (ps.length) config.speechContexts = [{ phrases: ps }];
  const bytes = Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength);
  return { config, audio: { content: bytes.toString('base64') } };
}

export function createGoogleStt(s: GoogleSttSettings): SttEngine {
  const timeouts = { ...DEFAULT_STT_TIMEOUTS, ...s.timeouts };
  const now = s.now ?? Date.now;
  return {
    provider: GOOGLE_STT,
    mode: 'batch',
    async open(options, events) {
      const key = s.apiKey.trim();
      if (!key) throw new ProviderError(GOOGLE_STT, 'no API key');
      const sa: ServiceAccount | null = key.startsWith('{') ? parseServiceAccount(key, GOOGLE_STT) : null;
      const region = (s.region ?? '').trim() || 'global';
      const host = region === 'global' ? 'https://speech.googleapis.com' : `https://${safeToken(region, 'region', GOOGLE_STT, /^[a-z][a-z0-9-]{1,29}$/)}-speech.googleapis.com`;
      const base = s.baseUrl ? s.baseUrl.replace('{region}', region) : host;
      // Validate the languages now (a bad one should fail at open, not on the first utterance).
      googleRecognizeBody(new Int16Array(0), options.sampleRate, options.languages, options.model, options.phrases);
      return batchSession(options, events, async (pcm, signal) => {
        const dog = createWatchdog(signal);
        try {
          dog.arm(timeouts.requestMs, 'the transcription');
          const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
          const url = joinUrl(base, 'v1/speech:recognize');
          // The API key goes in Google's header, not the URL (URLs end up in proxies' logs).
          if (sa) headers.authorization = `Bearer ${await accessToken(sa, CLOUD_PLATFORM_SCOPE, { fetch: s.fetch, now, timeoutMs: timeouts.requestMs }, GOOGLE_STT, dog.signal)}`;
          else headers['x-goog-api-key'] = key;
          const res = await s.fetch(url, {
            method: 'POST',
            headers,
            body: JSON.stringify(googleRecognizeBody(pcm, options.sampleRate, options.languages, options.model, options.phrases)),
            signal: dog.signal,
            timeoutMs: timeouts.requestMs,
            maxBytes: MAX_STT_ANSWER_BYTES,
          });
          if (!res.ok) {
            if (sa && res.status === 401) forgetToken(sa, CLOUD_PLATFORM_SCOPE);
            throw await httpFailure(GOOGLE_STT, res);
          }
          const body = (await res.json()) as { results?: { alternatives?: { transcript?: unknown }[]; languageCode?: unknown }[] };
          dog.disarm();
          const results = Array.isArray(body?.results) ? body.results : [];
          const text = results
            .map((r) => r?.alternatives?.[0]?.transcript)
            .filter((t): t is string => typeof t === 'string')
            .join(' ')
            .replace(/\s+/g, ' ')
            .trim();
          if (!text) return null;
          const language = results.find((r) => typeof r?.languageCode === 'string')?.languageCode as string | undefined;
          return { text, ...(language ? { language } : {}) };
        } catch (err) {
          throw providerFailure(GOOGLE_STT, err, signal, dog);
        } finally {
          dog.dispose();
        }
      });
    },
  };
}
