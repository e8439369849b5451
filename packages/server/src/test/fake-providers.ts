import { createHash, createHmac } from 'node:crypto';
import http from 'node:http';
import http2 from 'node:http2';
import type { AddressInfo, Socket } from 'node:net';

/**
 * Local fakes of the provider APIs the Brain tab's look-ups call, on 127.0.0.1, speaking each
 * API's real request and answer: paths, auth headers, query parameters, status codes and error
 * bodies. OpenAI-compatible (`/v1/models`, `/v1/assistants`), Gemini (`/v1beta/models?key=`),
 * Azure Speech (`/cognitiveservices/voices/list`, `/speechtotext/v3.2/transcriptions/locales`),
 * ElevenLabs (`/v1/voices`, `/v1/convai/conversation/token|get-signed-url`), Cartesia (`/voices`),
 * Neuphonic (`/voices`), Deepgram (`/v1/models`) and Amazon Polly (`GET /v1/voices`, SigV4, over
 * HTTP/2 as the AWS SDK speaks it).
 *
 * Knobs per fake: delay the answer, force a status, answer more than the look-ups read, redirect.
 */

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface FakeKnobs {
  /** Wait this long before answering. */
  delayMs?: number;
  /** Never answer: the request is held until the client gives up (a timeout that a slow machine cannot turn into an answer). */
  hang?: boolean;
  /** Answer this status with the provider's error body. */
  status?: number;
  /** Answer a body of this many bytes (chunked, no length announced). */
  oversizeBytes?: number;
  /** Answer 302 to this location. */
  redirectTo?: string;
}

export interface FakeProvider {
  origin: string;
  requests: RecordedRequest[];
  knobs: FakeKnobs;
  close(): Promise<void>;
}

type Reply = { status: number; body?: unknown; headers?: Record<string, string> };
type Handler = (req: RecordedRequest) => Reply;

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function serve(req: http.IncomingMessage, res: http.ServerResponse, fake: FakeProvider, handler: Handler) {
  const url = new URL(req.url ?? '/', 'http://fake');
  const chunks: Buffer[] = [];
  for await (const c of req as AsyncIterable<Buffer>) chunks.push(c);
  const headers = { ...req.headers };
  // HTTP/2 names the host :authority.
  if (headers.host === undefined && headers[':authority']) headers.host = String(headers[':authority']);
  const rec: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers, body: Buffer.concat(chunks).toString('utf8') };
  fake.requests.push(rec);
  const knobs = { ...fake.knobs };
  if (knobs.hang) {
    if (!res.destroyed) await new Promise((r) => res.once('close', r));
    return;
  }
  if (knobs.delayMs) await sleep(knobs.delayMs);
  if (res.destroyed) return;
  if (knobs.redirectTo) {
    res.writeHead(302, { location: knobs.redirectTo });
    return res.end();
  }
  if (knobs.oversizeBytes) {
    res.writeHead(200, { 'content-type': 'application/json' });
    const piece = Buffer.alloc(64 * 1024, 0x20);
    res.write('{"data":[');
    for (let sent = 0; sent < knobs.oversizeBytes && !res.destroyed; sent += piece.length) {
      if (!res.write(piece)) await new Promise((r) => res.once('drain', r));
    }
    return res.end(']}');
  }
  const reply = handler(rec);
  const status = knobs.status ?? reply.status;
  const body = knobs.status ? { error: { message: `fake status ${knobs.status}` } } : reply.body;
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...reply.headers });
  res.end(text);
}

async function startFake(handler: Handler, protocol: 'http1' | 'h2c' = 'http1'): Promise<FakeProvider> {
  const fake: FakeProvider = { origin: '', requests: [], knobs: {}, close: async () => {} };
  const onRequest = (req: http.IncomingMessage, res: http.ServerResponse) => {
    serve(req, res, fake, handler).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  };
  if (protocol === 'h2c') {
    const server = http2.createServer();
    const sessions = new Set<http2.ServerHttp2Session>();
    server.on('session', (s) => {
      sessions.add(s);
      s.on('close', () => sessions.delete(s));
    });
    server.on('request', (req, res) => onRequest(req as unknown as http.IncomingMessage, res as unknown as http.ServerResponse));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fake.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    fake.close = () =>
      new Promise<void>((resolve) => {
        for (const s of sessions) s.destroy();
        server.close(() => resolve());
      });
    return fake;
  }
  const server = http.createServer(onRequest);
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return fake;
}

const header = (req: RecordedRequest, name: string) => {
  const v = req.headers[name];
  return Array.isArray(v) ? v[0] : v;
};

// ── OpenAI-compatible: models and the Assistants API ──────────────────────────────────────

export const OPENAI_KEY = 'sk-test-openai-0123456789abcdef';
export const OPENAI_MODELS = ['gpt-4o-mini', 'gpt-4o', 'o3-mini'];
export const OPENAI_ASSISTANTS = [
  { id: 'asst_abc123', object: 'assistant', created_at: 1_700_000_200, name: 'Front desk', model: 'gpt-4o', instructions: 'Be kind.', tools: [] },
  { id: 'asst_def456', object: 'assistant', created_at: 1_700_000_100, name: null, model: 'gpt-4o-mini', instructions: null, tools: [] },
];

/** Serves under `/v1` (the base URL is `${origin}/v1`); `assistantsGone` answers like a server without the Assistants API. */
export async function startFakeOpenAi(opts: { assistantsGone?: 404 | 410 } = {}) {
  return startFake((req) => {
    const wrongKey = { status: 401, body: { error: { message: 'Incorrect API key provided: sk-***. You can find your API key at https://platform.openai.com/account/api-keys.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } };
    if (req.method === 'GET' && req.path === '/v1/models') {
      if (header(req, 'authorization') !== `Bearer ${OPENAI_KEY}`) return wrongKey;
      return { status: 200, body: { object: 'list', data: OPENAI_MODELS.map((id) => ({ id, object: 'model', created: 1_700_000_000, owned_by: 'system' })) } };
    }
    if (req.method === 'GET' && req.path === '/v1/assistants') {
      if (opts.assistantsGone) return { status: opts.assistantsGone, body: { error: { message: 'The Assistants API has been shut down.', type: 'invalid_request_error', code: null } } };
      if (header(req, 'authorization') !== `Bearer ${OPENAI_KEY}`) return wrongKey;
      if (header(req, 'openai-beta') !== 'assistants=v2') return { status: 400, body: { error: { message: "You must provide the 'OpenAI-Beta' header to access the Assistants API.", type: 'invalid_request_error' } } };
      if (req.query.get('order') !== 'desc' || req.query.get('limit') !== '100') return { status: 400, body: { error: { message: 'unexpected query' } } };
      return { status: 200, body: { object: 'list', data: OPENAI_ASSISTANTS, first_id: 'asst_abc123', last_id: 'asst_def456', has_more: false } };
    }
    return { status: 404, body: { error: { message: `Invalid URL (${req.method} ${req.path})`, type: 'invalid_request_error' } } };
  });
}

// ── Gemini: GET /v1beta/models?key= ───────────────────────────────────────────────────────

export const GEMINI_KEY = 'AIzaSyFAKE-gemini-key-000000000000';

export async function startFakeGemini() {
  const pages = [
    [
      { name: 'models/gemini-2.0-flash', displayName: 'Gemini 2.0 Flash', supportedGenerationMethods: ['generateContent', 'countTokens'] },
      { name: 'models/text-embedding-004', displayName: 'Text Embedding 004', supportedGenerationMethods: ['embedText', 'embedContent'] },
    ],
    [{ name: 'models/gemini-2.5-pro', displayName: 'Gemini 2.5 Pro', supportedGenerationMethods: ['generateContent'] }],
  ];
  return startFake((req) => {
    if (req.method !== 'GET' || req.path !== '/v1beta/models') return { status: 404, body: { error: { code: 404, message: 'Not found', status: 'NOT_FOUND' } } };
    if (req.query.get('key') !== GEMINI_KEY) return { status: 400, body: { error: { code: 400, message: 'API key not valid. Please pass a valid API key.', status: 'INVALID_ARGUMENT' } } };
    const page = req.query.get('pageToken') === 'page-2' ? 1 : 0;
    return { status: 200, body: { models: pages[page], ...(page === 0 ? { nextPageToken: 'page-2' } : {}) } };
  });
}

// ── Azure Speech: voices list and STT locales ─────────────────────────────────────────────

export const AZURE_KEY = '0123456789abcdef0123456789abcdef';

/**
 * Azure puts the region in the host; configured as `${origin}/{region}` the fake reads it from
 * the first path segment instead and records it.
 */
export async function startFakeAzure() {
  const regions: string[] = [];
  const fake = await startFake((req) => {
    const [, region, ...rest] = req.path.split('/');
    regions.push(region ?? '');
    const path = `/${rest.join('/')}`;
    if (header(req, 'ocp-apim-subscription-key') !== AZURE_KEY) {
      return { status: 401, body: { error: { code: '401', message: 'Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource.' } } };
    }
    if (req.method === 'GET' && path === '/cognitiveservices/voices/list') {
      return {
        status: 200,
        body: [
          { Name: 'Microsoft Server Speech Text to Speech Voice (en-US, JennyNeural)', DisplayName: 'Jenny', LocalName: 'Jenny', ShortName: 'en-US-JennyNeural', Gender: 'Female', Locale: 'en-US', LocaleName: 'English (United States)', SampleRateHertz: '24000', VoiceType: 'Neural', Status: 'GA', WordsPerMinute: '152' },
          { Name: 'Microsoft Server Speech Text to Speech Voice (de-DE, ConradNeural)', DisplayName: 'Conrad', LocalName: 'Conrad', ShortName: 'de-DE-ConradNeural', Gender: 'Male', Locale: 'de-DE', LocaleName: 'German (Germany)', SampleRateHertz: '48000', VoiceType: 'Neural', Status: 'GA' },
        ],
      };
    }
    if (req.method === 'GET' && path === '/speechtotext/v3.2/transcriptions/locales') return { status: 200, body: ['de-DE', 'en-GB', 'en-US', 'fr-FR'] };
    return { status: 404, body: { error: { code: '404', message: 'Resource not found' } } };
  });
  return Object.assign(fake, { regions });
}

// ── ElevenLabs: voices and the Conversational AI token ────────────────────────────────────

export const ELEVENLABS_KEY = 'sk_fake_elevenlabs_0123456789abcdef';
export const ELEVENLABS_AGENTS = { public: 'agent_public_000000000001', private: 'agent_private_00000000001', disabled: 'agent_disabled_0000000001' };

export async function startFakeElevenLabs() {
  return startFake((req) => {
    const key = header(req, 'xi-api-key');
    if (req.method === 'GET' && req.path === '/v1/voices') {
      if (key !== ELEVENLABS_KEY) return { status: 401, body: { detail: { status: 'invalid_api_key', message: 'Invalid API key' } } };
      return {
        status: 200,
        body: {
          voices: [
            { voice_id: '21m00Tcm4TlvDq8ikWAM', name: 'Rachel', category: 'premade', labels: { accent: 'american', description: 'calm', age: 'young', gender: 'female', use_case: 'narration' } },
            { voice_id: 'pNInz6obpgDQGcFmaJgB', name: 'Adam', category: 'premade', labels: { accent: 'american', gender: 'male' } },
          ],
        },
      };
    }
    if (req.method === 'GET' && (req.path === '/v1/convai/conversation/token' || req.path === '/v1/convai/conversation/get-signed-url')) {
      const agent = req.query.get('agent_id') ?? '';
      const ok = req.path.endsWith('/token') ? { token: 'eyJfake.conversation.token' } : { signed_url: `wss://api.elevenlabs.io/v1/convai/conversation?agent_id=${agent}&conversation_signature=fake` };
      if (key !== undefined && key !== ELEVENLABS_KEY) return { status: 401, body: { detail: { status: 'invalid_api_key', message: 'Invalid API key' } } };
      if (agent === ELEVENLABS_AGENTS.public) return { status: 200, body: ok };
      if (agent === ELEVENLABS_AGENTS.private) return key ? { status: 200, body: ok } : { status: 401, body: { detail: { status: 'missing_api_key', message: 'This agent requires authentication.' } } };
      if (agent === ELEVENLABS_AGENTS.disabled) return { status: 400, body: { detail: { status: 'agent_disabled', message: 'This agent has been disabled.' } } };
      return { status: 404, body: { detail: { status: 'agent_not_found', message: 'Agent not found' } } };
    }
    return { status: 404, body: { detail: 'Not Found' } };
  });
}

// ── Cartesia: GET /voices (paged) ─────────────────────────────────────────────────────────

export const CARTESIA_KEY = 'sk_car_fake_0123456789abcdef';

export async function startFakeCartesia() {
  const voices = [
    { id: 'a0e99841-438c-4a64-b679-ae501e7d6091', name: 'Barbershop Man', description: 'A deep voice', language: 'en', gender: 'masculine', is_owner: false, is_public: true },
    { id: '694f9389-aac1-45b6-b726-9d9369183238', name: 'Sarah', description: 'A warm voice', language: 'en', gender: 'feminine', is_owner: false, is_public: true },
    { id: 'b9de4a89-2257-424b-94c2-db18ba68c81a', name: 'Lena', description: 'German', language: 'de', gender: 'feminine', is_owner: true, is_public: false },
  ];
  return startFake((req) => {
    if (req.method !== 'GET' || req.path !== '/voices') return { status: 404, body: { error: 'Not found' } };
    if (header(req, 'x-api-key') !== CARTESIA_KEY) return { status: 401, body: { error: 'Invalid API key' } };
    if (!header(req, 'cartesia-version')) return { status: 400, body: { error: 'Cartesia-Version header is required' } };
    // Pages of two, as `limit` and `starting_after` ask (the fake's own page size is 2).
    const after = req.query.get('starting_after');
    const start = after ? voices.findIndex((v) => v.id === after) + 1 : 0;
    const page = voices.slice(start, start + 2);
    return { status: 200, body: { data: page, has_more: start + 2 < voices.length, next_page: page.at(-1)?.id ?? null } };
  });
}

// ── Neuphonic: GET /voices ────────────────────────────────────────────────────────────────

export const NEUPHONIC_KEY = 'neuphonic-fake-key-0123456789';

export async function startFakeNeuphonic() {
  return startFake((req) => {
    if (req.method !== 'GET' || req.path !== '/voices') return { status: 404, body: { detail: 'Not Found' } };
    if (header(req, 'x-api-key') !== NEUPHONIC_KEY) return { status: 403, body: { detail: 'Invalid API key.' } };
    return {
      status: 200,
      body: {
        data: {
          voices: [
            { voice_id: 'e564ba7e-aa8d-46a2-96a8-8dffedade48f', voice_name: 'Holly', lang_code: 'en', tags: ['Female'] },
            { voice_id: 'f8698a9e-947a-43cd-a897-57edd4070a78', voice_name: 'Miguel', lang_code: 'es', tags: ['Male'] },
          ],
        },
      },
    };
  });
}

// ── Deepgram: GET /v1/models ──────────────────────────────────────────────────────────────

export const DEEPGRAM_KEY = 'deepgram-fake-0123456789abcdef0123456789';

export async function startFakeDeepgram() {
  return startFake((req) => {
    if (req.method !== 'GET' || req.path !== '/v1/models') return { status: 404, body: { err_code: 'NOT_FOUND', err_msg: 'Not found' } };
    if (header(req, 'authorization') !== `Token ${DEEPGRAM_KEY}`) return { status: 401, body: { err_code: 'INVALID_AUTH', err_msg: 'Invalid credentials.', request_id: 'fake' } };
    return {
      status: 200,
      body: {
        stt: [
          { name: 'nova-3', canonical_name: 'nova-3-general', architecture: 'nova-3', languages: ['en', 'en-US'], version: '2025-01-01.0', uuid: 'u1', batch: true, streaming: true, formatted_output: true },
          { name: 'nova-3', canonical_name: 'nova-3-general', architecture: 'nova-3', languages: ['es', 'multi'], version: '2025-03-01.0', uuid: 'u2', batch: true, streaming: true, formatted_output: true },
          { name: 'nova-2', canonical_name: 'nova-2-phonecall', architecture: 'nova-2', languages: ['en'], version: '2024-01-09.29447', uuid: 'u3', batch: true, streaming: true, formatted_output: true },
        ],
        tts: [{ name: 'asteria', canonical_name: 'aura-asteria-en', architecture: 'aura', languages: ['en'], version: '2023-10-13.0', uuid: 'u4', metadata: { accent: 'American', color: '#7800ED', image: '', sample: '' } }],
      },
    };
  });
}

// ── Amazon Polly: DescribeVoices (REST JSON GET /v1/voices, SigV4, HTTP/2) ─────────────────

export const POLLY_KEY = { accessKeyId: 'AKIDFAKEPOLLY0000001', secretAccessKey: 'fake/secret/key/for/polly/tests/000000000' };

const sha256 = (s: string | Buffer) => createHash('sha256').update(s).digest('hex');
const hmac = (key: Buffer | string, s: string) => createHmac('sha256', key).update(s).digest();

/** Checks an AWS Signature Version 4 `Authorization` header the way AWS does; null when valid. */
function verifySigV4(req: RecordedRequest, secret: string, service: string): string | null {
  const auth = String(header(req, 'authorization') ?? '');
  const m = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([a-z0-9-]+)\/([a-z0-9-]+)\/aws4_request, ?SignedHeaders=([a-z0-9;:-]+), ?Signature=([0-9a-f]{64})$/.exec(auth);
  if (!m) return 'missing or malformed Authorization';
  const [, , date, region, svc, signedHeaders, signature] = m;
  if (svc !== service) return `signed for ${svc}, not ${service}`;
  const amzDate = String(header(req, 'x-amz-date') ?? '');
  if (!amzDate.startsWith(date!)) return 'x-amz-date does not match the credential scope';
  const names = signedHeaders!.split(';');
  if (!names.includes('host') && !names.includes(':authority')) return 'host is not signed';
  const canonicalHeaders = names.map((n) => `${n}:${String(header(req, n) ?? '').trim().replace(/\s+/g, ' ')}\n`).join('');
  const query = [...req.query.entries()]
    .map(([k, v]) => [encodeURIComponent(k), encodeURIComponent(v)])
    .sort()
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonical = [req.method, req.path, query, canonicalHeaders, signedHeaders, sha256(req.body)].join('\n');
  const scope = `${date}/${region}/${svc}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${secret}`, date!), region!), svc!), 'aws4_request');
  return createHmac('sha256', key).update(toSign).digest('hex') === signature ? null : 'The request signature we calculated does not match the signature you provided.';
}

export async function startFakePolly() {
  const regions: string[] = [];
  const amzError = (status: number, type: string, message: string): Reply => ({
    status,
    body: { message },
    headers: { 'x-amzn-errortype': `${type}:http://internal.amazon.com/coral/com.amazonaws.tts.v20160610/`, 'x-amzn-requestid': 'fake-req' },
  });
  const pages = [
    [
      { Gender: 'Female', Id: 'Joanna', LanguageCode: 'en-US', LanguageName: 'US English', Name: 'Joanna', SupportedEngines: ['generative', 'long-form', 'neural', 'standard'] },
      { Gender: 'Male', Id: 'Matthew', LanguageCode: 'en-US', LanguageName: 'US English', Name: 'Matthew', SupportedEngines: ['neural', 'standard'] },
    ],
    [{ Gender: 'Female', Id: 'Vicki', LanguageCode: 'de-DE', LanguageName: 'German', Name: 'Vicki', SupportedEngines: ['neural'] }],
  ];
  const fake = await startFake((req) => {
    if (req.method !== 'GET' || req.path !== '/v1/voices') return amzError(404, 'UnknownOperationException', 'not found');
    const cred = /Credential=([^/]+)\/\d{8}\/([a-z0-9-]+)\//.exec(String(header(req, 'authorization') ?? ''));
    regions.push(cred?.[2] ?? '');
    if (cred?.[1] !== POLLY_KEY.accessKeyId) return amzError(403, 'UnrecognizedClientException', 'The security token included in the request is invalid.');
    const bad = verifySigV4(req, POLLY_KEY.secretAccessKey, 'polly');
    if (bad) return amzError(403, 'InvalidSignatureException', bad);
    const page = req.query.get('NextToken') === 'page-2' ? 1 : 0;
    return { status: 200, body: { Voices: pages[page], ...(page === 0 ? { NextToken: 'page-2' } : {}) } };
  }, 'h2c');
  return Object.assign(fake, { regions });
}

/** Every fake, and the environment that points the server at them. */
export async function startFakeProviders() {
  const [openai, groq, gemini, azure, elevenlabs, cartesia, neuphonic, deepgram, polly] = await Promise.all([
    startFakeOpenAi(),
    startFakeOpenAi(),
    startFakeGemini(),
    startFakeAzure(),
    startFakeElevenLabs(),
    startFakeCartesia(),
    startFakeNeuphonic(),
    startFakeDeepgram(),
    startFakePolly(),
  ]);
  const all = [openai, groq, gemini, azure, elevenlabs, cartesia, neuphonic, deepgram, polly];
  return {
    openai,
    groq,
    gemini,
    azure,
    elevenlabs,
    cartesia,
    neuphonic,
    deepgram,
    polly,
    env: {
      PROVIDER_OPENAI_URL: `${openai.origin}/v1`,
      PROVIDER_GROQ_URL: `${groq.origin}/v1`,
      PROVIDER_GEMINI_URL: `${gemini.origin}/v1beta`,
      PROVIDER_AZURE_TTS_URL: `${azure.origin}/{region}`,
      PROVIDER_AZURE_STT_URL: `${azure.origin}/{region}`,
      PROVIDER_ELEVENLABS_URL: elevenlabs.origin,
      PROVIDER_CARTESIA_URL: cartesia.origin,
      PROVIDER_NEUPHONIC_URL: neuphonic.origin,
      PROVIDER_DEEPGRAM_URL: deepgram.origin,
      PROVIDER_POLLY_URL: polly.origin,
    },
    reset() {
      for (const f of all) {
        f.requests.length = 0;
        f.knobs = {};
      }
    },
    close: () => Promise.all(all.map((f) => f.close())).then(() => undefined),
  };
}
