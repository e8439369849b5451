import http2 from 'node:http2';
import { ProviderError } from '../../core/errors.js';
import type { GuardedFetch } from '../../core/types.js';
import { accessToken, CLOUD_PLATFORM_SCOPE, forgetToken, parseServiceAccount, type ServiceAccount } from '../google/service-account.js';
import { grpcFrame, GrpcReader, grpcStatusToHttp, ProtoWriter, protoMessages, protoNumber, protoString, readProto } from '../google/grpc.js';
import { safeToken } from '../http.js';
import { DEFAULT_STT_TIMEOUTS, languageTag, type SttTimeouts } from './batch.js';
import type { SttEngine, SttEvents, SttOptions, SttResult, SttSession } from './types.js';

/**
 * Google Cloud Speech-to-Text v1, streaming recognition over gRPC (HTTP/2, `node:http2`, the
 * messages encoded by hand in providers/google/grpc.ts): `POST
 * https://speech.googleapis.com/google.cloud.speech.v1.Speech/StreamingRecognize` (regional:
 * `https://{region}-speech.googleapis.com`) with `content-type: application/grpc`, `te: trailers`
 * and either an API key (`x-goog-api-key`) or a service-account key (the JWT bearer exchange in
 * providers/google/service-account.ts → `authorization: Bearer`).
 *
 * One gRPC stream per utterance on one HTTP/2 connection: the first request message is the
 * `streaming_config` (LINEAR16, 16 kHz, mono, the main language and up to three alternatives,
 * the model, automatic punctuation, the context phrases as a speech context, interim results),
 * then the audio as it comes (`audio_content`). `finalize()` (the VAD cut the utterance)
 * half-closes the stream: Google sends the final results and ends it with `grpc-status` 0; the
 * next audio opens the next stream at once (HTTP/2 carries both while the last one finishes).
 * Responses carry `results` — at most one `is_final` result (the newly settled text: a final
 * result) followed by interim ones (joined: one interim result) — or an `error`.
 *
 * Failures: a status other than 0 (`grpc-status`/`grpc-message` in the trailers, or in the
 * headers of a trailers-only answer), an HTTP status other than 200, a malformed message, or a
 * stream that ends without a status ends the session with a ProviderError (the gRPC code mapped
 * to the HTTP status it stands for: 16 → 401, 7 → 403, 8 → 429…). Google ends a stream after about
 * five minutes (OUT_OF_RANGE), or after ~10 s without audio: a stream is replaced after
 * ROTATE_STREAM_MS, and an OUT_OF_RANGE on a stream nobody waits for just ends it. A connection the
 * server drains (GOAWAY) gets no new stream, and the stream on it is half-closed at once (its
 * results come; the rest of the utterance goes on a new connection) instead of being cut when
 * the server closes; a stream refused in that race (REFUSED_STREAM) is dropped, not a failure.
 * A half-closed stream not ended within `finalizeMs` (counted once its request went out: the
 * token and the connection have their own bounds) means the connection is stuck: the session
 * fails. Not exercised against Google itself here: whether v1 takes alternative languages with
 * the `latest_*` models (the fake takes any config). The Brain tab's model names are mapped to v1's
 * (`long` → `latest_long`, `short` → `latest_short`; `chirp_2` exists only in v2 → `latest_long`).
 */
export const GOOGLE_STT = 'google';
export const GOOGLE_STREAMING_PATH = '/google.cloud.speech.v1.Speech/StreamingRecognize';

export interface GoogleSttSettings {
  /** An API key, or a service-account key as JSON (what the Brain tab's key file holds). */
  apiKey: string;
  /** 'global' (default) or a region such as 'europe-west4' (regional endpoint). */
  region?: string;
  /** Replaces the API origin (proxy, local fake; `http://` speaks HTTP/2 without TLS); `{region}` is filled in. */
  baseUrl?: string;
  /** For the service-account token exchange (its token_uri). */
  fetch: GuardedFetch;
  now?: () => number;
  timeouts?: Partial<SttTimeouts>;
}

/** Google's limit is about 305 s of audio per stream: replaced well before. */
export const ROTATE_STREAM_MS = 240_000;
/** Largest response message accepted. */
const MAX_MESSAGE = 1024 * 1024;
/** Audio not yet written (a slow connection, a stream waiting for its token) is dropped beyond this. */
const MAX_BUFFERED = 2 * 1024 * 1024;

const MODELS: Record<string, string> = { long: 'latest_long', short: 'latest_short', chirp_2: 'latest_long', chirp: 'latest_long' };
const V1_MODELS = new Set(['latest_long', 'latest_short', 'command_and_search', 'phone_call', 'video', 'default', 'medical_conversation', 'medical_dictation', 'telephony', 'telephony_short']);

export function googleModel(model: string | undefined): string | undefined {
  if (!model) return undefined;
  const m = MODELS[model] ?? model;
  return V1_MODELS.has(m) ? m : 'latest_long';
}

/** The first request of a stream: `StreamingRecognizeRequest.streaming_config`. Throws on a language that is not a tag. */
export function googleStreamingConfig(options: Pick<SttOptions, 'languages' | 'model' | 'phrases' | 'interim' | 'sampleRate'>): Buffer {
  const tags = options.languages.map((l) => languageTag(l, GOOGLE_STT)!).filter((l) => l && l !== 'multi');
  const config = new ProtoWriter()
    .uint(1, 1) // encoding: LINEAR16
    .uint(2, options.sampleRate) // sample_rate_hertz
    .string(3, tags[0] ?? 'en-US') // language_code
    .uint(7, 1) // audio_channel_count
    .bool(11, true); // enable_automatic_punctuation
  // Google: at most 5000 phrases of at most 100 characters; we keep a sane 500.
  const phrases = (options.phrases ?? []).map((p) => p.trim().slice(0, 100)).filter(Boolean).slice(0, 500);
  if (phrases.length) {
    const context = new ProtoWriter();
    for (const p of phrases) context.string(1, p);
    config.message(6, context); // speech_contexts
  }
  const model = googleModel(options.model);
  if (model) config.string(13, model);
  for (const alt of tags.slice(1, 4)) config.string(18, alt); // alternative_language_codes
  const streaming = new ProtoWriter().message(1, config).bool(3, true); // config, interim_results
  return new ProtoWriter().message(1, streaming).finish();
}

/** An audio request: `StreamingRecognizeRequest.audio_content`. */
export function googleAudioRequest(pcm: Int16Array): Buffer {
  return new ProtoWriter().bytes(2, new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength)).finish();
}

export interface GoogleStreamingResponse {
  error?: { code: number; message: string };
  results: { transcript: string; isFinal: boolean; endMs?: number; language?: string }[];
}

/** A `StreamingRecognizeResponse`. Throws on a malformed message. */
export function readGoogleResponse(message: Buffer): GoogleStreamingResponse {
  const f = readProto(message);
  const err = protoMessages(f, 1)[0];
  const results = protoMessages(f, 2).map((r) => {
    const alt = protoMessages(r, 1)[0];
    const end = protoMessages(r, 4)[0];
    const endMs = end ? Math.round((protoNumber(end, 1) ?? 0) * 1000 + (protoNumber(end, 2) ?? 0) / 1e6) : undefined;
    const language = protoString(r, 6);
    return { transcript: (alt && protoString(alt, 1)) ?? '', isFinal: protoNumber(r, 2) === 1, ...(endMs !== undefined ? { endMs } : {}), ...(language ? { language } : {}) };
  });
  return { ...(err ? { error: { code: protoNumber(err, 1) ?? 2, message: protoString(err, 2) ?? '' } } : {}), results };
}

/** grpc-message is percent-encoded (grpc.io "PROTOCOL-HTTP2"). */
const grpcMessage = (value: unknown) => {
  const s = typeof value === 'string' ? value : '';
  try {
    return decodeURIComponent(s).slice(0, 300);
  } catch {
    return s.slice(0, 300);
  }
};

export function createGoogleStt(s: GoogleSttSettings): SttEngine {
  const timeouts = { ...DEFAULT_STT_TIMEOUTS, ...s.timeouts };
  const now = s.now ?? Date.now;
  return {
    provider: GOOGLE_STT,
    mode: 'stream',
    async open(options, events) {
      const key = s.apiKey.trim();
      if (!key) throw new ProviderError(GOOGLE_STT, 'no API key');
      const sa: ServiceAccount | null = key.startsWith('{') ? parseServiceAccount(key, GOOGLE_STT) : null;
      const region = (s.region ?? '').trim() || 'global';
      const host = region === 'global' ? 'https://speech.googleapis.com' : `https://${safeToken(region, 'region', GOOGLE_STT, /^[a-z][a-z0-9-]{1,29}$/)}-speech.googleapis.com`;
      const origin = s.baseUrl ? s.baseUrl.replace('{region}', region).replace(/\/+$/, '') : host;
      // Validates the languages now: a bad one fails at open, not on the first utterance.
      const config = googleStreamingConfig(options);
      const auth = async (signal: AbortSignal): Promise<Record<string, string>> =>
        // The API key goes in Google's header, not the URL (URLs end up in proxies' logs).
        sa ? { authorization: `Bearer ${await accessToken(sa, CLOUD_PLATFORM_SCOPE, { fetch: s.fetch, now, timeoutMs: timeouts.requestMs }, GOOGLE_STT, signal)}` } : { 'x-goog-api-key': key };
      const h2 = await connect(origin, timeouts.requestMs, options.signal);
      return googleSession(h2, origin, config, auth, () => sa && forgetToken(sa, CLOUD_PLATFORM_SCOPE), timeouts, options, events, now);
    },
  };
}

function connect(origin: string, timeoutMs: number, signal: AbortSignal): Promise<http2.ClientHttp2Session> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    let h2: http2.ClientHttp2Session;
    try {
      h2 = http2.connect(origin);
    } catch {
      return reject(new ProviderError(GOOGLE_STT, 'the Google URL is not valid'));
    }
    const done = (err?: Error) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      h2.off('connect', onConnect);
      h2.off('error', onError);
      if (!err) return resolve(h2);
      h2.destroy();
      reject(err);
    };
    const onConnect = () => done();
    const onError = (err: Error) => done(new ProviderError(GOOGLE_STT, err.message));
    const onAbort = () => done(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    const timer = setTimeout(() => done(new ProviderError(GOOGLE_STT, `timed out waiting for the connection (${timeoutMs} ms)`)), timeoutMs);
    h2.once('connect', onConnect);
    h2.once('error', onError);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

interface Stream {
  req: http2.ClientHttp2Stream | null;
  /** Audio requests waiting for the stream to open (its token). */
  queue: Buffer[];
  queued: number;
  /** Samples sent before this stream: its result times count from there. */
  startSamples: number;
  openedAt: number;
  finishing: boolean;
  /** A status (grpc-status) came: the stream ended as gRPC ends one. */
  ended: boolean;
  waiters: (() => void)[];
  timer?: NodeJS.Timeout;
}

function googleSession(
  first: http2.ClientHttp2Session,
  origin: string,
  config: Buffer,
  auth: (signal: AbortSignal) => Promise<Record<string, string>>,
  forgetAuth: () => void,
  timeouts: SttTimeouts,
  options: SttOptions,
  events: SttEvents,
  now: () => number,
): SttSession {
  let h2: http2.ClientHttp2Session | null = first;
  /** A replacement connection being made (streams opening at once share it). */
  let connecting: Promise<http2.ClientHttp2Session> | null = null;
  let closed = false;
  let current: Stream | null = null;
  const streams = new Set<Stream>();
  let sentSamples = 0;
  const ctl = new AbortController();

  const watch = (session: http2.ClientHttp2Session) => {
    session.on('error', () => undefined); // reported by the streams it breaks
    // The server drains the connection (a restart, its connection age): no new stream goes on it,
    // and the utterance being streamed is closed now — its final results come, the rest of the
    // audio goes on in a stream on a new connection — rather than cut when the server closes.
    session.on('goaway', () => {
      if (h2 === session) h2 = null;
      for (const st of streams) if (st.req?.session === session && !st.finishing) finish(st);
    });
    session.on('close', () => {
      if (h2 === session) h2 = null;
    });
  };
  watch(first);

  const settle = (st: Stream) => {
    clearTimeout(st.timer);
    for (const w of st.waiters.splice(0)) w();
  };
  const shutdown = () => {
    if (closed) return;
    closed = true;
    ctl.abort();
    options.signal.removeEventListener('abort', onAbort);
    for (const st of streams) {
      settle(st);
      st.req?.close(http2.constants.NGHTTP2_CANCEL);
    }
    streams.clear();
    current = null;
    h2?.close();
    h2 = null;
  };
  const fail = (err: Error) => {
    if (closed) return;
    shutdown();
    events.onError(err);
  };
  const onAbort = () => shutdown();
  options.signal.addEventListener('abort', onAbort, { once: true });

  const onMessage = (st: Stream, message: Buffer) => {
    const r = readGoogleResponse(message);
    if (r.error && r.error.code !== 0) return onStatus(st, r.error.code, r.error.message);
    const base = Math.round(st.startSamples / 16);
    const interim: string[] = [];
    for (const x of r.results) {
      const text = x.transcript.trim();
      if (!text) continue;
      if (x.isFinal) events.onResult({ text, final: true, ...(x.endMs !== undefined ? { endMs: base + x.endMs } : {}), ...(x.language ? { language: x.language } : {}) } satisfies SttResult);
      else interim.push(text);
    }
    if (options.interim && interim.length) events.onResult({ text: interim.join(' '), final: false });
  };

  const onStatus = (st: Stream, code: number, message: string) => {
    if (st.ended) return;
    st.ended = true;
    if (current === st) current = null;
    // Ended by the server before our half-close: our side is closed too (the next audio opens another).
    if (!st.finishing) st.req?.close();
    if (code === 0) return;
    // Google's stream time limit (or its audio timeout) on a stream nobody waits for: it just ends.
    if (code === 11 && !st.finishing) return;
    if (code === 16) forgetAuth();
    fail(new ProviderError(GOOGLE_STT, `gRPC status ${code}${message ? `: ${message}` : ''}`, grpcStatusToHttp(code)));
  };

  const write = (st: Stream, data: Buffer) => {
    if (st.req) {
      if (st.req.writableLength <= MAX_BUFFERED) st.req.write(data);
    } else if (st.queued + data.length <= MAX_BUFFERED) {
      st.queue.push(data);
      st.queued += data.length;
    }
  };

  const openStream = (): Stream => {
    const st: Stream = { req: null, queue: [], queued: 0, startSamples: sentSamples, openedAt: now(), finishing: false, ended: false, waiters: [] };
    streams.add(st);
    void (async () => {
      const headers = await auth(ctl.signal);
      if (closed || !streams.has(st)) return;
      if (!h2 || h2.closed || h2.destroyed) {
        connecting ??= connect(origin, timeouts.requestMs, ctl.signal).then(
          (session) => {
            connecting = null;
            if (closed) session.close();
            else {
              h2 = session;
              watch(session);
            }
            return session;
          },
          (err: unknown) => {
            connecting = null;
            throw err;
          },
        );
        await connecting;
      }
      if (closed || !streams.has(st) || !h2) return;
      const req = h2.request({ ':method': 'POST', ':path': GOOGLE_STREAMING_PATH, 'content-type': 'application/grpc', te: 'trailers', 'user-agent': 'PersonaStudio', ...headers });
      st.req = req;
      const reader = new GrpcReader(MAX_MESSAGE);
      req.on('response', (h) => {
        const status = Number(h[':status']);
        if (status !== 200) return fail(new ProviderError(GOOGLE_STT, `HTTP ${status}`, status));
        // A trailers-only answer (an error before any message) carries its status in the headers.
        if (h['grpc-status'] !== undefined) onStatus(st, Number(h['grpc-status']), grpcMessage(h['grpc-message']));
      });
      req.on('data', (chunk: Buffer) => {
        if (closed) return;
        try {
          for (const m of reader.push(chunk)) onMessage(st, m);
        } catch (err) {
          fail(new ProviderError(GOOGLE_STT, `an unreadable answer (${err instanceof Error ? err.message : String(err)})`));
        }
      });
      req.on('trailers', (t) => onStatus(st, Number(t['grpc-status'] ?? 2), grpcMessage(t['grpc-message'])));
      req.on('error', (err) => fail(new ProviderError(GOOGLE_STT, err.message)));
      req.on('close', () => {
        streams.delete(st);
        if (current === st) current = null;
        // Refused in a GOAWAY race before it was processed: safe to drop (the next audio opens another).
        const refused = req.rstCode === http2.constants.NGHTTP2_REFUSED_STREAM && !st.finishing;
        if (!st.ended && !closed && !refused) fail(new ProviderError(GOOGLE_STT, `the stream ended without a status (${req.rstCode ?? 'no code'})`));
        settle(st);
      });
      req.write(grpcFrame(config));
      for (const q of st.queue) req.write(q);
      st.queue = [];
      st.queued = 0;
      if (st.finishing) {
        req.end();
        armFinish(st);
      }
    })().catch((err: unknown) => fail(err instanceof ProviderError ? err : new ProviderError(GOOGLE_STT, err instanceof Error ? err.message : String(err))));
    return st;
  };

  /** The half-closed stream must end within finalizeMs (counted once its request went out: opening it has its own bounds). */
  const armFinish = (st: Stream) => {
    st.timer ??= setTimeout(() => fail(new ProviderError(GOOGLE_STT, `timed out: the stream did not end ${timeouts.finalizeMs} ms after its audio did`)), timeouts.finalizeMs);
  };
  /** Half-closes a stream: its final results and its status follow, within finalizeMs. */
  const finish = (st: Stream) => {
    if (st.finishing) return;
    st.finishing = true;
    if (current === st) current = null;
    if (!st.req) return; // the opener half-closes it once open
    st.req.end();
    armFinish(st);
  };

  return {
    push(pcm) {
      if (closed || pcm.length === 0) return;
      if (current && now() - current.openedAt >= ROTATE_STREAM_MS) finish(current);
      current ??= openStream();
      write(current, grpcFrame(googleAudioRequest(pcm)));
      sentSamples += pcm.length;
    },
    finalize() {
      if (closed) return Promise.resolve();
      // The stream being fed, and any still finishing (replaced at a GOAWAY or by rotation): their
      // final results belong to this utterance too. Nothing sent and nothing finishing: no wait.
      if (current) finish(current);
      const pending = [...streams].filter((st) => st.finishing);
      return Promise.all(pending.map((st) => new Promise<void>((done) => st.waiters.push(done)))).then(() => undefined);
    },
    close: shutdown,
  };
}
