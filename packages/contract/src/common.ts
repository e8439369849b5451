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
});
export type TPublicConfig = z.infer<typeof ZPublicConfig>;

export const ZHealth = z.object({
  status: ZStatus,
  database: z.enum(['up', 'down']),
  uptimeSeconds: z.number(),
});
export type THealth = z.infer<typeof ZHealth>;
