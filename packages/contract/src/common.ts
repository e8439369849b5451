// zod/mini: these schemas are on the sign-in page, which must stay small.
import { z } from 'zod/mini';

export const ZStatus = z.enum(['OK', 'FAIL']);
export type TStatus = z.infer<typeof ZStatus>;

/** Every answer carries status, and errors/failReason when it failed. */
export const ZBaseAnswer = z.object({
  status: ZStatus,
  errors: z.optional(z.array(z.string())),
  failReason: z.optional(z.int()),
});
export type TBaseAnswer = z.infer<typeof ZBaseAnswer>;

export const ZFailAnswer = z.object({
  status: z.literal('FAIL'),
  errors: z.array(z.string()),
  failReason: z.optional(z.int()),
});
export type TFailAnswer = z.infer<typeof ZFailAnswer>;

// ── Input bounds every schema shares ────────────────────────────────────────────
// Ids are PostgreSQL `integer`s, dates must stay inside what both JavaScript and PostgreSQL can
// represent, and no text field stores control characters (PostgreSQL cannot store NUL at all).

/** The largest PostgreSQL `integer` (int4): every id column. */
export const INT32_MAX = 2_147_483_647;

export const InputMessages = {
  idInvalid: 'must be a whole number between 1 and 2147483647',
  controlChars: 'must not contain control characters',
  dateOutOfRange: 'must be a date between 1970 and 9999',
} as const;

/**
 * String checks for text input, shared by the zod and zod/mini schemas alike:
 * `z.string().check(TextChecks.singleLine())` (names, e-mails, titles, ids sent as text) or
 * `TextChecks.multiLine()` (descriptions, code, JSON documents).
 */
/* eslint-disable no-control-regex -- these patterns exist to find control characters */
export const TextChecks = {
  /** No C0 control character nor DEL. */
  singleLine: (error: string = InputMessages.controlChars) => z.regex(/^[^\u0000-\u001f\u007f]*$/, { error }),
  /** No C0 control character nor DEL, except tab, line feed and carriage return. */
  multiLine: (error: string = InputMessages.controlChars) => z.regex(/^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/, { error }),
};
/* eslint-enable no-control-regex */

/**
 * A text field: trimmed, bounded, without control characters (line breaks only when multiLine).
 * zod/mini; use it inside zod objects as it is, and wrap it with z.optional()/z.nullable().
 */
export function zText(opts: { max: number; min?: number; multiLine?: boolean; trim?: boolean; error?: string; tooLong?: string }) {
  const checks = [
    ...(opts.trim === false ? [] : [z.trim()]),
    ...(opts.min ? [z.minLength(opts.min, { error: opts.error, abort: true })] : []),
    z.maxLength(opts.max, { error: opts.tooLong ?? opts.error, abort: true }),
    opts.multiLine ? TextChecks.multiLine() : TextChecks.singleLine(),
  ];
  return z.string({ error: opts.error }).check(...checks);
}

const idNumber = (error: string) => z.int({ error }).check(z.minimum(1, { error }), z.maximum(INT32_MAX, { error }));

/**
 * An id: a positive int32, sent as a number (JSON) or as decimal digits (query strings, paths,
 * form fields). Anything else (arrays, 3000000000, 1e309, "0x10") is a 400 naming the field.
 */
export function zId(error: string = InputMessages.idInvalid) {
  const digits = z.pipe(z.pipe(z.string({ error }).check(z.regex(/^\d{1,10}$/, { error })), z.transform(Number)), idNumber(error));
  return z.union([idNumber(error), digits], { error });
}
export const ZId = zId();

/** `<id>.json` in a path (hosted config files), as the id. */
export const ZIdJsonFile = z.pipe(z.pipe(z.string().check(z.regex(/^\d{1,10}\.json$/)), z.transform((s) => Number.parseInt(s, 10))), idNumber(InputMessages.idInvalid));

/** The latest instant accepted as a date: the end of year 9999 (UTC), in ms since 1970. */
export const DATE_MS_MAX = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

/** A date as ms since 1970 (UTC), sent as a number or as digits, between 1970 and the end of 9999. */
export function zDateMs(error: string = InputMessages.dateOutOfRange) {
  const ms = () => z.int({ error }).check(z.minimum(0, { error }), z.maximum(DATE_MS_MAX, { error }));
  return z.union([ms(), z.pipe(z.pipe(z.string({ error }).check(z.regex(/^\d{1,16}$/, { error })), z.transform(Number)), ms())], { error });
}

/** A loose but bounded e-mail pattern: something@something.tld, no spaces. */
export const EMAIL_PATTERN = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export const Limits = {
  httpTimeoutMs: 10_000,
  mobileBreakpointPx: 760,
  passwordMin: 8,
  passwordMax: 128,
  emailMax: 254,
  nameMax: 100,
  successDialogMs: 3000,
  avatarDeleteDialogMs: 2000,
  toastSuccessMs: 2000,
  toastErrorMs: 5000,
  copyNoticeMs: 2000,
} as const;

/** The public configuration the browser reads before sign-in (GET /api/config). */
export const ZPublicConfig = z.object({
  allowRegistration: z.boolean(),
  appKey: z.string(),
  companyName: z.string(),
  docsUrl: z.string(),
  productName: z.string(),
  /** PUBLIC_URL: for what leaves the browser (embed snippets, OAuth callbacks), never for same-origin loads. */
  publicUrl: z.optional(z.string()),
});
export type TPublicConfig = z.infer<typeof ZPublicConfig>;

export const ZHealth = z.object({
  /** FAIL (HTTP 503) when this instance cannot serve: its database is unreachable. */
  status: ZStatus,
  database: z.enum(['up', 'down']),
  /** With REDIS_URL only. Redis down alone leaves the instance serving (ADR 078): status stays OK. */
  redis: z.optional(z.enum(['up', 'down'])),
  uptimeSeconds: z.number(),
  /** With FAIL: the message every call answers while the database is down. */
  errors: z.optional(z.array(z.string())),
});
export type THealth = z.infer<typeof ZHealth>;
