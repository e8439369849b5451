import { generateKeyPairSync, verify } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { listen, readBody, sendJson, sleep, type FakeServer } from './http-fake.js';

/**
 * Local fakes of the speech-to-text providers, speaking their real protocols (paths, headers,
 * auth, status codes, frames), with knobs for errors and delays.
 */
export const DEEPGRAM_KEY = 'dg-test-key';
export const AZURE_STT_KEY = 'azure-stt-key';
export const GOOGLE_API_KEY = 'google-api-key';
export const OPENAI_STT_KEY = 'sk-stt-test';

export interface SttRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** When (Date.now()) the client dropped the request before the fake answered, if it did. */
  abortedAt?: number;
}

export interface FakeHttpStt extends FakeServer {
  requests: SttRequest[];
  knobs: { status?: number; delayMs?: number; answer?: unknown };
}

async function readRaw(req: http.IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
  return Buffer.concat(chunks);
}

/** One HTTP fake for the batch providers; `check` decides auth and answers. */
async function httpFake(check: (r: SttRequest) => { status: number; body: unknown }): Promise<FakeHttpStt> {
  const requests: SttRequest[] = [];
  // Tests replace `knobs` between cases: read it from the returned object each time.
  const self = { requests, knobs: {} as FakeHttpStt['knobs'] };
  const server = await listen(async (req, res) => {
    const knobs = self.knobs;
    const url = new URL(req.url ?? '/', 'http://fake');
    const r: SttRequest = { method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body: await readRaw(req) };
    requests.push(r);
    res.on('close', () => {
      if (!res.writableEnded) r.abortedAt = Date.now();
    });
    if (knobs.delayMs) await sleep(knobs.delayMs);
    if (knobs.status) return sendJson(res, knobs.status, { error: { message: `fake status ${knobs.status}` } });
    const answer = check(r);
    sendJson(res, answer.status, knobs.answer ?? answer.body);
  });
  return Object.assign(self, server) as FakeHttpStt;
}

export const startFakeAzureStt = () =>
  httpFake((r) => {
    if (r.method !== 'POST' || r.path !== '/speech/recognition/conversation/cognitiveservices/v1') return { status: 404, body: { error: 'not found' } };
    if (r.headers['ocp-apim-subscription-key'] !== AZURE_STT_KEY) return { status: 401, body: { error: { code: '401', message: 'Access denied due to invalid subscription key.' } } };
    if (!String(r.headers['content-type']).startsWith('audio/wav')) return { status: 400, body: { error: 'bad content type' } };
    const samples = (r.body.length - 44) / 2;
    if (samples < 1600) return { status: 200, body: { RecognitionStatus: 'InitialSilenceTimeout', Offset: 0, Duration: 0 } };
    return { status: 200, body: { RecognitionStatus: 'Success', DisplayText: `Heard ${samples} samples in ${r.query.get('language')}.`, Offset: 1000, Duration: samples * 625 } };
  });

/**
 * Google: `POST /v1/speech:recognize` with `X-Goog-Api-Key` or a bearer token this fake issued at
 * `POST /token` (the JWT bearer grant, RS256 signature checked against the key pair it made).
 */
export async function startFakeGoogleStt(): Promise<FakeHttpStt & { serviceAccountJson: string; issued: Set<string> }> {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const clientEmail = 'stt@persona-test.iam.gserviceaccount.com';
  const issued = new Set<string>();
  let tokenUri = '';
  const fake = await httpFake((r) => {
    if (r.method === 'POST' && r.path === '/token') {
      const form = new URLSearchParams(r.body.toString('utf8'));
      const [h, c, sig] = (form.get('assertion') ?? '').split('.');
      const ok = form.get('grant_type') === 'urn:ietf:params:oauth:grant-type:jwt-bearer' && h && c && sig && verify('RSA-SHA256', Buffer.from(`${h}.${c}`), publicKey, Buffer.from(sig, 'base64url'));
      const claims = ok ? (JSON.parse(Buffer.from(c!, 'base64url').toString('utf8')) as Record<string, unknown>) : {};
      if (!ok || claims.iss !== clientEmail || claims.aud !== tokenUri) return { status: 400, body: { error: 'invalid_grant', error_description: 'Invalid JWT Signature.' } };
      const token = `ya29.stt-${issued.size + 1}`;
      issued.add(token);
      return { status: 200, body: { access_token: token, expires_in: 3599, token_type: 'Bearer' } };
    }
    if (r.method !== 'POST' || r.path !== '/v1/speech:recognize') return { status: 404, body: { error: { code: 404, message: 'not found' } } };
    const bearer = /^Bearer (.+)$/.exec(r.headers.authorization ?? '')?.[1];
    if (r.headers['x-goog-api-key'] !== GOOGLE_API_KEY && !(bearer && issued.has(bearer))) {
      return { status: 403, body: { error: { code: 403, message: 'The request is missing a valid API key.', status: 'PERMISSION_DENIED' } } };
    }
    const body = JSON.parse(r.body.toString('utf8')) as { config: { languageCode: string }; audio: { content: string } };
    const samples = Buffer.from(body.audio.content, 'base64').length / 2;
    if (samples < 1600) return { status: 200, body: {} };
    return { status: 200, body: { results: [{ alternatives: [{ transcript: `heard ${samples} samples`, confidence: 0.9 }], languageCode: body.config.languageCode.toLowerCase() }, { alternatives: [{ transcript: 'and more' }] }] } };
  });
  tokenUri = `${fake.origin}/token`;
  const serviceAccountJson = JSON.stringify({ type: 'service_account', client_email: clientEmail, private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }), private_key_id: 'k1', token_uri: tokenUri });
  return Object.assign(fake, { serviceAccountJson, issued });
}

export const startFakeOpenAiStt = () =>
  httpFake((r) => {
    if (r.method !== 'POST' || !r.path.endsWith('/audio/transcriptions')) return { status: 404, body: { error: { message: 'not found' } } };
    if (r.headers.authorization !== `Bearer ${OPENAI_STT_KEY}`) return { status: 401, body: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } };
    const type = String(r.headers['content-type']);
    const boundary = /boundary=(.+)$/.exec(type)?.[1];
    if (!boundary) return { status: 400, body: { error: { message: 'not multipart' } } };
    const fields = parseMultipart(r.body, boundary);
    const file = fields.file;
    if (!file || file.toString('latin1', 0, 4) !== 'RIFF') return { status: 400, body: { error: { message: 'no WAV file' } } };
    return { status: 200, body: { text: `heard ${(file.length - 44) / 2} samples with ${fields.model?.toString()}` } };
  });

/** Fields of a multipart/form-data body (the fake's own small reader). */
export function parseMultipart(body: Buffer, boundary: string): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  const sep = Buffer.from(`--${boundary}`);
  let at = body.indexOf(sep);
  while (at >= 0) {
    const next = body.indexOf(sep, at + sep.length);
    if (next < 0) break;
    const part = body.subarray(at + sep.length + 2, next - 2);
    const headEnd = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, headEnd).toString('utf8');
    const name = /name="([^"]+)"/.exec(head)?.[1];
    if (name) out[name] = part.subarray(headEnd + 4);
    at = next;
  }
  return out;
}

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

/** How the fake misbehaves (read when a connection opens). */
export interface DeepgramKnobs {
  handshakeStatus?: number;
  /** The upgrade request is never answered. */
  stallHandshake?: boolean;
  /** The upgrade is answered with a 200 HTML page instead of 101. */
  handshakeHtml?: boolean;
  /** Opens, then sends nothing at all (no Metadata, no results, Finalize unanswered). */
  silent?: boolean;
  /** Opens, then answers audio and Finalize with unreadable messages (binary noise, broken JSON). */
  garbage?: boolean;
  /** Destroys the TCP connection once this many bytes of audio arrived. */
  dropAfterBytes?: number;
  /** Only this many connections (handshakes) misbehave; later ones behave. Default: all. */
  times?: number;
}

export interface FakeDeepgram extends FakeServer {
  /** ws://127.0.0.1:PORT */
  wsOrigin: string;
  connections: DeepgramConnection[];
  knobs: DeepgramKnobs;
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
  const self = { knobs: {} } as FakeDeepgram;
  const sockets = new Set<Socket>();
  const server = http.createServer((_req, res) => sendJson(res, 404, { err_msg: 'not found' }));
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    let knobs = self.knobs;
    if (knobs.times !== undefined) {
      if (knobs.times > 0) knobs.times--;
      else knobs = {};
    }
    // Never answers (an upgrade's socket is half-open after the client's FIN: close it then).
    if (knobs.stallHandshake) return void socket.on('end', () => socket.destroy());
    const url = new URL(req.url ?? '/', 'http://fake');
    const deny = (status: number, body: object) => {
      const text = JSON.stringify(body);
      socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(text)}\r\nconnection: close\r\n\r\n${text}`);
    };
    if (url.pathname !== '/v1/listen') return deny(404, { err_code: 'NOT_FOUND', err_msg: 'Not found' });
    if (req.headers.authorization !== `Token ${DEEPGRAM_KEY}`) return deny(401, { err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.' });
    if (knobs.handshakeStatus) return deny(knobs.handshakeStatus, { err_code: 'X', err_msg: `fake status ${knobs.handshakeStatus}` });
    if (knobs.handshakeHtml) {
      const page = '<!DOCTYPE html><html><head><title>Welcome</title></head><body>It works!</body></html>';
      socket.end(`HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: ${page.length}\r\nconnection: close\r\n\r\n${page}`);
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const conn: DeepgramConnection = { query: url.searchParams, headers: req.headers, socket: ws, audioBytes: 0, controls: [], timeline: [], closed: false };
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
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(self, {
    origin: `http://127.0.0.1:${port}`,
    wsOrigin: `ws://127.0.0.1:${port}`,
    connections,
    send(msg: object) {
      connections.at(-1)?.socket.send(JSON.stringify(msg));
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        for (const s of sockets) s.destroy();
        wss.close();
        server.close(() => resolve());
      }),
  });
}

export { readBody };
