import { z } from 'zod';
import { platformSpeechFromEnv } from '@persona/contract';

/** https://, or http:// to this machine itself (localhost, 127.0.0.0/8, ::1). */
export function isSecureOrLoopback(url: string): boolean {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return false;
  }
  if (u.protocol === 'https:' || u.protocol === 'wss:') return true;
  const host = u.hostname.toLowerCase();
  return host === 'localhost' || host.endsWith('.localhost') || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) || host === '[::1]';
}

const ZWorkerEnv = z.object({
  /** One portal URL, or every instance's, comma-separated (the worker moves to the next when one is lost). */
  serverUrls: z
    .string({ error: 'the server URL (--server) is required' })
    .transform((v) => v.split(',').map((u) => u.trim()).filter(Boolean))
    .pipe(
      z
        .array(
          z
            .url({ protocol: /^https?$/, error: 'the server URL (--server) must be http(s)://…' })
            // The worker's credential goes over it, and the avatars' keys come back: in clear only on this machine.
            .refine(isSecureOrLoopback, { error: (issue) => `the server URL (--server) must be https:// unless it is this machine (http://localhost, 127.0.0.1, [::1]): ${String(issue.input)} would carry the worker's credential and the avatars' keys in clear` }),
        )
        .min(1, 'the server URL (--server) is required')
        .max(16, 'at most 16 server URLs'),
    ),
  /** The shared secret: enrols this worker (only where the portal allows it: WORKER_ENROLMENT, ADR 086). */
  secret: z.string().min(16, 'WORKER_SECRET must be at least 16 characters').optional(),
  /** This worker's own credential (`npm run admin -- worker-credential issue <vpsId>` on the portal). */
  credential: z.string().min(16, 'WORKER_CREDENTIAL must be at least 16 characters').optional(),
  name: z.string().min(1).max(100).optional(),
  wsUrl: z.url({ protocol: /^wss?$/, error: '--ws-url must be ws(s)://…' }).optional(),
  listen: z
    .string()
    .regex(/^(?:(.+):)?(\d{1,5})$/, '--listen must be PORT or HOST:PORT')
    .transform((v) => {
      const m = /^(?:(.+):)?(\d{1,5})$/.exec(v)!;
      return { host: m[1] ?? '0.0.0.0', port: Number(m[2]) };
    })
    .refine((v) => v.port <= 65535, '--listen port must be at most 65535')
    .default({ host: '0.0.0.0', port: 8090 }),
  capacity: z.coerce.number({ error: '--capacity must be a number' }).int('--capacity must be a whole number').min(1, '--capacity must be at least 1').max(100_000).default(200),
  /** SIGTERM: how long the sessions held may go on before they are moved to another worker (their pages resume there). */
  drainSeconds: z.coerce.number({ error: '--drain-seconds must be a number' }).int('--drain-seconds must be a whole number').min(0, '--drain-seconds must be at least 0').max(86_400).default(300),
  /** Offline speech recognition: resident pocketsphinx processes at most (default one per core, at most 4; ~100 MB each). */
  sttProcesses: z.coerce.number({ error: 'WORKER_STT_PROCESSES must be a number' }).int('WORKER_STT_PROCESSES must be a whole number').min(1, 'WORKER_STT_PROCESSES must be at least 1').max(64).optional(),
  /** Noise suppression (RNNoise) of the visitors' audio before the VAD and the STT, on unless `off` (ADR 096). */
  noiseSuppression: z.enum(['on', 'off'], { error: 'WORKER_NOISE_SUPPRESSION must be on or off' }).default('on').transform((v) => v === 'on'),
  /** Cancellation of the avatar's own voice in the visitors' audio, before the denoiser, on unless `off` (ADR 103). */
  echoCancellation: z.enum(['on', 'off'], { error: 'WORKER_ECHO_CANCELLATION must be on or off' }).default('on').transform((v) => v === 'on'),
  /**
   * Each avatar's own language model for the offline recogniser, off unless `on` (ADR 105: its build
   * runs on the worker's event loop in slices of up to ~0.2–1 s, for a gain of 2.6 WER points
   * in-domain and a loss of 0.8 on general speech); WORKER_STT_MODEL_DIR: where they are cached.
   */
  sttAvatarModels: z.enum(['on', 'off'], { error: 'WORKER_STT_AVATAR_MODELS must be on or off' }).default('off').transform((v) => v === 'on'),
  sttModelDir: z.string().min(1).optional(),
  /**
   * Speech over the avatar decoded with a model biased toward backchannels and stop requests (the
   * streaming offline recogniser), off unless `on` (ADR 107: no gain measured with synthetic voices on a quiet machine).
   */
  sttOverAvatarModel: z.enum(['on', 'off'], { error: 'WORKER_STT_OVER_AVATAR must be on or off' }).default('off').transform((v) => v === 'on'),
  /** The product's own realtime (SpeechToSpeech avatars without a key): the operator's OpenAI key and URL. */
  realtimeApiKey: z.string().min(1).optional(),
  realtimeUrl: z.url({ protocol: /^wss?$/, error: 'REALTIME_URL must be ws(s)://…' }).optional(),
  /**
   * ElevenLabs Conversational AI: the operator's API base (a gateway, a test fake; the server's
   * variable of the same name). Set by the operator, it may be a private address.
   */
  elevenLabsUrl: z
    .url({ protocol: /^https?$/, error: 'PROVIDER_ELEVENLABS_URL must be http(s)://…' })
    .transform((v) => v.replace(/\/+$/, ''))
    .optional(),
  /** Serve GET /metrics (Prometheus) to `Authorization: Bearer <METRICS_TOKEN>`; unset: no /metrics (404). */
  metricsToken: z.string().min(16, 'METRICS_TOKEN must be at least 16 characters').optional(),
  /** The --listen port's limits (the portal's variables of the same names; @persona/net's connection-guard.ts). */
  headersTimeoutMs: z.coerce.number({ error: 'HTTP_HEADERS_TIMEOUT_MS must be a number' }).int().min(50, 'HTTP_HEADERS_TIMEOUT_MS must be at least 50').max(600_000).default(20_000),
  requestTimeoutMs: z.coerce.number({ error: 'HTTP_REQUEST_TIMEOUT_MS must be a number' }).int().min(50, 'HTTP_REQUEST_TIMEOUT_MS must be at least 50').max(3_600_000).default(300_000),
  /** Connections open at once per address; behind a reverse proxy every one has the proxy's address: set 0 there. */
  maxConnectionsPerIp: z.coerce.number({ error: 'MAX_CONNECTIONS_PER_IP must be a number' }).int().min(0, 'MAX_CONNECTIONS_PER_IP must be at least 0').max(1_000_000).default(256),
})
  .refine((c) => c.headersTimeoutMs <= c.requestTimeoutMs, 'HTTP_HEADERS_TIMEOUT_MS must not be longer than HTTP_REQUEST_TIMEOUT_MS')
  .refine((c) => c.secret !== undefined || c.credential !== undefined, 'WORKER_CREDENTIAL (its own credential) or WORKER_SECRET (to enrol) is required');

/** The worker's configuration: flags first, then the environment given. */
export function loadWorkerConfig(env: Record<string, string | undefined>, flags: { server?: string; name?: string; wsUrl?: string; listen?: string; capacity?: string; drainSeconds?: string }) {
  const parsed = ZWorkerEnv.safeParse({
    serverUrls: flags.server ?? env.WORKER_SERVER_URL,
    secret: env.WORKER_SECRET?.trim() || undefined,
    credential: env.WORKER_CREDENTIAL?.trim() || undefined,
    name: flags.name ?? env.WORKER_NAME,
    wsUrl: flags.wsUrl ?? env.WORKER_WS_URL,
    listen: flags.listen ?? env.WORKER_LISTEN,
    capacity: flags.capacity ?? env.WORKER_CAPACITY,
    drainSeconds: flags.drainSeconds ?? env.WORKER_DRAIN_SECONDS,
    sttProcesses: env.WORKER_STT_PROCESSES?.trim() || undefined,
    noiseSuppression: env.WORKER_NOISE_SUPPRESSION?.trim().toLowerCase() || undefined,
    echoCancellation: env.WORKER_ECHO_CANCELLATION?.trim().toLowerCase() || undefined,
    sttAvatarModels: env.WORKER_STT_AVATAR_MODELS?.trim().toLowerCase() || undefined,
    sttModelDir: env.WORKER_STT_MODEL_DIR?.trim() || undefined,
    sttOverAvatarModel: env.WORKER_STT_OVER_AVATAR?.trim().toLowerCase() || undefined,
    realtimeApiKey: env.REALTIME_API_KEY?.trim() || undefined,
    realtimeUrl: env.REALTIME_URL?.trim() || undefined,
    elevenLabsUrl: env.PROVIDER_ELEVENLABS_URL?.trim() || undefined,
    metricsToken: env.METRICS_TOKEN?.trim() || undefined,
    headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS?.trim() || undefined,
    requestTimeoutMs: env.HTTP_REQUEST_TIMEOUT_MS?.trim() || undefined,
    maxConnectionsPerIp: env.MAX_CONNECTIONS_PER_IP?.trim() || undefined,
  });
  // The product's own voice and speech to text (Simple mode, Default): the portal's variables of the same names.
  const speech = platformSpeechFromEnv(env);
  const problems = [...(parsed.success ? [] : parsed.error.issues.map((i) => i.message)), ...speech.problems];
  if (!parsed.success || problems.length) throw new Error(`Invalid worker configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return { ...parsed.data, platformTts: speech.tts, platformStt: speech.stt };
}

/** `npm run worker`'s configuration: its flags, then this process's environment. */
export function readWorkerConfig(flags: Parameters<typeof loadWorkerConfig>[1]) {
  return loadWorkerConfig(process.env, flags);
}

/** The variables that say where the offline recogniser is installed (providers/stt/offline.ts), read when asked. */
export interface PocketsphinxEnv {
  PATH?: string;
  POCKETSPHINX_MODEL_DIR?: string;
  /** 'on': the streaming recogniser where python3-pocketsphinx imports (providers/stt/offline-stream.ts, ADR 106); else the batch one. */
  WORKER_STT_STREAMING?: string;
  /** The python3 that has Debian's python3-pocketsphinx (default /usr/bin/python3). */
  POCKETSPHINX_PYTHON?: string;
}

export function pocketsphinxEnv(): PocketsphinxEnv {
  return { PATH: process.env.PATH, POCKETSPHINX_MODEL_DIR: process.env.POCKETSPHINX_MODEL_DIR, WORKER_STT_STREAMING: process.env.WORKER_STT_STREAMING, POCKETSPHINX_PYTHON: process.env.POCKETSPHINX_PYTHON };
}
