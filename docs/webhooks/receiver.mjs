// An example webhook receiver for Persona Studio (docs/webhooks.md). Node 18+, no dependencies.
// The server's tests run this very file against real deliveries, so it cannot fall out of date.
//
//   WEBHOOK_SECRET=whsec_… PORT=8787 node receiver.mjs
import { createHmac, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import { pathToFileURL } from 'node:url';

/** Signatures older (or newer) than this are refused: a captured request cannot be replayed later. */
export const TOLERANCE_SECONDS = 300;
/** Larger bodies are refused before they are read whole. */
const MAX_BODY_BYTES = 5 * 1024 * 1024;

/**
 * Checks a `Persona-Signature: t=<unix seconds>,v1=<hex>` header against the raw body: the HMAC-SHA256,
 * keyed with the whole secret, of `<t>.<raw body>`. Returns null when it is good, else why not.
 */
export function verifySignature(secret, header, rawBody, nowSeconds = Math.floor(Date.now() / 1000)) {
  if (typeof header !== 'string') return 'no signature';
  const parts = Object.fromEntries(header.split(',').map((p) => p.trim().split('=', 2)));
  const t = Number(parts.t);
  if (!/^\d{1,12}$/.test(parts.t ?? '') || !/^[0-9a-f]{64}$/.test(parts.v1 ?? '')) return 'malformed signature';
  if (Math.abs(nowSeconds - t) > TOLERANCE_SECONDS) return 'stale timestamp';
  const expected = createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest();
  const given = Buffer.from(parts.v1, 'hex');
  // Compared in constant time: the time taken reveals nothing of the expected signature.
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad signature';
  return null;
}

/**
 * A receiver: verifies each POST, answers 2xx quickly (work is done after answering) and hands the
 * event to `onEvent`. The same event `id` may arrive twice (a retry, a resend): deduplicate on it.
 */
export function createReceiver({ secret, onEvent, now }) {
  const seen = new Set();
  return http.createServer((req, res) => {
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const chunks = [];
    let size = 0;
    req.on('data', (c) => {
      size += c.length;
      if (size > MAX_BODY_BYTES) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const problem = verifySignature(secret, req.headers['persona-signature'], raw, now?.());
      if (problem) return void res.writeHead(400, { 'content-type': 'text/plain' }).end(problem);
      const event = JSON.parse(raw.toString('utf8'));
      res.writeHead(204).end();
      if (seen.has(event.id)) return;
      seen.add(event.id);
      onEvent(event);
    });
  });
}

// Run as a program: log each event.
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const secret = process.env.WEBHOOK_SECRET;
  if (!secret) throw new Error('Set WEBHOOK_SECRET to the endpoint’s signing secret (whsec_…).');
  const port = Number(process.env.PORT ?? 8787);
  createReceiver({
    secret,
    onEvent: (event) => {
      if (event.type === 'session.ended') console.log(`session ${event.data.sessionId} ended (${event.data.outcome}, ${event.data.durationSeconds} s, ${event.data.turns} turns)`);
      else console.log(event.type, event.id);
    },
  }).listen(port, () => console.log(`listening on http://localhost:${port}`));
}
