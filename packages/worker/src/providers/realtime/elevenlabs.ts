import type WebSocket from 'ws';
import { ELEVENLABS_AGENT_ID } from '@persona/contract';
import { ProviderError } from '../../core/errors.js';
import type { GuardedFetch } from '../../core/types.js';
import { createGuardedFetch, GuardedFetchError, openGuardedSocket } from '@persona/net';
import { bytesToSamples, samplesToBytes } from '../../core/audio.js';
import { errorBodyDetail, errorDetail, httpFailure, joinUrl } from '../http.js';
import { jsonEvent, readRefusal } from '../ws.js';
import type { RealtimeConnection, RealtimeEvent, RealtimeTool } from './types.js';

/**
 * ElevenLabs Conversational AI over its WebSocket: one conversation per connection, the agent
 * (its prompt, voice, first message, tools) configured at ElevenLabs. The wire format stays in
 * this file; the session sees `RealtimeEvent`s (ADR 071, "ElevenLabs Conversational AI").
 *
 * - Public agents: `wss://api.elevenlabs.io/v1/convai/conversation?agent_id=…`. Private ones: the
 *   worker first asks `GET /v1/convai/conversation/get-signed-url?agent_id=…` with `xi-api-key`
 *   (answer `{signed_url}`) and opens that URL; the key goes nowhere else (not on the socket, not
 *   in an error message).
 * - Sent: `conversation_initiation_client_data` first; `{user_audio_chunk}` (base64 PCM16 at the
 *   agent's input rate); `pong` for each `ping`; `user_message` for typed text; `contextual_update`
 *   for the conversation so far after a reconnect; `client_tool_result` for client tool calls.
 * - Received: `conversation_initiation_metadata` (the audio formats: `pcm_<rate>` both ways; the
 *   connection resolves only then, and anything else — `ulaw_8000` — is refused), `audio`,
 *   `agent_response`, `user_transcript`, `interruption`, `client_tool_call`, `ping`.
 *   `agent_response_correction` (ElevenLabs' own guess of what was heard), `vad_score`,
 *   `internal_*` and `agent_chat_response_part` are ignored: the session cuts the chat's text at
 *   what the page actually played.
 *
 * ConvAI has no explicit start or end of an answer, so they are synthesised here: **an answer
 * starts with the first `audio` or `agent_response` while none is open, and ends at the next
 * `user_transcript` (completed), `interruption` (cancelled), typed message (completed), a local
 * cancel (cancelled), or once nothing of it arrived for `quietMs` (completed)**. Audio of an
 * interrupted or cancelled answer that still arrives is dropped by its `event_id` (ElevenLabs
 * numbers each agent turn; after `interruption {event_id}` only turns from that id on are played).
 */
export const ELEVENLABS_CONVAI = 'elevenlabs-convai';
export const ELEVENLABS_API = 'https://api.elevenlabs.io';
const MAX_MESSAGE = 8 * 1024 * 1024;
const AGENT_ID_MAX = 128;
/** The conversation so far, as a contextual update after a reconnect (characters). */
const SEED_MAX = 8000;

/**
 * The synthesised answer. ConvAI sends an answer's whole text before its audio; the session cuts
 * an interrupted answer's text by the share of its audio heard, so the text is handed on as the
 * audio comes (`pace` characters per second of audio, to the end of a word), the rest when the
 * answer completes.
 */
interface Answer {
  id: string;
  itemId: string;
  /** Handed to the session. */
  text: string;
  /** Known, not handed on yet. */
  pending: string;
  audioMs: number;
  lastEventId: number | null;
}

/** Characters per second of speech before an answer taught better (≈ 150 words a minute). */
const DEFAULT_PACE = 15;

export interface ElevenLabsConvAiSettings {
  agentId: string;
  /** Private agents only ('' for a public one). */
  apiKey: string;
  isPublic: boolean;
  /** Default https://api.elevenlabs.io; the conversation socket is its ws(s) twin. */
  baseUrl?: string;
  /** May the API and the signed URL be on a private address (a base URL the operator set, tests)? */
  allowPrivate: boolean;
  /** For the signed URL (default: a guarded fetch of its own, closed after use). */
  fetch?: GuardedFetch;
  /** Until the conversation's metadata (default 15 s). */
  connectTimeoutMs?: number;
  /** An answer ends when nothing of it arrived for this long (default 1200 ms). */
  quietMs?: number;
  /** Client tools the session can run; calls of other tools are answered with an error at once. */
  tools?: readonly RealtimeTool[];
}

interface ServerMessage {
  type?: string;
  conversation_initiation_metadata_event?: { conversation_id?: string; agent_output_audio_format?: string; user_input_audio_format?: string };
  audio_event?: { audio_base_64?: string; event_id?: number };
  agent_response_event?: { agent_response?: string };
  user_transcription_event?: { user_transcript?: string };
  interruption_event?: { event_id?: number; reason?: string };
  ping_event?: { event_id?: number; ping_ms?: number };
  client_tool_call?: { tool_name?: string; tool_call_id?: string; parameters?: unknown; expects_response?: boolean };
}

/** `pcm_16000` → 16000; null for anything else (μ-law, MP3…). */
export function pcmRate(format: unknown): number | null {
  const m = typeof format === 'string' ? /^pcm_(\d{4,6})$/.exec(format) : null;
  const rate = m ? Number(m[1]) : Number.NaN;
  return rate >= 8000 && rate <= 48_000 ? rate : null;
}

/** The conversation socket for a public agent: the API base's ws(s) twin. */
function publicSocketUrl(base: string, agentId: string): string {
  const url = new URL(joinUrl(base, 'v1/convai/conversation'));
  url.protocol = url.protocol === 'http:' ? 'ws:' : 'wss:';
  url.searchParams.set('agent_id', agentId);
  return url.toString();
}

/** Nothing the provider says back may carry the key into a log line. */
function scrub(text: string, secret: string): string {
  return secret ? text.split(secret).join('***') : text;
}

/** Asks ElevenLabs for a private agent's signed conversation URL (with the key; the URL itself carries none). */
async function signedUrl(s: ElevenLabsConvAiSettings, base: string, signal: AbortSignal, timeoutMs: number): Promise<string> {
  const own = s.fetch ? null : createGuardedFetch({ allowPrivate: s.allowPrivate });
  const fetch = s.fetch ?? own!;
  const url = new URL(joinUrl(base, 'v1/convai/conversation/get-signed-url'));
  url.searchParams.set('agent_id', s.agentId);
  try {
    const res = await fetch(url.toString(), { headers: { 'xi-api-key': s.apiKey, accept: 'application/json' }, signal, timeoutMs, maxBytes: 64 * 1024 });
    if (!res.ok) {
      const failure = await httpFailure(ELEVENLABS_CONVAI, res);
      throw new ProviderError(ELEVENLABS_CONVAI, `the signed URL was refused: ${scrub(failure.message, s.apiKey)}`, res.status);
    }
    const body = (await res.json()) as { signed_url?: unknown };
    if (typeof body.signed_url !== 'string' || !body.signed_url) throw new ProviderError(ELEVENLABS_CONVAI, 'the signed-URL answer has no signed_url');
    return body.signed_url;
  } catch (err) {
    if (err instanceof ProviderError) throw err;
    if (signal.aborted) throw new ProviderError(ELEVENLABS_CONVAI, 'closed before it opened');
    const why = err instanceof GuardedFetchError ? err.message : err instanceof Error ? err.message : String(err);
    throw new ProviderError(ELEVENLABS_CONVAI, `the signed URL could not be fetched: ${scrub(why, s.apiKey)}`);
  } finally {
    own?.close();
  }
}

/**
 * Connects to the agent; resolves once ElevenLabs sent the conversation's metadata (its audio
 * formats). Rejects with a ProviderError (refused key, unknown agent, a format other than PCM…).
 */
export async function connectElevenLabsConvAi(s: ElevenLabsConvAiSettings, onEvent: (ev: RealtimeEvent) => void, signal: AbortSignal): Promise<RealtimeConnection> {
  if (signal.aborted) throw signal.reason as Error;
  if (!s.agentId || s.agentId.length > AGENT_ID_MAX || !ELEVENLABS_AGENT_ID.test(s.agentId)) throw new ProviderError(ELEVENLABS_CONVAI, 'the agent id is not valid');
  if (!s.isPublic && !s.apiKey) throw new ProviderError(ELEVENLABS_CONVAI, 'the agent is private and no API key is stored');
  const base = s.baseUrl || ELEVENLABS_API;
  const timeoutMs = s.connectTimeoutMs ?? 15_000;
  const startedAt = Date.now();
  const url = s.isPublic ? publicSocketUrl(base, s.agentId) : await signedUrl(s, base, signal, timeoutMs);
  if (signal.aborted) throw new ProviderError(ELEVENLABS_CONVAI, 'closed before it opened');
  return openConversation(s, url, Math.max(1000, timeoutMs - (Date.now() - startedAt)), onEvent, signal);
}

function openConversation(s: ElevenLabsConvAiSettings, url: string, timeoutMs: number, onEvent: (ev: RealtimeEvent) => void, signal: AbortSignal): Promise<RealtimeConnection> {
  return new Promise<RealtimeConnection>((resolve, reject) => {
    let ws: WebSocket;
    try {
      ws = openGuardedSocket(url, { allowPrivate: s.allowPrivate, headers: { 'user-agent': 'PersonaStudio/1.0 (live avatar)' }, maxPayload: MAX_MESSAGE });
    } catch (err) {
      return reject(new ProviderError(ELEVENLABS_CONVAI, err instanceof GuardedFetchError ? `the conversation URL cannot be used: ${err.message}` : 'the conversation URL is not valid'));
    }
    const quietMs = s.quietMs ?? 1200;
    const tools = new Set((s.tools ?? []).map((t) => t.name));
    let ready = false;
    let closed = false;
    let rates = { input: 16_000, output: 16_000 };

    // The synthesised answer (see the file's comment) and what is dropped.
    let seq = 0;
    let answer: Answer | null = null;
    /** Characters of text per second of the agent's audio: learnt from each completed answer. */
    let pace = DEFAULT_PACE;
    let quiet: NodeJS.Timeout | undefined;
    /** Audio of turns before the last interruption's event id is stale. */
    let playFrom = -Infinity;
    /** Turns up to this event id were cancelled here (the page's own interrupt). */
    let droppedUpTo = -Infinity;
    /** A cancelled answer whose audio had no event ids: everything is dropped until the visitor's next turn. */
    let muted = false;
    /** After a reconnect (history seeded): the agent's first message is not said again. */
    let skipFirstMessage = false;

    const shutdown = () => {
      if (closed) return false;
      closed = true;
      clearTimeout(handshake);
      clearTimeout(quiet);
      signal.removeEventListener('abort', onAbort);
      return true;
    };
    const fail = (err: ProviderError) => {
      const wasReady = ready;
      if (!shutdown()) return;
      ws.terminate();
      if (wasReady) onEvent({ type: 'closed', error: err });
      else reject(err);
    };
    const onAbort = () => connection.close();
    signal.addEventListener('abort', onAbort, { once: true });
    const handshake = setTimeout(() => fail(new ProviderError(ELEVENLABS_CONVAI, 'timed out waiting for the conversation to start')), timeoutMs);

    const send = (message: Record<string, unknown>) => {
      if (!closed && ws.readyState === ws.OPEN) ws.send(JSON.stringify(message));
    };

    /** Gives the session the answer's words as far as its audio has come (all of them with `all`). */
    const release = (a: Answer, all = false) => {
      const full = a.text + a.pending;
      let end = full.length;
      if (!all) {
        const allowed = Math.round((a.audioMs * pace) / 1000);
        if (allowed <= a.text.length) return;
        if (allowed < full.length) {
          const space = full.slice(allowed).search(/\s/);
          if (space >= 0) end = allowed + space;
        }
      }
      if (end <= a.text.length) return;
      const delta = full.slice(a.text.length, end);
      a.text = full.slice(0, end);
      a.pending = full.slice(end);
      onEvent({ type: 'text', responseId: a.id, itemId: a.itemId, delta });
    };
    const endAnswer = (status: 'completed' | 'cancelled') => {
      clearTimeout(quiet);
      const a = answer;
      if (!a) return;
      answer = null;
      if (status === 'completed') {
        release(a, true);
        if (a.audioMs >= 1000 && a.text.length > 0) pace = Math.min(40, Math.max(5, (pace + a.text.length / (a.audioMs / 1000)) / 2));
      }
      onEvent({ type: 'response-done', responseId: a.id, status, error: null });
    };
    /** The visitor's turn (spoken or typed): what the agent says next is a new answer. */
    const visitorTurn = () => {
      endAnswer('completed');
      muted = false;
      skipFirstMessage = false;
    };
    /** The open answer, started now if none is; null while its content is dropped. */
    const openAnswer = () => {
      if (muted || skipFirstMessage) return null;
      if (!answer) {
        seq++;
        answer = { id: `el_answer_${seq}`, itemId: `el_agent_${seq}`, text: '', pending: '', audioMs: 0, lastEventId: null };
        onEvent({ type: 'response-start', responseId: answer.id });
      }
      clearTimeout(quiet);
      quiet = setTimeout(() => endAnswer('completed'), quietMs);
      return answer;
    };
    const sendText = (text: string) => {
      visitorTurn();
      send({ type: 'user_message', text });
    };

    const connection: RealtimeConnection = {
      get inputSampleRate() {
        return rates.input;
      },
      get outputSampleRate() {
        return rates.output;
      },
      appendAudio(pcm) {
        if (pcm.length > 0) send({ user_audio_chunk: Buffer.from(samplesToBytes(pcm)).toString('base64') });
      },
      sendUserText(text) {
        sendText(text);
      },
      say(text) {
        // ConvAI cannot be told to speak given words: the agent is asked to, as a message.
        sendText(`Say exactly this to the visitor now, word for word, and nothing else: ${JSON.stringify(text)}`);
      },
      seedHistory(history) {
        const turns = history.filter((h) => h.text).map((h) => `${h.role === 'user' ? 'Visitor' : 'You'}: ${h.text}`);
        if (turns.length === 0) return;
        // A resume or a reconnect is a new ElevenLabs conversation: it hears what was said, and does not greet again.
        skipFirstMessage = true;
        let text = turns.join('\n');
        if (text.length > SEED_MAX) text = text.slice(-SEED_MAX);
        send({ type: 'contextual_update', text: `The conversation so far (it was reconnected; go on from here without greeting again):\n${text}` });
      },
      truncate() {
        // ElevenLabs keeps its own record of what was heard (agent_response_correction): nothing to send.
      },
      cancelResponse() {
        const a = answer;
        if (!a) return;
        // The agent does not know: the rest of this turn still arrives, and is dropped.
        if (a.lastEventId !== null) droppedUpTo = Math.max(droppedUpTo, a.lastEventId);
        else muted = true;
        endAnswer('cancelled');
      },
      toolResult(callId, _name, output) {
        send({ type: 'client_tool_result', tool_call_id: callId, result: output, is_error: false });
      },
      close() {
        if (!shutdown()) return;
        if (ws.readyState === ws.OPEN) ws.close(1000);
        else ws.terminate();
        if (ready) onEvent({ type: 'closed', error: null });
        else reject(new ProviderError(ELEVENLABS_CONVAI, 'closed before it opened'));
      },
    };

    ws.on('unexpected-response', (_req, res) =>
      readRefusal(res, (status, body) => {
        const detail = errorBodyDetail(body);
        fail(new ProviderError(ELEVENLABS_CONVAI, `HTTP ${status}${detail ? `: ${scrub(detail, s.apiKey)}` : ''}`, status));
      }),
    );
    ws.on('error', (err) => fail(new ProviderError(ELEVENLABS_CONVAI, scrub(err.message, s.apiKey))));
    ws.on('close', (code, reason) => {
      const why = scrub(reason.toString('utf8').slice(0, 200), s.apiKey);
      // The agent ended the conversation (its end-call tool, its own time limit): gone, not failed.
      if (ready && code === 1000) {
        if (shutdown()) onEvent({ type: 'closed', error: null });
        return;
      }
      fail(new ProviderError(ELEVENLABS_CONVAI, `the conversation closed (${code}${why ? ` ${why}` : ''})`));
    });
    ws.on('open', () => {
      if (closed) return;
      // Nothing overridden: ElevenLabs refuses overrides the agent does not allow.
      send({ type: 'conversation_initiation_client_data' });
    });
    /**
     * Messages that came with the metadata wait until the session has taken the connection (its
     * `then` runs first: history seeded before the first message is judged).
     */
    let held: ServerMessage[] | null = null;
    ws.on('message', (data, isBinary) => {
      const m = closed ? null : jsonEvent<ServerMessage>(data, isBinary);
      if (!m) return;
      if (held) held.push(m);
      else handle(m);
    });
    const handle = (m: ServerMessage) => {
      if (closed) return;
      switch (m.type) {
        case 'conversation_initiation_metadata': {
          if (ready) return;
          const meta = m.conversation_initiation_metadata_event ?? {};
          const input = pcmRate(meta.user_input_audio_format);
          const output = pcmRate(meta.agent_output_audio_format);
          if (!input || !output) {
            const bad = !input ? `input ${String(meta.user_input_audio_format)}` : `output ${String(meta.agent_output_audio_format)}`;
            return fail(new ProviderError(ELEVENLABS_CONVAI, `the agent's audio format (${bad}) is not supported here: choose PCM (e.g. pcm_16000) for the agent's input and output at ElevenLabs`));
          }
          rates = { input, output };
          ready = true;
          clearTimeout(handshake);
          held = [];
          resolve(connection);
          setImmediate(() => {
            const waiting = held ?? [];
            held = null;
            for (const w of waiting) handle(w);
          });
          return;
        }
        case 'ping': {
          const id = m.ping_event?.event_id;
          if (id !== undefined) send({ type: 'pong', event_id: id });
          return;
        }
      }
      if (!ready) return;
      switch (m.type) {
        case 'audio': {
          const audio = m.audio_event;
          if (typeof audio?.audio_base_64 !== 'string') return;
          const id = typeof audio.event_id === 'number' ? audio.event_id : null;
          if (id !== null && (id < playFrom || id <= droppedUpTo)) return;
          const a = openAnswer();
          if (!a) {
            // Dropped (the first message after a reconnect, a cancelled turn): so is the rest of its turn.
            if (id !== null) droppedUpTo = Math.max(droppedUpTo, id);
            return;
          }
          if (id !== null) a.lastEventId = id;
          const pcm = bytesToSamples(Buffer.from(audio.audio_base_64, 'base64'));
          if (pcm.length === 0) return;
          a.audioMs += (pcm.length * 1000) / rates.output;
          release(a);
          onEvent({ type: 'audio', responseId: a.id, itemId: a.itemId, pcm });
          return;
        }
        case 'agent_response': {
          const text = m.agent_response_event?.agent_response?.trim();
          if (!text) return;
          const a = openAnswer();
          if (!a) return;
          a.pending += a.text || a.pending ? ` ${text}` : text;
          release(a);
          return;
        }
        case 'user_transcript': {
          const text = m.user_transcription_event?.user_transcript;
          if (typeof text !== 'string') return;
          visitorTurn();
          const itemId = `el_user_${++seq}`;
          // ConvAI sends the visitor's turn once, final, when it ends.
          onEvent({ type: 'speech-stopped' });
          onEvent({ type: 'user-item', itemId });
          onEvent({ type: 'user-transcript', itemId, text: text.trim(), final: true });
          return;
        }
        case 'interruption': {
          const id = m.interruption_event?.event_id;
          if (typeof id === 'number') playFrom = Math.max(playFrom, id);
          if (answer?.lastEventId !== null && answer?.lastEventId !== undefined) droppedUpTo = Math.max(droppedUpTo, answer.lastEventId);
          skipFirstMessage = false;
          // The avatar stops (the session's barge-in), the answer ends where the visitor cut in.
          onEvent({ type: 'speech-started' });
          endAnswer('cancelled');
          // ElevenLabs stopped the turn itself: nothing to mute beyond the event ids.
          muted = false;
          return;
        }
        case 'client_tool_call': {
          const call = m.client_tool_call;
          if (!call?.tool_call_id || !call.tool_name) return;
          if (tools.has(call.tool_name)) {
            onEvent({ type: 'tool-call', callId: call.tool_call_id, name: call.tool_name, args: JSON.stringify(call.parameters ?? {}) });
          } else if (call.expects_response !== false) {
            // Not one of ours: the agent is told at once instead of waiting for its timeout.
            send({ type: 'client_tool_result', tool_call_id: call.tool_call_id, result: `The tool ${JSON.stringify(call.tool_name)} is not available in this conversation.`, is_error: true });
          }
          return;
        }
        case 'error':
          onEvent({ type: 'error', error: new ProviderError(ELEVENLABS_CONVAI, scrub(errorDetail(m) || 'error', s.apiKey)) });
          return;
        default:
          // vad_score, agent_response_correction, internal_*, agent_chat_response_part…
          return;
      }
    };
  });
}
