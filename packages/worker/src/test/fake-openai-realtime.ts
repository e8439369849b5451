import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { sleep } from '../../../net/src/test/http-fake.js';

/**
 * A local fake of OpenAI Realtime (GA protocol) on 127.0.0.1: the real path (`/v1/realtime?model=`),
 * `Authorization: Bearer` checked at the handshake (401 with OpenAI's JSON error otherwise), the
 * real event names and shapes, 24 kHz PCM16 both ways. It answers `response.create` (typed text,
 * the greeting's instruction) and, with its own server VAD on the appended audio's level
 * (speech above `LOUD`, silence_duration_ms from session.update), spoken turns: speech_started →
 * speech_stopped → committed → transcription → an answer. Speech during an answer cancels it
 * (`interrupt_response`). Knobs: failing answers, a disconnect mid-answer, the beta event names,
 * function calls: a scripted answer calls tools (`function_call` items, `response.done` with them as
 * output); the client's `function_call_output` items join the conversation and its next
 * `response.create` is answered from them (kind `tool`).
 */
export const OPENAI_REALTIME_KEY = 'sk-realtime-test';
export const LOUD = 2000;

export interface RealtimeConnectionRecord {
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  socket: WebSocket;
  /** Every client event, in order. */
  events: { type: string; [k: string]: unknown }[];
  /** Samples (24 kHz) appended to the input buffer. */
  inputSamples: number;
  /** The last session.update's session. */
  session: Record<string, unknown> | null;
  truncations: { item_id: string; content_index: number; audio_end_ms: number }[];
  /** Items of the conversation (user text, system instructions, assistant answers, function calls and outputs: role `function_call` / `tool`, text the arguments / output). */
  items: { id: string; role: string; text: string; callId?: string; name?: string }[];
  closed: boolean;
}

export interface FakeAsked {
  /** `tool`: the answer after function outputs (`text`: the outputs, in order, joined by " | "). */
  kind: 'text' | 'audio' | 'greeting' | 'tool';
  text: string;
}

export interface FakeRealtimeKnobs {
  /** The answer's words for what was asked (default: "You said …" / "I heard …" / the greeting / "The result is …"). */
  answer?: (asked: FakeAsked) => string | undefined;
  /**
   * Function calls the answer makes (after its words, if `answer` gives any for it; by default a
   * calling answer says nothing) — any name, offered or not, as a model may.
   */
  toolCalls?: (asked: FakeAsked) => { name: string; arguments: string }[] | undefined;
  /** Transcripts of the visitor's spoken turns, in order. */
  transcripts?: string[];
  /** The next spoken turn's transcription deltas (default: the first half of its transcript), as a recogniser that changes its mind sends them. */
  transcriptDeltas?: string[];
  /** Audio per word (ms, default 300) and per delta (ms, default 100); pause between deltas (ms, default 5). */
  msPerWord?: number;
  /** Each word's voice (24 kHz PCM16; default a tone of msPerWord): real speech for lip-sync measurements. */
  speech?: (word: string) => Int16Array;
  /** Silence at the end of each word's audio (ms, default 0: one unbroken tone), so the voice has onsets and offsets. */
  wordGapMs?: number;
  chunkMs?: number;
  deltaDelayMs?: number;
  /** The next answer fails (response.done status failed) with this error. */
  failNextAnswer?: { code: string; message: string };
  /** The next answer's socket is dropped after this many audio deltas. */
  dropAfterDeltas?: number;
  /** Send the beta names (response.audio.delta, response.audio_transcript.delta). */
  betaNames?: boolean;
}

export interface FakeOpenAiRealtime {
  /** ws://127.0.0.1:PORT/v1/realtime */
  url: string;
  connections: RealtimeConnectionRecord[];
  knobs: FakeRealtimeKnobs;
  close(): Promise<void>;
}

const RATE = 24_000;

/** A 24 kHz tone of `ms` (what the fake "says"). */
const tone = (ms: number) => Int16Array.from({ length: Math.round((ms * RATE) / 1000) }, (_, i) => Math.round(6000 * Math.sin(i / 5)));

export async function startFakeOpenAiRealtime(): Promise<FakeOpenAiRealtime> {
  const connections: RealtimeConnectionRecord[] = [];
  const self = { connections, knobs: {} } as unknown as FakeOpenAiRealtime;
  const sockets = new Set<Socket>();
  const server = http.createServer((_req, res) => {
    res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'Not found', type: 'invalid_request_error' } }));
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const deny = (status: number, body: object) => {
      const text = JSON.stringify(body);
      socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
    };
    if (url.pathname !== '/v1/realtime') return deny(404, { error: { message: 'Not found', type: 'invalid_request_error' } });
    if (req.headers.authorization !== `Bearer ${OPENAI_REALTIME_KEY}`) {
      return deny(401, { error: { message: 'Incorrect API key provided: sk-wro**key. You can find your API key at https://platform.openai.com/account/api-keys.', type: 'invalid_request_error', code: 'invalid_api_key' } });
    }
    if (!url.searchParams.get('model')) return deny(400, { error: { message: 'Missing required parameter: model', type: 'invalid_request_error' } });
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, url, req.headers));
  });

  function serve(ws: WebSocket, url: URL, headers: http.IncomingHttpHeaders) {
    const conn: RealtimeConnectionRecord = { query: url.searchParams, headers, socket: ws, events: [], inputSamples: 0, session: null, truncations: [], items: [], closed: false };
    connections.push(conn);
    let ids = 0;
    const id = (prefix: string) => `${prefix}_${String(++ids).padStart(4, '0')}`;
    let seq = 0;
    const send = (ev: Record<string, unknown>) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify({ event_id: `event_${++seq}`, ...ev }));
    };
    /** The answer being streamed (what it has said so far), and the audio (ms) of each assistant item. */
    let active: { id: string; itemId: string; said: string; cancelled: boolean } | null = null;
    const audioMsOf = new Map<string, number>();
    // Server VAD on levels.
    let speaking = false;
    let silenceMs = 0;
    let bufferMs = 0;
    let userItem: string | null = null;

    const turnDetection = () => ((conn.session?.audio as { input?: { turn_detection?: Record<string, unknown> } } | undefined)?.input?.turn_detection ?? null) as { silence_duration_ms?: number; interrupt_response?: boolean; create_response?: boolean } | null;

    send({ type: 'session.created', session: { type: 'realtime', id: 'sess_fake', model: url.searchParams.get('model'), output_modalities: ['audio'] } });

    async function respond(asked: FakeAsked) {
      const knobs = self.knobs;
      if (active) return send({ type: 'error', error: { type: 'invalid_request_error', code: 'conversation_already_has_active_response', message: 'Conversation already has an active response' } });
      const responseId = id('resp');
      const itemId = id('item');
      const me = { id: responseId, itemId, said: '', cancelled: false };
      active = me;
      send({ type: 'response.created', response: { object: 'realtime.response', id: responseId, status: 'in_progress', output: [] } });
      if (knobs.failNextAnswer) {
        const error = knobs.failNextAnswer;
        knobs.failNextAnswer = undefined;
        active = null;
        return send({ type: 'response.done', response: { object: 'realtime.response', id: responseId, status: 'failed', status_details: { type: 'failed', error: { type: 'server_error', ...error } }, output: [] } });
      }
      const calls = knobs.toolCalls?.(asked) ?? [];
      const defaultAnswer = calls.length ? '' : asked.kind === 'greeting' ? asked.text : asked.kind === 'text' ? `You said ${asked.text}.` : asked.kind === 'tool' ? `The result is ${asked.text}.` : `I heard ${asked.text}.`;
      const words = (knobs.answer?.(asked) ?? defaultAnswer).split(/\s+/).filter(Boolean);
      // A response that only calls tools has no message item.
      const message = words.length > 0 || calls.length === 0;
      if (message) {
        send({ type: 'response.output_item.added', response_id: responseId, output_index: 0, item: { id: itemId, object: 'realtime.item', type: 'message', role: 'assistant', status: 'in_progress', content: [] } });
        send({ type: 'response.content_part.added', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, part: { type: 'audio', transcript: '' } });
      }
      const names = knobs.betaNames ? { audio: 'response.audio.delta', transcript: 'response.audio_transcript.delta' } : { audio: 'response.output_audio.delta', transcript: 'response.output_audio_transcript.delta' };
      const chunkMs = knobs.chunkMs ?? 100;
      let deltas = 0;
      audioMsOf.set(itemId, 0);
      const dropAfter = knobs.dropAfterDeltas;
      knobs.dropAfterDeltas = undefined;
      for (const [i, word] of words.entries()) {
        if (me.cancelled || ws.readyState !== ws.OPEN) break;
        const delta = i === 0 ? word : ` ${word}`;
        me.said += delta;
        send({ type: names.transcript, response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, delta });
        const audio = knobs.speech?.(word) ?? tone(knobs.msPerWord ?? 300);
        if (knobs.wordGapMs) audio.fill(0, Math.max(0, audio.length - Math.round((knobs.wordGapMs * RATE) / 1000)));
        const per = Math.round((chunkMs * RATE) / 1000);
        for (let at = 0; at < audio.length; at += per) {
          if (me.cancelled || ws.readyState !== ws.OPEN) break;
          const part = audio.subarray(at, at + per);
          send({ type: names.audio, response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, delta: Buffer.from(part.buffer, part.byteOffset, part.byteLength).toString('base64') });
          audioMsOf.set(itemId, (audioMsOf.get(itemId) ?? 0) + (part.length * 1000) / RATE);
          deltas++;
          if (dropAfter !== undefined && deltas >= dropAfter) {
            ws.terminate();
            return;
          }
          await sleep(knobs.deltaDelayMs ?? 5);
        }
      }
      // A cancelled answer was ended by cancelActive (its response.done sent then).
      if (me.cancelled) return;
      if (me.said) conn.items.push({ id: itemId, role: 'assistant', text: me.said });
      const output: Record<string, unknown>[] = [];
      if (message) {
        send({ type: 'response.output_audio.done', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0 });
        send({ type: 'response.output_audio_transcript.done', response_id: responseId, item_id: itemId, output_index: 0, content_index: 0, transcript: me.said });
        send({ type: 'response.output_item.done', response_id: responseId, output_index: 0, item: { id: itemId, type: 'message', role: 'assistant', status: 'completed' } });
        output.push({ id: itemId, type: 'message', role: 'assistant' });
      }
      // The calls, as the GA protocol streams them: the item, its arguments, the item done.
      for (const call of calls) {
        if (me.cancelled || ws.readyState !== ws.OPEN) return;
        const item = { id: id('item'), object: 'realtime.item', type: 'function_call', status: 'in_progress', call_id: id('call'), name: call.name, arguments: '' };
        const at = { response_id: responseId, output_index: output.length };
        send({ type: 'response.output_item.added', ...at, item });
        send({ type: 'response.function_call_arguments.delta', ...at, item_id: item.id, call_id: item.call_id, delta: call.arguments });
        send({ type: 'response.function_call_arguments.done', ...at, item_id: item.id, call_id: item.call_id, name: call.name, arguments: call.arguments });
        const done = { ...item, status: 'completed', arguments: call.arguments };
        send({ type: 'response.output_item.done', ...at, item: done });
        conn.items.push({ id: item.id, role: 'function_call', text: call.arguments, callId: item.call_id, name: call.name });
        output.push(done);
        await sleep(knobs.deltaDelayMs ?? 5);
      }
      if (me.cancelled) return;
      active = null;
      send({ type: 'response.done', response: { object: 'realtime.response', id: responseId, status: 'completed', output } });
    }

    /**
     * Ends the active answer now, as OpenAI's server does: its response.done (cancelled) goes out
     * before anything else, and a turn that ends right after (the visitor's speech arriving faster
     * than real time) gets an answer of its own. The streaming loop stops at its next step.
     */
    const cancelActive = () => {
      const me = active;
      if (!me) return;
      me.cancelled = true;
      active = null;
      if (me.said) conn.items.push({ id: me.itemId, role: 'assistant', text: me.said });
      send({ type: 'response.done', response: { object: 'realtime.response', id: me.id, status: 'cancelled', status_details: { type: 'cancelled', reason: 'turn_detected' }, output: [] } });
    };

    function onAudio(samples: Int16Array) {
      conn.inputSamples += samples.length;
      const ms = (samples.length * 1000) / RATE;
      bufferMs += ms;
      const loud = samples.some((x) => Math.abs(x) > LOUD);
      const td = turnDetection();
      if (!td) return;
      if (loud) {
        silenceMs = 0;
        if (!speaking) {
          speaking = true;
          userItem = id('item');
          send({ type: 'input_audio_buffer.speech_started', audio_start_ms: Math.round(bufferMs), item_id: userItem });
          if (td.interrupt_response !== false) cancelActive();
        }
        return;
      }
      if (!speaking) return;
      silenceMs += ms;
      if (silenceMs < (td.silence_duration_ms ?? 500)) return;
      speaking = false;
      const item = userItem!;
      send({ type: 'input_audio_buffer.speech_stopped', audio_end_ms: Math.round(bufferMs), item_id: item });
      send({ type: 'input_audio_buffer.committed', previous_item_id: null, item_id: item });
      send({ type: 'conversation.item.added', item: { id: item, type: 'message', role: 'user', content: [{ type: 'input_audio', transcript: null }] } });
      const transcript = self.knobs.transcripts?.shift() ?? '';
      conn.items.push({ id: item, role: 'user', text: transcript });
      if (td.create_response !== false) void respond({ kind: 'audio', text: transcript });
      // Whisper is slower than the model: the transcript arrives after the answer has started.
      const deltas = self.knobs.transcriptDeltas ?? [transcript.slice(0, Math.ceil(transcript.length / 2))];
      self.knobs.transcriptDeltas = undefined;
      setTimeout(() => {
        for (const delta of deltas) if (delta) send({ type: 'conversation.item.input_audio_transcription.delta', item_id: item, content_index: 0, delta });
        send({ type: 'conversation.item.input_audio_transcription.completed', item_id: item, content_index: 0, transcript });
      }, 30);
    }

    ws.on('message', (data) => {
      let ev: { type: string; [k: string]: unknown };
      try {
        ev = JSON.parse(data.toString()) as typeof ev;
      } catch {
        return send({ type: 'error', error: { type: 'invalid_request_error', code: 'invalid_json', message: 'The event was not valid JSON.' } });
      }
      conn.events.push(ev);
      switch (ev.type) {
        case 'session.update':
          conn.session = ev.session as Record<string, unknown>;
          send({ type: 'session.updated', session: ev.session });
          break;
        case 'input_audio_buffer.append': {
          const bytes = Buffer.from(String(ev.audio), 'base64');
          const samples = new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + (bytes.byteLength & ~1)));
          onAudio(samples);
          break;
        }
        case 'conversation.item.create': {
          const item = ev.item as { type?: string; role: string; content: { text: string }[]; call_id?: string; output?: string };
          const itemId = id('item');
          if (item.type === 'function_call_output') {
            if (!conn.items.some((i) => i.role === 'function_call' && i.callId === item.call_id)) {
              return send({ type: 'error', error: { type: 'invalid_request_error', code: 'invalid_value', message: `No function call with call_id ${item.call_id}` } });
            }
            conn.items.push({ id: itemId, role: 'tool', text: String(item.output ?? ''), callId: item.call_id });
          } else conn.items.push({ id: itemId, role: item.role, text: item.content?.[0]?.text ?? '' });
          send({ type: 'conversation.item.added', previous_item_id: null, item: { id: itemId, ...item } });
          send({ type: 'conversation.item.done', previous_item_id: null, item: { id: itemId, ...item } });
          break;
        }
        case 'response.create': {
          const last = conn.items.at(-1);
          if (last?.role === 'tool') {
            // The outputs after the last message: what the answer is made from.
            const from = conn.items.findLastIndex((i) => i.role !== 'tool' && i.role !== 'function_call');
            void respond({ kind: 'tool', text: conn.items.slice(from + 1).filter((i) => i.role === 'tool').map((i) => i.text).join(' | ') });
          } else if (last?.role === 'system') {
            const quoted = /: (".*")$/s.exec(last.text)?.[1];
            void respond({ kind: 'greeting', text: quoted ? (JSON.parse(quoted) as string) : last.text });
          } else void respond({ kind: 'text', text: last?.text ?? '' });
          break;
        }
        case 'response.cancel': {
          // With response_id only that answer is cancelled; without, whatever is active.
          const target = typeof ev.response_id === 'string' ? ev.response_id : active?.id;
          if (!active || active.id !== target) {
            send({ type: 'error', error: { type: 'invalid_request_error', code: 'response_cancel_not_active', message: 'Cancellation failed: no active response found' } });
          } else cancelActive();
          break;
        }
        case 'conversation.item.truncate': {
          const t = ev as unknown as RealtimeConnectionRecord['truncations'][number];
          const audioMs = audioMsOf.get(t.item_id);
          if (audioMs === undefined) return send({ type: 'error', error: { type: 'invalid_request_error', code: 'item_not_found', message: `Item ${t.item_id} not found` } });
          if (t.audio_end_ms > audioMs) return send({ type: 'error', error: { type: 'invalid_request_error', code: 'invalid_value', message: 'audio_end_ms is longer than the audio' } });
          conn.truncations.push(t);
          send({ type: 'conversation.item.truncated', item_id: t.item_id, content_index: t.content_index, audio_end_ms: t.audio_end_ms });
          break;
        }
        default:
          send({ type: 'error', error: { type: 'invalid_request_error', code: 'unknown_event', message: `Unknown event type ${ev.type}` } });
      }
    });
    ws.on('close', () => {
      conn.closed = true;
      cancelActive();
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  self.url = `ws://127.0.0.1:${port}/v1/realtime`;
  self.close = () =>
    new Promise<void>((resolve) => {
      for (const c of connections) c.socket.terminate();
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return self;
}
