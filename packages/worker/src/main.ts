#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { redactingLogger } from '@persona/contract';
import { readWorkerConfig } from './config.js';
import { startLiveWorker } from './live/runtime.js';
import { operatorSttOf } from './providers/stt/network.js';
import { operatorTtsOf } from './speech/tts-choice.js';

const USAGE = `Persona Studio worker (avatar server)

  npm run worker -- --server <url> [--name NAME] [--listen [HOST:]PORT] [--ws-url URL] [--capacity N]

  --server    the portal server, e.g. https://portal.example.com (or WORKER_SERVER_URL); http:// only to this machine (localhost);
              several instances comma-separated: it connects to one, and to the next when it is lost
  --name      the name shown on VPS Status (default: worker-<hostname>) (or WORKER_NAME)
  --listen    where avatar pages connect to this worker (default 0.0.0.0:8090) (or WORKER_LISTEN)
  --ws-url    the websocket URL avatar pages use to reach it, when not ws://<host>:<port>/avatar-ws
              (behind TLS or a proxy: wss://…/avatar-ws; add its origin to the portal's
              WORKER_WS_ORIGINS) (or WORKER_WS_URL)
  --capacity  live sessions it takes at most (default 200) (or WORKER_CAPACITY)
  --drain-seconds
              on SIGTERM it takes no new session and lets the ones it holds end; after this
              long (default 300) their pages move to another worker (or WORKER_DRAIN_SECONDS).
              A second SIGTERM or SIGINT stops at once (the pages move now).

WORKER_CREDENTIAL is this worker's own credential, bound to its --name/vpsId (issued on the
portal: npm run admin -- worker-credential issue <vpsId>). Without it, WORKER_SECRET (the
server's shared secret, or the one it generated into DATA_DIR/worker-secret) enrols the worker
and the portal gives it a credential — where the portal allows that (WORKER_ENROLMENT: by
default only on the portal's own machine). REALTIME_API_KEY (and REALTIME_URL,
default OpenAI's) is the operator's key for the product's own speech-to-speech realtime.
PROVIDER_ELEVENLABS_URL (default https://api.elevenlabs.io) is where ElevenLabs Conversational
AI avatars connect: a gateway of the operator's (the server's variable of the same name).
PLATFORM_TTS_* and PLATFORM_STT_* (PROVIDER azure, polly or openai / azure, google, deepgram or
openai, with API_KEY, REGION, URL, VOICE, MODEL as the provider needs; the README lists them) are
the product's own voice and speech to text for Simple-mode avatars and Default voices: give them
the portal's values (unset: the offline voice and recogniser).
WORKER_STT_PROCESSES: how many pocketsphinx processes the offline recogniser may run at once
(default one per core, at most 4; each holds ~100 MB; the second starts when utterances overlap).
With Debian's python3-pocketsphinx the offline recogniser decodes while the visitor speaks (ADR
106; two processes per core, at most 6, each held while a visitor speaks; POCKETSPHINX_PYTHON:
its python3, default /usr/bin/python3); WORKER_STT_STREAMING=off, or without it: the batch one.
METRICS_TOKEN (16+ characters) serves Prometheus metrics at /metrics on the --listen port to
"Authorization: Bearer <METRICS_TOKEN>"; unset, there is no /metrics.
HTTP_HEADERS_TIMEOUT_MS (default 20000) and HTTP_REQUEST_TIMEOUT_MS (default 300000): how long a
connection to the --listen port may take to send a request's headers (and to become a WebSocket),
and a whole request. MAX_CONNECTIONS_PER_IP (default 256; 0: none): connections open at once from
one address — behind a reverse proxy every connection has the proxy's address: set 0 there.`;

const { values } = parseArgs({
  options: {
    server: { type: 'string' },
    name: { type: 'string' },
    'ws-url': { type: 'string' },
    listen: { type: 'string' },
    capacity: { type: 'string' },
    'drain-seconds': { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
let config: ReturnType<typeof readWorkerConfig>;
try {
  config = readWorkerConfig({ server: values.server, name: values.name, wsUrl: values['ws-url'], listen: values.listen, capacity: values.capacity, drainSeconds: values['drain-seconds'] });
} catch (err) {
  console.error(`${err instanceof Error ? err.message : err}\n\n${USAGE}`);
  process.exit(1);
}
const worker = await startLiveWorker({
  // Its agent's, its sessions' and its sandbox's lines, URLs in them without credentials.
  log: redactingLogger({
    info: (m, d) => console.log(`[worker] ${m}`, d ?? ''),
    warn: (m, d) => console.warn(`[worker] ${m}`, d ?? ''),
    error: (m, d) => console.error(`[worker] ${m}`, d ?? ''),
  }),
  serverUrl: config.serverUrls,
  secret: config.secret,
  credential: config.credential,
  name: config.name,
  webSocketUrl: config.wsUrl,
  listen: config.listen,
  capacity: config.capacity,
  metricsToken: config.metricsToken,
  connectionLimits: { headersTimeoutMs: config.headersTimeoutMs, requestTimeoutMs: config.requestTimeoutMs, maxConnectionsPerIp: config.maxConnectionsPerIp },
  listening: { offlineProcesses: config.sttProcesses, ...(config.noiseSuppression ? {} : { denoise: false as const }), ...(config.echoCancellation ? {} : { echo: false as const }), avatarModels: config.sttAvatarModels ? { dir: config.sttModelDir } : false, modelDir: config.sttModelDir, overAvatarModel: config.sttOverAvatarModel },
  tts: { operator: operatorTtsOf(config.platformTts) },
  stt: { operator: operatorSttOf(config.platformStt) },
  realtime: { operator: { apiKey: config.realtimeApiKey, url: config.realtimeUrl }, elevenLabs: { baseUrl: config.elevenLabsUrl } },
});
console.log(`[worker] page sockets on port ${worker.port}; capacity ${config.capacity}`);
worker.onDeleted = () => process.exit(0);
let stopping = false;
const stopNow = () => {
  if (stopping) return;
  stopping = true;
  void worker.stop().then(() => process.exit(0));
};
let draining = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => (draining ? stopNow() : drain()));
/** SIGTERM or Ctrl-C: no new sessions; the current ones end, or move after --drain-seconds. A second one: stop now. */
function drain() {
  draining = true;
  const held = worker.runtime.sessions();
  console.log(`[worker] draining: no new sessions; ${held} in progress${held ? ` (moved to another worker after ${config.drainSeconds} s)` : ''}`);
  const deadline = setTimeout(() => {
    console.log(`[worker] drain time over: ${worker.runtime.sessions()} session(s) move to another worker`);
    stopNow();
  }, config.drainSeconds * 1000);
  void worker.runtime.drain().then(() => {
    clearTimeout(deadline);
    console.log('[worker] drained: stopping');
    stopNow();
  });
}
