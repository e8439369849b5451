import { createHash, createHmac } from 'node:crypto';
import type http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo } from 'node:net';
import { wavHeader as writeWavHeader } from '../core/audio.js';
import { listen, readBody, sendJson, sleep, type FakeServer } from '../../../net/src/test/http-fake.js';

/**
 * Local fakes of the text-to-speech providers, speaking their real wire formats (paths, headers,
 * auth, status codes, streaming frames), started by the tests:
 * Amazon Polly (REST JSON `POST /v1/speech` over HTTP/2 — the SDK's default handler — SigV4
 * verified), Azure Speech REST
 * (`/cognitiveservices/v1`, SSML), ElevenLabs (`/v1/text-to-speech/{voice}/stream/with-timestamps`,
 * newline-delimited JSON with character alignment), Cartesia (`/tts/sse`), Neuphonic
 * (`/sse/speak/{lang}`) and an OpenAI-compatible `/v1/audio/speech`.
 *
 * Their "voice" is `fakeSpeech`: a tone burst per word (45 ms per letter) with gaps, after a
 * leading silence — so tests can check lengths, trimming and that timings line up with sound.
 */

export interface FakeSpeech {
  samples: Int16Array;
  sampleRate: number;
  words: { word: string; startMs: number; endMs: number }[];
  /** One entry per character of the text (spaces and punctuation too), like ElevenLabs. */
  chars: { c: string; startMs: number; endMs: number }[];
}

export const FAKE_LEAD_MS = 150;
export const FAKE_TAIL_MS = 300;
const LETTER_MS = 45;
const GAP_MS = 60;

export function fakeSpeech(text: string, sampleRate: number, rate = 1): FakeSpeech {
  const words: FakeSpeech['words'] = [];
  const chars: FakeSpeech['chars'] = [];
  let t = FAKE_LEAD_MS;
  const bursts: { start: number; end: number }[] = [];
  const re = /\S+/g;
  let last = 0;
  for (const m of text.matchAll(re)) {
    for (let k = last; k < m.index; k++) chars.push({ c: text[k]!, startMs: t, endMs: t });
    const letters = m[0].replace(/[^\p{L}\p{N}']/gu, '').length || 1;
    const dur = (letters * LETTER_MS) / rate;
    // Letters share the word's sound; punctuation takes no time (where it falls, it is silent).
    const per = dur / letters;
    let at = t;
    for (const c of m[0]) {
      const isLetter = /[\p{L}\p{N}']/u.test(c);
      chars.push({ c, startMs: at, endMs: isLetter ? at + per : at });
      if (isLetter) at += per;
    }
    words.push({ word: m[0].replace(/^[^\p{L}\p{N}']+|[^\p{L}\p{N}']+$/gu, ''), startMs: t, endMs: t + dur });
    bursts.push({ start: t, end: t + dur });
    t += dur + GAP_MS / rate;
    last = m.index + m[0].length;
  }
  for (let k = last; k < text.length; k++) chars.push({ c: text[k]!, startMs: t, endMs: t });
  const total = Math.round(((t - GAP_MS / rate + FAKE_TAIL_MS) * sampleRate) / 1000);
  const samples = new Int16Array(Math.max(0, total));
  for (const b of bursts) {
    const from = Math.round((b.start * sampleRate) / 1000);
    const to = Math.min(samples.length, Math.round((b.end * sampleRate) / 1000));
    for (let i = from; i < to; i++) samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 220 * (i - from)) / sampleRate));
  }
  return { samples, sampleRate, words, chars };
}

export function pcmBytes(samples: Int16Array): Buffer {
  const b = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) b.writeInt16LE(samples[i]!, i * 2);
  return b;
}

/** Splits audio into `parts` pieces at odd byte offsets (clients must rejoin split samples). */
export function splitBytes(bytes: Buffer, parts: number): Buffer[] {
  const out: Buffer[] = [];
  const size = Math.max(1, Math.ceil(bytes.length / parts)) | 1;
  for (let at = 0; at < bytes.length; at += size) out.push(bytes.subarray(at, at + size));
  return out;
}

export interface RecordedTtsRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  body: string;
  json: Record<string, unknown> | null;
  at: number;
}

export interface FakeTtsKnobs {
  /** Delay before the response headers. */
  headersDelayMs?: number;
  /** Delay before the first audio frame (after the headers). */
  firstChunkDelayMs?: number;
  /** Delay between frames. */
  chunkDelayMs?: number;
  /** Frames the audio is cut into. */
  chunks?: number;
  /** Answer this status (with the provider's error body). */
  status?: number;
  /** Send an error in the stream after this many frames (streaming APIs). */
  streamErrorAfter?: number;
  /** Stop writing after this many frames (never end). */
  stallAfter?: number;
}

export interface FakeTts extends FakeServer {
  requests: RecordedTtsRequest[];
  /** Per-request behaviour (default: answer at once, 4 frames). */
  knobs: FakeTtsKnobs;
  /** Requests whose connection the client closed before the answer ended. */
  aborted: number;
}

type Handler = (req: RecordedTtsRequest, res: http.ServerResponse, knobs: FakeTtsKnobs, state: { closed: boolean }) => Promise<void>;

/** An HTTP/2 server without TLS (prior knowledge), as the AWS SDK's HTTP/2 handler speaks to http:// endpoints. */
async function listenH2(handler: (req: http.IncomingMessage, res: http.ServerResponse) => unknown): Promise<FakeServer> {
  const server = http2.createServer();
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on('session', (s) => {
    sessions.add(s);
    s.on('close', () => sessions.delete(s));
  });
  server.on('request', (req, res) => {
    Promise.resolve(handler(req as unknown as http.IncomingMessage, res as unknown as http.ServerResponse)).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sessions) s.destroy();
        server.close(() => resolve());
      }),
  };
}

async function startFake(handler: Handler, protocol: 'http1' | 'h2c' = 'http1'): Promise<FakeTts> {
  const fake = { requests: [] as RecordedTtsRequest[], knobs: {} as FakeTtsKnobs, aborted: 0 };
  const server = await (protocol === 'h2c' ? listenH2 : listen)(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const body = await readBody(req);
    let json: Record<string, unknown> | null = null;
    try {
      json = JSON.parse(body) as Record<string, unknown>;
    } catch {
      json = null;
    }
    // HTTP/2 names the host :authority.
    const headers = { ...req.headers, ...(req.headers.host === undefined && req.headers[':authority'] ? { host: String(req.headers[':authority']) } : {}) };
    const rec: RecordedTtsRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers, body, json, at: performance.now() };
    fake.requests.push(rec);
    const state = { closed: false };
    res.on('close', () => {
      if (!res.writableEnded) {
        state.closed = true;
        fake.aborted++;
      }
    });
    const knobs = { ...fake.knobs };
    if (knobs.headersDelayMs) await sleep(knobs.headersDelayMs);
    await handler(rec, res, knobs, state);
  });
  return Object.assign(fake, server);
}

/** Writes frames with the knobs' delays; false when the client went away or the fake stalls. */
async function stream(res: http.ServerResponse, frames: (string | Buffer)[], knobs: FakeTtsKnobs, state: { closed: boolean }, errorFrame?: string | Buffer): Promise<boolean> {
  if (knobs.firstChunkDelayMs) await sleep(knobs.firstChunkDelayMs);
  for (let k = 0; k < frames.length; k++) {
    if (state.closed) return false;
    if (knobs.streamErrorAfter !== undefined && k === knobs.streamErrorAfter && errorFrame !== undefined) {
      res.write(errorFrame);
      res.end();
      return false;
    }
    if (knobs.stallAfter !== undefined && k === knobs.stallAfter) return false;
    res.write(frames[k]!);
    if (knobs.chunkDelayMs && k < frames.length - 1) await sleep(knobs.chunkDelayMs);
  }
  return !state.closed;
}

// ─── ElevenLabs ────────────────────────────────────────────────────────────────────────────

export const ELEVENLABS_KEY = 'xi-test-key';

export function startFakeElevenLabs(): Promise<FakeTts> {
  return startFake(async (req, res, knobs, state) => {
    const m = /^\/v1\/text-to-speech\/([^/]+)\/stream\/with-timestamps$/.exec(req.path);
    if (req.method !== 'POST' || !m) return sendJson(res, 404, { detail: 'Not Found' });
    if (req.headers['xi-api-key'] !== ELEVENLABS_KEY) return sendJson(res, 401, { detail: { status: 'invalid_api_key', message: 'Invalid API key' } });
    if (knobs.status) return sendJson(res, knobs.status, { detail: { status: 'error', message: `fake status ${knobs.status}` } });
    const text = req.json?.text;
    if (typeof text !== 'string' || !text) return sendJson(res, 422, { detail: [{ loc: ['body', 'text'], msg: 'Field required', type: 'missing' }] });
    const format = req.query.get('output_format') ?? 'mp3_44100_128';
    const pcm = /^pcm_(\d+)$/.exec(format);
    if (!pcm) return sendJson(res, 422, { detail: [{ msg: `unsupported output format ${format} in this fake` }] });
    const speed = Number((req.json?.voice_settings as { speed?: number } | undefined)?.speed ?? 1);
    const speech = fakeSpeech(text, Number(pcm[1]), speed);
    res.writeHead(200, { 'content-type': 'application/json', 'transfer-encoding': 'chunked' });
    // The characters are spread over the frames: each frame carries its own slice of alignment.
    const parts = knobs.chunks ?? 4;
    const audio = splitBytes(pcmBytes(speech.samples), parts);
    const perFrame = Math.ceil(speech.chars.length / audio.length);
    const frames = audio.map((bytes, k) => {
      const cs = speech.chars.slice(k * perFrame, (k + 1) * perFrame);
      const alignment = cs.length
        ? { characters: cs.map((c) => c.c), character_start_times_seconds: cs.map((c) => c.startMs / 1000), character_end_times_seconds: cs.map((c) => c.endMs / 1000) }
        : null;
      return `${JSON.stringify({ audio_base64: bytes.toString('base64'), alignment, normalized_alignment: alignment })}\n`;
    });
    if (await stream(res, frames, knobs, state, `${JSON.stringify({ detail: { status: 'error', message: 'fake failure mid-stream' } })}\n`)) res.end();
  });
}

// ─── Cartesia ──────────────────────────────────────────────────────────────────────────────

export const CARTESIA_KEY = 'sk_car_test';

/** IPA for the fake's words: one symbol per letter, close enough for a viseme test. */
const IPA_OF: Record<string, string> = { a: 'æ', e: 'ɛ', i: 'ɪ', o: 'oʊ', u: 'u', y: 'j', c: 'k', q: 'k', x: 'k', j: 'dʒ', r: 'ɹ' };

export function startFakeCartesia(opts: { phonemes?: boolean } = {}): Promise<FakeTts> {
  return startFake(async (req, res, knobs, state) => {
    if (req.method !== 'POST' || req.path !== '/tts/sse') return sendJson(res, 404, { error: 'not found' });
    if (!req.headers['cartesia-version']) return sendJson(res, 400, { error: 'Cartesia-Version header is required' });
    const auth = req.headers.authorization === `Bearer ${CARTESIA_KEY}` || req.headers['x-api-key'] === CARTESIA_KEY;
    if (!auth) return sendJson(res, 401, { error: 'Invalid API key' });
    if (knobs.status) return sendJson(res, knobs.status, { error: `fake status ${knobs.status}` });
    const b = req.json ?? {};
    const fmt = b.output_format as { container?: string; encoding?: string; sample_rate?: number } | undefined;
    if (typeof b.transcript !== 'string' || !b.model_id || (b.voice as { id?: string } | undefined)?.id === undefined || fmt?.container !== 'raw' || fmt.encoding !== 'pcm_s16le' || !fmt.sample_rate) {
      return sendJson(res, 400, { error: 'invalid request' });
    }
    const speed = Number((b.generation_config as { speed?: number } | undefined)?.speed ?? 1);
    const speech = fakeSpeech(b.transcript, fmt.sample_rate, speed);
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const ctx = String(b.context_id ?? 'ctx-1');
    const ev = (o: object) => `data: ${JSON.stringify({ ...o, context_id: ctx })}\n\n`;
    const frames: string[] = [];
    const audio = splitBytes(pcmBytes(speech.samples), knobs.chunks ?? 4);
    const half = Math.ceil(speech.words.length / 2);
    audio.forEach((bytes, k) => {
      frames.push(ev({ type: 'chunk', data: bytes.toString('base64'), done: false, status_code: 206, step_time: 12 }));
      // Word and phoneme timestamps come in two batches, between audio chunks.
      if (k === 0 || k === Math.floor(audio.length / 2)) {
        const batch = k === 0 ? speech.words.slice(0, half) : speech.words.slice(half);
        if (b.add_timestamps && batch.length) frames.push(ev({ type: 'timestamps', done: false, status_code: 206, word_timestamps: { words: batch.map((w) => w.word), start: batch.map((w) => w.startMs / 1000), end: batch.map((w) => w.endMs / 1000) } }));
        if (b.add_phoneme_timestamps && opts.phonemes !== false && batch.length) {
          const phonemes: string[] = [];
          const start: number[] = [];
          const end: number[] = [];
          for (const w of batch) {
            const letters = w.word.toLowerCase().replace(/[^a-z]/g, '');
            const per = (w.endMs - w.startMs) / Math.max(1, letters.length);
            [...letters].forEach((l, i) => {
              phonemes.push(IPA_OF[l] ?? l);
              start.push((w.startMs + i * per) / 1000);
              end.push((w.startMs + (i + 1) * per) / 1000);
            });
          }
          frames.push(ev({ type: 'phoneme_timestamps', done: false, status_code: 206, phoneme_timestamps: { phonemes, start, end } }));
        }
      }
    });
    frames.push(ev({ type: 'done', done: true, status_code: 206 }));
    if (await stream(res, frames, knobs, state, ev({ type: 'error', done: true, status_code: 500, title: 'Generation failed', message: 'fake failure mid-stream', error_code: 'internal' }))) res.end();
  });
}

// ─── Neuphonic ─────────────────────────────────────────────────────────────────────────────

export const NEUPHONIC_KEY = 'neu-test-key';

export function startFakeNeuphonic(): Promise<FakeTts> {
  return startFake(async (req, res, knobs, state) => {
    const m = /^\/sse\/speak\/([a-z]{2,3}(?:-[a-z0-9]+)?)$/i.exec(req.path);
    if (req.method !== 'POST' || !m) return sendJson(res, 404, { detail: 'Not Found' });
    if (req.headers['x-api-key'] !== NEUPHONIC_KEY) return sendJson(res, 403, { detail: 'Invalid API key.' });
    if (knobs.status) return sendJson(res, knobs.status, { detail: `fake status ${knobs.status}` });
    const b = req.json ?? {};
    if (typeof b.text !== 'string' || b.encoding !== 'pcm_linear') return sendJson(res, 422, { detail: [{ msg: 'invalid request' }] });
    const rate = Number(b.sampling_rate ?? 22050);
    const speech = fakeSpeech(b.text, rate, Number(b.speed ?? 1));
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const frames = splitBytes(pcmBytes(speech.samples), knobs.chunks ?? 4).map(
      (bytes) => `event: message\ndata: ${JSON.stringify({ status_code: 200, data: { audio: bytes.toString('base64'), text: b.text, sampling_rate: rate } })}\n\n`,
    );
    if (await stream(res, frames, knobs, state, `event: error\ndata: ${JSON.stringify({ status_code: 500, errors: ['fake failure mid-stream'] })}\n\n`)) res.end();
  });
}

// ─── Azure Speech (REST) ───────────────────────────────────────────────────────────────────

export const AZURE_KEY = 'azure-test-key';

export function startFakeAzure(): Promise<FakeTts> {
  return startFake(async (req, res, knobs, state) => {
    if (req.method !== 'POST' || req.path !== '/cognitiveservices/v1') {
      res.writeHead(404).end();
      return;
    }
    if (req.headers['ocp-apim-subscription-key'] !== AZURE_KEY) {
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: '401', message: 'Access denied due to invalid subscription key or wrong API endpoint.' } }));
      return;
    }
    if (knobs.status) {
      res.writeHead(knobs.status).end();
      return;
    }
    const fmt = /^raw-(\d+)khz-16bit-mono-pcm$/.exec(String(req.headers['x-microsoft-outputformat'] ?? ''));
    const voice = /<voice name="([^"]+)">/.exec(req.body)?.[1];
    if (req.headers['content-type'] !== 'application/ssml+xml' || !fmt || !voice || !/^<speak [^>]*xml:lang="[a-z]{2}-[A-Z]{2}"/.test(req.body)) {
      res.writeHead(400).end();
      return;
    }
    const rateAttr = /<prosody rate="([+-]\d+)%">/.exec(req.body)?.[1];
    const text = req.body
      .replace(/<[^>]+>/g, '')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&');
    const speech = fakeSpeech(text, Number(fmt[1]) * 1000, rateAttr ? 1 + Number(rateAttr) / 100 : 1);
    res.writeHead(200, { 'content-type': 'audio/x-wav', 'transfer-encoding': 'chunked' });
    if (await stream(res, splitBytes(pcmBytes(speech.samples), knobs.chunks ?? 4), knobs, state)) res.end();
  });
}

// ─── OpenAI-compatible /audio/speech ───────────────────────────────────────────────────────

export const OPENAI_TTS_KEY = 'sk-test';

export function startFakeOpenAiSpeech(opts: { answerWav?: boolean; wavRate?: number } = {}): Promise<FakeTts> {
  return startFake(async (req, res, knobs, state) => {
    if (req.method !== 'POST' || req.path !== '/v1/audio/speech') return sendJson(res, 404, { error: { message: 'Not found', type: 'invalid_request_error' } });
    if (req.headers.authorization !== `Bearer ${OPENAI_TTS_KEY}`) return sendJson(res, 401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', code: 'invalid_api_key' } });
    if (knobs.status) return sendJson(res, knobs.status, { error: { message: `fake status ${knobs.status}`, type: 'server_error' } });
    const b = req.json ?? {};
    if (typeof b.input !== 'string' || !b.model || !b.voice) return sendJson(res, 400, { error: { message: 'input, model and voice are required', type: 'invalid_request_error' } });
    const rate = opts.answerWav ? (opts.wavRate ?? 22050) : 24000;
    const speech = fakeSpeech(b.input, rate, Number(b.speed ?? 1));
    let bytes = pcmBytes(speech.samples);
    if (opts.answerWav) bytes = Buffer.concat([wavHeader(rate, 1, bytes.length), bytes]);
    res.writeHead(200, { 'content-type': opts.answerWav ? 'audio/wav' : 'audio/pcm', 'transfer-encoding': 'chunked' });
    if (await stream(res, splitBytes(bytes, knobs.chunks ?? 4), knobs, state)) res.end();
  });
}

/** The WAV header core/audio.ts writes, as a Buffer. */
export const wavHeader = (sampleRate: number, channels: number, dataBytes: number): Buffer => Buffer.from(writeWavHeader(sampleRate, channels, dataBytes));

// ─── Amazon Polly (REST JSON, SigV4) ───────────────────────────────────────────────────────

export const POLLY_KEY = { accessKeyId: 'AKIDFAKEPOLLY0000001', secretAccessKey: 'fake/secret/key/for/polly/tests/000000000' };

const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
const hmac = (key: Buffer | string, s: string) => createHmac('sha256', key).update(s).digest();

/** Checks an AWS Signature Version 4 `Authorization` header the way AWS does; null when valid. */
export function verifySigV4(req: RecordedTtsRequest, secret: string, service: string): string | null {
  const auth = String(req.headers.authorization ?? '');
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([a-z0-9-]+)\/([a-z0-9-]+)\/aws4_request, ?SignedHeaders=([a-z0-9;:-]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) return 'missing or malformed Authorization';
  const [, , date, region, svc, signedHeaders, signature] = m;
  if (svc !== service) return `signed for ${svc}, not ${service}`;
  const amzDate = String(req.headers['x-amz-date'] ?? '');
  if (!amzDate.startsWith(date!)) return 'x-amz-date does not match the credential scope';
  const names = signedHeaders!.split(';');
  // HTTP/1.1 signs host; over HTTP/2 the SDK signs :authority.
  if (!names.includes('host') && !names.includes(':authority')) return 'host is not signed';
  const canonicalHeaders = names.map((n) => `${n}:${String(req.headers[n] ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const query = [...req.query.entries()]
    .map(([k, v]) => [encodeURIComponent(k), encodeURIComponent(v)])
    .sort()
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonical = [req.method, req.path, query, canonicalHeaders, signedHeaders, sha256(req.body)].join('\n');
  const scope = `${date}/${region}/${svc}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date!), region!), svc!), 'aws4_request');
  const expected = createHmac('sha256', key).update(toSign).digest('hex');
  return expected === signature ? null : 'The request signature we calculated does not match the signature you provided.';
}

/** Polly's visemes for the fake's letters (its viseme column, roughly). */
const POLLY_OF: Record<string, string> = { p: 'p', b: 'p', m: 'p', f: 'f', v: 'f', t: 't', d: 't', n: 't', k: 'k', g: 'k', s: 's', z: 's', r: 'r', l: 't', a: 'a', e: 'e', i: 'i', o: 'o', u: 'u', w: 'u', y: 'i', h: 'k', j: 'S', c: 'k', q: 'k', x: 's' };

export function startFakePolly(): Promise<FakeTts & { lastRegion: string | null }> {
  let lastRegion: string | null = null;
  const started = startFake(async (req, res, knobs, state) => {
    const amzError = (status: number, type: string, message: string) => {
      const body = JSON.stringify({ message });
      res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazonaws.tts.v20160610/`, 'x-amzn-requestid': 'fake-req', 'content-length': Buffer.byteLength(body) });
      res.end(body);
    };
    if (req.method !== 'POST' || req.path !== '/v1/speech') return amzError(404, 'UnknownOperationException', 'not found');
    const bad = verifySigV4(req, POLLY_KEY.secretAccessKey, 'polly');
    const cred = /Credential=([^/]+)\/\d{8}\/([a-z0-9-]+)\//.exec(String(req.headers.authorization ?? ''));
    lastRegion = cred?.[2] ?? null;
    if (cred?.[1] !== POLLY_KEY.accessKeyId) return amzError(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
    if (bad) return amzError(403, 'InvalidSignatureException', bad);
    if (knobs.status) return amzError(knobs.status, knobs.status >= 500 ? 'ServiceFailureException' : 'ValidationException', `fake status ${knobs.status}`);
    const b = req.json ?? {};
    const text = String(b.Text ?? '');
    if (!text || !b.VoiceId || !b.OutputFormat) return amzError(400, 'ValidationException', '1 validation error detected');
    let spoken = text;
    let rate = 1;
    if (b.TextType === 'ssml') {
      const pr = /<prosody rate="(\d+)%">/.exec(text);
      if (pr) rate = Number(pr[1]) / 100;
      spoken = text.replace(/<[^>]+>/g, '').replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&apos;/g, "'").replace(/&quot;/g, '"');
    }
    const sampleRate = b.SampleRate ? Number(b.SampleRate) : 16000;
    if (b.OutputFormat === 'pcm' && ![8000, 16000].includes(sampleRate)) return amzError(400, 'InvalidSampleRateException', 'invalid sample rate for pcm');
    const speech = fakeSpeech(spoken, 16000, rate);
    if (b.OutputFormat === 'json') {
      const types = (b.SpeechMarkTypes as string[] | undefined) ?? [];
      const lines: string[] = [];
      let offset = 0;
      for (const w of speech.words) {
        const at = spoken.indexOf(w.word, offset);
        offset = at + w.word.length;
        if (types.includes('word')) lines.push(JSON.stringify({ time: Math.round(w.startMs), type: 'word', start: at, end: at + w.word.length, value: w.word }));
        if (types.includes('viseme')) {
          const letters = w.word.toLowerCase().replace(/[^a-z]/g, '');
          const per = (w.endMs - w.startMs) / Math.max(1, letters.length);
          [...letters].forEach((l, i) => lines.push(JSON.stringify({ time: Math.round(w.startMs + i * per), type: 'viseme', value: POLLY_OF[l] ?? 'sil' })));
          lines.push(JSON.stringify({ time: Math.round(w.endMs), type: 'viseme', value: 'sil' }));
        }
      }
      const body = `${lines.join('\n')}\n`;
      res.writeHead(200, { 'content-type': 'application/x-json-stream', 'x-amzn-requestcharacters': String(spoken.length), 'x-amzn-requestid': 'fake-req' });
      res.end(body);
      return;
    }
    res.writeHead(200, { 'content-type': 'audio/pcm', 'x-amzn-requestcharacters': String(spoken.length), 'x-amzn-requestid': 'fake-req' });
    if (await stream(res, splitBytes(pcmBytes(speech.samples), knobs.chunks ?? 4), knobs, state)) res.end();
  }, 'h2c');
  return started.then((f) => Object.defineProperty(f, 'lastRegion', { get: () => lastRegion }) as FakeTts & { lastRegion: string | null });
}
