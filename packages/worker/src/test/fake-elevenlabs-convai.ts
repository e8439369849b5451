import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { sleep } from '../../../net/src/test/http-fake.js';

/**
 * A local fake of ElevenLabs Conversational AI on 127.0.0.1: the signed-URL endpoint
 * (`GET /v1/convai/conversation/get-signed-url?agent_id=` with `xi-api-key`: 401 with ElevenLabs'
 * JSON for a wrong key, 404 for an unknown agent) and the conversation socket
 * (`/v1/convai/conversation?agent_id=…`, a private agent only with a signature the endpoint
 * issued: 403 otherwise). The protocol as scripted by ElevenLabs' events: the client's
 * `conversation_initiation_client_data` → `conversation_initiation_metadata` (the knobs' formats),
 * a `ping`, the agent's first message (`agent_response` then `audio` chunks, all of one agent turn
 * under one `event_id`); the visitor's audio through a level VAD (speech above `LOUD`, a turn ends
 * after `silenceMs` of quiet) → `user_transcript` → an answer; speech while the agent's turn is
 * streaming → `interruption {event_id}`, the turn stops, `agent_response_correction`; typed
 * `user_message` → an answer; a `client_tool_call` when the question has `toolWord`, the answer
 * continuing with the `client_tool_result`. Knobs: formats, delays, a disconnect mid-answer.
 */
export const ELEVENLABS_CONVAI_KEY = 'sk_el_convai_test_key_0123';
export const ELEVENLABS_AGENTS = { public: 'agent_public_0001', private: 'agent_private_0001' } as const;
export const LOUD = 2000;

export interface ConvAiConnectionRecord {
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  socket: WebSocket;
  /** Every client message, in order (audio chunks as `{user_audio_chunk: <samples>}`). */
  messages: Record<string, unknown>[];
  /** Samples of the visitor's audio received (at the input rate). */
  inputSamples: number;
  pongs: number[];
  userMessages: string[];
  contextualUpdates: string[];
  toolResults: { tool_call_id: string; result: string; is_error: boolean }[];
  /** Agent turns by event id: what was said of each. */
  turns: { eventId: number; text: string; interrupted: boolean }[];
  closed: boolean;
}

export interface FakeConvAiKnobs {
  /** The agent's first message ('' for none; default "Welcome to the harbour."). */
  firstMessage?: string;
  /** Default pcm_16000 both ways. */
  outputFormat?: string;
  inputFormat?: string;
  /** Transcripts of the visitor's spoken turns, in order (shifted off); or by the turn's number in its conversation (from 0). */
  transcripts?: string[] | ((turn: number) => string);
  /** The agent's words for what was asked (default "I heard …." / "You said …."). */
  answer?: (asked: { kind: 'audio' | 'text'; text: string }) => string;
  /** A question with this word makes the agent call `get_weather` first (default "weather"). */
  toolWord?: string;
  /** A word's audio at the agent's output rate instead of a tone (real speech, for audio-driven lips); not changed by the fake. */
  speech?: (word: string, rate: number) => Int16Array;
  /** Audio per word (ms, default 300), per chunk (ms, default 100); pause between chunks (ms, default 5). */
  msPerWord?: number;
  chunkMs?: number;
  chunkDelayMs?: number;
  /** End of the visitor's turn after this much quiet (ms, default 300). */
  silenceMs?: number;
  /** The next turn's socket is dropped after this many audio chunks. */
  dropAfterChunks?: number;
}

export interface FakeElevenLabsConvAi {
  /** http://127.0.0.1:PORT (the API base; the socket is its ws twin). */
  baseUrl: string;
  connections: ConvAiConnectionRecord[];
  signedUrlRequests: { agentId: string | null; key: string | undefined; status: number }[];
  knobs: FakeConvAiKnobs;
  close(): Promise<void>;
}

const rateOf = (format: string) => Number(/^pcm_(\d+)$/.exec(format)?.[1] ?? 16000);

export async function startFakeElevenLabsConvAi(): Promise<FakeElevenLabsConvAi> {
  const connections: ConvAiConnectionRecord[] = [];
  const signedUrlRequests: FakeElevenLabsConvAi['signedUrlRequests'] = [];
  const self = { connections, signedUrlRequests, knobs: {} } as unknown as FakeElevenLabsConvAi;
  const signatures = new Set<string>();
  const sockets = new Set<Socket>();
  let port = 0;
  const json = (res: http.ServerResponse, status: number, body: object) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const known = (agentId: string | null) => agentId === ELEVENLABS_AGENTS.public || agentId === ELEVENLABS_AGENTS.private;

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname !== '/v1/convai/conversation/get-signed-url' || req.method !== 'GET') return json(res, 404, { detail: 'Not Found' });
    const agentId = url.searchParams.get('agent_id');
    const key = req.headers['xi-api-key'] as string | undefined;
    const answer = (status: number, body: object) => {
      signedUrlRequests.push({ agentId, key, status });
      json(res, status, body);
    };
    if (key !== ELEVENLABS_CONVAI_KEY) return answer(401, { detail: { status: 'invalid_api_key', message: 'Invalid API key' } });
    if (!known(agentId)) return answer(404, { detail: { status: 'agent_not_found', message: `Agent ${agentId} not found` } });
    const signature = `sig_${signatures.size + 1}_${Math.random().toString(36).slice(2, 10)}`;
    signatures.add(signature);
    answer(200, { signed_url: `ws://127.0.0.1:${port}/v1/convai/conversation?agent_id=${agentId}&conversation_signature=${signature}` });
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
    if (url.pathname !== '/v1/convai/conversation') return deny(404, { detail: 'Not Found' });
    const agentId = url.searchParams.get('agent_id');
    if (!known(agentId)) return deny(404, { detail: { status: 'agent_not_found', message: 'Agent not found' } });
    const signature = url.searchParams.get('conversation_signature');
    if (agentId === ELEVENLABS_AGENTS.private && !(signature && signatures.delete(signature))) {
      return deny(403, { detail: { status: 'authorization_failed', message: 'This agent requires authentication' } });
    }
    wss.handleUpgrade(req, socket, head, (ws) => serve(ws, url, req.headers));
  });

  function serve(ws: WebSocket, url: URL, headers: http.IncomingHttpHeaders) {
    const conn: ConvAiConnectionRecord = { query: url.searchParams, headers, socket: ws, messages: [], inputSamples: 0, pongs: [], userMessages: [], contextualUpdates: [], toolResults: [], turns: [], closed: false };
    connections.push(conn);
    const send = (ev: Record<string, unknown>) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(ev));
    };
    let eventId = 0;
    let outRate = 16_000;
    let inRate = 16_000;
    let started = false;
    /** The agent's turn being streamed; turns queue behind it (an interruption drops the queue). */
    let active: { eventId: number; cancelled: boolean; said: string } | null = null;
    let queue: Promise<unknown> = Promise.resolve();
    let generation = 0;
    const enqueue = (turn: () => Promise<unknown>) => {
      const g = generation;
      queue = queue.then(() => (g === generation && ws.readyState === ws.OPEN ? turn() : undefined));
    };
    const toolCalls = new Map<string, (result: { result: string; is_error: boolean }) => void>();
    // Level VAD.
    let speaking = false;
    let silenceMs = 0;
    let spokenTurns = 0;

    const tone = (ms: number) => Int16Array.from({ length: Math.round((ms * outRate) / 1000) }, (_, i) => Math.round(6000 * Math.sin(i / 5)));

    /** One agent turn: its text at once, then its audio in chunks (ElevenLabs' order). */
    async function speak(text: string): Promise<boolean> {
      const knobs = self.knobs;
      const me = { eventId: ++eventId, cancelled: false, said: '' };
      active = me;
      const record = { eventId: me.eventId, text: '', interrupted: false };
      conn.turns.push(record);
      send({ type: 'agent_response', agent_response_event: { agent_response: text } });
      const words = text.split(/\s+/).filter(Boolean);
      const per = Math.round(((knobs.chunkMs ?? 100) * outRate) / 1000);
      const dropAfter = knobs.dropAfterChunks;
      knobs.dropAfterChunks = undefined;
      let chunks = 0;
      for (const [i, word] of words.entries()) {
        me.said += i === 0 ? word : ` ${word}`;
        const audio = knobs.speech?.(word, outRate) ?? tone(knobs.msPerWord ?? 300);
        for (let at = 0; at < audio.length; at += per) {
          if (me.cancelled || ws.readyState !== ws.OPEN) break;
          const part = audio.subarray(at, at + per);
          send({ type: 'audio', audio_event: { audio_base_64: Buffer.from(part.buffer, part.byteOffset, part.byteLength).toString('base64'), event_id: me.eventId } });
          if (dropAfter !== undefined && ++chunks >= dropAfter) {
            ws.terminate();
            return false;
          }
          await sleep(knobs.chunkDelayMs ?? 5);
        }
        if (me.cancelled || ws.readyState !== ws.OPEN) break;
      }
      record.text = me.said;
      record.interrupted = me.cancelled;
      if (active === me) active = null;
      return !me.cancelled;
    }

    async function respond(asked: { kind: 'audio' | 'text'; text: string }) {
      const knobs = self.knobs;
      const toolWord = knobs.toolWord ?? 'weather';
      if (asked.text.toLowerCase().includes(toolWord)) {
        if (!(await speak('Let me check.'))) return;
        const id = `toolu_${eventId}`;
        const result = await new Promise<{ result: string; is_error: boolean }>((resolve) => {
          toolCalls.set(id, resolve);
          send({ type: 'client_tool_call', client_tool_call: { tool_name: 'get_weather', tool_call_id: id, parameters: { city: 'Lisbon' }, expects_response: true } });
        });
        await speak(result.is_error ? 'Sorry, I could not check that.' : `The tool said ${result.result}.`);
        return;
      }
      await speak(knobs.answer?.(asked) ?? (asked.kind === 'text' ? `You said ${asked.text}.` : `I heard ${asked.text}.`));
    }

    function onAudio(samples: Int16Array) {
      conn.inputSamples += samples.length;
      const ms = (samples.length * 1000) / inRate;
      const loud = samples.some((x) => Math.abs(x) > LOUD);
      if (loud) {
        silenceMs = 0;
        send({ type: 'vad_score', vad_score_event: { vad_score: 0.95 } });
        if (!speaking) {
          speaking = true;
          const turn = active;
          if (turn) {
            // The visitor cut in: the agent's turn stops where it is.
            turn.cancelled = true;
            generation++;
            send({ type: 'interruption', interruption_event: { event_id: turn.eventId } });
            const original = conn.turns.find((t) => t.eventId === turn.eventId);
            setTimeout(() => send({ type: 'agent_response_correction', agent_response_correction_event: { original_agent_response: original?.text || turn.said, corrected_agent_response: turn.said } }), 5);
          }
        }
        return;
      }
      if (!speaking) return;
      silenceMs += ms;
      if (silenceMs < (self.knobs.silenceMs ?? 300)) return;
      speaking = false;
      const transcripts = self.knobs.transcripts;
      const transcript = (typeof transcripts === 'function' ? transcripts(spokenTurns++) : transcripts?.shift()) ?? '';
      send({ type: 'user_transcript', user_transcription_event: { user_transcript: transcript } });
      if (transcript) enqueue(() => respond({ kind: 'audio', text: transcript }));
    }

    ws.on('message', (data) => {
      let m: Record<string, unknown>;
      try {
        m = JSON.parse(data.toString()) as Record<string, unknown>;
      } catch {
        return ws.close(1008, 'Invalid message received');
      }
      if (typeof m.user_audio_chunk === 'string') {
        const bytes = Buffer.from(m.user_audio_chunk, 'base64');
        const samples = new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + (bytes.byteLength & ~1)));
        conn.messages.push({ user_audio_chunk: samples.length });
        if (started) onAudio(samples);
        return;
      }
      conn.messages.push(m);
      switch (m.type) {
        case 'conversation_initiation_client_data': {
          if (started) return;
          started = true;
          const knobs = self.knobs;
          const output = knobs.outputFormat ?? 'pcm_16000';
          const input = knobs.inputFormat ?? 'pcm_16000';
          outRate = rateOf(output);
          inRate = rateOf(input);
          send({ type: 'conversation_initiation_metadata', conversation_initiation_metadata_event: { conversation_id: `conv_${connections.length}`, agent_output_audio_format: output, user_input_audio_format: input } });
          send({ type: 'ping', ping_event: { event_id: 1, ping_ms: null } });
          // The first message follows at once (often in the same read as the metadata).
          const first = knobs.firstMessage ?? 'Welcome to the harbour.';
          if (first) enqueue(() => speak(first));
          break;
        }
        case 'pong':
          conn.pongs.push(Number(m.event_id));
          break;
        case 'user_message':
          conn.userMessages.push(String(m.text));
          enqueue(() => respond({ kind: 'text', text: String(m.text) }));
          break;
        case 'contextual_update':
          conn.contextualUpdates.push(String(m.text));
          break;
        case 'client_tool_result': {
          const r = m as unknown as ConvAiConnectionRecord['toolResults'][number];
          conn.toolResults.push({ tool_call_id: r.tool_call_id, result: r.result, is_error: r.is_error });
          toolCalls.get(r.tool_call_id)?.({ result: r.result, is_error: r.is_error });
          toolCalls.delete(r.tool_call_id);
          break;
        }
        default:
          // ElevenLabs closes the conversation on what it cannot read.
          ws.close(1008, `Invalid message type ${String(m.type)}`);
      }
    });
    ws.on('close', () => {
      conn.closed = true;
      if (active) active.cancelled = true;
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  self.baseUrl = `http://127.0.0.1:${port}`;
  self.close = () =>
    new Promise<void>((resolve) => {
      for (const c of connections) c.socket.terminate();
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return self;
}
