import { SpeechRegionPatterns } from '@persona/contract';
import { ProviderError } from '../../core/errors.js';
import type { GuardedFetch } from '../../core/types.js';
import { Pcm16Reader } from '../../core/audio.js';
import { createWatchdog, errorBodyDetail, httpFailure, providerFailure, refuseWrongAnswer, safeToken } from '../http.js';
import { DEFAULT_TTS_TIMEOUTS, MAX_TTS_BYTES, nearestRate, readBytes, requestedRate, textInsteadOfAudio, xmlEscape, type TtsTimeouts } from './common.js';
import { clamp, type TtsChunk, type TtsEngine } from './types.js';

/**
 * Azure AI Speech, REST: `POST https://{region}.tts.speech.microsoft.com/cognitiveservices/v1`
 * with `Ocp-Apim-Subscription-Key`, SSML (`<voice name>`, `<prosody rate>` for the speed) and
 * `X-Microsoft-OutputFormat: raw-{16|24|48}khz-16bit-mono-pcm`; the audio streams back as the
 * body. The REST API gives no timings (viseme and word-boundary events exist only on the Speech
 * SDK's WebSocket protocol, which is not implemented here): the pipeline derives visemes from
 * the text, scaled to the audio.
 */
export const AZURE = 'azure';

export interface AzureSettings {
  apiKey: string;
  region: string;
  /** e.g. en-US-JennyNeural */
  voice: string;
  speed?: number;
  /** Replaces `https://{region}.tts.speech.microsoft.com` (`{region}` is filled in). */
  baseUrl?: string;
  sampleRate?: number;
  fetch: GuardedFetch;
  timeouts?: Partial<TtsTimeouts>;
}

const RATES = [8000, 16000, 24000, 48000];

/** The SSML Azure is sent: the voice's own locale, the text escaped, the rate (speed × the answer's rate) as a percentage. */
export function azureSsml(text: string, voice: string, speed?: number, rate?: number): string {
  const locale = /^([a-z]{2,3}-[A-Z]{2,4})-/.exec(voice)?.[1] ?? 'en-US';
  const r = requestedRate(speed, rate);
  let inner = xmlEscape(text);
  if (r !== null) {
    const pct = Math.round((clamp(r, 0.5, 2) - 1) * 100);
    inner = `<prosody rate="${pct >= 0 ? '+' : ''}${pct}%">${inner}</prosody>`;
  }
  return `<speak version="1.0" xmlns="http://www.w3.org/2001/10/synthesis" xml:lang="${locale}"><voice name="${xmlEscape(voice)}">${inner}</voice></speak>`;
}

export function createAzureTts(s: AzureSettings): TtsEngine {
  const sampleRate = nearestRate(s.sampleRate, RATES, 24000);
  const timeouts = { ...DEFAULT_TTS_TIMEOUTS, ...s.timeouts };
  return {
    provider: AZURE,
    sampleRate,
    marks: 'none',
    async *synthesize(text, { signal, rate }): AsyncIterable<TtsChunk> {
      if (!s.apiKey) throw new ProviderError(AZURE, 'no subscription key');
      if (!s.voice) throw new ProviderError(AZURE, 'no voice');
      // The region becomes part of a host name: letters and digits only.
      const region = safeToken(s.region, 'region', AZURE, SpeechRegionPatterns.azure);
      const base = (s.baseUrl ?? 'https://{region}.tts.speech.microsoft.com').replace('{region}', region).replace(/\/+$/, '');
      const dog = createWatchdog(signal);
      try {
        dog.arm(timeouts.firstChunkMs, 'the first audio');
        const res = await s.fetch(`${base}/cognitiveservices/v1`, {
          method: 'POST',
          headers: {
            'ocp-apim-subscription-key': s.apiKey,
            'content-type': 'application/ssml+xml',
            'x-microsoft-outputformat': `raw-${sampleRate / 1000}khz-16bit-mono-pcm`,
            'user-agent': 'PersonaStudio',
          },
          body: azureSsml(text, s.voice, s.speed, rate),
          signal: dog.signal,
          timeoutMs: timeouts.firstChunkMs,
          maxBytes: MAX_TTS_BYTES,
        });
        if (!res.ok) throw await httpFailure(AZURE, res);
        if (!res.body) throw new ProviderError(AZURE, 'empty answer', res.status);
        await refuseWrongAnswer(AZURE, res, 'audio');
        const pcm = new Pcm16Reader();
        let gotAudio = false;
        let first = true;
        for await (const bytes of readBytes(res.body, () => dog.arm(timeouts.idleMs, 'the next audio'))) {
          const text = first ? textInsteadOfAudio(bytes) : null;
          first = false;
          if (text !== null) throw new ProviderError(AZURE, `answered a document instead of audio: ${errorBodyDetail(text)}`, res.status);
          const samples = pcm.push(bytes);
          if (samples.length) {
            gotAudio = true;
            yield { pcm: samples, sampleRate };
          }
        }
        dog.disarm();
        if (!gotAudio) throw new ProviderError(AZURE, 'an answer without audio');
      } catch (err) {
        throw providerFailure(AZURE, err, signal, dog);
      } finally {
        dog.dispose();
      }
    },
  };
}
