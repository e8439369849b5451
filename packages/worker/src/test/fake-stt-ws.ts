import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { AZURE_STT_KEY, DEEPGRAM_KEY } from './fake-stt.js';
import { sendJson, type FakeServer } from '../../../net/src/test/http-fake.js';

// ─── Deepgram's streaming WebSocket ───────────────────────────────────────────────────────

export interface DeepgramConnection {
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  socket: WebSocket;
  /** Audio bytes received. */
  audioBytes: number;
  /** JSON control messages received (KeepAlive, Finalize, CloseStream). */
  controls: string[];
  /** Every message received, in order, with its arrival time (Date.now()): 'audio' or the control's type. */
  timeline: { what: string; at: number }[];
  closed: boolean;
}

/** How a streaming fake misbehaves (read when a connection opens). */
export interface WsFakeKnobs {
  handshakeStatus?: number;
  /** The upgrade request is never answered. */
  stallHandshake?: boolean;
  /** The upgrade is answered with a 200 HTML page instead of 101. */
  handshakeHtml?: boolean;
  /** Opens, then sends nothing at all (no results, flushes unanswered). */
  silent?: boolean;
  /** Opens, then answers with unreadable messages (binary noise, broken text). */
  garbage?: boolean;
  /** Destroys the TCP connection once this many bytes of audio arrived. */
  dropAfterBytes?: number;
  /** Only this many connections (handshakes) misbehave; later ones behave. Default: all. */
  times?: number;
}
export type DeepgramKnobs = WsFakeKnobs;

interface WsFakeServer<K> extends FakeServer {
  wsOrigin: string;
  knobs: K;
  /** Opening handshakes received (refused ones too). */
  handshakes: number;
}

/**
 * The handshake side of a streaming provider's fake: the path and the credentials are checked
 * as the provider does (`check` answers a refusal or null), the knobs' handshake faults applied,
 * and `onSocket` gets each accepted connection with the knobs it opened with.
 */
async function wsFake<K extends WsFakeKnobs>(
  check: (url: URL, headers: http.IncomingHttpHeaders) => { status: number; body: object } | null,
  onSocket: (ws: WebSocket, url: URL, headers: http.IncomingHttpHeaders, knobs: K, socket: Socket) => void,
  /** The provider's error body for a refusal the knobs ask for. */
  refusalBody: (status: number) => object,
): Promise<WsFakeServer<K>> {
  const self = { knobs: {} as K, handshakes: 0 } as WsFakeServer<K>;
  const sockets = new Set<Socket>();
  const server = http.createServer((_req, res) => sendJson(res, 404, { error: 'not found' }));
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket: Socket, head) => {
    self.handshakes++;
    let knobs = self.knobs;
    if (knobs.times !== undefined) {
      if (knobs.times > 0) knobs.times--;
      else knobs = {} as K;
    }
    // Never answers (an upgrade's socket is half-open after the client's FIN: close it then).
    if (knobs.stallHandshake) return void socket.on('end', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://fake');
    const deny = (status: number, body: object) => {
      const text = JSON.stringify(body);
      socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
    };
    const refusal = check(url, req.headers);
    if (refusal) return deny(refusal.status, refusal.body);
    if (knobs.handshakeStatus) return deny(knobs.handshakeStatus, refusalBody(knobs.handshakeStatus));
    if (knobs.handshakeHtml) {
      const page = '<!DOCTYPE html><html><head><title>Welcome</title></head><body>It works!</body></html>';
      socket.end(`HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: ${page.length}\r\nconnection: close\r\n\r\n${page}`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => onSocket(ws, url, req.headers, knobs, socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(self, {
    origin: `http://127.0.0.1:${port}`,
    wsOrigin: `ws://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        for (const s of sockets) s.destroy();
        wss.close();
        server.close(() => resolve());
      }),
  });
}

export interface FakeDeepgram extends WsFakeServer<DeepgramKnobs> {
  connections: DeepgramConnection[];
  /** Sends a message as Deepgram would on the latest connection. */
  send(msg: object): void;
}

const results = (text: string, o: { isFinal: boolean; speechFinal?: boolean; fromFinalize?: boolean; start?: number; duration?: number }) => ({
  type: 'Results',
  channel_index: [0, 1],
  duration: o.duration ?? 1,
  start: o.start ?? 0,
  is_final: o.isFinal,
  speech_final: o.speechFinal ?? false,
  ...(o.fromFinalize ? { from_finalize: true } : {}),
  channel: { alternatives: [{ transcript: text, confidence: 0.98, words: [] }] },
  metadata: { request_id: 'req-1', model_info: { name: 'general-nova-3' } },
});
export const deepgramResults = results;

export async function startFakeDeepgram(): Promise<FakeDeepgram> {
  const connections: DeepgramConnection[] = [];
  const fake = await wsFake<DeepgramKnobs>(
    (url, headers) => {
      if (url.pathname !== '/v1/listen') return { status: 404, body: { err_code: 'NOT_FOUND', err_msg: 'Not found' } };
      if (headers.authorization !== `Token ${DEEPGRAM_KEY}`) return { status: 401, body: { err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.' } };
      return null;
    },
    (ws, url, headers, knobs, socket) => {
      const conn: DeepgramConnection = { query: url.searchParams, headers, socket: ws, audioBytes: 0, controls: [], timeline: [], closed: false };
      connections.push(conn);
      const answer = (msg: object) => {
        if (knobs.silent) return;
        if (knobs.garbage) {
          ws.send(Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00, 0x01]), { binary: true });
          ws.send('{"type":"Results","channel":{"alternatives":[{"transcript":"hel');
          return;
        }
        ws.send(JSON.stringify(msg));
      };
      answer({ type: 'Metadata', request_id: 'req-1', model_info: {} });
      ws.on('message', (data, isBinary) => {
        if (isBinary) {
          conn.timeline.push({ what: 'audio', at: Date.now() });
          const before = conn.audioBytes;
          conn.audioBytes += (data as Buffer).length;
          if (knobs.dropAfterBytes !== undefined && conn.audioBytes >= knobs.dropAfterBytes) return void socket.destroy();
          // As Deepgram does, results keep coming while audio streams (an empty interim each second of audio).
          if (Math.floor(conn.audioBytes / 32_000) > Math.floor(before / 32_000)) answer(results('', { isFinal: false, start: before / 32_000, duration: 1 }));
          return;
        }
        const msg = JSON.parse(data.toString()) as { type: string };
        conn.controls.push(msg.type);
        conn.timeline.push({ what: msg.type, at: Date.now() });
        if (msg.type === 'Finalize') answer(results(`finalized after ${conn.audioBytes / 2} samples`, { isFinal: true, fromFinalize: true }));
        if (msg.type === 'CloseStream') ws.close(1000);
      });
      ws.on('close', () => {
        conn.closed = true;
      });
    },
    (status) => ({ err_code: 'X', err_msg: `fake status ${status}` }),
  );
  return Object.assign(fake, {
    connections,
    send(msg: object) {
      connections.at(-1)?.socket.send(JSON.stringify(msg));
    },
  });
}

// ─── Azure AI Speech's streaming WebSocket ────────────────────────────────────────────────

/** One turn (X-RequestId) as the fake saw it. */
export interface AzureTurn {
  id: string;
  /** The speech.context sent for it (parsed JSON), if any. */
  context: unknown;
  /** Its first audio message was a 16 kHz mono PCM16 WAV header with Content-Type audio/x-wav. */
  wavHeader: boolean;
  /** That header's RIFF and data sizes (the SDK writes 0 and 0: a stream). */
  wavSizes: [number, number] | null;
  /** The service ended it by itself (endTurnAfterSamples). */
  serviceEnded: boolean;
  samples: number;
  /** The empty audio message that ends its audio came. */
  ended: boolean;
}

export interface AzureConnection {
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  socket: WebSocket;
  /** speech.config bodies received (parsed JSON). */
  configs: unknown[];
  turns: AzureTurn[];
  /** Messages that broke the protocol (a binary message without a valid header, a text one without Path…). */
  violations: string[];
  audioBytes: number;
  closed: boolean;
}

export interface AzureSpeechKnobs extends WsFakeKnobs {
  /** The end of a turn's audio is answered with a phrase of this RecognitionStatus ('Error', 'TooManyRequests'…). */
  phraseStatus?: string;
  /** The end of a turn's audio is never answered with turn.end. */
  noTurnEnd?: boolean;
  /** The service ends each turn by itself after this many samples (its phrase, then turn.end). */
  endTurnAfterSamples?: number;
}

export interface FakeAzureSpeech extends WsFakeServer<AzureSpeechKnobs> {
  connections: AzureConnection[];
  /** The service closes the latest connection (as at its connection time limit). */
  closeLatest(code?: number): void;
}

/** Samples of silence after speech that end a phrase (Azure's own segmentation). */
export const AZURE_FAKE_SEGMENT_SILENCE = 8000;

/**
 * Azure's Speech WebSocket (`/speech/recognition/conversation/cognitiveservices/v1`): the
 * subscription key on the upgrade request, `language` required. It "recognises" by counting:
 * a hypothesis every 0.5 s of loud samples (|x| > 500), a phrase `Heard N samples in <language>.`
 * after 0.5 s of quiet or at the end of the turn's audio, then turn.end.
 */
export async function startFakeAzureSpeech(): Promise<FakeAzureSpeech> {
  const connections: AzureConnection[] = [];
  const fake = await wsFake<AzureSpeechKnobs>(
    (url, headers) => {
      if (url.pathname !== '/speech/recognition/conversation/cognitiveservices/v1') return { status: 404, body: { error: 'not found' } };
      if (headers['ocp-apim-subscription-key'] !== AZURE_STT_KEY) return { status: 401, body: { error: { code: '401', message: 'Access denied due to invalid subscription key.' } } };
      if (!url.searchParams.get('language') || !/^[0-9a-fA-F]{32}$/.test(String(headers['x-connectionid']))) return { status: 400, body: { error: { code: '400', message: 'Bad request' } } };
      return null;
    },
    (ws, url, headers, knobs, socket) => {
      const language = url.searchParams.get('language')!;
      const conn: AzureConnection = { query: url.searchParams, headers, socket: ws, configs: [], turns: [], violations: [], audioBytes: 0, closed: false };
      connections.push(conn);
      const contexts = new Map<string, unknown>();
      const say = (path: string, id: string, body: object) => {
        if (knobs.silent) return;
        if (knobs.garbage) {
          ws.send(Buffer.from([0xde, 0xad, 0xbe, 0xef, 0x00, 0x01]), { binary: true });
          ws.send(`Path: speech.phrase\r\nX-RequestId: ${id}\r\n\r\n{"RecognitionStatus":"Succ`);
          return;
        }
        ws.send(`X-RequestId: ${id}\r\nContent-Type: application/json; charset=utf-8\r\nPath: ${path}\r\n\r\n${JSON.stringify(body)}`);
      };
      // Per turn: loud samples of the phrase being heard, quiet samples since, where the phrase began.
      const state = new Map<string, { loud: number; quiet: number; phraseStart: number }>();
      const phrase = (t: AzureTurn, st: { loud: number; quiet: number; phraseStart: number }) => {
        say('speech.endDetected', t.id, { Offset: t.samples * 625 });
        say('speech.phrase', t.id, { RecognitionStatus: 'Success', DisplayText: `Heard ${st.loud} samples in ${language}.`, Offset: st.phraseStart * 625, Duration: (t.samples - st.phraseStart) * 625 });
        st.loud = 0;
        st.quiet = 0;
      };
      ws.on('message', (data, isBinary) => {
        const buf = data as Buffer;
        if (!isBinary) {
          const text = buf.toString('utf8');
          const split = text.indexOf('\r\n\r\n');
          const path = /^path:\s*(.+)$/im.exec(text.slice(0, split))?.[1]?.trim();
          const id = /^x-requestid:\s*(.+)$/im.exec(text.slice(0, split))?.[1]?.trim();
          if (split < 0 || !path || !id || !/^x-timestamp:/im.test(text.slice(0, split))) return void conn.violations.push(`text message without headers: ${text.slice(0, 60)}`);
          let body: unknown;
          try {
            body = JSON.parse(text.slice(split + 4));
          } catch {
            return void conn.violations.push(`${path}: a body that is not JSON`);
          }
          if (path === 'speech.config') conn.configs.push(body);
          else if (path === 'speech.context') contexts.set(id, body);
          else conn.violations.push(`unknown text path ${path}`);
          return;
        }
        if (buf.length < 2) return void conn.violations.push('binary message shorter than its header length');
        const headerLength = buf.readUInt16BE(0);
        const head = buf.subarray(2, 2 + headerLength).toString('ascii');
        const body = buf.subarray(2 + headerLength);
        const id = /^x-requestid:\s*(.+)$/im.exec(head)?.[1]?.trim();
        if (!/^path:\s*audio\s*$/im.test(head) || !id || !/^x-timestamp:/im.test(head)) return void conn.violations.push(`binary message with bad headers: ${head.slice(0, 80)}`);
        let t = conn.turns.find((x) => x.id === id);
        if (!t) {
          if (!conn.configs.length) conn.violations.push('a turn before any speech.config');
          const last = conn.turns.at(-1);
          if (last && !last.ended && !last.serviceEnded) conn.violations.push('a new turn before the last one ended');
          t = { id, context: contexts.get(id), wavHeader: false, wavSizes: null, serviceEnded: false, samples: 0, ended: false };
          conn.turns.push(t);
          state.set(id, { loud: 0, quiet: 0, phraseStart: 0 });
          const isWav = /^content-type:\s*audio\/x-wav/im.test(head) && body.length === 44 && body.toString('ascii', 0, 4) === 'RIFF' && body.readUInt32LE(24) === 16_000 && body.readUInt16LE(22) === 1 && body.readUInt16LE(34) === 16;
          if (!isWav) conn.violations.push('a turn did not start with a 16 kHz mono PCM16 WAV header');
          t.wavHeader = isWav;
          if (isWav) t.wavSizes = [body.readUInt32LE(4), body.readUInt32LE(40)];
          say('turn.start', id, { context: { serviceTag: 'fake' } });
          if (isWav) return;
        }
        if (t.serviceEnded) return; // in flight when the service ended it: dropped, as the service does
        if (t.ended) return void conn.violations.push('audio after the end of the turn');
        const st = state.get(id)!;
        if (body.length === 0) {
          t.ended = true;
          if (knobs.phraseStatus) say('speech.phrase', id, { RecognitionStatus: knobs.phraseStatus, Offset: 0, Duration: 0 });
          else if (st.loud > 0) phrase(t, st);
          else say('speech.phrase', id, { RecognitionStatus: 'InitialSilenceTimeout', Offset: 0, Duration: t.samples * 625 });
          if (!knobs.noTurnEnd) say('turn.end', id, {});
          return;
        }
        conn.audioBytes += body.length;
        if (knobs.dropAfterBytes !== undefined && conn.audioBytes >= knobs.dropAfterBytes) return void socket.destroy();
        const pcm = new Int16Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.length - (body.length % 2)));
        for (const x of pcm) {
          if (Math.abs(x) > 500) {
            if (st.loud === 0) {
              st.phraseStart = t.samples;
              say('speech.startDetected', id, { Offset: t.samples * 625 });
            }
            st.loud++;
            st.quiet = 0;
            if (st.loud % 8000 === 0) say('speech.hypothesis', id, { Text: `hearing ${st.loud} samples`, Offset: st.phraseStart * 625, Duration: (t.samples - st.phraseStart) * 625 });
          } else if (st.loud > 0 && ++st.quiet >= AZURE_FAKE_SEGMENT_SILENCE) phrase(t, st);
          t.samples++;
          if (knobs.endTurnAfterSamples !== undefined && t.samples >= knobs.endTurnAfterSamples) {
            if (st.loud > 0) phrase(t, st);
            t.serviceEnded = true;
            say('turn.end', id, {});
            return;
          }
        }
      });
      ws.on('close', () => {
        conn.closed = true;
      });
    },
    (status) => ({ error: { code: String(status), message: `fake status ${status}` } }),
  );
  return Object.assign(fake, {
    connections,
    closeLatest(code = 1000) {
      connections.at(-1)?.socket.close(code, 'Connection duration limit');
    },
  });
}
