import { ttsRow } from '@persona/contract';
import { ProviderError } from '../../core/errors.js';
import type { GuardedFetch } from '../../core/types.js';
import { Pcm16Reader } from '../../core/audio.js';
import { CharacterAligner } from '../../core/visemes.js';
import { createWatchdog, errorDetail, httpFailure, joinUrl, providerFailure, refuseWrongAnswer } from '../http.js';
import { DEFAULT_TTS_TIMEOUTS, MAX_TTS_BYTES, base64Samples, nearestRate, readLines, requestedRate, type TtsTimeouts } from './common.js';
import { clamp, type TtsChunk, type TtsEngine } from './types.js';

/** The model when the avatar names none: its provider row's default (contract providers.ts). */
const DEFAULT_MODEL = ttsRow('elevenlabs').defaults.model;

/**
 * ElevenLabs text to speech, streamed with character timings:
 * `POST {base}/v1/text-to-speech/{voice_id}/stream/with-timestamps?output_format=pcm_{rate}` with
 * `xi-api-key`; the answer is newline-delimited JSON, one object per audio chunk:
 * `{audio_base64, alignment: {characters, character_start_times_seconds,
 * character_end_times_seconds}, normalized_alignment}` — times from the start of this request's
 * audio. The characters' times place each word's letter-visemes and give the word times.
 * Speed is `voice_settings.speed` (0.7–1.2); the previous piece goes in `previous_text` so the
 * voice keeps its intonation across pieces.
 */
export const ELEVENLABS = 'elevenlabs';

export interface ElevenLabsSettings {
  apiKey: string;
  voiceId: string;
  /** Default eleven_flash_v2_5 (ElevenLabs' lowest-latency model). */
  model?: string;
  /** Editor speed (-1 … 1, 0 = the voice's own). */
  speed?: number;
  /** ISO 639-1, for the multilingual models. */
  languageCode?: string;
  /** Default https://api.elevenlabs.io */
  baseUrl?: string;
  /** Wanted sample rate (ElevenLabs: 8, 16, 22.05, 24, 44.1, 48 kHz; default 24 kHz). */
  sampleRate?: number;
  fetch: GuardedFetch;
  timeouts?: Partial<TtsTimeouts>;
}

const RATES = [8000, 16000, 22050, 24000, 44100, 48000];

export function createElevenLabsTts(s: ElevenLabsSettings): TtsEngine {
  const sampleRate = nearestRate(s.sampleRate, RATES, 24000);
  const timeouts = { ...DEFAULT_TTS_TIMEOUTS, ...s.timeouts };
  const base = s.baseUrl ?? 'https://api.elevenlabs.io';
  return {
    provider: ELEVENLABS,
    sampleRate,
    marks: 'visemes',
    async *synthesize(text, { signal, previousText, rate }): AsyncIterable<TtsChunk> {
      if (!s.apiKey) throw new ProviderError(ELEVENLABS, 'no API key');
      if (!s.voiceId) throw new ProviderError(ELEVENLABS, 'no voice');
      const url = `${joinUrl(base, `v1/text-to-speech/${encodeURIComponent(s.voiceId)}/stream/with-timestamps`)}?output_format=pcm_${sampleRate}`;
      const body: Record<string, unknown> = { text, model_id: s.model || DEFAULT_MODEL };
      const speed = requestedRate(s.speed, rate);
      if (speed !== null) body.voice_settings = { speed: clamp(speed, 0.7, 1.2) };
      if (previousText) body.previous_text = previousText.slice(-1000);
      if (s.languageCode) body.language_code = s.languageCode;
      const dog = createWatchdog(signal);
      try {
        dog.arm(timeouts.firstChunkMs, 'the first audio');
        const res = await s.fetch(url, {
          method: 'POST',
          headers: { 'xi-api-key': s.apiKey, 'content-type': 'application/json', accept: 'application/json' },
          body: JSON.stringify(body),
          signal: dog.signal,
          timeoutMs: timeouts.firstChunkMs,
          maxBytes: MAX_TTS_BYTES,
        });
        if (!res.ok) throw await httpFailure(ELEVENLABS, res);
        if (!res.body) throw new ProviderError(ELEVENLABS, 'empty answer', res.status);
        await refuseWrongAnswer(ELEVENLABS, res, 'stream');
        const pcm = new Pcm16Reader();
        const aligner = new CharacterAligner();
        let gotAudio = false;
        for await (const line of readLines(res.body, () => dog.arm(timeouts.idleMs, 'the next audio'))) {
          const chunk = JSON.parse(line) as { audio_base64?: unknown; alignment?: Alignment | null; normalized_alignment?: Alignment | null; detail?: unknown; error?: unknown };
          if (chunk.audio_base64 === undefined && (chunk.detail || chunk.error)) throw new ProviderError(ELEVENLABS, `error in the stream: ${errorDetail(chunk)}`);
          const samples = base64Samples(pcm, chunk.audio_base64, ELEVENLABS);
          const a = chunk.alignment ?? chunk.normalized_alignment;
          let marks: TtsChunk['marks'];
          if (a && Array.isArray(a.characters)) {
            const toMs = (xs: unknown) => (Array.isArray(xs) ? xs.map((x) => Number(x) * 1000) : []);
            const m = aligner.push(a.characters.map(String), toMs(a.character_start_times_seconds), toMs(a.character_end_times_seconds));
            if (m.visemes.length || m.words.length) marks = m;
          }
          if (samples.length) gotAudio = true;
          if (samples.length || marks) yield { pcm: samples, sampleRate, ...(marks ? { marks } : {}) };
        }
        dog.disarm();
        if (!gotAudio) throw new ProviderError(ELEVENLABS, 'an answer without audio');
        const rest = aligner.end();
        if (rest.visemes.length || rest.words.length) yield { pcm: new Int16Array(0), sampleRate, marks: rest };
      } catch (err) {
        throw providerFailure(ELEVENLABS, err, signal, dog);
      } finally {
        dog.dispose();
      }
    },
  };
}

interface Alignment {
  characters: unknown[];
  character_start_times_seconds: unknown;
  character_end_times_seconds: unknown;
}
