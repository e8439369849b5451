import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { sleep } from '../../../net/src/test/http-fake.js';

/**
 * A local fake of Gemini Live (`BidiGenerateContent`) on 127.0.0.1: the real path, the key as
 * `?key=` (a wrong one: the socket opens, then closes with 1007 and Google's message, as the real
 * service does), `setup` first → `setupComplete`, the real message shapes (JSON in binary frames
 * like Google's), 16 kHz PCM16 in, 24 kHz PCM16 out as `inlineData`. It answers `clientContent`
 * turns (typed text, the greeting's instruction) and, with a VAD on the audio's level (speech above
 * `LOUD`, silenceDurationMs from setup), spoken turns: inputTranscription → an answer with
 * outputTranscription → generationComplete → turnComplete. Speech or text during an answer
 * interrupts it (`interrupted`, then turnComplete); calls still waiting for their toolResponse are
 * withdrawn first with `toolCallCancellation` (Google sends it when the client interrupts a turn).
 * Knobs: a tool call, a disconnect mid-answer, goAway.
 */
export const GEMINI_LIVE_KEY = 'AIzaFakeGeminiLiveKey0123456789';
export const GEMINI_PATH = '/ws/google.ai.generativelanguage.v1beta.GenerativeService.BidiGenerateContent';
export const LOUD = 2000;

type Msg = Record<string, unknown>;
interface Turn {
  role: string;
  parts: { text?: string }[];
}

export interface GeminiConnectionRecord {
  query: URLSearchParams;
  socket: WebSocket;
  /** Every client message, in order. */
  messages: Msg[];
  setup: Msg | null;
  /** Samples (16 kHz) of realtimeInput.audio, and the mime types seen. */
  inputSamples: number;
  mimeTypes: Set<string>;
  /** The conversation as the fake holds it (clientContent turns, heard speech, its answers). */
  turns: { role: string; text: string }[];
  toolResponses: { id: string; name: string; response: unknown }[];
  closed: boolean;
}

export interface FakeGeminiKnobs {
  /** The answer's words (undefined: the default); after tool calls `kind` is 'tool' and `text` the responses as JSON. */
  answer?: (asked: { kind: 'text' | 'audio' | 'greeting' | 'tool'; text: string }) => string | undefined;
  /** Transcripts of the visitor's spoken turns, in order. */
  transcripts?: string[];
  msPerWord?: number;
  chunkMs?: number;
  deltaDelayMs?: number;
  /** The next answer's socket is dropped after this many audio chunks. */
  dropAfterChunks?: number;
  /** The next answer first calls this function and speaks "The tool said <output>". */
  toolCall?: { name: string; args: Record<string, unknown> };
  /** Cancel the tool call right after sending it (as after a barge-in). */
  cancelToolCall?: boolean;
  /** Send goAway after the next answer's first chunk, and close this long after it. */
  goAwayAfterMs?: number;
}

export interface FakeGeminiLive {
  /** ws://127.0.0.1:PORT/ws (the catalogue's form: the method's path is added by the client). */
  url: string;
  connections: GeminiConnectionRecord[];
  knobs: FakeGeminiKnobs;
  close(): Promise<void>;
}

const RATE_OUT = 24_000;
const RATE_IN = 16_000;
const tone = (ms: number) => Int16Array.from({ length: Math.round((ms * RATE_OUT) / 1000) }, (_, i) => Math.round(6000 * Math.sin(i / 5)));
const textOf = (t: Turn) => (t.parts ?? []).map((p) => p.text ?? '').join('');

export async function startFakeGeminiLive(): Promise<FakeGeminiLive> {
  const connections: GeminiConnectionRecord[] = [];
  const self = { connections, knobs: {} } as unknown as FakeGeminiLive;
  const sockets = new Set<Socket>();
  const server = http.createServer((_req, res) => res.writeHead(404).end());
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    if (url.pathname !== GEMINI_PATH) {
      const body = JSON.stringify({ error: { code: 404, message: 'Not Found', status: 'NOT_FOUND' } });
      return socket.end(`HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\nconnection: close\r\n\r\n${body}`);
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      if (url.searchParams.get('key') !== GEMINI_LIVE_KEY) return ws.close(1007, 'API key not valid. Please pass a valid API key.');
      serve(ws, url);
    });
  });

  function serve(ws: WebSocket, url: URL) {
    const conn: GeminiConnectionRecord = { query: url.searchParams, socket: ws, messages: [], setup: null, inputSamples: 0, mimeTypes: new Set(), turns: [], toolResponses: [], closed: false };
    connections.push(conn);
    const send = (m: Msg) => {
      if (ws.readyState === ws.OPEN) ws.send(Buffer.from(JSON.stringify(m)), { binary: true });
    };
    let active: { cancelled: boolean } | null = null;
    let calls = 0;
    const toolWaits = new Map<string, (response: unknown) => void>();
    let speaking = false;
    let silenceMs = 0;

    const vad = () => ((conn.setup?.realtimeInputConfig as Msg | undefined)?.automaticActivityDetection ?? {}) as { silenceDurationMs?: number };
    const interrupt = () => {
      if (!active) return;
      active.cancelled = true;
      active = null;
      if (toolWaits.size > 0) {
        send({ toolCallCancellation: { ids: [...toolWaits.keys()] } });
        toolWaits.clear();
      }
      send({ serverContent: { interrupted: true } });
      send({ serverContent: { turnComplete: true } });
    };

    async function respond(asked: { kind: 'text' | 'audio' | 'greeting'; text: string }) {
      const knobs = self.knobs;
      const me = { cancelled: false };
      active = me;
      let words = (knobs.answer?.(asked) ?? (asked.kind === 'greeting' ? asked.text : asked.kind === 'text' ? `You said ${asked.text}.` : `I heard ${asked.text}.`)).split(/\s+/).filter(Boolean);
      if (knobs.toolCall) {
        const call = knobs.toolCall;
        knobs.toolCall = undefined;
        const id = `function-call-${++calls}`;
        const answered = new Promise<unknown>((resolve) => toolWaits.set(id, resolve));
        send({ toolCall: { functionCalls: [{ id, name: call.name, args: call.args }] } });
        if (knobs.cancelToolCall) {
          knobs.cancelToolCall = undefined;
          toolWaits.delete(id);
          send({ toolCallCancellation: { ids: [id] } });
          active = null;
          return send({ serverContent: { turnComplete: true } });
        }
        const response = (await answered) as { output?: unknown };
        if (me.cancelled) return;
        const said = knobs.answer?.({ kind: 'tool', text: JSON.stringify(response) });
        words = (said ?? `The tool said ${JSON.stringify(response.output ?? response)}`).split(/\s+/).filter(Boolean);
      }
      const dropAfter = knobs.dropAfterChunks;
      knobs.dropAfterChunks = undefined;
      const goAway = knobs.goAwayAfterMs;
      knobs.goAwayAfterMs = undefined;
      const per = Math.round(((knobs.chunkMs ?? 100) * RATE_OUT) / 1000);
      let chunks = 0;
      let said = '';
      for (const [i, word] of words.entries()) {
        const delta = i === 0 ? word : ` ${word}`;
        said += delta;
        send({ serverContent: { outputTranscription: { text: delta } } });
        const audio = tone(knobs.msPerWord ?? 300);
        for (let at = 0; at < audio.length; at += per) {
          if (me.cancelled || ws.readyState !== ws.OPEN) break;
          const part = audio.subarray(at, at + per);
          send({ serverContent: { modelTurn: { parts: [{ inlineData: { mimeType: `audio/pcm;rate=${RATE_OUT}`, data: Buffer.from(part.buffer, part.byteOffset, part.byteLength).toString('base64') } }] } } });
          chunks++;
          if (goAway !== undefined && chunks === 1) {
            send({ goAway: { timeLeft: `${goAway / 1000}s` } });
            setTimeout(() => ws.close(1000), goAway);
          }
          if (dropAfter !== undefined && chunks >= dropAfter) return ws.terminate();
          await sleep(knobs.deltaDelayMs ?? 5);
        }
        if (me.cancelled || ws.readyState !== ws.OPEN) break;
      }
      conn.turns.push({ role: 'model', text: said });
      if (me.cancelled) return;
      active = null;
      send({ serverContent: { generationComplete: true } });
      send({ serverContent: { turnComplete: true } });
    }

    function onAudio(samples: Int16Array) {
      conn.inputSamples += samples.length;
      const ms = (samples.length * 1000) / RATE_IN;
      if (samples.some((x) => Math.abs(x) > LOUD)) {
        silenceMs = 0;
        if (!speaking) {
          speaking = true;
          interrupt();
        }
        return;
      }
      if (!speaking) return;
      silenceMs += ms;
      if (silenceMs < (vad().silenceDurationMs ?? 500)) return;
      speaking = false;
      const transcript = self.knobs.transcripts?.shift() ?? '';
      conn.turns.push({ role: 'user', text: transcript });
      // The transcript streams in pieces; the last one arrives after the answer has begun.
      const cut = transcript.indexOf(' ', Math.floor(transcript.length / 2));
      const [first, rest] = cut < 0 ? [transcript, ''] : [transcript.slice(0, cut), transcript.slice(cut)];
      if (first) send({ serverContent: { inputTranscription: { text: first } } });
      void respond({ kind: 'audio', text: transcript });
      if (rest) setTimeout(() => send({ serverContent: { inputTranscription: { text: rest } } }), 20);
    }

    ws.on('message', (data) => {
      let m: Msg;
      try {
        m = JSON.parse(data.toString()) as Msg;
      } catch {
        return ws.close(1007, 'Invalid JSON payload received.');
      }
      conn.messages.push(m);
      if (!conn.setup) {
        const setup = m.setup as Msg | undefined;
        if (!setup) return ws.close(1007, 'Request contains an invalid argument.');
        if (typeof setup.model !== 'string' || !setup.model.startsWith('models/')) return ws.close(1008, `${String(setup.model)} is not found for API version v1beta, or is not supported for bidiGenerateContent.`);
        conn.setup = setup;
        return send({ setupComplete: {} });
      }
      if (m.realtimeInput) {
        const audio = (m.realtimeInput as { audio?: { mimeType: string; data: string } }).audio;
        if (!audio) return;
        conn.mimeTypes.add(audio.mimeType);
        const bytes = Buffer.from(audio.data, 'base64');
        onAudio(new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + (bytes.byteLength & ~1))));
      } else if (m.clientContent) {
        const c = m.clientContent as { turns?: Turn[]; turnComplete?: boolean };
        for (const t of c.turns ?? []) conn.turns.push({ role: t.role, text: textOf(t) });
        if (!c.turnComplete) return;
        interrupt();
        const last = conn.turns.at(-1)?.text ?? '';
        const quoted = /word for word, and nothing else: (".*")$/s.exec(last)?.[1];
        void respond(quoted ? { kind: 'greeting', text: JSON.parse(quoted) as string } : { kind: 'text', text: last });
      } else if (m.toolResponse) {
        for (const r of (m.toolResponse as { functionResponses: GeminiConnectionRecord['toolResponses'] }).functionResponses) {
          conn.toolResponses.push(r);
          toolWaits.get(r.id)?.(r.response);
          toolWaits.delete(r.id);
        }
      }
    });
    ws.on('close', () => {
      conn.closed = true;
      if (active) active.cancelled = true;
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  self.url = `ws://127.0.0.1:${port}/ws`;
  self.close = () =>
    new Promise<void>((resolve) => {
      for (const c of connections) c.socket.terminate();
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return self;
}
