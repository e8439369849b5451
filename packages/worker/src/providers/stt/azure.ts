import { SpeechRegionPatterns } from '@persona/contract';
import { randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import { ProviderError } from '../../core/errors.js';
import { errorBodyDetail, safeToken } from '../http.js';
import { readRefusal } from '../ws.js';
import { wavHeader } from '../../core/audio.js';
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
 * - Out: per turn `speech.config` (JSON: who is calling, the audio's shape), a
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
 * the turn's audio and resolves with its `turn.end` (at most `finalizeMs` later); the next audio
 * starts a new turn on the same connection (speech.config, speech.context and the WAV header
 * again, as the SDK does). Audio that comes while a turn is being finished waits (bounded) for
 * the next turn.
 *
 * The service closes a connection on purpose (1000/1001/1011/1012: its 10-minute limit, idle,
 * a restart): it is replaced — at once when a turn has audio no phrase covered yet (sent again,
 * as the SDK replays it), else when audio next comes. Another close, or a second one within
 * RECONNECT_MIN_INTERVAL_MS, fails the session; so does a refused reconnect. A turn whose last
 * phrase came but whose turn.end did not within `finalizeMs` keeps its text (the connection is
 * replaced); one not answered at all fails the session. The main language only: Azure's language
 * identification needs another endpoint and is not used (the additional languages are not sent).
 * Streaming bills the session's audio, silence included (as Deepgram's does); Azure's free tier
 * (F0) allows one concurrent connection, so a listening avatar needs a paid key past one visitor.
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
  const region = safeToken(s.region, 'region', AZURE_STT, SpeechRegionPatterns.azure);
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

/** The WAV header the SDK opens a turn's audio with: 16 kHz mono PCM16, both sizes 0 (a stream). */
function streamWavHeader(sampleRate: number): Uint8Array {
  const h = wavHeader(sampleRate, 1, 0);
  new DataView(h.buffer, h.byteOffset, h.byteLength).setUint32(4, 0, true);
  return h;
}

/** Close codes the service sends when it ends a connection on purpose (time limit, idle, restart): replaced quietly. */
const SERVICE_CLOSE_CODES = new Set([1000, 1001, 1011, 1012]);

/**
 * The session: one connection at a time, one turn at a time on it. A connection the service
 * closes on purpose is replaced: at once when a turn has audio no phrase has covered yet (that
 * audio is sent again in the new connection's first turn, as the SDK replays it), else when audio
 * next comes (an idle session — a muted mic — does not reconnect every few minutes).
 */
function openAzureSession(url: string, apiKey: string, timeouts: SttTimeouts, options: SttOptions, events: SttEvents): Promise<SttSession> {
  let ws: WebSocket | null = null;
  let closed = false;
  let lastReconnectAt = 0;
  /** The turn audio goes to; null while no connection is open. */
  let turn: string | null = null;
  /** The turn whose audio ended (finalize), until its turn.end. */
  let finishing: string | null = null;
  /** A phrase came for the finishing turn after its audio ended: the service answered it. */
  let finishingAnswered = false;
  /** Samples sent in earlier turns: the current turn's offsets start there. */
  let turnStartSamples = 0;
  let sentSamples = 0;
  /** The audio of the current (or finishing) turn, kept to be sent again after a reconnect… */
  let turnAudio: Int16Array[] = [];
  let turnAudioBytes = 0;
  /** The turn's sample the kept audio starts at (the oldest is dropped past MAX_BUFFERED). */
  let keptFrom = 0;
  /** …from the end of its last phrase (samples from the turn's start). */
  let coveredSamples = 0;
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
  const disarm = () => {
    clearTimeout(finalizeTimer);
    finalizeTimer = undefined;
  };
  const shutdown = () => {
    if (closed) return;
    closed = true;
    disarm();
    options.signal.removeEventListener('abort', onAbort);
    settle(finishWaiters.splice(0));
    settle(nextWaiters.splice(0));
    queue = [];
    turnAudio = [];
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
  const keep = (pcm: Int16Array) => {
    turnAudio.push(pcm);
    turnAudioBytes += pcm.byteLength;
    while (turnAudioBytes > MAX_BUFFERED && turnAudio.length > 1) {
      const dropped = turnAudio.shift()!;
      turnAudioBytes -= dropped.byteLength;
      keptFrom += dropped.length;
    }
  };
  const sendAudio = (pcm: Int16Array, replay = false) => {
    if (turn === null || !ws || ws.readyState !== WebSocket.OPEN) return;
    if (ws.bufferedAmount > MAX_BUFFERED) return;
    send(azureAudioMessage(turn, new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength)));
    keep(pcm);
    if (!replay) sentSamples += pcm.length;
  };
  /** Audio of the turn not yet covered by a phrase; its offset in the session. */
  const uncovered = (): { audio: Int16Array[]; startSamples: number } => {
    const audio: Int16Array[] = [];
    let at = keptFrom;
    for (const pcm of turnAudio) {
      const from = Math.max(0, coveredSamples - at);
      if (from < pcm.length) audio.push(from ? pcm.subarray(from) : pcm);
      at += pcm.length;
    }
    return { audio, startSamples: turnStartSamples + Math.min(Math.max(coveredSamples, keptFrom), at) };
  };
  /** A new turn: the config, its context, the stream's WAV header, then what waited for it. */
  const startTurn = (replay?: { audio: Int16Array[]; startSamples: number }) => {
    turn = requestId();
    turnStartSamples = replay?.startSamples ?? sentSamples;
    turnAudio = [];
    turnAudioBytes = 0;
    keptFrom = 0;
    coveredSamples = 0;
    send(azureTextMessage('speech.config', turn, SPEECH_CONFIG));
    send(azureTextMessage('speech.context', turn, azureSpeechContext(options.phrases)));
    send(azureAudioMessage(turn, streamWavHeader(options.sampleRate), 'audio/x-wav'));
    for (const pcm of replay?.audio ?? []) sendAudio(pcm, true);
    const waiting = queue;
    queue = [];
    queuedBytes = 0;
    for (const pcm of waiting) sendAudio(pcm);
    if (nextWaiters.length) endTurn();
  };
  /** finalize() waits at most finalizeMs for its turn.end, whatever the state (a reconnect included). */
  const arm = () => {
    finalizeTimer ??= setTimeout(() => {
      finalizeTimer = undefined;
      // The last phrase came, its turn.end did not: the text stands; the connection is replaced.
      if (finishing !== null && finishingAnswered) {
        finishing = null;
        settle(finishWaiters.splice(0));
        return dropConnection();
      }
      fail(new ProviderError(AZURE_STT, `timed out: no end of the turn ${timeouts.finalizeMs} ms after its audio ended`));
    }, timeouts.finalizeMs);
  };
  /** The audio of the open turn ends: its last phrase and turn.end follow. */
  const endTurn = () => {
    if (turn === null || finishing !== null) return;
    finishing = turn;
    finishingAnswered = false;
    finishWaiters = nextWaiters;
    nextWaiters = [];
    send(azureAudioMessage(turn, null));
    arm();
  };

  const onPhrase = (path: string, body: string, ofFinishing: boolean) => {
    let m: AzurePhrase;
    try {
      m = JSON.parse(body) as AzurePhrase;
    } catch {
      return;
    }
    const ticks = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
    const offset = ticks(m.Offset);
    const duration = ticks(m.Duration);
    const startMs = offset !== undefined ? Math.round((turnStartSamples + offset / 625) / 16) : undefined;
    const endMs = startMs !== undefined && duration !== undefined ? Math.round((turnStartSamples + (offset! + duration) / 625) / 16) : undefined;
    const extra: Partial<SttResult> = { ...(startMs !== undefined ? { startMs } : {}), ...(endMs !== undefined ? { endMs } : {}) };
    if (path === 'speech.hypothesis' || path === 'speech.fragment') {
      const text = typeof m.Text === 'string' ? m.Text.trim() : '';
      if (options.interim && text) events.onResult({ text, final: false, ...extra });
      return;
    }
    if (ofFinishing) finishingAnswered = true;
    if (offset !== undefined && duration !== undefined) coveredSamples = Math.max(coveredSamples, Math.round((offset + duration) / 625));
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
    const ofFinishing = m.requestId === finishing;
    if (m.requestId !== turn && !ofFinishing) return;
    switch (m.path) {
      case 'speech.startdetected':
        events.onSpeechStarted?.();
        break;
      case 'speech.hypothesis':
      case 'speech.fragment':
      case 'speech.phrase':
        onPhrase(m.path, m.body, ofFinishing);
        break;
      case 'turn.end':
        if (ofFinishing) {
          disarm();
          finishing = null;
          settle(finishWaiters.splice(0));
          startTurn();
        } else {
          // The service ended the turn by itself (its time limit): what no phrase covered goes on in a new one.
          startTurn(uncovered());
        }
        break;
      default:
        // turn.start, speech.endDetected and anything newer: nothing to do.
        break;
    }
  };

  /** The connection is gone (or given up): turns resume on a new one, now if something waits, else with the next audio. */
  const dropConnection = (replay?: { audio: Int16Array[]; startSamples: number }) => {
    const old = ws;
    ws = null;
    turn = null;
    old?.terminate();
    if (replay?.audio.length || nextWaiters.length || queue.length) reconnect(replay);
  };

  /** Opens a connection; `ws` is it from now on (null again only once it is let go). */
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
      // Closed on purpose by the service (its connection limit, a restart): replaced, at most once in a while.
      if (!SERVICE_CLOSE_CODES.has(code) || Date.now() - lastReconnectAt < RECONNECT_MIN_INTERVAL_MS) return fail(new ProviderError(AZURE_STT, why));
      // A turn being finished is finished again on the new connection, with its audio no phrase covered.
      if (finishing !== null) {
        nextWaiters = [...finishWaiters.splice(0), ...nextWaiters];
        finishing = null;
      }
      dropConnection(uncovered());
    });
  };

  const reconnect = (replay?: { audio: Int16Array[]; startSamples: number }) => {
    lastReconnectAt = Date.now();
    connect(
      () => startTurn(replay),
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
      if (ws === null) reconnect();
    },
    finalize() {
      // Nothing since the connection was let go (an idle session): nothing to finish.
      if (closed || (ws === null && queue.length === 0)) return Promise.resolve();
      return new Promise<void>((done) => {
        nextWaiters.push(done);
        // While a turn is being finished or the connection replaced, the next turn ends at once.
        endTurn();
        arm();
      });
    },
    close() {
      if (closed) return;
      shutdown();
      const socket = ws;
      socket?.close(1000);
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
