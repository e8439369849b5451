import { LiveFailReason, LiveLimits, LiveMessages, type TLiveCode } from '@persona/contract';
import { AppError } from '../../lib/app-error.js';

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});
const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : typeof v === 'string' && v.trim() && Number.isFinite(Number(v)) ? Number(v) : fallback);

export class LiveRefusal extends AppError {
  constructor(
    readonly code: TLiveCode,
    status: number,
    message: string = LiveMessages[code],
  ) {
    super(status, message, LiveFailReason[code], { code });
  }
}

const REFUSAL_STATUS: Partial<Record<TLiveCode, number>> = {
  'avatar-not-found': 404,
  'token-required': 401,
  'token-invalid': 401,
  'token-expired': 401,
  'oauth-required': 401,
  'oauth-failed': 401,
  'origin-not-allowed': 403,
  'billing-refused': 402,
  'billing-unavailable': 503,
  'no-worker': 503,
  'ip-concurrency': 429,
  'session-not-found': 404,
};
export const refuse = (code: TLiveCode) => new LiveRefusal(code, REFUSAL_STATUS[code] ?? 400);

/** The avatar's allowed embedding origins (scheme://host[:port]); empty = any. */
export function allowedOriginsOf(config: Obj): string[] {
  const list = Array.isArray(config.allowedOrigins) ? config.allowedOrigins : [];
  const out: string[] = [];
  for (const v of list.slice(0, LiveLimits.allowedOriginsMax)) {
    const origin = originOf(v);
    if (origin) out.push(origin);
  }
  return out;
}

/** scheme://host[:port] of a URL or origin string, or null. */
export function originOf(v: unknown): string | null {
  if (typeof v !== 'string' || v.length > 2000) return null;
  try {
    const u = new URL(v.trim());
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.host ? `${u.protocol}//${u.host}` : null;
  } catch {
    return null;
  }
}

/** The avatar's access and session settings, read from its stored configuration. */
export function sessionRules(config: Obj) {
  const limit = (v: unknown) => {
    const n = num(v, -1);
    return n > 0 ? n : -1;
  };
  const idle = Math.round(num(config.idleTimeout, LiveLimits.idleTimeoutDefault));
  return {
    encKeyId: typeof config.encKeyId === 'number' ? config.encKeyId : null,
    oauthAppId: config.oauthEnabled === 1 || config.oauthEnabled === true ? Number(config.partnerOauthAppId) || null : null,
    billingAuthUrl: typeof config.billingAuthURL === 'string' && config.billingAuthURL.trim() ? config.billingAuthURL.trim() : null,
    billingAuthHeader: typeof config.billingAuthHeader === 'string' ? config.billingAuthHeader : '',
    billingPingSeconds: Math.max(1, Math.round(num(config.billingAuthPingTime, 30))),
    dailyLimitPerSession: limit(config.dailyLimitPerSession),
    dailyLimitPerIp: limit(config.dailyLimitPerIP),
    demoSeconds: limit(obj(config.dailyLimits).Demo),
    idleTimeoutSeconds: idle > 0 ? Math.min(idle, LiveLimits.idleTimeoutMax) : LiveLimits.idleTimeoutDefault,
    allowedOrigins: allowedOriginsOf(config),
  };
}

export type SessionRules = ReturnType<typeof sessionRules>;
