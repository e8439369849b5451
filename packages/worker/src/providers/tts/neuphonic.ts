import { ProviderError } from '../../core/errors.js';
import type { GuardedFetch } from '../../core/types.js';
import { Pcm16Reader } from '../../core/audio.js';
import { createWatchdog, errorDetail, httpFailure, joinUrl, providerFailure, refuseWrongAnswer, safeToken } from '../http.js';
import { readSse } from '../sse.js';
import { DEFAULT_TTS_TIMEOUTS, MAX_TTS_BYTES, base64Samples, nearestRate, type TtsTimeouts } from './common.js';
import { clamp, type TtsChunk, type TtsEngine } from './types.js';

/**
 * Neuphonic over server-sent events: `POST {base}/sse/speak/{lang_code}` with `X-API-KEY` and
 * `{text, voice_id, lang_code, encoding: 'pcm_linear', sampling_rate, speed}`; events
 * `data: {"status_code": 200, "data": {"audio": base64}}`, errors as `event: error` or an
 * `errors` field. Neuphonic gives no timings: the pipeline derives visemes from the text.
 * Its speed is a multiplier (default 1, 0.7–2), as the editor stores it for Neuphonic.
 */
export const NEUPHONIC = 'neuphonic';

export interface NeuphonicSettings {
  apiKey: string;
  /** A voice id (UUID); none: Neuphonic's default voice for the language. */
  voiceId?: string;
  langCode?: string;
  /** Multiplier (default 1). */
  speed?: number;
  model?: string;
  /** Default https://api.neuphonic.com */
  baseUrl?: string;
  sampleRate?: number;
  fetch: GuardedFetch;
  timeouts?: Partial<TtsTimeouts>;
}

const RATES = [8000, 16000, 22050];

export function createNeuphonicTts(s: NeuphonicSettings): TtsEngine {
  const sampleRate = nearestRate(s.sampleRate, RATES, 22050);
  const timeouts = { ...DEFAULT_TTS_TIMEOUTS, ...s.timeouts };
  const base = s.baseUrl ?? 'https://api.neuphonic.com';
  return {
    provider: NEUPHONIC,
    sampleRate,
    marks: 'none',
    async *synthesize(text, { signal, rate }): AsyncIterable<TtsChunk> {
      if (!s.apiKey) throw new ProviderError(NEUPHONIC, 'no API key');
      const lang = safeToken(s.langCode || 'en', 'language code', NEUPHONIC, /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})?$/);
      const own = s.speed !== undefined && Number.isFinite(s.speed) && s.speed > 0 ? s.speed : 1;
      const extra = rate !== undefined && Number.isFinite(rate) && rate > 0 ? rate : 1;
      const speed = clamp(own * extra, 0.7, 2);
      const body: Record<string, unknown> = { text, lang_code: lang, encoding: 'pcm_linear', sampling_rate: sampleRate, speed };
      if (s.voiceId) body.voice_id = s.voiceId;
      if (s.model) body.model = s.model;
      const dog = createWatchdog(signal);
      try {
        dog.arm(timeouts.firstChunkMs, 'the first audio');
        const res = await s.fetch(joinUrl(base, `sse/speak/${encodeURIComponent(lang)}`), {
          method: 'POST',
          headers: { 'x-api-key': s.apiKey, 'content-type': 'application/json', accept: 'text/event-stream' },
          body: JSON.stringify(body),
          signal: dog.signal,
          timeoutMs: timeouts.firstChunkMs,
          maxBytes: MAX_TTS_BYTES,
        });
        if (!res.ok) throw await httpFailure(NEUPHONIC, res);
        if (!res.body) throw new ProviderError(NEUPHONIC, 'empty answer', res.status);
        await refuseWrongAnswer(NEUPHONIC, res, 'stream');
        const pcm = new Pcm16Reader();
        let gotAudio = false;
        for await (const ev of readSse(res.body, { onBytes: () => dog.arm(timeouts.idleMs, 'the next audio') })) {
          let msg: { status_code?: number; data?: { audio?: unknown }; errors?: unknown; message?: unknown } = {};
          try {
            msg = JSON.parse(ev.data) as typeof msg;
          } catch {
            if (ev.event === 'error') throw new ProviderError(NEUPHONIC, `error in the stream: ${errorDetail(ev.data)}`);
            throw new ProviderError(NEUPHONIC, 'an event that is not JSON');
          }
          if (ev.event === 'error' || (msg.errors && (!Array.isArray(msg.errors) || msg.errors.length)) || (typeof msg.status_code === 'number' && msg.status_code >= 400)) {
            const status = typeof msg.status_code === 'number' && msg.status_code >= 400 ? msg.status_code : undefined;
            throw new ProviderError(NEUPHONIC, `error in the stream: ${errorDetail(msg) || 'unknown error'}`, status);
          }
          const samples = base64Samples(pcm, msg.data?.audio, NEUPHONIC);
          if (samples.length) {
            gotAudio = true;
            yield { pcm: samples, sampleRate };
          }
        }
        dog.disarm();
        if (!gotAudio) throw new ProviderError(NEUPHONIC, 'an answer without audio');
      } catch (err) {
        throw providerFailure(NEUPHONIC, err, signal, dog);
      } finally {
        dog.dispose();
      }
    },
  };
}
