// A small stand-in for the portal's live-session calls and a worker, speaking the real page ⇄
// worker protocol (contract/live/protocol.ts), so the avatar page's face and voice can be tested
// and measured on their own: it serves the built avatar page (with the avatar page's CSP), the
// catalogue, test files, page configs, admission, and a worker socket that answers each text
// with a scripted utterance — PCM16 frames paced in real time, visemes and words.
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer } from 'ws';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..');
const webDist = path.join(root, 'packages/web/dist');
const catalog = path.join(root, 'packages/server/catalog');

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.svg': 'image/svg+xml', '.png': 'image/png', '.webp': 'image/webp', '.jpg': 'image/jpeg', '.glb': 'model/gltf-binary', '.vrm': 'model/gltf-binary', '.bin': 'application/octet-stream', '.map': 'application/json', '.mp4': 'video/mp4' };

export const SAMPLE_RATE = 16_000;

/**
 * The scripted utterance: voiced segments (a vowel-like buzz) and silences, with the visemes of
 * the voiced ones. `t`/`d` in ms from the first sample.
 */
export const SCRIPT = [
  { t: 0, d: 250, v: null },
  { t: 250, d: 300, v: 'aa', w: 'Hello' },
  { t: 550, d: 300, v: null },
  { t: 850, d: 300, v: 'O', w: 'there,' },
  { t: 1150, d: 300, v: null },
  { t: 1450, d: 300, v: 'E', w: 'friend.' },
  { t: 1750, d: 350, v: null },
];
export const SCRIPT_MS = 2100;

export function scriptPcm(sampleRate = SAMPLE_RATE) {
  const n = Math.round((SCRIPT_MS * sampleRate) / 1000);
  const pcm = new Int16Array(n);
  for (const seg of SCRIPT) {
    if (!seg.v) continue;
    const from = Math.round((seg.t * sampleRate) / 1000);
    const to = Math.round(((seg.t + seg.d) * sampleRate) / 1000);
    for (let i = from; i < to; i++) {
      const t = i / sampleRate;
      const env = Math.min(1, (i - from) / 80, (to - i) / 80);
      // A buzz at 140 Hz with formant-ish partials.
      const s = 0.5 * Math.sin(2 * Math.PI * 140 * t) + 0.3 * Math.sin(2 * Math.PI * 700 * t) + 0.2 * Math.sin(2 * Math.PI * 1200 * t);
      pcm[i] = Math.round(s * env * 14000);
    }
  }
  return pcm;
}

function audioFrame(utt, seq, pcm, last) {
  const out = Buffer.alloc(8 + pcm.byteLength);
  out.writeUInt8(2, 0);
  out.writeUInt8(last ? 1 : 0, 1);
  out.writeUInt16LE(utt & 0xffff, 2);
  out.writeUInt32LE(seq >>> 0, 4);
  Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength).copy(out, 8);
  return out;
}

/** CSP as the portal sends it for /avatar/{id} (see live-sessions routes). */
function csp(host) {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob: https:",
    "media-src 'self' blob: https:",
    `connect-src 'self' ws://${host}`,
    "frame-src 'self'",
    "font-src 'self' data:",
    "object-src 'none'",
    "base-uri 'self'",
    'frame-ancestors http: https:',
  ].join('; ');
}

/**
 * Starts the server. `avatars`: id → {name, dhType, avatarConfigUrl, photoUrl}; `files`: URL
 * path → {type, body} served as is (generated models, configs, host pages).
 */
export async function startFakeLive({ avatars = {}, files = {}, withVisemes = true, audioSampleRate = SAMPLE_RATE, frameMs = 20, listening = false, ui = {} } = {}) {
  const playback = [];
  /** Mic frames received (listening): header fields, PCM length and RMS, arrival time. */
  const mic = [];
  /** {type:'mic'} frames received. */
  const micSwitches = [];
  const sockets = new Set();
  const server = http.createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const host = req.headers.host;
    const send = (status, type, body, headers = {}) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...headers });
      res.end(body);
    };
    const file = (dir, rel, headers = {}) => {
      const full = path.join(dir, rel);
      if (!full.startsWith(dir) || !fs.existsSync(full) || fs.statSync(full).isDirectory()) return send(404, 'text/plain', 'not found');
      send(200, TYPES[path.extname(full)] ?? 'application/octet-stream', fs.readFileSync(full), headers);
    };
    if (files[url.pathname]) {
      const f = files[url.pathname];
      return send(200, f.type, f.body, f.headers ?? {});
    }
    let m;
    if ((m = /^\/avatar\/(\d+)$/.exec(url.pathname))) return file(webDist, 'avatar.html', { 'content-security-policy': csp(host) });
    if (url.pathname.startsWith('/react/')) return file(webDist, url.pathname.slice('/react/'.length));
    if (url.pathname.startsWith('/catalog/')) return file(catalog, url.pathname.slice('/catalog/'.length), { 'access-control-allow-origin': '*' });
    if ((m = /^\/api\/live\/avatars\/(\d+)$/.exec(url.pathname))) {
      const a = avatars[m[1]];
      if (!a) return send(404, 'application/json', JSON.stringify({ status: 'FAIL', errors: ['not found'] }));
      return send(200, 'application/json', JSON.stringify({ status: 'OK', avatar: { id: Number(m[1]), name: a.name, photoUrl: a.photoUrl ?? null, dhType: a.dhType, avatarConfigUrl: a.avatarConfigUrl ?? null, tokenRequired: false, oauth: null, engineName: 'Echo Test' } }));
    }
    if (url.pathname === '/api/live/sessions' && req.method === 'POST') {
      req.resume();
      return send(200, 'application/json', JSON.stringify({ status: 'OK', sessionId: `s${Date.now()}`, ticket: 't', wsUrl: `ws://${host}/avatar-ws`, resumeToken: 'r', ui: { wakeUpMessage: '', demoSeconds: -1, idleTimeoutSeconds: 300, subtitles: true, transcriptionStreaming: false, canHandleSttResponse: false, ...ui } }));
    }
    // The page asks again after losing its worker: the same session, another (stand-in) worker.
    if (url.pathname === '/api/live/sessions/resume' && req.method === 'POST') {
      req.resume();
      resumeNext = true;
      return send(200, 'application/json', JSON.stringify({ status: 'OK', sessionId: 's', ticket: 't', wsUrl: `ws://${host}/avatar-ws`, resumeToken: 'r' }));
    }
    if (url.pathname === '/api/live/sessions/end') {
      req.resume();
      return send(200, 'application/json', '{"status":"OK"}');
    }
    send(404, 'text/plain', 'not found');
  });
  const wss = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    if (!req.url?.startsWith('/avatar-ws')) return socket.destroy();
    wss.handleUpgrade(req, socket, head, (ws) => wss.emit('connection', ws));
  });
  let nextUtt = 1;
  let connections = 0;
  /** The next page socket is a resumed session's (the page called /api/live/sessions/resume). */
  let resumeNext = false;
  /** Sockets of a worker that died: what they still had in their buffers is never read. */
  const dead = new WeakSet();
  wss.on('connection', (ws) => {
    sockets.add(ws);
    connections++;
    const connection = connections;
    const resumed = resumeNext;
    resumeNext = false;
    ws.on('close', () => sockets.delete(ws));
    const json = (frame) => ws.readyState === ws.OPEN && ws.send(JSON.stringify(frame));
    // A stand-in for VAD + STT: loud frames are speech; after speech then 400 ms of quiet the
    // turn ends with a transcript naming how much was heard, and the avatar answers.
    let loud = 0;
    let quiet = 0;
    let interimSent = false;
    ws.on('message', (data, isBinary) => {
      if (dead.has(ws)) return;
      if (isBinary) {
        const buf = Buffer.from(data);
        const kind = buf.readUInt8(0);
        const seq = buf.readUInt32LE(4);
        const pcm = new Int16Array(buf.buffer.slice(buf.byteOffset + 8, buf.byteOffset + buf.length));
        let sum = 0;
        for (const s of pcm) sum += s * s;
        const rms = Math.sqrt(sum / Math.max(1, pcm.length));
        mic.push({ kind, flags: buf.readUInt8(1), seq, samples: pcm.length, rms, at: performance.now() });
        if (!listening || kind !== 1) return;
        if (rms > 300) {
          loud++;
          quiet = 0;
          if (loud >= 10 && !interimSent) {
            interimSent = true;
            json({ type: 'transcript', text: 'hello avatar', final: false });
          }
        } else if (loud >= 15 && ++quiet >= 20) {
          json({ type: 'transcript', text: `Hello avatar (${(loud * 0.02).toFixed(1)} s of speech).`, final: true });
          loud = 0;
          quiet = 0;
          interimSent = false;
          void speak(nextUtt++);
        }
        return;
      }
      const frame = JSON.parse(String(data));
      if (frame.type === 'mic') micSwitches.push(frame.enabled);
      if (frame.type === 'hello') {
        json({ type: 'ready', sessionId: 's', history: [], audioSampleRate, echo: false, resumed, ...(listening ? { listening: true } : {}) });
        json({ type: 'state', state: 'listening' });
      } else if (frame.type === 'text') {
        json({ type: 'transcript', id: frame.id, text: frame.text, final: true });
        void speak(nextUtt++);
      } else if (frame.type === 'playback') {
        playback.push({ ...frame, at: performance.now(), connection });
      } else if (frame.type === 'ping') {
        json({ type: 'pong', t: frame.t });
      }
    });
    async function speak(utt) {
      const text = SCRIPT.filter((s) => s.w).map((s) => s.w).join(' ');
      json({ type: 'state', state: 'speaking' });
      json({ type: 'assistant', utt, delta: text, final: false });
      json({ type: 'utterance', utt, phase: 'start', text });
      if (withVisemes) {
        json({ type: 'visemes', utt, items: SCRIPT.map((s) => ({ t: s.t, v: s.v ?? 'sil', d: s.d })) });
        json({ type: 'words', utt, items: SCRIPT.filter((s) => s.w).map((s) => ({ t: s.t, d: s.d, w: s.w })) });
      }
      const pcm = scriptPcm(audioSampleRate);
      const per = Math.round((frameMs * audioSampleRate) / 1000);
      const started = performance.now();
      let seq = 0;
      for (let i = 0; i < pcm.length; i += per) {
        const chunk = pcm.subarray(i, Math.min(pcm.length, i + per));
        if (ws.readyState !== ws.OPEN) return;
        ws.send(audioFrame(utt, seq++, chunk, i + per >= pcm.length));
        // Real-time pacing (a little ahead, as a TTS stream is).
        const due = started + ((i + per) / audioSampleRate) * 1000 - 60;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      json({ type: 'utterance', utt, phase: 'end' });
      json({ type: 'assistant', utt, text, final: true });
      json({ type: 'state', state: 'listening' });
    }
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    avatars,
    files,
    playback,
    mic,
    micSwitches,
    /** Page sockets opened so far (a resumed page opens another). */
    get connections() {
      return connections;
    },
    /**
     * The worker dies: every page socket drops without a goodbye, and the session resumes (next
     * connection: `resumed`) on a stand-in for another worker, which counts its utterances from 1.
     */
    killWorker() {
      for (const ws of sockets) {
        dead.add(ws);
        ws.terminate();
      }
      nextUtt = 1;
    },
    /** Sends a worker frame (JSON) to every open page socket: e.g. `pause` / `resume` mid-utterance. */
    broadcast(frame) {
      for (const ws of sockets) if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(frame));
    },
    async close() {
      for (const ws of sockets) ws.terminate();
      wss.close();
      await new Promise((r) => server.close(r));
    },
  };
}
