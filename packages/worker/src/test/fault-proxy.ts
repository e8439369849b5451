import http from 'node:http';
import type { Socket } from 'node:net';
import { listen, type FakeServer } from '../../../net/src/test/http-fake.js';

/**
 * A local HTTP proxy in front of a provider's fake that breaks its answers on request — one fault
 * mechanism for every HTTP provider (LLM, TTS, batch STT), whatever its wire format:
 * - `pass`: forwarded as is;
 * - `hang`: the request is read and never answered (no headers, the connection stays open);
 * - `stall`: the fake's status, headers and first `after` frames are forwarded, then nothing more,
 *   and the connection stays open (a provider stuck mid-stream);
 * - `drop`: the same, then the connection is destroyed (a provider gone mid-stream);
 * - `html`: 200 with an HTML error page (a proxy's or load balancer's page served with 200);
 * - `bad-frames`: 200 with the format's content type and frames that cannot be read (truncated
 *   JSON in SSE events or NDJSON lines; a JSON error document where raw audio is expected);
 * - `noise`: 200 with the format's content type and 4 KB of binary noise.
 * A frame is an SSE event (`sse`), a line (`ndjson`) or a byte (`audio`, `json`); the fakes write
 * whole frames, so a separator split between two TCP reads is not looked for.
 */
export type FaultMode = 'pass' | 'hang' | 'stall' | 'drop' | 'html' | 'bad-frames' | 'noise';
export type WireFormat = 'sse' | 'ndjson' | 'audio' | 'json';

export interface FaultProxy extends FakeServer {
  /** Applies to the requests that arrive from now on. */
  mode: FaultMode;
  /** Frames forwarded before a `stall` or a `drop`. */
  after: number;
  /** Requests received, and how many of them were given a fault. */
  readonly requests: number;
  readonly faulted: number;
  /** Exchanges whose answer has not ended while their connection is still open: what a client left hanging. */
  open(): number;
}

const CONTENT_TYPE: Record<WireFormat, string> = {
  sse: 'text/event-stream; charset=utf-8',
  ndjson: 'application/json',
  audio: 'audio/pcm',
  json: 'application/json; charset=utf-8',
};

const BAD_FRAMES: Record<WireFormat, string> = {
  sse: 'data: {"id":"chatcmpl-x","choices":[{"index":0,"delta":{"content":"Hel\n\ndata: [{\n\n',
  ndjson: '{"audio_base64":"AAAA","alignment":{"characters":["a"\n{oops}\n',
  audio: '{"error":{"code":"InternalServerError","message":"The backend failed."}}',
  json: '{"RecognitionStatus":"Succ',
};

const HTML_PAGE = '<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1><p>The upstream server is unavailable.</p></body></html>\n';

/** The same 4 KB of noise every time (a fixed linear congruential sequence). */
export function noiseBytes(n = 4096): Buffer {
  const out = Buffer.alloc(n);
  let x = 0x2545f491;
  for (let i = 0; i < n; i++) {
    x = (Math.imul(x, 1103515245) + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'content-length']);

/** Where `frames` frames of `format` end in `buf`, counted from the `seen` already forwarded (-1: not in this chunk). */
function cutAt(format: WireFormat, buf: Buffer, seen: number, frames: number): number {
  if (format === 'audio' || format === 'json') return seen + buf.length >= frames ? frames - seen : -1;
  const sep = format === 'sse' ? '\n\n' : '\n';
  let at = 0;
  for (let n = seen; n < frames; n++) {
    const k = buf.indexOf(sep, at);
    if (k < 0) return -1;
    at = k + sep.length;
  }
  return at;
}

/** Frames of `format` in `buf`. */
function countFrames(format: WireFormat, buf: Buffer): number {
  if (format === 'audio' || format === 'json') return buf.length;
  const sep = format === 'sse' ? '\n\n' : '\n';
  let n = 0;
  for (let k = buf.indexOf(sep); k >= 0; k = buf.indexOf(sep, k + sep.length)) n++;
  return n;
}

export async function startFaultProxy(upstream: string, format: WireFormat): Promise<FaultProxy> {
  const target = new URL(upstream);
  const exchanges = new Set<{ res: http.ServerResponse; socket: Socket }>();
  let requests = 0;
  let faulted = 0;
  const fault = { mode: 'pass' as FaultMode, after: 1 };

  const server = await listen(async (req, res) => {
    requests++;
    const chunks: Buffer[] = [];
    for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
    const body = Buffer.concat(chunks);
    const exchange = { res, socket: req.socket };
    exchanges.add(exchange);
    const forget = () => exchanges.delete(exchange);
    res.on('finish', forget);
    req.socket.on('close', forget);
    const mode = fault.mode;
    const after = fault.after;
    if (mode !== 'pass') faulted++;
    switch (mode) {
      case 'hang':
        return;
      case 'html':
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        res.end(HTML_PAGE);
        return;
      case 'bad-frames':
      case 'noise':
        res.writeHead(200, { 'content-type': CONTENT_TYPE[format] });
        res.end(mode === 'noise' ? noiseBytes() : BAD_FRAMES[format]);
        return;
      default:
        break;
    }
    const headers: http.OutgoingHttpHeaders = {};
    for (const [name, value] of Object.entries(req.headers)) if (!HOP_BY_HOP.has(name) && name !== 'host') headers[name] = value;
    headers['content-length'] = String(body.length);
    const up = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers, agent: false });
    res.on('close', () => up.destroy());
    up.on('error', () => res.destroy());
    up.on('response', (answer) => {
      const out: http.OutgoingHttpHeaders = {};
      for (const [name, value] of Object.entries(answer.headers)) if (!HOP_BY_HOP.has(name)) out[name] = value;
      if (mode === 'pass' && answer.headers['content-length']) out['content-length'] = answer.headers['content-length'];
      res.writeHead(answer.statusCode ?? 502, out);
      res.flushHeaders();
      if (mode === 'pass') {
        answer.pipe(res);
        return;
      }
      let seen = 0;
      answer.on('data', (chunk: Buffer) => {
        if (seen >= after) return;
        const cut = cutAt(format, chunk, seen, after);
        if (cut < 0) {
          res.write(chunk);
          seen += countFrames(format, chunk);
          return;
        }
        res.write(chunk.subarray(0, cut));
        seen = after;
        // The provider stops here: no more bytes, the connection open (stall) or gone (drop).
        answer.destroy();
        if (mode === 'drop') setImmediate(() => req.socket.destroy());
      });
      answer.on('end', () => {
        // The fake ended before `after` frames: the fault still happens at the end.
        if (seen < after && mode === 'drop') req.socket.destroy();
      });
    });
    up.end(body);
  });

  return {
    origin: server.origin,
    close: server.close,
    get mode() {
      return fault.mode;
    },
    set mode(mode: FaultMode) {
      fault.mode = mode;
    },
    get after() {
      return fault.after;
    },
    set after(n: number) {
      fault.after = n;
    },
    get requests() {
      return requests;
    },
    get faulted() {
      return faulted;
    },
    open: () => [...exchanges].filter((e) => !e.res.writableEnded && !e.socket.destroyed).length,
  };
}
