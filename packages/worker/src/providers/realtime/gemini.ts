import type WebSocket from 'ws';
import { ProviderError } from '../../core/errors.js';
import { GuardedFetchError, openGuardedSocket } from '@persona/net';
import { bytesToSamples, samplesToBytes } from '../../core/audio.js';
import { readRefusal } from '../ws.js';
import type { RealtimeConnection, RealtimeEvent, RealtimeTool } from './types.js';

/**
 * Gemini Live (`BidiGenerateContent` over WebSocket): one socket per live session, the wire format
 * kept in this file, `RealtimeEvent`s out. The key travels as `?key=` (Google's documented form
 * for this endpoint) and is scrubbed from every error. Mic audio goes in as 16 kHz PCM16
 * (`realtimeInput.audio`), the answer comes back as 24 kHz PCM16 (`inlineData` parts).
 *
 * Gemini has no response or item ids: each model turn gets ids of ours, its first content (or
 * transcript) is `response-start`, `turnComplete` is `response-done`. `interrupted` (the server's
 * VAD heard the visitor over the answer; its generation is discarded) becomes `speech-started`
 * then `response-done` cancelled. Gemini reports no end of speech: no `speech-stopped`.
 */
export const GEMINI_LIVE = 'gemini-live';
export const GEMINI_INPUT_RATE = 16_000;
export const GEMINI_OUTPUT_RATE = 24_000;
export const GEMINI_BIDI_PATH = '/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent';
const MAX_MESSAGE = 8 * 1024 * 1024;

export interface GeminiLiveSettings {
  /** wss://generativelanguage.googleapis.com/ws (the catalogue's), a host, or the full BidiGenerateContent URL. */
  url: string;
  apiKey: string;
  /** e.g. gemini-2.0-flash-exp (`models/` is added). */
  model: string;
  voice: string;
  instructions: string;
  vad: { threshold: number; prefixPaddingMs: number; silenceDurationMs: number };
  textOnly?: boolean;
  allowPrivate: boolean;
  connectTimeoutMs?: number;
  tools?: readonly RealtimeTool[];
}

/** The BidiGenerateContent URL from the avatar's base URL (a bare host or `/ws` gets the method's path). */
export function geminiLiveUrl(base: string, apiKey: string): string {
  const url = new URL(base);
  if (!/BidiGenerateContent\w*$/.test(url.pathname)) url.pathname = url.pathname.replace(/\/+$/, '').replace(/\/ws$/, '') + GEMINI_BIDI_PATH;
  url.searchParams.set('key', apiKey);
  return url.toString();
}

/**
 * The avatar's VAD threshold (OpenAI's meaning: the speech probability above which audio is speech;
 * higher = needs louder, clearer speech) as Gemini's two sensitivities: above 0.5 speech starts
 * less readily (START_SENSITIVITY_LOW) and ends more readily (END_SENSITIVITY_HIGH); below 0.5 the
 * opposite; 0.5 (the default) leaves both at Gemini's defaults.
 */
export function geminiSensitivity(threshold: number): { startOfSpeechSensitivity?: string; endOfSpeechSensitivity?: string } {
  if (threshold > 0.5) return { startOfSpeechSensitivity: 'START_SENSITIVITY_LOW', endOfSpeechSensitivity: 'END_SENSITIVITY_HIGH' };
  if (threshold < 0.5) return { startOfSpeechSensitivity: 'START_SENSITIVITY_HIGH', endOfSpeechSensitivity: 'END_SENSITIVITY_LOW' };
  return {};
}

/** Schema keywords Gemini's `parameters` (an OpenAPI subset) accepts; others (additionalProperties, $schema…) are refused by the API. */
const SCHEMA_KEYS = new Set(['type', 'format', 'title', 'description', 'nullable', 'enum', 'items', 'properties', 'required', 'minItems', 'maxItems', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'anyOf', 'default', 'example']);

/** A tool's JSON Schema reduced to what `functionDeclarations[].parameters` takes (`type: [x, 'null']` → `nullable`). */
export function geminiSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(geminiSchema);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema as Record<string, unknown>)) {
    if (!SCHEMA_KEYS.has(k)) continue;
    if (k === 'type' && Array.isArray(v)) {
      const types = v.filter((t) => t !== 'null');
      out.type = types[0] ?? 'string';
      if (types.length < v.length) out.nullable = true;
    } else if (k === 'properties' && v && typeof v === 'object') {
      out.properties = Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([name, p]) => [name, geminiSchema(p)]));
    } else out[k] = k === 'items' || k === 'anyOf' ? geminiSchema(v) : v;
  }
  return out;
}

/** A tool's output (JSON or text) as a FunctionResponse's `response` object. */
function functionResponse(output: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(output);
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    return { output: parsed };
  } catch {
    return { output };
  }
}

interface Part {
  text?: string;
  thought?: boolean;
  inlineData?: { mimeType?: string; data?: string };
}
interface ServerMessage {
  setupComplete?: object;
  serverContent?: {
    modelTurn?: { parts?: Part[] };
    turnComplete?: boolean;
    generationComplete?: boolean;
    interrupted?: boolean;
    inputTranscription?: { text?: string; finished?: boolean };
    outputTranscription?: { text?: string };
  };
  toolCall?: { functionCalls?: { id?: string; name?: string; args?: unknown }[] };
  toolCallCancellation?: { ids?: string[] };
  goAway?: { timeLeft?: string };
}

function parseMessage(data: WebSocket.RawData): ServerMessage | null {
  // Gemini sends its JSON in binary frames as often as in text frames.
  try {
    const m: unknown = JSON.parse(Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(Array.isArray(data) ? data : [Buffer.from(data)]).toString('utf8'));
    return m && typeof m === 'object' && !Array.isArray(m) ? (m as ServerMessage) : null;
  } catch {
    return null;
  }
}

/** Connects, sends `setup`, and resolves once the server answered `setupComplete`. */
export function connectGeminiLive(s: GeminiLiveSettings, onEvent: (ev: RealtimeEvent) => void, signal: AbortSignal): Promise<RealtimeConnection> {
  return new Promise<RealtimeConnection>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    if (!s.apiKey) return reject(new ProviderError(GEMINI_LIVE, 'no API key'));
    /** Never let the key reach a log line or an error. */
    const scrub = (text: string) => text.split(s.apiKey).join('***').split(encodeURIComponent(s.apiKey)).join('***');
    const error = (message: string, status?: number) => new ProviderError(GEMINI_LIVE, scrub(message), status);
    let ws: WebSocket;
    try {
      ws = openGuardedSocket(geminiLiveUrl(s.url, s.apiKey), { allowPrivate: s.allowPrivate, headers: { 'user-agent': 'PersonaStudio/1.0 (live avatar)' }, maxPayload: MAX_MESSAGE });
    } catch (err) {
      return reject(error(err instanceof GuardedFetchError ? `the realtime URL cannot be used: ${err.message}` : 'the realtime URL is not valid'));
    }
    let ready = false;
    let closed = false;
    let goingAway = false;
    let turns = 0;
    let users = 0;
    /** The model turn being received; after an interruption its leftovers are dropped until turnComplete. */
    let turn: { id: string } | null = null;
    let draining = false;
    /** The visitor's words being transcribed, and the model turn that was current when they began. */
    let user: { itemId: string; text: string; during: string | null } | null = null;
    const pendingCalls = new Set<string>();
    const cancelledCalls = new Set<string>();

    const shutdown = () => {
      if (closed) return false;
      closed = true;
      clearTimeout(handshake);
      signal.removeEventListener('abort', onAbort);
      return true;
    };
    const endUser = () => {
      if (!user) return;
      onEvent({ type: 'user-transcript', itemId: user.itemId, text: user.text.trim(), final: true });
      user = null;
    };
    const fail = (err: ProviderError | null) => {
      const wasReady = ready;
      if (!shutdown()) return;
      ws.terminate();
      if (!wasReady) return reject(err ?? error('closed before it was set up'));
      endUser();
      onEvent({ type: 'closed', error: err });
    };
    const onAbort = () => connection.close();
    signal.addEventListener('abort', onAbort, { once: true });
    const handshake = setTimeout(() => fail(error('timed out waiting for the connection')), s.connectTimeoutMs ?? 15_000);

    const send = (message: Record<string, unknown>) => {
      if (!closed && ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };
    const userTurn = (text: string) => ({ clientContent: { turns: [{ role: 'user', parts: [{ text }] }], turnComplete: true } });

    const connection: RealtimeConnection = {
      inputSampleRate: GEMINI_INPUT_RATE,
      outputSampleRate: GEMINI_OUTPUT_RATE,
      appendAudio(pcm) {
        if (pcm.length > 0) send({ realtimeInput: { audio: { mimeType: `audio/pcm;rate=${GEMINI_INPUT_RATE}`, data: Buffer.from(samplesToBytes(pcm)).toString('base64') } } });
      },
      sendUserText(text) {
        send(userTurn(text));
      },
      say(text) {
        send(userTurn(`Say exactly this to the visitor now, word for word, and nothing else: ${JSON.stringify(text)}`));
      },
      seedHistory(history) {
        const seeded = history.filter((h) => h.text).map((h) => ({ role: h.role === 'assistant' ? 'model' : 'user', parts: [{ text: h.text }] }));
        if (seeded.length > 0) send({ clientContent: { turns: seeded, turnComplete: false } });
      },
      truncate() {
        // Gemini has no truncation: on an interruption the server itself keeps only what it had
        // sent of the answer. What the visitor actually heard stays in our history only.
      },
      cancelResponse() {
        // Nor a cancel message: the server's own VAD (activityHandling START_OF_ACTIVITY_INTERRUPTS)
        // stops the answer when the visitor speaks; the session drops what still arrives.
      },
      toolResult(callId, name, output) {
        pendingCalls.delete(callId);
        // A call the server cancelled (the visitor interrupted) gets no answer.
        if (cancelledCalls.delete(callId)) return;
        send({ toolResponse: { functionResponses: [{ id: callId, name, response: functionResponse(output) }] } });
      },
      close() {
        if (!shutdown()) return;
        if (ws.readyState === ws.OPEN) ws.close(1000);
        else ws.terminate();
        if (ready) {
          endUser();
          onEvent({ type: 'closed', error: null });
        } else reject(error('closed before it was set up'));
      },
    };

    const startTurn = () => {
      if (!turn) {
        turn = { id: `gemini-turn-${++turns}` };
        onEvent({ type: 'response-start', responseId: turn.id });
      }
      return turn;
    };
    const endTurn = (status: 'completed' | 'cancelled') => {
      if (!turn) return;
      const id = turn.id;
      turn = null;
      onEvent({ type: 'response-done', responseId: id, status, error: null });
    };

    function onServerContent(c: NonNullable<ServerMessage['serverContent']>) {
      const heard = c.inputTranscription?.text;
      if (typeof heard === 'string' && heard) {
        if (!user) {
          user = { itemId: `gemini-user-${++users}`, text: '', during: turn?.id ?? null };
          onEvent({ type: 'user-item', itemId: user.itemId });
        }
        user.text += heard;
        onEvent({ type: 'user-transcript', itemId: user.itemId, text: heard, final: false });
      }
      if (c.inputTranscription?.finished) endUser();
      if (c.interrupted) {
        // The visitor spoke over the answer: the avatar stops, the answer ends as cancelled. Words
        // transcribed before this answer began belong to the turn that was answered.
        onEvent({ type: 'speech-started' });
        if (user && user.during !== (turn?.id ?? null)) endUser();
        if (turn) draining = true;
        endTurn('cancelled');
      }
      for (const part of c.modelTurn?.parts ?? []) {
        const audio = part.inlineData;
        if (audio?.data && (audio.mimeType ?? 'audio/pcm').startsWith('audio/pcm')) {
          draining = false;
          const t = startTurn();
          onEvent({ type: 'audio', responseId: t.id, itemId: t.id, pcm: bytesToSamples(Buffer.from(audio.data, 'base64')) });
        } else if (s.textOnly && typeof part.text === 'string' && part.text && !part.thought && !draining) {
          const t = startTurn();
          onEvent({ type: 'text', responseId: t.id, itemId: t.id, delta: part.text });
        }
      }
      const said = c.outputTranscription?.text;
      if (typeof said === 'string' && said && !draining) {
        const t = startTurn();
        onEvent({ type: 'text', responseId: t.id, itemId: t.id, delta: said });
      }
      if (c.turnComplete) {
        if (draining) draining = false;
        else {
          if (user && user.during !== (turn?.id ?? null)) endUser();
          endTurn('completed');
        }
        if (goingAway) connection.close();
      }
    }

    ws.on('unexpected-response', (_req, res) => readRefusal(res, (status, body) => fail(error(`HTTP ${status}${errorDetail(body)}`, status))));
    ws.on('error', (err) => fail(error(err.message)));
    ws.on('close', (code, reason) => {
      const why = reason.toString('utf8').slice(0, 200);
      // After goAway the server's close is the hand-over it announced: the next use reconnects.
      fail(goingAway && ready ? null : error(`the connection closed (${code}${why ? ` ${why}` : ''})`));
    });
    ws.on('open', () => {
      if (closed) return;
      const tools = s.tools ?? [];
      send({
        setup: {
          model: s.model.startsWith('models/') ? s.model : `models/${s.model}`,
          generationConfig: {
            responseModalities: [s.textOnly ? 'TEXT' : 'AUDIO'],
            ...(s.textOnly ? {} : { speechConfig: { voiceConfig: { prebuiltVoiceConfig: { voiceName: s.voice } } } }),
          },
          systemInstruction: { parts: [{ text: s.instructions }] },
          ...(tools.length > 0 ? { tools: [{ functionDeclarations: tools.map((t) => ({ name: t.name, description: t.description, parameters: geminiSchema(t.parameters) })) }] } : {}),
          realtimeInputConfig: {
            automaticActivityDetection: { disabled: false, ...geminiSensitivity(s.vad.threshold), prefixPaddingMs: s.vad.prefixPaddingMs, silenceDurationMs: s.vad.silenceDurationMs },
            activityHandling: 'START_OF_ACTIVITY_INTERRUPTS',
          },
          inputAudioTranscription: {},
          ...(s.textOnly ? {} : { outputAudioTranscription: {} }),
        },
      });
    });
    ws.on('message', (data) => {
      const m = closed ? null : parseMessage(data);
      if (!m) return;
      if (m.setupComplete && !ready) {
        ready = true;
        clearTimeout(handshake);
        return resolve(connection);
      }
      if (!ready) return;
      if (m.serverContent) onServerContent(m.serverContent);
      for (const call of m.toolCall?.functionCalls ?? []) {
        if (!call.id || !call.name) continue;
        pendingCalls.add(call.id);
        onEvent({ type: 'tool-call', callId: call.id, name: call.name, args: JSON.stringify(call.args ?? {}) });
      }
      const withdrawn = (m.toolCallCancellation?.ids ?? []).filter((id) => pendingCalls.delete(id));
      if (withdrawn.length > 0) {
        for (const id of withdrawn) cancelledCalls.add(id);
        // The function still running is stopped (the sandbox's time), not only its response withheld.
        onEvent({ type: 'tool-cancelled', callIds: withdrawn });
      }
      if (m.goAway) {
        // The server will close soon: hand over between answers (closed without an error; the
        // session reconnects on its next use and gives the model the history).
        goingAway = true;
        if (!turn) connection.close();
      }
    });
  });
}

/** Google's JSON error body, shortened. */
function errorDetail(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string; status?: string } };
    const e = parsed.error;
    if (e?.message || e?.status) return `: ${[e.status, e.message].filter(Boolean).join(' ')}`.slice(0, 300);
  } catch {
    // not JSON
  }
  return body.trim() ? `: ${body.trim().slice(0, 200)}` : '';
}
