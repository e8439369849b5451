import { ProviderError, type GuardedFetch } from '../../brains/types.js';
import { createWatchdog, httpFailure, providerFailure, safeToken } from '../http.js';
import { DEFAULT_STT_TIMEOUTS, MAX_STT_ANSWER_BYTES, batchSession, languageTag, type SttTimeouts } from './batch.js';
import { wavFile } from '../../speech/audio.js';
import type { SttEngine } from './types.js';

/**
 * Azure AI Speech, speech to text over the short-audio REST API, one request per utterance:
 * `POST https://{region}.stt.speech.microsoft.com/speech/recognition/conversation/cognitiveservices/v1?language=…&format=simple`
 * with `Ocp-Apim-Subscription-Key` and the utterance as a 16 kHz WAV
 * (`Content-Type: audio/wav; codecs=audio/pcm; samplerate=16000`). The answer is
 * `{RecognitionStatus: Success | NoMatch | InitialSilenceTimeout | BabbleTimeout | Error, DisplayText, Offset, Duration}`.
 *
 * Batch, not streaming: Azure's streaming recognition is the Speech SDK's WebSocket protocol
 * (undocumented framing), not implemented here — so no interim results, and the result comes
 * one request after the VAD cut the utterance (~200–400 ms for a short sentence). The REST API
 * takes one language: the main one; the additional languages are not used (Azure's language
 * identification exists only on the SDK protocol). At most 60 s of audio per utterance.
 */
export const AZURE_STT = 'azure';

export interface AzureSttSettings {
  apiKey: string;
  region: string;
  /** Replaces `https://{region}.stt.speech.microsoft.com` (`{region}` is filled in). */
  baseUrl?: string;
  fetch: GuardedFetch;
  timeouts?: Partial<SttTimeouts>;
}

export const AZURE_STT_PATH = '/speech/recognition/conversation/cognitiveservices/v1';

export function createAzureStt(s: AzureSttSettings): SttEngine {
  const timeouts = { ...DEFAULT_STT_TIMEOUTS, ...s.timeouts };
  return {
    provider: AZURE_STT,
    mode: 'batch',
    async open(options, events) {
      if (!s.apiKey) throw new ProviderError(AZURE_STT, 'no subscription key');
      // The region becomes part of a host name: letters and digits only.
      const region = safeToken(s.region, 'region', AZURE_STT, /^[a-z0-9]{2,30}$/);
      const language = languageTag(options.languages.find((l) => l !== 'multi'), AZURE_STT) ?? 'en-US';
      const base = (s.baseUrl ?? 'https://{region}.stt.speech.microsoft.com').replace('{region}', region).replace(/\/+$/, '');
      const url = `${base}${AZURE_STT_PATH}?language=${encodeURIComponent(language)}&format=simple&profanity=raw`;
      return batchSession(options, events, async (pcm, signal) => {
        const dog = createWatchdog(signal);
        try {
          dog.arm(timeouts.requestMs, 'the transcription');
          const res = await s.fetch(url, {
            method: 'POST',
            headers: {
              'ocp-apim-subscription-key': s.apiKey,
              'content-type': `audio/wav; codecs=audio/pcm; samplerate=${options.sampleRate}`,
              accept: 'application/json',
            },
            body: wavFile(pcm, options.sampleRate),
            signal: dog.signal,
            timeoutMs: timeouts.requestMs,
            maxBytes: MAX_STT_ANSWER_BYTES,
          });
          if (!res.ok) throw await httpFailure(AZURE_STT, res);
          const body = (await res.json()) as { RecognitionStatus?: unknown; DisplayText?: unknown; Offset?: unknown; Duration?: unknown };
          dog.disarm();
          const status = String(body?.RecognitionStatus ?? '');
          if (status === 'Success') return { text: typeof body.DisplayText === 'string' ? body.DisplayText : '', language };
          if (status === 'NoMatch' || status === 'InitialSilenceTimeout' || status === 'BabbleTimeout') return null;
          throw new ProviderError(AZURE_STT, `recognition failed: ${status.slice(0, 40) || 'no RecognitionStatus'}`, res.status);
        } catch (err) {
          throw providerFailure(AZURE_STT, err, signal, dog);
        } finally {
          dog.dispose();
        }
      });
    },
  };
}
