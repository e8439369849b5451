import type * as PollySdk from '@aws-sdk/client-polly';
import { SpeechRegionPatterns } from '@persona/contract';
import { safeToken } from '../http.js';
import type { Engine, PollyClient, SynthesizeSpeechCommandInput, VoiceId } from '@aws-sdk/client-polly';
import { ProviderError } from '../../core/errors.js';
import { Pcm16Reader } from '../../core/audio.js';
import { marksToVisemes, pollyViseme, type VisemeItem, type WordItem } from '../../core/visemes.js';
import { TTS_FIRST_AUDIO_MS, requestedRate, xmlEscape } from './common.js';
import { clamp, type TtsChunk, type TtsEngine } from './types.js';

/**
 * Amazon Polly through `@aws-sdk/client-polly` (SigV4 signing, its error types): two calls per
 * piece, started together — `SynthesizeSpeech` with `OutputFormat: pcm, SampleRate: 16000` (the
 * audio streams back) and the same text with `OutputFormat: json, SpeechMarkTypes: [viseme,
 * word]` (newline-delimited marks: `{"time":125,"type":"viseme","value":"p"}`, `{"time":6,
 * "type":"word","start":0,"end":5,"value":"Hello"}`). Polly's visemes map one to one onto the
 * Oculus set. Speed is SSML `<prosody rate>`; the engine comes from the voice ("Joanna
 * (neural)"), the model field, or is `standard`. A failed marks call does not lose the audio:
 * the pipeline then derives visemes from the text.
 */
export const POLLY = 'polly';

export interface PollySettings {
  accessKeyId: string;
  secretAccessKey: string;
  region: string;
  /** "Joanna", "Joanna (neural)". */
  voice: string;
  /** standard | neural | long-form | generative (when the voice does not say). */
  engine?: string;
  speed?: number;
  /** Replaces Polly's regional endpoint (https://polly.{region}.amazonaws.com). */
  endpoint?: string;
  timeouts?: { connectMs?: number; requestMs?: number };
}

const ENGINES = ['standard', 'neural', 'long-form', 'generative'];

/** The SDK is loaded on first use (~250 ms of imports): a worker whose avatars never use Polly never pays. */
let sdkLoading: Promise<typeof PollySdk> | null = null;
const loadSdk = () => (sdkLoading ??= import('@aws-sdk/client-polly'));
const SAMPLE_RATE = 16000;

/** "Joanna (neural)" → voice Joanna, engine neural. */
export function parsePollyVoice(voice: string, engine?: string): { voiceId: string; engine: string } {
  const m = /^\s*([A-Za-z-]+)\s*(?:\(([a-z-]+)\))?\s*$/.exec(voice);
  if (!m) throw new ProviderError(POLLY, `voice ${JSON.stringify(voice.slice(0, 40))} is not a Polly voice`);
  const e = (m[2] ?? engine ?? '').toLowerCase();
  return { voiceId: m[1]!, engine: ENGINES.includes(e) ? e : 'standard' };
}

export function createPollyTts(s: PollySettings): TtsEngine {
  let client: PollyClient | null = null;
  const getClient = async () => {
    const { PollyClient } = await loadSdk();
    if (!client) {
      const region = safeToken(s.region || 'us-east-1', 'region', POLLY, SpeechRegionPatterns.aws);
      client = new PollyClient({
        region,
        credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey },
        ...(s.endpoint ? { endpoint: s.endpoint } : {}),
        // No retries: a retried piece of speech arrives too late to be useful.
        maxAttempts: 1,
        // The SDK's requestTimeout is the stream's idle time: it bounds the first audio and every gap.
        requestHandler: { connectionTimeout: s.timeouts?.connectMs ?? 5_000, requestTimeout: s.timeouts?.requestMs ?? TTS_FIRST_AUDIO_MS },
      });
    }
    return client;
  };
  return {
    provider: POLLY,
    sampleRate: SAMPLE_RATE,
    marks: 'visemes',
    close() {
      client?.destroy();
      client = null;
    },
    async *synthesize(text, { signal, rate }): AsyncIterable<TtsChunk> {
      if (!s.accessKeyId || !s.secretAccessKey) throw new ProviderError(POLLY, 'no access key');
      const { voiceId, engine } = parsePollyVoice(s.voice, s.engine);
      const speed = requestedRate(s.speed, rate);
      const input: SynthesizeSpeechCommandInput = {
        Engine: engine as Engine,
        VoiceId: voiceId as VoiceId,
        ...(speed !== null
          ? { TextType: 'ssml', Text: `<speak><prosody rate="${Math.round(clamp(speed, 0.5, 2) * 100)}%">${xmlEscape(text)}</prosody></speak>` }
          : { TextType: 'text', Text: text }),
        OutputFormat: 'pcm',
        SampleRate: String(SAMPLE_RATE),
      };
      const c = await getClient();
      const { SynthesizeSpeechCommand } = await loadSdk();
      const marksCall = c
        .send(new SynthesizeSpeechCommand({ ...input, OutputFormat: 'json', SampleRate: undefined, SpeechMarkTypes: ['viseme', 'word'] }), { abortSignal: signal })
        .then(async (res) => parseMarks(await res.AudioStream!.transformToString()))
        .catch(() => null);
      let stopBody = () => {};
      try {
        const res = await c.send(new SynthesizeSpeechCommand(input), { abortSignal: signal });
        if (!res.AudioStream) throw new ProviderError(POLLY, 'an answer without audio');
        const reader = new Pcm16Reader();
        let marksSent = false;
        let marks: Awaited<typeof marksCall> | undefined;
        void marksCall.then((m) => (marks = m));
        let durationMs = 0;
        let gotAudio = false;
        // The SDK's abort stops the request, not a body already streaming: close it ourselves.
        const body = res.AudioStream as unknown as AsyncIterable<Uint8Array> & { destroy?: (err?: unknown) => void };
        const onAbort = () => body.destroy?.(signal.reason);
        signal.addEventListener('abort', onAbort, { once: true });
        stopBody = () => signal.removeEventListener('abort', onAbort);
        for await (const bytes of body) {
          signal.throwIfAborted();
          const samples = reader.push(bytes);
          durationMs += (samples.length * 1000) / SAMPLE_RATE;
          if (samples.length) gotAudio = true;
          const extra = !marksSent && marks ? toChunkMarks(marks, null) : undefined;
          if (extra) marksSent = true;
          if (samples.length || extra) yield { pcm: samples, sampleRate: SAMPLE_RATE, ...(extra ? { marks: extra } : {}) };
        }
        if (!gotAudio) throw new ProviderError(POLLY, 'an answer without audio');
        if (!marksSent) {
          const m = await marksCall;
          if (m) yield { pcm: new Int16Array(0), sampleRate: SAMPLE_RATE, marks: toChunkMarks(m, durationMs) };
        }
      } catch (err) {
        if (signal.aborted) throw signal.reason;
        throw pollyFailure(err);
      } finally {
        stopBody();
      }
    },
  };
}

interface PollyMark {
  time: number;
  type: string;
  value: string;
}

function parseMarks(text: string): PollyMark[] {
  const out: PollyMark[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const m = JSON.parse(line) as Partial<PollyMark>;
      if (typeof m.time === 'number' && typeof m.type === 'string' && typeof m.value === 'string') out.push({ time: m.time, type: m.type, value: m.value });
    } catch {
      // a broken line: skip it
    }
  }
  return out;
}

function toChunkMarks(marks: PollyMark[], durationMs: number | null): { visemes: VisemeItem[]; words: WordItem[] } | undefined {
  const vis = marks.filter((m) => m.type === 'viseme').map((m) => ({ t: m.time, v: pollyViseme(m.value) }));
  const lastT = vis.length ? vis[vis.length - 1]!.t : 0;
  const visemes = marksToVisemes(vis, durationMs ?? lastT + 150);
  const wordMarks = marks.filter((m) => m.type === 'word');
  const words = wordMarks.map((m, k) => {
    // A word lasts until the next word (or the next silence after it).
    const nextWord = wordMarks[k + 1]?.time;
    const sil = vis.find((v) => v.t > m.time && v.v === 'sil')?.t;
    const end = Math.min(nextWord ?? Infinity, sil ?? Infinity, durationMs ?? Infinity);
    return { t: m.time, d: Number.isFinite(end) ? Math.max(0, end - m.time) : 300, w: m.value };
  });
  if (!visemes.length && !words.length) return undefined;
  return { visemes, words };
}

function pollyFailure(err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  const e = err as { name?: string; message?: string; $metadata?: { httpStatusCode?: number } };
  const status = e?.$metadata?.httpStatusCode;
  const name = e?.name && e.name !== 'Error' ? `${e.name}: ` : '';
  return new ProviderError(POLLY, `${name}${(e?.message ?? String(err)).slice(0, 300)}`, status);
}
