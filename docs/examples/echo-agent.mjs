#!/usr/bin/env node
// An example agent for Persona Studio's agent API (docs/agent-api.md): it signs an agent token with
// the avatar's encryption key, waits for visitors' sessions, joins each one and answers every
// typed message (and, with TRANSCRIPTS=1, everything the visitor says, transcribed by Persona
// Studio) with "You said: …" — spoken as a tone (PCM16, 16 kHz) while the words are shown. Only
// `ws` and node:crypto.
//
//   PORTAL_URL=http://localhost:3000 AVATAR_ID=42 KEY_FILE=avatar-key.pem node docs/examples/echo-agent.mjs
import { createPrivateKey, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import WebSocket from 'ws';

const SAMPLE_RATE = 16_000;
const HEADER_BYTES = 8;
const AVATAR_AUDIO = 2;

/** An agent token: ES256 JWT, aud "persona-agent", sub = the avatar id, at most an hour. */
export function signAgentToken(privateKeyPem, avatarId, seconds = 600) {
  const b64 = (o) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const iat = Math.floor(Date.now() / 1000);
  const head = `${b64({ alg: 'ES256', typ: 'JWT' })}.${b64({ aud: 'persona-agent', sub: String(avatarId), iat, exp: iat + seconds })}`;
  const sig = sign('sha256', Buffer.from(head), { key: createPrivateKey(privateKeyPem), dsaEncoding: 'ieee-p1363' });
  return `${head}.${sig.toString('base64url')}`;
}

/** One binary audio frame: kind u8 (2), flags u8, utterance u16 LE, seq u32 LE, then PCM16LE. */
function audioFrame(seq, samples) {
  const buf = Buffer.alloc(HEADER_BYTES + samples.length * 2);
  buf.writeUInt8(AVATAR_AUDIO, 0);
  buf.writeUInt32LE(seq >>> 0, 4);
  for (let i = 0; i < samples.length; i++) buf.writeInt16LE(samples[i], HEADER_BYTES + i * 2);
  return buf;
}

/** A soft tone as long as the words would take to say (~60 ms a character, 0.3–4 s). */
function toneFor(text) {
  const n = Math.round((SAMPLE_RATE * Math.min(4000, Math.max(300, text.length * 60))) / 1000);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) {
    const fade = Math.min(1, i / 400, (n - i) / 400);
    out[i] = Math.round(6000 * fade * Math.sin((2 * Math.PI * 220 * i) / SAMPLE_RATE));
  }
  return out;
}

/**
 * Runs the agent: `{ close() }` stops it; `stats` counts what it saw (the tests read it).
 * `transcripts`: Persona Studio transcribes the visitor (and handles barge-in) instead of an STT
 * of the agent's own. `log` defaults to console.
 * @param {{ portalUrl: string, avatarId: number, privateKeyPem: string, transcripts?: boolean, log?: { info?: (m: string) => void, warn?: (m: string) => void } }} opts
 */
export function startEchoAgent({ portalUrl, avatarId, privateKeyPem, transcripts = false, log = console }) {
  const stats = { sessions: 0, joined: 0, micFrames: 0, heard: [], said: [], interrupted: 0 };
  const sockets = new Set();
  let stopped = false;
  let welcome;
  const welcomed = new Promise((resolve) => (welcome = resolve));

  function speak(ws, text, n) {
    const responseId = `r${n}`;
    ws.send(JSON.stringify({ type: 'response.start', responseId }));
    ws.send(JSON.stringify({ type: 'text', delta: text }));
    const tone = toneFor(text);
    // 100 ms frames (a real agent streams them as its TTS makes them).
    for (let at = 0, seq = 0; at < tone.length; at += SAMPLE_RATE / 10) ws.send(audioFrame(seq++, tone.subarray(at, at + SAMPLE_RATE / 10)));
    ws.send(JSON.stringify({ type: 'response.end' }));
    stats.said.push(text);
  }

  function join(offer) {
    stats.sessions++;
    const ws = new WebSocket(offer.wsUrl);
    sockets.add(ws);
    let answers = 0;
    ws.on('open', () => ws.send(JSON.stringify({ type: 'agent.hello', protocol: 1, ticket: offer.ticket, sampleRate: SAMPLE_RATE, transcripts })));
    ws.on('message', (data, isBinary) => {
      if (isBinary) {
        stats.micFrames++; // the visitor's microphone: 16 kHz PCM16 after the 8-byte header (a real agent runs its STT on it)
        return;
      }
      const frame = JSON.parse(String(data));
      switch (frame.type) {
        case 'joined':
          stats.joined++;
          log.info?.(`joined session ${frame.sessionId}`);
          break;
        case 'say':
          speak(ws, frame.text, ++answers);
          break;
        case 'user.text':
          stats.heard.push(frame.text);
          speak(ws, `You said: ${frame.text}`, ++answers);
          break;
        case 'transcript':
          // Only with `transcripts`: interim hypotheses, then the final text to answer.
          if (!frame.final || !frame.text) break;
          stats.heard.push(frame.text);
          speak(ws, `You said: ${frame.text}`, ++answers);
          break;
        case 'interrupted':
          // The visitor spoke over answer `responseId` (or the page stopped it) after hearing `heardMs`
          // of it. A streaming agent stops generating it here; this one sent its audio at once.
          stats.interrupted++;
          log.info?.(`answer ${frame.responseId} interrupted after ${frame.heardMs ?? '?'} ms`);
          break;
        case 'error':
          log.warn?.(`session error: ${frame.code} ${frame.message}`);
          break;
      }
    });
    ws.on('close', () => sockets.delete(ws));
    ws.on('error', (err) => log.warn?.(`session socket: ${err.message}`));
  }

  function dispatch() {
    if (stopped) return;
    const url = `${portalUrl.replace(/^http/, 'ws').replace(/\/+$/, '')}/api/agent/ws`;
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${signAgentToken(privateKeyPem, avatarId)}` } });
    sockets.add(ws);
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data));
      if (frame.type === 'welcome') welcome(frame);
      else if (frame.type === 'session') join(frame);
    });
    ws.on('unexpected-response', (_req, res) => log.warn?.(`the portal refused the agent: HTTP ${res.statusCode}`));
    ws.on('error', () => undefined);
    // Token expired (4001), portal restarted…: connect again with a fresh token.
    ws.on('close', () => {
      sockets.delete(ws);
      if (!stopped) setTimeout(dispatch, 1000).unref();
    });
  }

  dispatch();
  return {
    stats,
    /** Resolves with the portal's welcome (the agent is then offered sessions). */
    welcomed,
    close() {
      stopped = true;
      for (const ws of sockets) ws.terminate();
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { PORTAL_URL, AVATAR_ID, KEY_FILE, TRANSCRIPTS } = process.env;
  if (!PORTAL_URL || !AVATAR_ID || !KEY_FILE) {
    console.error('usage: PORTAL_URL=… AVATAR_ID=… KEY_FILE=private-key.pem node echo-agent.mjs');
    process.exit(2);
  }
  startEchoAgent({ portalUrl: PORTAL_URL, avatarId: Number(AVATAR_ID), privateKeyPem: readFileSync(KEY_FILE, 'utf8'), transcripts: TRANSCRIPTS === '1' });
  console.log(`echo agent for avatar ${AVATAR_ID}: waiting for visitors`);
}
