import type WebSocket from 'ws';
import { ProviderError } from '../../core/errors.js';
import { GuardedFetchError, openGuardedSocket } from '@persona/net';
import { bytesToSamples, samplesToBytes } from '../../core/audio.js';
import { jsonEvent, readRefusal } from '../ws.js';
import type { RealtimeConnection, RealtimeEvent, RealtimeTool } from './types.js';

export type { RealtimeConnection, RealtimeEvent } from './types.js';

/**
 * OpenAI Realtime (GA protocol) over WebSocket: one socket per live session. The wire format stays
 * in this file; the session sees `RealtimeEvent`s. Audio both ways is PCM16 mono at 24 kHz.
 * `wss://…/v1/realtime?model=…` with `Authorization: Bearer`; `session.update` sets the
 * instructions, voice, audio formats, input transcription and server VAD (`interrupt_response`:
 * the provider stops its answer itself when the visitor starts speaking) and the tools offered.
 * A function call (`response.output_item.done` of a `function_call` item) becomes a `tool-call`
 * event; its result goes back as a `function_call_output` item, and the model answers once all
 * calls of its response have their outputs and that response is done (one `response.create`).
 */
export const OPENAI_REALTIME = 'openai-realtime';
export const REALTIME_SAMPLE_RATE = 24_000;
const MAX_MESSAGE = 8 * 1024 * 1024;

export interface RealtimeSettings {
  /** wss://api.openai.com/v1/realtime (the model is added as `?model=`). */
  url: string;
  apiKey: string;
  model: string;
  voice: string;
  instructions: string;
  vad: { threshold: number; prefixPaddingMs: number; silenceDurationMs: number };
  /** Text answers only (the chat widget): no audio out. */
  textOnly?: boolean;
  /** The operator's URL may be private; a user's only when the portal allows it. */
  allowPrivate: boolean;
  connectTimeoutMs?: number;
  /** The avatar's linked functions and its knowledge search (none: no tools). */
  tools?: readonly RealtimeTool[];
}

/** GA names first; the beta names are accepted too. */
const AUDIO_DELTA = new Set(['response.output_audio.delta', 'response.audio.delta']);
const TRANSCRIPT_DELTA = new Set(['response.output_audio_transcript.delta', 'response.audio_transcript.delta', 'response.output_text.delta', 'response.text.delta']);

interface ServerEvent {
  type?: string;
  delta?: string;
  transcript?: string;
  item_id?: string;
  response_id?: string;
  item?: { id?: string; role?: string; type?: string; call_id?: string; name?: string; arguments?: string };
  response?: { id?: string; status?: string; status_details?: { type?: string; reason?: string; error?: { type?: string; code?: string; message?: string } } };
  error?: { type?: string; code?: string; message?: string; param?: string };
}

function realtimeUrl(base: string, model: string): string {
  const url = new URL(base);
  if (!url.searchParams.has('model')) url.searchParams.set('model', model);
  return url.toString();
}

/** Connects and configures the session; resolves once `session.update` is sent on an open socket. */
export function connectOpenAiRealtime(s: RealtimeSettings, onEvent: (ev: RealtimeEvent) => void, signal: AbortSignal): Promise<RealtimeConnection> {
  return new Promise<RealtimeConnection>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    if (!s.apiKey) return reject(new ProviderError(OPENAI_REALTIME, 'no API key'));
    let ws: WebSocket;
    try {
      ws = openGuardedSocket(realtimeUrl(s.url, s.model), {
        allowPrivate: s.allowPrivate,
        headers: { authorization: `Bearer ${s.apiKey}`, 'user-agent': 'PersonaStudio/1.0 (live avatar)' },
        maxPayload: MAX_MESSAGE,
      });
    } catch (err) {
      return reject(new ProviderError(OPENAI_REALTIME, err instanceof GuardedFetchError ? `the realtime URL cannot be used: ${err.message}` : 'the realtime URL is not valid'));
    }
    let opened = false;
    let closed = false;
    const responses = new Set<string>();
    /** Responses that called tools: the calls still without output, and whether the response is done. */
    const toolTurns = new Map<string, { pending: Set<string>; done: boolean }>();
    /** The model answers with the results once every call of the response has its output and the response is done. */
    const followUp = (responseId: string) => {
      const turn = toolTurns.get(responseId);
      if (!turn || !turn.done || turn.pending.size > 0) return;
      toolTurns.delete(responseId);
      send({ type: 'response.create' });
    };
    const shutdown = () => {
      if (closed) return false;
      closed = true;
      clearTimeout(handshake);
      signal.removeEventListener('abort', onAbort);
      return true;
    };
    const fail = (err: ProviderError) => {
      const wasOpen = opened;
      if (!shutdown()) return;
      ws.terminate();
      if (wasOpen) onEvent({ type: 'closed', error: err });
      else reject(err);
    };
    const onAbort = () => connection.close();
    signal.addEventListener('abort', onAbort, { once: true });
    const handshake = setTimeout(() => fail(new ProviderError(OPENAI_REALTIME, 'timed out waiting for the connection')), s.connectTimeoutMs ?? 15_000);

    const send = (event: Record<string, unknown>) => {
      if (!closed && ws.readyState === ws.OPEN) ws.send(JSON.stringify(event));
    };
    const message = (role: 'user' | 'assistant' | 'system', text: string) => ({
      type: 'message',
      role,
      content: [{ type: role === 'assistant' ? 'output_text' : 'input_text', text }],
    });

    const connection: RealtimeConnection = {
      inputSampleRate: REALTIME_SAMPLE_RATE,
      outputSampleRate: REALTIME_SAMPLE_RATE,
      appendAudio(pcm) {
        if (pcm.length > 0) send({ type: 'input_audio_buffer.append', audio: Buffer.from(samplesToBytes(pcm)).toString('base64') });
      },
      sendUserText(text) {
        send({ type: 'conversation.item.create', item: message('user', text) });
        send({ type: 'response.create' });
      },
      say(text) {
        send({ type: 'conversation.item.create', item: message('system', `Say exactly this to the visitor now, word for word, and nothing else: ${JSON.stringify(text)}`) });
        send({ type: 'response.create' });
      },
      seedHistory(history) {
        for (const h of history) if (h.text) send({ type: 'conversation.item.create', item: message(h.role, h.text) });
      },
      truncate(itemId, audioEndMs) {
        send({ type: 'conversation.item.truncate', item_id: itemId, content_index: 0, audio_end_ms: Math.max(0, Math.floor(audioEndMs)) });
      },
      cancelResponse() {
        // By id: a bare response.cancel stops whatever is active when it arrives, which may be the
        // answer the server VAD has just begun for the visitor's next turn.
        for (const id of responses) send({ type: 'response.cancel', response_id: id });
      },
      toolResult(callId, _name, output) {
        send({ type: 'conversation.item.create', item: { type: 'function_call_output', call_id: callId, output } });
        for (const [responseId, turn] of toolTurns) {
          if (turn.pending.delete(callId)) return followUp(responseId);
        }
      },
      close() {
        if (!shutdown()) return;
        if (ws.readyState === ws.OPEN) ws.close(1000);
        else ws.terminate();
        if (opened) onEvent({ type: 'closed', error: null });
        else reject(new ProviderError(OPENAI_REALTIME, 'closed before it opened'));
      },
    };

    ws.on('unexpected-response', (_req, res) =>
      readRefusal(res, (status, body) => fail(new ProviderError(OPENAI_REALTIME, `HTTP ${status}${errorDetail(body)}`, status))),
    );
    ws.on('error', (err) => fail(new ProviderError(OPENAI_REALTIME, err.message)));
    ws.on('close', (code, reason) => {
      const why = reason.toString('utf8').slice(0, 200);
      fail(new ProviderError(OPENAI_REALTIME, `the connection closed (${code}${why ? ` ${why}` : ''})`));
    });
    ws.on('open', () => {
      if (closed) return;
      opened = true;
      clearTimeout(handshake);
      send({
        type: 'session.update',
        session: {
          type: 'realtime',
          model: s.model,
          instructions: s.instructions,
          output_modalities: [s.textOnly ? 'text' : 'audio'],
          audio: {
            input: {
              format: { type: 'audio/pcm', rate: REALTIME_SAMPLE_RATE },
              transcription: { model: 'whisper-1' },
              turn_detection: {
                type: 'server_vad',
                threshold: s.vad.threshold,
                prefix_padding_ms: s.vad.prefixPaddingMs,
                silence_duration_ms: s.vad.silenceDurationMs,
                create_response: true,
                interrupt_response: true,
              },
            },
            output: { format: { type: 'audio/pcm', rate: REALTIME_SAMPLE_RATE }, voice: s.voice },
          },
          ...(s.tools?.length
            ? { tools: s.tools.map((t) => ({ type: 'function', name: t.name, description: t.description, parameters: t.parameters })), tool_choice: 'auto' }
            : {}),
        },
      });
      resolve(connection);
    });
    ws.on('message', (data, isBinary) => {
      const m = closed ? null : jsonEvent<ServerEvent>(data, isBinary);
      if (!m) return;
      const type = m.type;
      if (AUDIO_DELTA.has(type)) {
        if (typeof m.delta === 'string' && m.response_id && m.item_id) {
          onEvent({ type: 'audio', responseId: m.response_id, itemId: m.item_id, pcm: bytesToSamples(Buffer.from(m.delta, 'base64')) });
        }
      } else if (TRANSCRIPT_DELTA.has(type)) {
        if (typeof m.delta === 'string' && m.delta && m.response_id && m.item_id) onEvent({ type: 'text', responseId: m.response_id, itemId: m.item_id, delta: m.delta });
      } else if (type === 'input_audio_buffer.speech_started') onEvent({ type: 'speech-started' });
      else if (type === 'input_audio_buffer.speech_stopped') onEvent({ type: 'speech-stopped' });
      else if (type === 'input_audio_buffer.committed') {
        if (m.item_id) onEvent({ type: 'user-item', itemId: m.item_id });
      } else if (type === 'conversation.item.input_audio_transcription.delta') {
        if (m.item_id && typeof m.delta === 'string') onEvent({ type: 'user-transcript', itemId: m.item_id, text: m.delta, final: false });
      } else if (type === 'conversation.item.input_audio_transcription.completed') {
        if (m.item_id) onEvent({ type: 'user-transcript', itemId: m.item_id, text: typeof m.transcript === 'string' ? m.transcript.trim() : '', final: true });
      } else if (type === 'conversation.item.input_audio_transcription.failed') {
        if (m.item_id) onEvent({ type: 'user-transcript-failed', itemId: m.item_id });
      } else if (type === 'response.created') {
        const id = m.response?.id;
        if (id) {
          responses.add(id);
          // A newer answer (typed text, the visitor's speech): the model has moved on; results that come later join the conversation without an answer of their own.
          toolTurns.clear();
          onEvent({ type: 'response-start', responseId: id });
        }
      } else if (type === 'response.output_item.done') {
        const item = m.item;
        if (item?.type !== 'function_call' || !item.call_id || !item.name || !m.response_id) return;
        const turn = toolTurns.get(m.response_id) ?? { pending: new Set<string>(), done: false };
        toolTurns.set(m.response_id, turn);
        turn.pending.add(item.call_id);
        onEvent({ type: 'tool-call', callId: item.call_id, name: item.name, args: typeof item.arguments === 'string' && item.arguments.trim() ? item.arguments : '{}' });
      } else if (type === 'response.done') {
        const id = m.response?.id;
        if (!id) return;
        responses.delete(id);
        const status = m.response?.status ?? 'completed';
        const detail = m.response?.status_details?.error;
        const error = status === 'failed' ? new ProviderError(OPENAI_REALTIME, `the answer failed${detail?.code ? ` (${detail.code})` : ''}${detail?.message ? `: ${detail.message}` : ''}`) : null;
        onEvent({ type: 'response-done', responseId: id, status, error });
        const turn = toolTurns.get(id);
        if (turn) {
          turn.done = true;
          // A cancelled or failed answer's calls get no answer of their own (the visitor interrupted, or it failed).
          if (status === 'completed') followUp(id);
          else toolTurns.delete(id);
        }
      } else if (type === 'error') {
        const e = m.error ?? {};
        // Cancelling an answer that just ended is a race, not a failure.
        if (e.code === 'response_cancel_not_active') return;
        onEvent({ type: 'error', error: new ProviderError(OPENAI_REALTIME, `${e.code ?? e.type ?? 'error'}: ${e.message ?? 'no message'}`) });
      }
    });
  });
}

/** OpenAI's JSON error body, shortened (never the key: OpenAI masks it). */
function errorDetail(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: string; code?: string } };
    const e = parsed.error;
    if (e?.message || e?.code) return `: ${[e.code, e.message].filter(Boolean).join(' ')}`.slice(0, 300);
  } catch {
    // not JSON
  }
  return body.trim() ? `: ${body.trim().slice(0, 200)}` : '';
}
