import { ProviderError } from '../../core/errors.js';
import type { GuardedFetch } from '../../core/types.js';
import { Pcm16Reader, bytesToSamples, firstChannel, parseWavHeader } from '../../core/audio.js';
import { createWatchdog, errorBodyDetail, httpFailure, joinUrl, providerFailure, refuseWrongAnswer } from '../http.js';
import { DEFAULT_TTS_TIMEOUTS, MAX_TTS_BYTES, readBytes, requestedRate, textInsteadOfAudio, type TtsTimeouts } from './common.js';
import { clamp, type TtsChunk, type TtsEngine } from './types.js';

/**
 * Any OpenAI-compatible speech endpoint (OpenAI, and the servers that copy its API):
 * `POST {base}/audio/speech` with `Authorization: Bearer`, `{model, input, voice,
 * response_format: 'pcm', speed}`. OpenAI's `pcm` is raw 24 kHz 16-bit mono, streamed; servers
 * that answer a WAV file instead are read by its header. No timings: the pipeline derives
 * visemes from the text. The base URL is the avatar owner's: it goes through the guarded fetch.
 */
export const OPENAI_TTS = 'openai-compatible';

export interface OpenAiTtsSettings {
  baseUrl: string;
  apiKey: string;
  /** Default tts-1. */
  model?: string;
  /** Default alloy. */
  voice?: string;
  speed?: number;
  /** Rate of the raw `pcm` the server sends (OpenAI: 24 kHz). */
  pcmSampleRate?: number;
  fetch: GuardedFetch;
  timeouts?: Partial<TtsTimeouts>;
}

/** Accepts the full endpoint as a base too. */
export function speechUrl(baseUrl: string): string {
  return joinUrl(baseUrl.replace(/\/audio\/speech\/?$/, ''), 'audio/speech');
}

export function createOpenAiTts(s: OpenAiTtsSettings): TtsEngine {
  const sampleRate = s.pcmSampleRate ?? 24000;
  const timeouts = { ...DEFAULT_TTS_TIMEOUTS, ...s.timeouts };
  return {
    provider: OPENAI_TTS,
    sampleRate,
    marks: 'none',
    async *synthesize(text, { signal, rate: answerRate }): AsyncIterable<TtsChunk> {
      const body: Record<string, unknown> = { model: s.model || 'tts-1', input: text, voice: s.voice || 'alloy', response_format: 'pcm' };
      const speed = requestedRate(s.speed, answerRate);
      if (speed !== null) body.speed = clamp(speed, 0.25, 4);
      const dog = createWatchdog(signal);
      try {
        dog.arm(timeouts.firstChunkMs, 'the first audio');
        const res = await s.fetch(speechUrl(s.baseUrl), {
          method: 'POST',
          headers: { ...(s.apiKey ? { authorization: `Bearer ${s.apiKey}` } : {}), 'content-type': 'application/json', accept: 'audio/pcm, audio/wav, application/octet-stream' },
          body: JSON.stringify(body),
          signal: dog.signal,
          timeoutMs: timeouts.firstChunkMs,
          maxBytes: MAX_TTS_BYTES,
        });
        if (!res.ok) throw await httpFailure(OPENAI_TTS, res);
        if (!res.body) throw new ProviderError(OPENAI_TTS, 'empty answer', res.status);
        await refuseWrongAnswer(OPENAI_TTS, res, 'audio');
        const type = res.headers.get('content-type') ?? '';
        const pcm = new Pcm16Reader();
        // A WAV answer: hold bytes until its header is whole, then read its rate and channels.
        let head: Uint8Array | null = new Uint8Array(0);
        let rate = sampleRate;
        let channels = 1;
        let gotAudio = false;
        let maybeWav = /wav/.test(type);
        let carry = new Int16Array(0);
        for await (const bytes of readBytes(res.body, () => dog.arm(timeouts.idleMs, 'the next audio'))) {
          let data: Uint8Array = bytes;
          if (head) {
            const joined: Uint8Array = new Uint8Array(head.byteLength + bytes.byteLength);
            joined.set(head);
            joined.set(bytes, head.byteLength);
            if (!maybeWav && joined.byteLength >= 4) maybeWav = String.fromCharCode(...joined.subarray(0, 4)) === 'RIFF';
            if (!maybeWav && joined.byteLength >= 4) {
              const text = textInsteadOfAudio(joined);
              if (text !== null) throw new ProviderError(OPENAI_TTS, `answered a document instead of audio: ${errorBodyDetail(text)}`, res.status);
              head = null;
              data = joined;
            } else {
              let info;
              try {
                info = parseWavHeader(joined);
              } catch (err) {
                throw new ProviderError(OPENAI_TTS, `unreadable audio: ${err instanceof Error ? err.message : String(err)}`);
              }
              if (!info) {
                if (joined.byteLength > 64 * 1024) throw new ProviderError(OPENAI_TTS, 'unreadable audio: no WAV data chunk');
                head = joined;
                continue;
              }
              rate = info.sampleRate;
              channels = info.channels;
              head = null;
              data = joined.subarray(info.dataOffset);
            }
          }
          let samples = pcm.push(data);
          if (channels > 1) {
            // Interleaved frames may be split between chunks: keep the partial frame.
            const joined = new Int16Array(carry.length + samples.length);
            joined.set(carry);
            joined.set(samples, carry.length);
            const whole = joined.length - (joined.length % channels);
            carry = joined.slice(whole);
            samples = firstChannel(joined.subarray(0, whole), channels);
          }
          if (samples.length) {
            gotAudio = true;
            yield { pcm: samples, sampleRate: rate };
          }
        }
        if (head && head.byteLength >= 2 && !maybeWav) {
          const samples = bytesToSamples(head);
          if (samples.length) {
            gotAudio = true;
            yield { pcm: samples, sampleRate: rate };
          }
        }
        dog.disarm();
        if (!gotAudio) throw new ProviderError(OPENAI_TTS, 'an answer without audio');
      } catch (err) {
        throw providerFailure(OPENAI_TTS, err, signal, dog);
      } finally {
        dog.dispose();
      }
    },
  };
}
