import { ttsRow } from '@persona/contract';
import { ProviderError } from '../../core/errors.js';
import type { GuardedFetch } from '../../core/types.js';
import { Pcm16Reader } from '../../core/audio.js';
import { phonesToVisemes, wordsToVisemes, type TimedPhone, type TimedWord, type VisemeItem, type WordItem } from '../../core/visemes.js';
import { createWatchdog, errorDetail, httpFailure, joinUrl, providerFailure, refuseWrongAnswer } from '../http.js';
import { readSse } from '../sse.js';
import { DEFAULT_TTS_TIMEOUTS, MAX_TTS_BYTES, base64Samples, nearestRate, requestedRate, type TtsTimeouts } from './common.js';
import { clamp, type TtsChunk, type TtsEngine } from './types.js';

/** The model when the avatar names none: its provider row's default (contract providers.ts). */
const DEFAULT_MODEL = ttsRow('cartesia').defaults.model;

/**
 * Cartesia (Sonic) over server-sent events: `POST {base}/tts/sse` with `Cartesia-Version` and the
 * key (as `Authorization: Bearer` and, for older API versions, `X-API-Key`), raw `pcm_s16le`
 * output, `add_timestamps` and `add_phoneme_timestamps`. Events (`data: {json}`): `chunk`
 * (base64 audio in `data`), `timestamps` (`word_timestamps: {words, start, end}`, seconds),
 * `phoneme_timestamps` (`{phonemes, start, end}`, IPA), `done`, `error`. Visemes come from the
 * phonemes; when a model sends none, from the words' letters within their times.
 * Speed is `generation_config.speed` (0.6–1.5).
 */
export const CARTESIA = 'cartesia';

export interface CartesiaSettings {
  apiKey: string;
  voiceId: string;
  /** Default sonic-3. */
  model?: string;
  speed?: number;
  /** en, fr, de, … */
  language?: string;
  /** Default https://api.cartesia.ai */
  baseUrl?: string;
  /** Cartesia-Version header (default 2025-04-16). */
  version?: string;
  /** Wanted sample rate (default 24 kHz). */
  sampleRate?: number;
  fetch: GuardedFetch;
  timeouts?: Partial<TtsTimeouts>;
}

const RATES = [8000, 16000, 22050, 24000, 44100, 48000];

interface CartesiaEvent {
  type?: string;
  data?: unknown;
  done?: boolean;
  word_timestamps?: { words?: unknown[]; start?: unknown[]; end?: unknown[] };
  phoneme_timestamps?: { phonemes?: unknown[]; start?: unknown[]; end?: unknown[] };
  error?: unknown;
  message?: unknown;
  title?: unknown;
  status_code?: number;
}

export function createCartesiaTts(s: CartesiaSettings): TtsEngine {
  const sampleRate = nearestRate(s.sampleRate, RATES, 24000);
  const timeouts = { ...DEFAULT_TTS_TIMEOUTS, ...s.timeouts };
  const base = s.baseUrl ?? 'https://api.cartesia.ai';
  return {
    provider: CARTESIA,
    sampleRate,
    marks: 'visemes',
    async *synthesize(text, { signal, rate }): AsyncIterable<TtsChunk> {
      if (!s.apiKey) throw new ProviderError(CARTESIA, 'no API key');
      if (!s.voiceId) throw new ProviderError(CARTESIA, 'no voice');
      const body: Record<string, unknown> = {
        model_id: s.model || DEFAULT_MODEL,
        transcript: text,
        voice: { mode: 'id', id: s.voiceId },
        output_format: { container: 'raw', encoding: 'pcm_s16le', sample_rate: sampleRate },
        add_timestamps: true,
        add_phoneme_timestamps: true,
      };
      if (s.language) body.language = s.language;
      const speed = requestedRate(s.speed, rate);
      if (speed !== null) body.generation_config = { speed: clamp(speed, 0.6, 1.5) };
      const dog = createWatchdog(signal);
      try {
        dog.arm(timeouts.firstChunkMs, 'the first audio');
        const res = await s.fetch(joinUrl(base, 'tts/sse'), {
          method: 'POST',
          headers: {
            'cartesia-version': s.version || '2025-04-16',
            authorization: `Bearer ${s.apiKey}`,
            'x-api-key': s.apiKey,
            'content-type': 'application/json',
            accept: 'text/event-stream',
          },
          body: JSON.stringify(body),
          signal: dog.signal,
          timeoutMs: timeouts.firstChunkMs,
          maxBytes: MAX_TTS_BYTES,
        });
        if (!res.ok) throw await httpFailure(CARTESIA, res);
        if (!res.body) throw new ProviderError(CARTESIA, 'empty answer', res.status);
        await refuseWrongAnswer(CARTESIA, res, 'stream');
        const pcm = new Pcm16Reader();
        let sawPhonemes = false;
        let done = false;
        let gotAudio = false;
        const wordsSoFar: TimedWord[] = [];
        for await (const ev of readSse(res.body, { onBytes: () => dog.arm(timeouts.idleMs, 'the next audio') })) {
          const msg = JSON.parse(ev.data) as CartesiaEvent;
          const type = msg.type ?? ev.event;
          if (type === 'error' || msg.error) {
            const status = typeof msg.status_code === 'number' && msg.status_code >= 400 ? msg.status_code : undefined;
            throw new ProviderError(CARTESIA, `error in the stream: ${errorDetail(msg) || 'unknown error'}`, status);
          }
          if (type === 'chunk') {
            const samples = base64Samples(pcm, msg.data, CARTESIA);
            if (samples.length) {
              gotAudio = true;
              yield { pcm: samples, sampleRate };
            }
          } else if (type === 'timestamps' && msg.word_timestamps) {
            const timed = zipTimes(msg.word_timestamps.words, msg.word_timestamps.start, msg.word_timestamps.end).map((x) => ({ word: x.label, startMs: x.startMs, endMs: x.endMs }));
            wordsSoFar.push(...timed);
            const words: WordItem[] = timed.map((w) => ({ t: w.startMs, d: Math.max(0, w.endMs - w.startMs), w: w.word }));
            if (words.length) yield { pcm: new Int16Array(0), sampleRate, marks: { words } };
          } else if (type === 'phoneme_timestamps' && msg.phoneme_timestamps) {
            const phones: TimedPhone[] = zipTimes(msg.phoneme_timestamps.phonemes, msg.phoneme_timestamps.start, msg.phoneme_timestamps.end).map((x) => ({ phone: x.label, startMs: x.startMs, endMs: x.endMs }));
            const visemes = withoutFinalSil(phonesToVisemes(phones, 'ipa'));
            if (visemes.length) {
              sawPhonemes = true;
              yield { pcm: new Int16Array(0), sampleRate, marks: { visemes } };
            }
          } else if (type === 'done' || msg.done) {
            done = true;
            break;
          }
        }
        dog.disarm();
        if (!done && !gotAudio) throw new ProviderError(CARTESIA, 'the answer broke off before any audio');
        // Phonemes give the best timeline; a model without them still has its words' letters.
        if (!sawPhonemes && wordsSoFar.length) yield { pcm: new Int16Array(0), sampleRate, marks: { visemes: wordsToVisemes(wordsSoFar) } };
      } catch (err) {
        throw providerFailure(CARTESIA, err, signal, dog);
      } finally {
        dog.dispose();
      }
    },
  };
}

function zipTimes(labels: unknown[] | undefined, starts: unknown[] | undefined, ends: unknown[] | undefined): { label: string; startMs: number; endMs: number }[] {
  const out: { label: string; startMs: number; endMs: number }[] = [];
  const n = Math.min(labels?.length ?? 0, starts?.length ?? 0, ends?.length ?? 0);
  for (let k = 0; k < n; k++) {
    const startMs = Number(starts![k]) * 1000;
    const endMs = Number(ends![k]) * 1000;
    if (!Number.isFinite(startMs) || !Number.isFinite(endMs)) continue;
    out.push({ label: String(labels![k]), startMs, endMs: Math.max(startMs, endMs) });
  }
  return out;
}

/** Phoneme batches arrive one after the other: only the last closes the mouth (the pipeline does). */
function withoutFinalSil(items: VisemeItem[]): VisemeItem[] {
  return items.length && items[items.length - 1]!.v === 'sil' ? items.slice(0, -1) : items;
}
