import path from 'node:path';
import { z } from 'zod';
import { platformSpeechFromEnv, type TLlmProviderId, type TPlatformStt, type TPlatformTts } from '@persona/contract';

const bool = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0', 'yes', 'no', ''])
    .optional()
    .transform((v) => (v === undefined || v === '' ? fallback : v === 'true' || v === '1' || v === 'yes'));

const optionalUrl = (protocols: string[]) =>
  z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .refine(
      (v) => {
        if (v === undefined) return true;
        try {
          return protocols.includes(new URL(v).protocol);
        } catch {
          return false;
        }
      },
      { message: `must be a URL starting with ${protocols.map((p) => `${p}//`).join(' or ')}` },
    );

/** A URL that may hold `{region}` in its host (Azure's regional endpoints). */
const regionTemplateUrl = z
  .string()
  .optional()
  .transform((v) => (v === '' ? undefined : v))
  .refine(
    (v) => {
      if (v === undefined) return true;
      try {
        return ['http:', 'https:'].includes(new URL(v.replaceAll('{region}', 'region')).protocol);
      } catch {
        return false;
      }
    },
    { message: 'must be a URL starting with http:// or https:// (it may contain {region})' },
  );

/** Every variable the server reads. Nothing else in the server reads process.env. */
export const ZEnv = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('production'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  PUBLIC_URL: optionalUrl(['http:', 'https:']),
  APP_KEY: z
    .string()
    .regex(/^[A-Za-z0-9._-]{8,128}$/, 'must be 8-128 characters of letters, digits, dot, dash or underscore')
    .default('persona-studio-web'),
  DATABASE_URL: optionalUrl(['postgres:', 'postgresql:']),
  REDIS_URL: optionalUrl(['redis:', 'rediss:']),
  STORAGE_URL: optionalUrl(['file:', 's3:', 'http:', 'https:']),
  SMTP_URL: optionalUrl(['smtp:', 'smtps:']),
  MAIL_FROM: z.string().min(3).default('Persona Studio <no-reply@persona.studio>'),
  SECRET_KEY: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .refine((v) => v === undefined || /^[0-9a-fA-F]{64}$/.test(v) || Buffer.from(v, 'base64').length === 32, {
      message: 'must be 32 bytes as 64 hex characters or base64',
    }),
  WORKER_SECRET: z.string().optional().transform((v) => (v === '' ? undefined : v)),
  /** Where the shared WORKER_SECRET may enrol a worker (ADR 086): this machine only, anywhere, or nowhere. */
  WORKER_ENROLMENT: z.enum(['loopback', 'open', 'off'], { error: 'must be loopback, open or off' }).default('loopback'),
  // ws(s) origins of avatar servers on other hosts, which pages may connect to (CSP connect-src).
  WORKER_WS_ORIGINS: z
    .string()
    .default('')
    .transform((v, ctx) => {
      const origins: string[] = [];
      for (const part of v.split(',').map((p) => p.trim()).filter(Boolean)) {
        let url: URL | undefined;
        try {
          url = new URL(part);
        } catch {
          url = undefined;
        }
        if (!url || (url.protocol !== 'ws:' && url.protocol !== 'wss:') || !url.hostname || url.username || url.password) {
          ctx.addIssue({ code: 'custom', message: `"${part}" is not a ws:// or wss:// address (e.g. wss://avatars-1.example.com:8443)` });
          return z.NEVER;
        }
        origins.push(`${url.protocol}//${url.host}`);
      }
      return [...new Set(origins)];
    }),
  ALLOW_PRIVATE_URLS: bool(false),
  ALLOW_REGISTRATION: bool(false),
  /** The visitor's address in the conversations the customers read (ADR 092): off — a pseudonym only — unless the operator turns it on. */
  CONVERSATIONS_SHOW_IP: bool(false),
  TRUST_PROXY: bool(false),
  // The HTTP listener's limits: until a request's headers, and the whole request, have
  // arrived; connections open at once per address (default 256 — none behind TRUST_PROXY, where
  // every connection comes from the proxy). 0: no cap.
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(50).max(600_000).default(20_000),
  HTTP_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(50).max(3_600_000).default(300_000),
  MAX_CONNECTIONS_PER_IP: z.coerce.number().int().min(0).max(1_000_000).optional(),
  EMBEDDED_WORKER: bool(true),
  ADMIN_EMAIL: z.email('must be an e-mail address').default('admin@persona.local'),
  ADMIN_PASSWORD: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .refine((v) => v === undefined || (v.length >= 8 && v.length <= 128), { message: 'must be 8-128 characters' }),
  // Where customers send what the portal cannot take itself (an image avatar's photo); ADMIN_EMAIL when unset.
  CONTACT_EMAIL: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .pipe(z.email('must be an e-mail address').optional()),
  COMPANY_NAME: z.string().min(1).default('Persona Studio'),
  DOCS_URL: z.string().min(1).default('/react/docs'),
  PLAN_MAX_AVATARS: z
    .string()
    .default('FREE=1,STARTER=3,PRO=10,ENTERPRISE=unlimited')
    .transform((v, ctx) => {
      const limits: Record<string, number | null> = { NONE: 0, FREE: 1, STARTER: 3, PRO: 10, ENTERPRISE: null };
      for (const part of v.split(',').map((p) => p.trim()).filter(Boolean)) {
        const [plan, value] = part.split('=').map((x) => x.trim().toUpperCase());
        if (!plan || !(plan in limits) || !value || !/^(\d+|UNLIMITED)$/.test(value)) {
          ctx.addIssue({ code: 'custom', message: `"${part}" is not PLAN=number or PLAN=unlimited (plans: FREE, STARTER, PRO, ENTERPRISE)` });
          return z.NEVER;
        }
        limits[plan] = value === 'UNLIMITED' ? null : Number(value);
      }
      return limits;
    }),
  // Prometheus metrics at GET /metrics for `Authorization: Bearer <METRICS_TOKEN>`; unset: no /metrics (404).
  METRICS_TOKEN: z
    .string()
    .optional()
    .transform((v) => (v?.trim() ? v.trim() : undefined))
    .refine((v) => v === undefined || v.length >= 16, { message: 'must be at least 16 characters' }),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WEB_DIST_DIR: z.string().optional(),
  // Knowledge base embeddings: the offline model by default, an OpenAI-compatible endpoint when
  // EMBEDDINGS_URL is set, or none (full-text search only) with EMBEDDINGS=off.
  EMBEDDINGS: z.enum(['local', 'off']).default('local'),
  EMBEDDINGS_URL: optionalUrl(['http:', 'https:']),
  EMBEDDINGS_MODEL: z.string().min(1).default('text-embedding-3-small'),
  EMBEDDINGS_API_KEY: z.string().optional().transform((v) => (v === '' ? undefined : v)),
  // Simple mode's model (an OpenAI-compatible endpoint the operator runs or pays for).
  PLATFORM_LLM_URL: optionalUrl(['http:', 'https:']),
  PLATFORM_LLM_API_KEY: z.string().optional().transform((v) => (v === '' ? undefined : v)),
  PLATFORM_LLM_MODEL: z.string().min(1).max(200).default('gpt-4o-mini'),
  // The product's own speech-to-speech realtime (SpeechToSpeech avatars without a key of their
  // own), for the embedded worker; `npm run worker` reads the same two names.
  REALTIME_API_KEY: z.string().optional().transform((v) => (v === '' ? undefined : v)),
  REALTIME_URL: optionalUrl(['ws:', 'wss:']),
  EMBEDDINGS_DIMENSIONS: z.coerce.number().int().min(8).max(4000).default(1536),
  // Provider look-ups of the avatar creator: each provider's API host (tests, gateways, sovereign clouds).
  // PROVIDER_ELEVENLABS_URL also serves the embedded worker's Conversational AI (`npm run worker` reads the same name).
  PROVIDER_OPENAI_URL: optionalUrl(['http:', 'https:']),
  PROVIDER_GROQ_URL: optionalUrl(['http:', 'https:']),
  PROVIDER_GEMINI_URL: optionalUrl(['http:', 'https:']),
  PROVIDER_ELEVENLABS_URL: optionalUrl(['http:', 'https:']),
  PROVIDER_CARTESIA_URL: optionalUrl(['http:', 'https:']),
  PROVIDER_NEUPHONIC_URL: optionalUrl(['http:', 'https:']),
  PROVIDER_DEEPGRAM_URL: optionalUrl(['http:', 'https:']),
  PROVIDER_POLLY_URL: optionalUrl(['http:', 'https:']),
  PROVIDER_AZURE_TTS_URL: regionTemplateUrl,
  PROVIDER_AZURE_STT_URL: regionTemplateUrl,
  PROVIDER_LOOKUP_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(8_000),
  // Knowledge uploads: the time one document may take to be read (in a worker thread, then
  // stopped), and the storage each account may use for knowledge files.
  KNOWLEDGE_EXTRACT_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(3600).default(60),
  KNOWLEDGE_QUOTA_MB: z.coerce.number().int().min(1).max(10_000_000).default(1024),
});

export type TEnv = z.infer<typeof ZEnv>;

export interface Config {
  env: TEnv['NODE_ENV'];
  port: number;
  host: string;
  dataDir: string;
  publicUrl: string;
  appKey: string;
  databaseUrl: string | undefined;
  redisUrl: string | undefined;
  storageUrl: string | undefined;
  smtpUrl: string | undefined;
  mailFrom: string;
  secretKey: string | undefined;
  workerSecret: string | undefined;
  /** Where the shared secret may enrol a worker (WORKER_ENROLMENT). */
  workerEnrolment: 'loopback' | 'open' | 'off';
  /** Origins (ws:// or wss://) of workers on other hosts: allowed in the pages' connect-src. */
  workerWsOrigins: string[];
  /** The storage bucket's origin when STORAGE_URL names one (the browser uploads to it). */
  storageOrigin: string | undefined;
  allowPrivateUrls: boolean;
  allowRegistration: boolean;
  conversationsShowIp: boolean;
  /** Trust X-Forwarded-* (only behind a reverse proxy). */
  trustProxy: boolean;
  /** The HTTP listener's timeouts and per-address connection cap (0: none). */
  connectionLimits: { headersTimeoutMs: number; requestTimeoutMs: number; maxConnectionsPerIp: number };
  /** Start one worker inside the server process. */
  embeddedWorker: boolean;
  adminEmail: string;
  adminPassword: string | undefined;
  /** The address customers write to (CONTACT_EMAIL, else ADMIN_EMAIL); never derived from the host. */
  contactEmail: string;
  companyName: string;
  docsUrl: string;
  logLevel: TEnv['LOG_LEVEL'];
  /** GET /metrics answers `Bearer <metricsToken>` only; undefined: off (404). */
  metricsToken: string | undefined;
  /** Maximum avatars per plan name (null: unlimited). */
  planMaxAvatars: Record<string, number | null>;
  webDistDir: string;
  /** Simple mode's platform model (null: not configured; Simple LLM avatars say so). */
  platformLlm: { baseUrl: string; apiKey: string; model: string } | null;
  /**
   * The product's own voice and speech to text (PLATFORM_TTS_*, PLATFORM_STT_*; null: the offline
   * voice and recogniser): the embedded worker's, and what the Brain tab says will be heard.
   */
  platformTts: TPlatformTts | null;
  platformStt: TPlatformStt | null;
  /** The product's realtime for the embedded worker: the operator's key and URL (default OpenAI's). */
  realtimeOperator: { apiKey: string | undefined; url: string | undefined };
  /**
   * ElevenLabs Conversational AI for the embedded worker: the operator's API base
   * (PROVIDER_ELEVENLABS_URL; undefined: ElevenLabs' own). Set, it may be a private address.
   */
  realtimeElevenLabs: { baseUrl: string | undefined };
  /** Knowledge base embeddings (see ZEnv). */
  embeddings: { mode: 'local' | 'off'; url: string | undefined; model: string; apiKey: string | undefined; dimensions: number };
  /** Provider API hosts of the avatar creator's look-ups (operator's choice; `{region}` filled in for Azure). */
  providers: ProviderUrls;
  /** How long a provider look-up may take. */
  providerLookupTimeoutMs: number;
  /** Knowledge uploads (see ZEnv). */
  knowledge: { extractTimeoutSeconds: number; quotaMb: number };
}

/** The look-ups' hosts: one per mapped LLM base URL row (contract LlmProviders, its `baseUrlEnv`), and the speech providers'. */
export interface ProviderUrls extends Record<TLlmProviderId, string> {
  elevenlabs: string;
  cartesia: string;
  neuphonic: string;
  deepgram: string;
  azureTts: string;
  azureStt: string;
  /** Unset: the SDK's regional endpoint (https://polly.{region}.amazonaws.com). */
  polly: string | undefined;
}

const trimSlash = (v: string) => v.replace(/\/+$/, '');

/** The origin a browser reaches the bucket at: s3:// is https (http with ?insecure=1 or ?tls=false). */
function storageOrigin(storageUrl: string | undefined): string | undefined {
  if (!storageUrl || storageUrl.startsWith('file:')) return undefined;
  const u = new URL(storageUrl);
  const isInsecure = u.searchParams.get('insecure') === '1' || u.searchParams.get('tls') === 'false';
  const protocol = u.protocol === 's3:' ? (isInsecure ? 'http:' : 'https:') : u.protocol;
  return `${protocol}//${u.host}`;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses the environment; throws a ConfigError listing every bad variable. */
export function loadConfig(env: Record<string, string | undefined> = process.env): Config {
  const parsed = ZEnv.safeParse(env);
  // PLATFORM_TTS_* and PLATFORM_STT_*: the contract's parser, which `npm run worker` uses too.
  const speech = platformSpeechFromEnv(env);
  if (!parsed.success || speech.problems.length) {
    throw new ConfigError([...(parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`)), ...speech.problems]);
  }
  const e = parsed.data;
  if (e.HTTP_HEADERS_TIMEOUT_MS > e.HTTP_REQUEST_TIMEOUT_MS) throw new ConfigError(['HTTP_HEADERS_TIMEOUT_MS: must not be longer than HTTP_REQUEST_TIMEOUT_MS']);
  const port = e.PORT;
  const publicUrl = (e.PUBLIC_URL ?? `http://localhost:${port}`).replace(/\/+$/, '');
  return {
    env: e.NODE_ENV,
    port,
    host: e.HOST,
    dataDir: path.resolve(e.DATA_DIR),
    publicUrl,
    appKey: e.APP_KEY,
    databaseUrl: e.DATABASE_URL,
    redisUrl: e.REDIS_URL,
    storageUrl: e.STORAGE_URL,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    secretKey: e.SECRET_KEY,
    workerSecret: e.WORKER_SECRET,
    workerEnrolment: e.WORKER_ENROLMENT,
    workerWsOrigins: e.WORKER_WS_ORIGINS,
    storageOrigin: storageOrigin(e.STORAGE_URL),
    allowPrivateUrls: e.ALLOW_PRIVATE_URLS,
    allowRegistration: e.ALLOW_REGISTRATION,
    conversationsShowIp: e.CONVERSATIONS_SHOW_IP,
    trustProxy: e.TRUST_PROXY,
    // Behind a proxy a TCP connection shows only the proxy's address: no cap unless asked for.
    connectionLimits: { headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS, requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS, maxConnectionsPerIp: e.MAX_CONNECTIONS_PER_IP ?? (e.TRUST_PROXY ? 0 : 256) },
    embeddedWorker: e.EMBEDDED_WORKER,
    adminEmail: e.ADMIN_EMAIL.toLowerCase(),
    adminPassword: e.ADMIN_PASSWORD,
    contactEmail: (e.CONTACT_EMAIL ?? e.ADMIN_EMAIL).toLowerCase(),
    companyName: e.COMPANY_NAME,
    docsUrl: e.DOCS_URL,
    logLevel: e.LOG_LEVEL,
    metricsToken: e.METRICS_TOKEN,
    planMaxAvatars: e.PLAN_MAX_AVATARS,
    webDistDir: path.resolve(e.WEB_DIST_DIR ?? new URL('../../web/dist', import.meta.url).pathname),
    platformLlm: e.PLATFORM_LLM_URL ? { baseUrl: e.PLATFORM_LLM_URL.replace(/\/+$/, ''), apiKey: e.PLATFORM_LLM_API_KEY ?? '', model: e.PLATFORM_LLM_MODEL } : null,
    platformTts: speech.tts,
    platformStt: speech.stt,
    realtimeOperator: { apiKey: e.REALTIME_API_KEY, url: e.REALTIME_URL },
    realtimeElevenLabs: { baseUrl: e.PROVIDER_ELEVENLABS_URL ? trimSlash(e.PROVIDER_ELEVENLABS_URL) : undefined },
    embeddings: { mode: e.EMBEDDINGS, url: e.EMBEDDINGS_URL, model: e.EMBEDDINGS_MODEL, apiKey: e.EMBEDDINGS_API_KEY, dimensions: e.EMBEDDINGS_DIMENSIONS },
    providers: {
      openai: trimSlash(e.PROVIDER_OPENAI_URL ?? 'https://api.openai.com/v1'),
      groq: trimSlash(e.PROVIDER_GROQ_URL ?? 'https://api.groq.com/openai/v1'),
      gemini: trimSlash(e.PROVIDER_GEMINI_URL ?? 'https://generativelanguage.googleapis.com/v1beta'),
      elevenlabs: trimSlash(e.PROVIDER_ELEVENLABS_URL ?? 'https://api.elevenlabs.io'),
      cartesia: trimSlash(e.PROVIDER_CARTESIA_URL ?? 'https://api.cartesia.ai'),
      neuphonic: trimSlash(e.PROVIDER_NEUPHONIC_URL ?? 'https://api.neuphonic.com'),
      deepgram: trimSlash(e.PROVIDER_DEEPGRAM_URL ?? 'https://api.deepgram.com'),
      azureTts: trimSlash(e.PROVIDER_AZURE_TTS_URL ?? 'https://{region}.tts.speech.microsoft.com'),
      azureStt: trimSlash(e.PROVIDER_AZURE_STT_URL ?? 'https://{region}.api.cognitive.microsoft.com'),
      polly: e.PROVIDER_POLLY_URL ? trimSlash(e.PROVIDER_POLLY_URL) : undefined,
    },
    providerLookupTimeoutMs: e.PROVIDER_LOOKUP_TIMEOUT_MS,
    knowledge: { extractTimeoutSeconds: e.KNOWLEDGE_EXTRACT_TIMEOUT_SECONDS, quotaMb: e.KNOWLEDGE_QUOTA_MB },
  };
}
