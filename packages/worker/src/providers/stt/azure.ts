import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { ProviderError } from '../../brains/types.js';
import { errorBodyDetail, safeToken } from '../http.js';
import { readRefusal } from '../ws.js';
import { wavHeader } from '../../speech/audio.js';
import { DEFAULT_STT_TIMEOUTS, languageTag, type SttTimeouts } from './batch.js';
import type { SttEngine, SttEvents, SttOptions, SttResult, SttSession } from './types.js';

/**
 * Azure AI Speech, streaming speech to text over the Speech service's WebSocket protocol (the one
 * Microsoft's Speech SDKs speak; the SDK for JavaScript is the reference read for it):
 * `wss://{region}.stt.speech.microsoft.com/speech/recognition/conversation/cognitiveservices/v1
 * ?language=…&format=simple&profanity=raw` with `Ocp-Apim-Subscription-Key` and `X-ConnectionId`
 * on the upgrade request.
 *
 * Every message carries HTTP-style headers: `Path`, `X-RequestId` (the turn, 32 hex digits),
 * `X-Timestamp`, `Content-Type`. Text messages are `headers CRLF body`; binary ones are a 16-bit
 * big-endian header length, the headers, then the body.
 * - Out: `speech.config` (JSON: who is calling, the audio's shape) once per connection; per turn a
 *   `speech.context` (JSON; the context phrases as a generic phrase list, `dgi.groups`), then
 *   `audio` messages: first a WAV header (`Content-Type: audio/x-wav`, sizes 0 — a stream), then
 *   the raw 16 kHz PCM16 as it comes; an `audio` message with no body ends the turn's audio.
 * - In: `turn.start`, `speech.startDetected`, `speech.hypothesis` (`{Text, Offset, Duration}`,
 *   offsets in 100 ns ticks from the turn's first sample), `speech.phrase` (`{RecognitionStatus,
 *   DisplayText, Offset, Duration}`; Azure ends a phrase at its own pause detection),
 *   `speech.endDetected`, `turn.end` (after the turn's audio ended and its last phrase was sent).
 *
 * What the pipeline sees: hypotheses as interim results (when wanted), each `Success` phrase as
 * a final one with `endOfTurn`; `NoMatch`, `InitialSilenceTimeout`, `BabbleTimeout` and
 * `EndOfDictation` say nothing was recognised; `Error`, `TooManyRequests`, `BadRequest` and
 * `Forbidden` end the session with a ProviderError. `finalize()` (the VAD cut the utterance) ends
 * the turn's audio and resolves with its `turn.end`; the next audio starts a new turn on the same
 * connection, as the SDK's continuous recognition does. Audio that comes while a turn is being
 * finished waits (bounded) for the next turn. A turn.end that does not come within `finalizeMs`
 * means the connection is stuck: the session fails (the pipeline opens another).
 *
 * The service closes a connection after at most 10 minutes (and an idle one sooner): a close
 * between utterances (no turn being finished) opens a new connection quietly, with the audio of
 * the moment queued; a close while a turn is being finished, or a refused reconnect, fails the
 * session. The main language only: Azure's language identification needs another endpoint and is
 * not used (the additional languages are not sent).
 */
export const AZURE_STT = 'azure';

export interface AzureSttSettings {
  apiKey: string;
  region: string;
  /** Replaces `wss://{region}.stt.speech.microsoft.com` (`{region}` is filled in; http(s) becomes ws(s)). */
  baseUrl?: string;
  timeouts?: Partial<SttTimeouts>;
}

export const AZURE_STT_PATH = '/speech/recognition/conversation/cognitiveservices/v1';

/** Largest message accepted from the service. */
const MAX_MESSAGE = 1024 * 1024;
/** Audio not yet sent (a stalled socket, a turn being finished, a reconnect) is dropped beyond this. */
const MAX_BUFFERED = 2 * 1024 * 1024;
/** A quiet reconnect after the service closed the connection at most this often (else: a failure). */
const RECONNECT_MIN_INTERVAL_MS = 30_000;

const CRLF = '\r\n';
const requestId = () => randomUUID().replaceAll('-', '');

/** The headers every message carries, CRLF-terminated lines. */
function headerLines(path: string, id: string, contentType?: string): string {
  return `Path: ${path}${CRLF}X-RequestId: ${id}${CRLF}X-Timestamp: ${new Date().toISOString()}${CRLF}${contentType ? `Content-Type: ${contentType}${CRLF}` : ''}`;
}

export function azureTextMessage(path: string, id: string, body: object): string {
  return `${headerLines(path, id, 'application/json; charset=utf-8')}${CRLF}${JSON.stringify(body)}`;
}

export function azureAudioMessage(id: string, body: Uint8Array | null, contentType?: string): Buffer {
  const headers = Buffer.from(headerLines('audio', id, contentType), 'ascii');
  const out = Buffer.alloc(2 + headers.length + (body?.byteLength ?? 0));
  out.writeUInt16BE(headers.length, 0);
  headers.copy(out, 2);
  if (body) out.set(body, 2 + headers.length);
  return out;
}

/** A text message from the service: its lower-cased headers and its body; null when it has no Path. */
export function parseAzureMessage(text: string): { path: string; requestId: string; body: string } | null {
  const split = text.indexOf(CRLF + CRLF);
  const head = split < 0 ? text : text.slice(0, split);
  const body = split < 0 ? '' : text.slice(split + 4);
  const headers: Record<string, string> = {};
  for (const line of head.split(CRLF)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  if (!headers.path) return null;
  return { path: headers.path.toLowerCase(), requestId: (headers['x-requestid'] ?? '').toLowerCase(), body };
}

export function azureSttUrl(s: Pick<AzureSttSettings, 'region' | 'baseUrl'>, options: Pick<SttOptions, 'languages'>): { url: string; language: string } {
  // The region becomes part of a host name: letters and digits only.
  const region = safeToken(s.region, 'region', AZURE_STT, /^[a-z0-9]{2,30}$/);
  const language = languageTag(options.languages.find((l) => l !== 'multi'), AZURE_STT) ?? 'en-US';
  const base = (s.baseUrl ?? 'wss://{region}.stt.speech.microsoft.com').replace('{region}', region).replace(/^http/, 'ws').replace(/\/+$/, '');
  const url = new URL(`${base}${AZURE_STT_PATH}`);
  url.searchParams.set('language', language);
  url.searchParams.set('format', 'simple');
  url.searchParams.set('profanity', 'raw');
  return { url: url.toString(), language };
}

/** The speech.context of a turn: the context phrases as a generic phrase list (at most 100 of 100 characters). */
export function azureSpeechContext(phrases: string[] | undefined): object {
  const items = (phrases ?? [])
    .map((t) => t.trim().slice(0, 100))
    .filter(Boolean)
    .slice(0, 100)
    .map((text) => ({ text }));
  return items.length ? { dgi: { groups: [{ type: 'Generic', items }] } } : {};
}

const SPEECH_CONFIG = {
  context: {
    system: { name: 'PersonaStudio', version: '1', build: 'Node', lang: 'TypeScript' },
    os: { platform: 'Node', name: process.platform, version: process.version },
    audio: { source: { samplerate: 16_000, bitspersample: 16, channelcount: 1, connectivity: 'Unknown', type: 'Stream' } },
  },
  recognition: 'conversation',
};

/** `RecognitionStatus` values that end the session, with the HTTP status they stand for. */
const FAILED_STATUS: Record<string, number | undefined> = { Error: undefined, TooManyRequests: 429, BadRequest: 400, Forbidden: 403 };

interface AzurePhrase {
  RecognitionStatus?: unknown;
  DisplayText?: unknown;
  Text?: unknown;
  Offset?: unknown;
  Duration?: unknown;
  PrimaryLanguage?: { Language?: unknown };
}

export function createAzureStt(s: AzureSttSettings): SttEngine {
  const timeouts = { ...DEFAULT_STT_TIMEOUTS, ...s.timeouts };
  return {
    provider: AZURE_STT,
    mode: 'stream',
    open(options, events) {
      if (!s.apiKey) return Promise.reject(new ProviderError(AZURE_STT, 'no subscription key'));
      let target: { url: string; language: string };
      try {
        target = azureSttUrl(s, options);
      } catch (err) {
        return Promise.reject(err instanceof ProviderError ? err : new ProviderError(AZURE_STT, 'the Azure URL is not valid'));
      }
      return openAzureSession(target.url, s.apiKey, timeouts, options, events);
    },
  };
}

/**
 * The session: one connection at a time (replaced quietly when the service closes it between
 * utterances), one turn at a time on it.
 */
function openAzureSession(url: string, apiKey: string, timeouts: SttTimeouts, options: SttOptions, events: SttEvents): Promise<SttSession> {
  let ws: WebSocket | null = null;
  let closed = false;
  let lastReconnectAt = 0;
  /** The turn audio goes to; null until the connection is open. */
  let turn: string | null = null;
  /** The turn whose audio ended (finalize), until its turn.end. */
  let finishing: string | null = null;
  /** Samples sent in earlier turns: the current turn's offsets start there. */
  let turnStartSamples = 0;
  let sentSamples = 0;
  /** Audio that came while no turn could take it (a turn being finished, a reconnect). */
  let queue: Int16Array[] = [];
  let queuedBytes = 0;
  /** finalize() calls answered by the turn.end of the turn being finished… */
  let finishWaiters: (() => void)[] = [];
  /** …and those made while it was (or no turn was open): they finish the next turn. */
  let nextWaiters: (() => void)[] = [];
  let finalizeTimer: NodeJS.Timeout | undefined;

  const settle = (waiters: (() => void)[]) => {
    for (const w of waiters) w();
  };
  const shutdown = () => {
    if (closed) return;
    closed = true;
    clearTimeout(finalizeTimer);
    options.signal.removeEventListener('abort', onAbort);
    settle(finishWaiters.splice(0));
    settle(nextWaiters.splice(0));
    queue = [];
  };
  const fail = (err: Error) => {
    if (closed) return;
    shutdown();
    ws?.terminate();
    events.onError(err);
  };
  const onAbort = () => {
    shutdown();
    ws?.terminate();
  };

  const send = (data: string | Buffer) => {
    if (ws?.readyState === WebSocket.OPEN) ws.send(data);
  };
  const sendAudio = (pcm: Int16Array) => {
    if (turn === null || !ws || ws.readyState !== WebSocket.OPEN) return;
    if (ws.bufferedAmount > MAX_BUFFERED) return;
    send(azureAudioMessage(turn, new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength)));
    sentSamples += pcm.length;
  };
  /** A new turn: its context, the stream's WAV header, then what waited for it. */
  const startTurn = () => {
    turn = requestId();
    turnStartSamples = sentSamples;
    send(azureTextMessage('speech.context', turn, azureSpeechContext(options.phrases)));
    send(azureAudioMessage(turn, wavHeader(options.sampleRate, 1, 0), 'audio/x-wav'));
    const waiting = queue;
    queue = [];
    queuedBytes = 0;
    for (const pcm of waiting) sendAudio(pcm);
    if (nextWaiters.length) endTurn();
  };
  /** The audio of the open turn ends: its last phrase and turn.end follow. */
  const endTurn = () => {
    if (turn === null || finishing !== null) return;
    finishing = turn;
    finishWaiters = nextWaiters;
    nextWaiters = [];
    send(azureAudioMessage(turn, null));
    finalizeTimer = setTimeout(() => fail(new ProviderError(AZURE_STT, `timed out: no end of the turn ${timeouts.finalizeMs} ms after its audio ended`)), timeouts.finalizeMs);
  };

  const onPhrase = (path: string, body: string) => {
    let m: AzurePhrase;
    try {
      m = JSON.parse(body) as AzurePhrase;
    } catch {
      return;
    }
    const ticksToMs = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? Math.round(v / 10_000) + Math.round(turnStartSamples / 16) : undefined);
    const startMs = ticksToMs(m.Offset);
    const endMs = startMs !== undefined && typeof m.Duration === 'number' ? startMs + Math.round(m.Duration / 10_000) : undefined;
    const extra: Partial<SttResult> = { ...(startMs !== undefined ? { startMs } : {}), ...(endMs !== undefined ? { endMs } : {}) };
    if (path === 'speech.hypothesis' || path === 'speech.fragment') {
      const text = typeof m.Text === 'string' ? m.Text.trim() : '';
      if (options.interim && text) events.onResult({ text, final: false, ...extra });
      return;
    }
    const status = String(m.RecognitionStatus ?? '');
    if (status === 'Success') {
      const text = typeof m.DisplayText === 'string' ? m.DisplayText.trim() : '';
      const language = typeof m.PrimaryLanguage?.Language === 'string' ? m.PrimaryLanguage.Language : undefined;
      if (text) events.onResult({ text, final: true, endOfTurn: true, ...extra, ...(language ? { language } : {}) });
      return;
    }
    if (status in FAILED_STATUS) fail(new ProviderError(AZURE_STT, `recognition failed: ${status}`, FAILED_STATUS[status]));
    // NoMatch, InitialSilenceTimeout, BabbleTimeout, EndOfDictation: nothing was recognised.
  };

  const onMessage = (data: WebSocket.RawData, isBinary: boolean) => {
    if (closed || isBinary) return;
    const m = parseAzureMessage(data.toString());
    if (!m) return;
    const current = m.requestId === turn;
    if (!current && m.requestId !== finishing) return;
    switch (m.path) {
      case 'speech.startdetected':
        events.onSpeechStarted?.();
        break;
      case 'speech.hypothesis':
      case 'speech.fragment':
      case 'speech.phrase':
        onPhrase(m.path, m.body);
        break;
      case 'turn.end':
        if (m.requestId === finishing) {
          clearTimeout(finalizeTimer);
          finishing = null;
          settle(finishWaiters.splice(0));
          startTurn();
        } else {
          // The service ended the turn by itself (its own time limit): go on in a new one.
          startTurn();
        }
        break;
      default:
        // turn.start, speech.endDetected and anything newer: nothing to do.
        break;
    }
  };

  const connect = (onOpen: () => void, onRefused: (err: Error) => void) => {
    const socket = new WebSocket(url, {
      headers: { 'ocp-apim-subscription-key': apiKey, 'x-connectionid': requestId(), 'user-agent': 'PersonaStudio' },
      maxPayload: MAX_MESSAGE,
      perMessageDeflate: false,
    });
    ws = socket;
    let opened = false;
    let refused = false;
    const handshake = setTimeout(() => refuse(new ProviderError(AZURE_STT, `timed out waiting for the connection (${timeouts.requestMs} ms)`)), timeouts.requestMs);
    const refuse = (err: Error) => {
      clearTimeout(handshake);
      socket.terminate();
      if (opened) return fail(err);
      if (refused) return;
      refused = true;
      onRefused(err);
    };
    socket.on('unexpected-response', (_req, res) =>
      readRefusal(res, (status, body) => {
        const detail = errorBodyDetail(body);
        refuse(new ProviderError(AZURE_STT, `HTTP ${status}${detail ? `: ${detail}` : ''}`, status));
      }),
    );
    socket.on('error', (err) => {
      if (!closed && ws === socket) refuse(new ProviderError(AZURE_STT, err.message));
    });
    socket.on('open', () => {
      clearTimeout(handshake);
      if (closed || ws !== socket) return void socket.terminate();
      opened = true;
      send(azureTextMessage('speech.config', requestId(), SPEECH_CONFIG));
      onOpen();
    });
    socket.on('message', (data, isBinary) => {
      if (ws === socket) onMessage(data, isBinary);
    });
    socket.on('close', (code, reason) => {
      clearTimeout(handshake);
      if (closed || ws !== socket) return;
      const why = `the connection closed (${code}${reason.length ? ` ${reason.toString('utf8').slice(0, 200)}` : ''})`;
      if (!opened) return refuse(new ProviderError(AZURE_STT, why));
      // Between utterances, a normal close (the service's connection time limit) is replaced quietly.
      const normal = code === 1000 || code === 1001;
      if (normal && finishing === null && Date.now() - lastReconnectAt >= RECONNECT_MIN_INTERVAL_MS) return reconnect();
      fail(new ProviderError(AZURE_STT, why));
    });
  };

  const reconnect = () => {
    lastReconnectAt = Date.now();
    turn = null;
    connect(
      () => startTurn(),
      (err) => fail(err),
    );
  };

  const session: SttSession = {
    push(pcm) {
      if (closed || pcm.length === 0) return;
      if (turn !== null && finishing === null) return sendAudio(pcm);
      if (queuedBytes + pcm.byteLength > MAX_BUFFERED) return;
      queue.push(pcm.slice());
      queuedBytes += pcm.byteLength;
    },
    finalize() {
      if (closed) return Promise.resolve();
      return new Promise<void>((done) => {
        nextWaiters.push(done);
        // While a turn is being finished or the connection replaced, the next turn ends at once.
        endTurn();
      });
    },
    close() {
      if (closed) return;
      shutdown();
      ws?.close(1000);
      const socket = ws;
      const t = setTimeout(() => socket?.terminate(), 1000);
      t.unref?.();
      socket?.once('close', () => clearTimeout(t));
    },
  };

  return new Promise<SttSession>((resolve, reject) => {
    if (options.signal.aborted) return reject(options.signal.reason);
    options.signal.addEventListener('abort', onAbort, { once: true });
    const abortOpening = () => reject(options.signal.reason);
    options.signal.addEventListener('abort', abortOpening, { once: true });
    connect(
      () => {
        options.signal.removeEventListener('abort', abortOpening);
        startTurn();
        resolve(session);
      },
      (err) => {
        options.signal.removeEventListener('abort', abortOpening);
        shutdown();
        reject(err);
      },
    );
  });
}
