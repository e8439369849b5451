import WebSocket from 'ws';
import { ProviderError } from '../../core/errors.js';
import { errorBodyDetail } from '../http.js';
import { jsonEvent, readRefusal } from '../ws.js';
import { languageTag, DEFAULT_STT_TIMEOUTS, type SttTimeouts } from './batch.js';
import type { SttEngine, SttEvents, SttOptions, SttSession } from './types.js';

/**
 * Deepgram live transcription over its streaming WebSocket:
 * `wss://api.deepgram.com/v1/listen?encoding=linear16&sample_rate=16000&channels=1&model=…&language=…
 * &interim_results=…&endpointing=…&utterance_end_ms=…&vad_events=true&smart_format=true` with
 * `Authorization: Token <key>`; nova-3 takes the context phrases as `keyterm`, older models as
 * `keywords`. The page's 16 kHz PCM16 goes out as binary messages as it comes.
 *
 * Messages in: `Results` (`channel.alternatives[0].transcript`, `is_final`, `speech_final`,
 * `from_finalize`, `start`, `duration`, `channel.detected_language`), `UtteranceEnd`,
 * `SpeechStarted`, `Metadata`; errors arrive as a close frame with a reason (or an HTTP status on
 * the handshake: 401 wrong key, 402 no credit, 400 bad options). Messages out: audio, `{type:
 * KeepAlive}` whenever nothing went out for `keepAliveMs` (one timer restarted by every send) (Deepgram closes a socket idle for 10 s),
 * `{type: Finalize}` on `finalize()` (Deepgram answers with `from_finalize` results), `{type:
 * CloseStream}` on `close()`.
 *
 * Audio that goes unanswered by any readable message for `streamIdleMs` (binary noise and broken
 * JSON do not count) fails the session: Deepgram answers streamed audio about every second.
 *
 * What the pipeline sees: interim results (when wanted) with `final: false`; each `is_final`
 * stretch with `final: true` (text of that stretch only), `endOfTurn` when Deepgram says
 * `speech_final`; an `UtteranceEnd` after final words that had no `speech_final` becomes an empty
 * final result with `endOfTurn` (the turn ended on Deepgram's word timing).
 */
export const DEEPGRAM = 'deepgram';

export interface DeepgramSettings {
  apiKey: string;
  /** Default wss://api.deepgram.com (a proxy, a local fake). */
  baseUrl?: string;
  /** Longest silence on the socket before a KeepAlive goes out (default 3000 ms; Deepgram closes at 10 s). */
  keepAliveMs?: number;
  /** `utterance_end_ms` (default 1000; Deepgram's minimum). */
  utteranceEndMs?: number;
  timeouts?: Partial<SttTimeouts>;
}

/** KeepAlive after this long with nothing sent: well inside Deepgram's 10 s idle limit, whatever the timer jitter. */
export const DEFAULT_KEEPALIVE_MS = 3000;

/** Largest message accepted from Deepgram. */
const MAX_MESSAGE = 1024 * 1024;
/** Audio not yet sent is dropped beyond this (a stalled socket must not grow memory). */
const MAX_BUFFERED = 2 * 1024 * 1024;

/** The stored model names ('nova-3-general') are Deepgram's canonical names; 'nova-3' works as well. */
export function deepgramUrl(base: string, options: Pick<SttOptions, 'languages' | 'model' | 'phrases' | 'endpointingMs' | 'interim' | 'sampleRate'>, utteranceEndMs = 1000): string {
  const url = new URL('/v1/listen', base.replace(/^http/, 'ws'));
  const model = options.model?.trim() || 'nova-3';
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(model)) throw new ProviderError(DEEPGRAM, `model ${JSON.stringify(model.slice(0, 40))} is not valid`);
  const langs = options.languages.filter(Boolean);
  // More than one language, or 'multi': Deepgram's multilingual code switching (nova-2/3).
  const language = langs.length > 1 || langs[0] === 'multi' ? 'multi' : (languageTag(langs[0], DEEPGRAM) ?? 'multi');
  const p = url.searchParams;
  p.set('encoding', 'linear16');
  p.set('sample_rate', String(options.sampleRate));
  p.set('channels', '1');
  p.set('model', model);
  p.set('language', language);
  p.set('punctuate', 'true');
  p.set('smart_format', 'true');
  // Always on: `utterance_end_ms` needs it; interim results are passed on only when wanted.
  p.set('interim_results', 'true');
  p.set('vad_events', 'true');
  p.set('utterance_end_ms', String(Math.max(1000, Math.round(utteranceEndMs))));
  const endpointing = options.endpointingMs;
  p.set('endpointing', endpointing !== undefined && Number.isFinite(endpointing) && endpointing > 0 ? String(Math.round(Math.min(endpointing, 10_000))) : '300');
  const terms = (options.phrases ?? []).map((t) => t.trim().slice(0, 100)).filter(Boolean).slice(0, 100);
  for (const term of terms) p.append(/^nova-3/.test(model) ? 'keyterm' : 'keywords', term);
  return url.toString();
}

interface DeepgramMessage {
  type?: string;
  is_final?: boolean;
  speech_final?: boolean;
  from_finalize?: boolean;
  start?: number;
  duration?: number;
  channel?: { alternatives?: { transcript?: unknown }[]; detected_language?: unknown; languages?: unknown };
  description?: unknown;
  message?: unknown;
}

export function createDeepgramStt(s: DeepgramSettings): SttEngine {
  const timeouts = { ...DEFAULT_STT_TIMEOUTS, ...s.timeouts };
  return {
    provider: DEEPGRAM,
    mode: 'stream',
    open(options, events) {
      if (!s.apiKey) return Promise.reject(new ProviderError(DEEPGRAM, 'no API key'));
      let url: string;
      try {
        url = deepgramUrl(s.baseUrl ?? 'wss://api.deepgram.com', options, s.utteranceEndMs);
      } catch (err) {
        return Promise.reject(err instanceof ProviderError ? err : new ProviderError(DEEPGRAM, 'the Deepgram URL is not valid'));
      }
      return openSocket(url, s, timeouts, options, events);
    },
  };
}

function openSocket(url: string, s: DeepgramSettings, timeouts: SttTimeouts, options: SttOptions, events: SttEvents): Promise<SttSession> {
  return new Promise<SttSession>((resolve, reject) => {
    if (options.signal.aborted) {
      reject(options.signal.reason);
      return;
    }
    const ws = new WebSocket(url, { headers: { authorization: `Token ${s.apiKey}`, 'user-agent': 'PersonaStudio' }, maxPayload: MAX_MESSAGE, perMessageDeflate: false });
    let opened = false;
    let closed = false;
    /** One timer, restarted by every send: fires only after keepAliveMs with nothing sent. */
    let keepAlive: NodeJS.Timeout | undefined;
    /** finalize() calls waiting for Deepgram's flushed results. */
    let waiters: { resolve: () => void; timer: NodeJS.Timeout }[] = [];
    let finalWordsWithoutEnd = false;
    /** Armed by the first audio sent after the last readable message, disarmed by the next one. */
    let answerTimer: NodeJS.Timeout | undefined;
    let unreadable = 0;
    const settleWaiters = () => {
      for (const w of waiters.splice(0)) {
        clearTimeout(w.timer);
        w.resolve();
      }
    };
    const shutdown = () => {
      if (closed) return;
      closed = true;
      clearTimeout(keepAlive);
      clearTimeout(handshake);
      clearTimeout(answerTimer);
      options.signal.removeEventListener('abort', onAbort);
      settleWaiters();
    };
    const fail = (err: Error) => {
      const wasOpen = opened;
      shutdown();
      ws.terminate();
      if (wasOpen) events.onError(err);
      else reject(err);
    };
    const onAbort = () => {
      const wasOpen = opened;
      shutdown();
      ws.terminate();
      if (!wasOpen) reject(options.signal.reason);
    };
    options.signal.addEventListener('abort', onAbort, { once: true });
    const handshake = setTimeout(() => fail(new ProviderError(DEEPGRAM, `timed out waiting for the connection (${timeouts.requestMs} ms)`)), timeouts.requestMs);

    // The handshake was refused with an HTTP answer: read Deepgram's reason (JSON err_msg).
    ws.on('unexpected-response', (_req, res) =>
      readRefusal(res, (status, body) => {
        const detail = errorBodyDetail(body);
        fail(new ProviderError(DEEPGRAM, `HTTP ${status}${detail ? `: ${detail}` : ''}`, status));
      }),
    );
    ws.on('error', (err) => {
      if (!closed) fail(new ProviderError(DEEPGRAM, err.message));
    });
    ws.on('open', () => {
      if (closed) return;
      opened = true;
      clearTimeout(handshake);
      keepAlive = setTimeout(function ping() {
        sendJson({ type: 'KeepAlive' });
      }, Math.max(20, s.keepAliveMs ?? DEFAULT_KEEPALIVE_MS));
      resolve(session);
    });
    ws.on('close', (code, reason) => {
      if (closed) return;
      const why = reason.toString('utf8').slice(0, 200);
      shutdown();
      // 1000 after our CloseStream is the normal end; anything else while open is a failure.
      if (opened && code !== 1000) events.onError(new ProviderError(DEEPGRAM, `the connection closed (${code}${why ? ` ${why}` : ''})`));
      else if (!opened) reject(new ProviderError(DEEPGRAM, `the connection closed (${code}${why ? ` ${why}` : ''})`));
    });
    ws.on('message', (data, isBinary) => {
      if (closed) return;
      const m = jsonEvent<DeepgramMessage>(data, isBinary);
      if (!m) {
        unreadable++;
        return;
      }
      clearTimeout(answerTimer);
      answerTimer = undefined;
      switch (m.type) {
        case 'Results': {
          const text = typeof m.channel?.alternatives?.[0]?.transcript === 'string' ? (m.channel.alternatives[0].transcript as string).trim() : '';
          const startMs = typeof m.start === 'number' ? Math.round(m.start * 1000) : undefined;
          const endMs = startMs !== undefined && typeof m.duration === 'number' ? Math.round((m.start! + m.duration) * 1000) : undefined;
          const lang = m.channel?.detected_language ?? (Array.isArray(m.channel?.languages) ? m.channel.languages[0] : undefined);
          const extra = { ...(startMs !== undefined ? { startMs } : {}), ...(endMs !== undefined ? { endMs } : {}), ...(typeof lang === 'string' ? { language: lang } : {}) };
          if (m.is_final) {
            if (text || m.speech_final) {
              if (text || finalWordsWithoutEnd) events.onResult({ text, final: true, ...(m.speech_final ? { endOfTurn: true } : {}), ...extra });
              finalWordsWithoutEnd = m.speech_final ? false : finalWordsWithoutEnd || Boolean(text);
            }
            if (m.from_finalize) settleWaiters();
          } else if (options.interim && text) {
            events.onResult({ text, final: false, ...extra });
          }
          break;
        }
        case 'UtteranceEnd':
          if (finalWordsWithoutEnd) {
            finalWordsWithoutEnd = false;
            events.onResult({ text: '', final: true, endOfTurn: true });
          }
          settleWaiters();
          break;
        case 'SpeechStarted':
          events.onSpeechStarted?.();
          break;
        case 'Error':
          fail(new ProviderError(DEEPGRAM, `error in the stream: ${String(m.description ?? m.message ?? 'unknown').slice(0, 300)}`));
          break;
        default:
          // Metadata (request id, model info) and anything newer: nothing to do.
          break;
      }
    });

    const sendJson = (msg: object) => {
      if (closed || ws.readyState !== WebSocket.OPEN) return;
      ws.send(JSON.stringify(msg));
      keepAlive?.refresh();
    };

    const session: SttSession = {
      push(pcm) {
        if (closed || ws.readyState !== WebSocket.OPEN || pcm.length === 0) return;
        if (ws.bufferedAmount > MAX_BUFFERED) return;
        ws.send(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength), { binary: true });
        keepAlive?.refresh();
        answerTimer ??= setTimeout(() => {
          const what = unreadable ? ` (${unreadable} unreadable messages)` : '';
          fail(new ProviderError(DEEPGRAM, `timed out: no readable answer for ${timeouts.streamIdleMs} ms while audio streamed${what}`));
        }, timeouts.streamIdleMs);
      },
      finalize() {
        if (closed) return Promise.resolve();
        return new Promise<void>((done) => {
          // Deepgram answers a Finalize with from_finalize results; give up quietly after finalizeMs.
          const timer = setTimeout(() => {
            waiters = waiters.filter((w) => w.timer !== timer);
            done();
          }, timeouts.finalizeMs);
          waiters.push({ resolve: done, timer });
          sendJson({ type: 'Finalize' });
        });
      },
      close() {
        if (closed) return;
        sendJson({ type: 'CloseStream' });
        shutdown();
        // Deepgram closes after CloseStream; do not wait for it longer than a moment.
        const t = setTimeout(() => ws.terminate(), 1000);
        t.unref?.();
        ws.once('close', () => clearTimeout(t));
      },
    };
  });
}
