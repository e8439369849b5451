import type http from 'node:http';
import { listen, readBody, sleep } from '../../../net/src/test/http-fake.js';

/**
 * A site owner's REST brain endpoint (docs/rest-brain.md), local: checks the Bearer key, records
 * every call, answers LOGIN/LOGOUT with `{status:"OK"}` and CHAT with `{status:"OK", reply}` —
 * or whatever a test scripts (status, raw body, content type, delay).
 */
export interface RestCall {
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
}

export interface RestAnswer {
  status?: number;
  /** JSON-encoded unless a string with `raw`. */
  body?: unknown;
  raw?: boolean;
  contentType?: string;
  delayMs?: number;
}

export interface FakeRestBrain {
  url: string;
  calls: RestCall[];
  answer: ((body: Record<string, unknown>) => RestAnswer) | null;
  close(): Promise<void>;
}

export async function startFakeRestBrain(apiKey = 'rest-key'): Promise<FakeRestBrain> {
  const fake: FakeRestBrain = { url: '', calls: [], answer: null, close: async () => {} };
  const server = await listen(async (req, res) => {
    const raw = await readBody(req);
    let body: Record<string, unknown> = {};
    try {
      body = JSON.parse(raw) as Record<string, unknown>;
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      return res.end('{"status":"FAIL","message":"invalid JSON"}');
    }
    fake.calls.push({ headers: req.headers, body });
    if (req.method !== 'POST' || req.headers.authorization !== `Bearer ${apiKey}`) {
      res.writeHead(401, { 'content-type': 'application/json' });
      return res.end('{"status":"FAIL","message":"invalid API key"}');
    }
    const a: RestAnswer = fake.answer?.(body) ?? (body.action === 'CHAT' ? { body: { status: 'OK', reply: `Echo: ${String(body.message)}` } } : { body: { status: 'OK' } });
    if (a.delayMs) await sleep(a.delayMs);
    if (res.destroyed) return;
    const text = a.raw && typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
    res.writeHead(a.status ?? 200, { 'content-type': a.contentType ?? (a.raw ? 'text/plain; charset=utf-8' : 'application/json') });
    res.end(text);
  });
  fake.url = `${server.origin}/avatar-brain`;
  fake.close = server.close;
  return fake;
}
