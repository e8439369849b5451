import type { IncomingMessage } from 'node:http';
import type WebSocket from 'ws';

/**
 * A provider's WebSocket text frame as a JSON object with a string `type` (Deepgram, OpenAI
 * Realtime…); null for binary frames, invalid JSON and anything else, which the clients ignore.
 */
export function jsonEvent<T extends { type?: unknown }>(data: WebSocket.RawData, isBinary: boolean): (T & { type: string }) | null {
  if (isBinary) return null;
  let m: unknown;
  try {
    m = JSON.parse(data.toString());
  } catch {
    return null;
  }
  return m !== null && typeof m === 'object' && typeof (m as T).type === 'string' ? (m as T & { type: string }) : null;
}

/** A refused WebSocket handshake's HTTP answer (`unexpected-response`): its status and at most 8 KB of its body. */
export function readRefusal(res: IncomingMessage, done: (status: number | undefined, body: string) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  res.on('data', (c: Buffer) => {
    size += c.length;
    if (size <= 8192) chunks.push(c);
  });
  const end = () => done(res.statusCode, Buffer.concat(chunks).toString('utf8'));
  res.on('end', end);
  res.on('error', end);
}
