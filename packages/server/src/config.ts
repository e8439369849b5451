import path from 'node:path';
import { z } from 'zod';

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
  ALLOW_PRIVATE_URLS: bool(false),
  ALLOW_REGISTRATION: bool(false),
  TRUST_PROXY: bool(false),
  EMBEDDED_WORKER: bool(true),
  ADMIN_EMAIL: z.email('must be an e-mail address').default('admin@persona.local'),
  ADMIN_PASSWORD: z
    .string()
    .optional()
    .transform((v) => (v === '' ? undefined : v))
    .refine((v) => v === undefined || (v.length >= 8 && v.length <= 128), { message: 'must be 8-128 characters' }),
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
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WEB_DIST_DIR: z.string().optional(),
  // Knowledge base embeddings: the offline model by default, an OpenAI-compatible endpoint when
  // EMBEDDINGS_URL is set, or none (full-text search only) with EMBEDDINGS=off.
  EMBEDDINGS: z.enum(['local', 'off']).default('local'),
  EMBEDDINGS_URL: optionalUrl(['http:', 'https:']),
  EMBEDDINGS_MODEL: z.string().min(1).default('text-embedding-3-small'),
  EMBEDDINGS_API_KEY: z.string().optional().transform((v) => (v === '' ? undefined : v)),
  EMBEDDINGS_DIMENSIONS: z.coerce.number().int().min(8).max(4000).default(1536),
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
  allowPrivateUrls: boolean;
  allowRegistration: boolean;
  /** Trust X-Forwarded-* (only behind a reverse proxy). */
  trustProxy: boolean;
  /** Start one worker inside the server process. */
  embeddedWorker: boolean;
  adminEmail: string;
  adminPassword: string | undefined;
  companyName: string;
  docsUrl: string;
  logLevel: TEnv['LOG_LEVEL'];
  /** Maximum avatars per plan name (null: unlimited). */
  planMaxAvatars: Record<string, number | null>;
  webDistDir: string;
  /** Knowledge base embeddings (see ZEnv). */
  embeddings: { mode: 'local' | 'off'; url: string | undefined; model: string; apiKey: string | undefined; dimensions: number };
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
  if (!parsed.success) {
    throw new ConfigError(parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`));
  }
  const e = parsed.data;
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
    allowPrivateUrls: e.ALLOW_PRIVATE_URLS,
    allowRegistration: e.ALLOW_REGISTRATION,
    trustProxy: e.TRUST_PROXY,
    embeddedWorker: e.EMBEDDED_WORKER,
    adminEmail: e.ADMIN_EMAIL.toLowerCase(),
    adminPassword: e.ADMIN_PASSWORD,
    companyName: e.COMPANY_NAME,
    docsUrl: e.DOCS_URL,
    logLevel: e.LOG_LEVEL,
    planMaxAvatars: e.PLAN_MAX_AVATARS,
    webDistDir: path.resolve(e.WEB_DIST_DIR ?? new URL('../../web/dist', import.meta.url).pathname),
    embeddings: { mode: e.EMBEDDINGS, url: e.EMBEDDINGS_URL, model: e.EMBEDDINGS_MODEL, apiKey: e.EMBEDDINGS_API_KEY, dimensions: e.EMBEDDINGS_DIMENSIONS },
  };
}
