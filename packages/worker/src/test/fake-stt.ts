import type http from 'node:http';
import { listen, readBody, sendJson, sleep, type FakeServer } from '../../../net/src/test/http-fake.js';

/**
 * Local fakes of the speech-to-text providers, speaking their real protocols (paths, headers,
 * auth, status codes, frames), with knobs for errors and delays: the keys and the batch
 * (HTTP) fakes here; the streaming ones in fake-stt-ws.ts (Deepgram, Azure) and
 * fake-stt-google.ts (gRPC).
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
export async function httpFake(check: (r: SttRequest) => { status: number; body: unknown }): Promise<FakeHttpStt> {
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

export { readBody };

/** 20 ms frames as the page sends them, loud (|x| = 1000: speech to the streaming fakes, which count samples above 500) or quiet. */
export const loudFrames = (ms: number) => Array.from({ length: ms / 20 }, () => new Int16Array(320).fill(1000));
export const quietFrames = (ms: number) => Array.from({ length: ms / 20 }, () => new Int16Array(320));
