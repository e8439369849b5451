import { z } from 'zod';
import { ZStatus, ZId, TextChecks } from './common.js';
import { isMasked } from './avatars.js';

/** OAuth configs (portal spec sections 2, 3, 5, 7). */
export const OAuthMessages = {
  nameRequired: 'Name is required',
  partnerRequired: 'OAuth Identity Service is required',
  clientIdRequired: 'Client Id is required',
  clientSecretRequired: 'Client Secret is required',
  oauthUrlRequired: 'OAuth URL is required',
  tokenIssueUrlRequired: 'Token Issue URL is required',
  oauthUrlInvalid: 'OAuth URL must be a valid http(s) URL',
  tokenIssueUrlInvalid: 'Token Issue URL must be a valid http(s) URL',
  nameTooLong: 'Name must be at most 100 characters',
  valueTooLong: 'This value is too long',
  emptyList: 'No OAuth Configs found.',
  loadFailed: 'Failed to fetch OAuth Configs',
  created: 'The OAuth config has been created successfully!',
  updated: 'The OAuth config has been updated successfully!',
  deleted: 'The OAuth config has been deleted successfully!',
  deleteFailed: 'Error deleting item.',
  deleteConfirm: (name: string) => `Are you sure you want to delete "${name}"? This action cannot be undone.`,
  inUse: (names: string[]) =>
    `This OAuth config is used by ${names.length === 1 ? 'the avatar' : 'the avatars'} ${names.join(', ')}. Choose another config for ${names.length === 1 ? 'it' : 'them'} before deleting it.`,
  // The authorization-code flow.
  flowNotFound: 'This OAuth config does not exist or was deleted.',
  stateInvalid: 'The sign-in request is invalid or has expired. Please start the sign-in again.',
  providerDenied: 'The identity service did not grant access.',
  exchangeFailed: 'The identity service did not accept the authorization code.',
  returnToInvalid: 'returnTo must be a path on this portal.',
  codeInvalid: 'The sign-in code is invalid, was already used or has expired. Please sign in again.',
  /** GET /api/oauth/start without the portal's signed start, or with an expired one. */
  startInvalid: 'This sign-in link is not valid or has expired. Please start the sign-in again from the avatar.',
  /** On edit: the stored secret is not sent to new endpoints (a changed URL could collect it). */
  clientSecretReenter: 'Client Secret is required again when the OAuth URL or Token Issue URL changes',
} as const;

export const OAuthPartner = { Google: 'Google', SmartPension: 'SmartPension' } as const;
export const OAUTH_PARTNERS = ['Google', 'SmartPension'] as const;
export const ZOAuthPartner = z.enum(OAUTH_PARTNERS, { error: OAuthMessages.partnerRequired });
export type TOAuthPartner = z.infer<typeof ZOAuthPartner>;

export const OAuthLimits = {
  /** Client id and secret values longer than this are cut with an ellipsis in the list. */
  truncateAt: 30,
  nameMax: 100,
  valueMax: 2000,
  /** How long a started sign-in (its state) may take. */
  stateTtlMinutes: 10,
  /**
   * How long the signed start link the avatar page gets (its page config's `oauth.startUrl`) opens
   * the identity service; the page asks for a fresh one when the visitor clicks Sign in.
   */
  startTtlMinutes: 10,
  /** The start link's query parameter carrying the portal's signature. */
  startParam: 'start',
  /** How long the one-time code the callback hands back to returnTo can be exchanged for the grant. */
  codeTtlSeconds: 120,
} as const;

/** Default endpoints offered by the wizard for each identity service. */
export const OAuthPartnerDefaults: Record<TOAuthPartner, { oauthURL: string; tokenIssueURL: string }> = {
  Google: { oauthURL: 'https://accounts.google.com/o/oauth2/v2/auth', tokenIssueURL: 'https://oauth2.googleapis.com/token' },
  SmartPension: { oauthURL: '', tokenIssueURL: '' },
};

const isHttpUrl = (value: string) => {
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hostname !== '';
  } catch {
    return false;
  }
};

const required = (message: string, max: number = OAuthLimits.valueMax) =>
  z
    .string({ error: message })
    .trim()
    .min(1, { error: message })
    .max(max, { error: max === OAuthLimits.nameMax ? OAuthMessages.nameTooLong : OAuthMessages.valueTooLong })
    .check(TextChecks.singleLine());

const url = (requiredMessage: string, invalidMessage: string) =>
  required(requiredMessage).refine((v) => v === '' || isHttpUrl(v), { error: invalidMessage });

/** Step 0 of the wizard: 'OAuth Info'. */
export const ZOAuthInfoStep = z.object({
  appName: required(OAuthMessages.nameRequired, OAuthLimits.nameMax),
  partner: ZOAuthPartner,
});

/** Step 'OAuth Details' of the wizard; on edit an empty client secret keeps the stored one. */
export const ZOAuthDetailsStep = z.object({
  clientId: required(OAuthMessages.clientIdRequired),
  clientSecret: z.string().trim().max(OAuthLimits.valueMax, { error: OAuthMessages.valueTooLong }).optional(),
  oauthURL: url(OAuthMessages.oauthUrlRequired, OAuthMessages.oauthUrlInvalid),
  tokenIssueURL: url(OAuthMessages.tokenIssueUrlRequired, OAuthMessages.tokenIssueUrlInvalid),
});

/**
 * POST /api/add_oauthapp: create (no appId) or edit (appId). The client secret is required on
 * create; on edit an empty value (or the masked value the list shows) keeps the stored one.
 */
export const ZOAuthAppInput = z
  .object({
    appId: z.optional(z.nullable(ZId)),
    ...ZOAuthInfoStep.shape,
    ...ZOAuthDetailsStep.shape,
  })
  .refine((value) => Boolean(value.appId) || Boolean(value.clientSecret), {
    error: OAuthMessages.clientSecretRequired,
    path: ['clientSecret'],
    // Checked even when other fields are invalid, so that every message shows at once.
    when: (payload) => typeof payload.value === 'object' && payload.value !== null,
  });
export type TOAuthAppInput = z.input<typeof ZOAuthAppInput>;
export type TOAuthAppInputParsed = z.infer<typeof ZOAuthAppInput>;

/**
 * On edit, may the stored client secret be kept? Not when the OAuth URL or the Token Issue URL
 * changes: the secret is sent to the token endpoint, so whoever can edit a config must know it to
 * point the config somewhere else.
 */
export function isSecretNeededAgain(
  stored: { oauthURL: string; tokenIssueURL: string },
  input: { oauthURL: string; tokenIssueURL: string; clientSecret?: string | null },
): boolean {
  const keepsSecret = !input.clientSecret?.trim() || isMasked(input.clientSecret.trim());
  return keepsSecret && (input.oauthURL.trim() !== stored.oauthURL || input.tokenIssueURL.trim() !== stored.tokenIssueURL);
}

/** The wizard's schema: on edit, the same rule as the server (see isSecretNeededAgain). */
export function oauthAppInputSchema(stored?: { oauthURL: string; tokenIssueURL: string }) {
  if (!stored) return ZOAuthAppInput;
  return ZOAuthAppInput.refine((value) => !isSecretNeededAgain(stored, value), { error: OAuthMessages.clientSecretReenter, path: ['clientSecret'] });
}

/** An OAuth config as every call returns it: the client secret masked, never in full. */
export const ZOAuthApp = z.object({
  appId: z.number().int(),
  appName: z.string(),
  partner: ZOAuthPartner,
  clientId: z.string(),
  /** Masked: '••••' and the last four characters. */
  clientSecret: z.string(),
  oauthURL: z.string(),
  tokenIssueURL: z.string(),
  /** Set by the server: `${PUBLIC_URL}/api/oauth/callback/{appId}`. */
  callbackURL: z.string(),
  created: z.string(),
  updated: z.string(),
});
export type TOAuthApp = z.infer<typeof ZOAuthApp>;

export const ZListOAuthAppsResponse = z.object({ status: ZStatus, oauthApps: z.array(ZOAuthApp) });
export const ZOAuthAppIdRequest = z.object({ appId: ZId, mode: z.enum(['get', 'delete']) });
export const ZGetOAuthAppResponse = z.object({ status: ZStatus, oauthApp: ZOAuthApp });
export const ZAddOAuthAppResponse = z.object({
  status: ZStatus,
  /** When the config was saved (ISO 8601). */
  updated: z.string(),
  oauthApp: ZOAuthApp,
  errors: z.array(z.string()),
});
export type TAddOAuthAppResponse = z.infer<typeof ZAddOAuthAppResponse>;
export const ZDelOAuthAppResponse = z.object({ status: ZStatus, appId: z.number().int(), errors: z.array(z.string()) });

/**
 * Where a sign-in may return to: a path on the portal, checked on its normalised form. Returns the
 * normalised path (with its query) or null. Refused: anything but a single leading '/', any
 * backslash, whitespace or control character (the URL parser drops tabs and newlines, so
 * `/<TAB>/evil` would become `//evil`), and any path whose normalised form leaves `origin` or
 * starts with `//` (e.g. `/.//evil.example`, which a browser reads as another host).
 */
export function normaliseReturnPath(value: string, origin: string): string | null {
  // eslint-disable-next-line no-control-regex
  if (!value.startsWith('/') || value.startsWith('//') || /[\\\s\u0000-\u001f\u007f]/u.test(value)) return null;
  let url: URL;
  try {
    url = new URL(value, origin);
  } catch {
    return null;
  }
  if (url.origin !== new URL(origin).origin || url.pathname.startsWith('//') || url.pathname.includes('\\')) return null;
  return `${url.pathname}${url.search}`;
}

/**
 * GET /api/oauth/start/{appId}?start=…&returnTo=/avatar/10001 — only with the signed start the
 * portal put in an avatar's page config (OAuthLimits.startTtlMinutes): the route redirects to the
 * config's user-set OAuth URL, so without it anyone's link on our origin would lead anywhere.
 */
export const ZOAuthStartParams = z.object({ appId: ZId });
export const ZOAuthStartQuery = z.object({
  start: z.string().max(1000).optional(),
  returnTo: z
    .string()
    .max(2000)
    .refine((v) => normaliseReturnPath(v, 'http://portal.invalid') !== null, { error: OAuthMessages.returnToInvalid })
    .optional(),
});

/**
 * After the callback the visitor returns to `returnTo` with `oauthCode` (one-time, short-lived;
 * `OAuthLimits.codeTtlSeconds`) or `oauthError`. The page exchanges the code for the grant with
 * POST /api/oauth/grant from the same browser that started the sign-in (its sign-in cookie is
 * checked), so the grant itself never travels in a URL.
 */
export { OAuthReturnParams } from './oauth-return.js';
export const ZOAuthGrantRequest = z.object({
  appId: z.coerce.number().int().positive(),
  code: z.string().min(1).max(200),
});
export const ZOAuthGrantResponse = z.object({
  status: ZStatus,
  /** The visitor's sign-in with this config: sent in the body of the calls that need it, never in a URL. */
  oauthGrant: z.string(),
  /** When the grant stops being accepted (ISO 8601). */
  expiresAt: z.string(),
});
export type TOAuthGrantResponse = z.infer<typeof ZOAuthGrantResponse>;
export const ZOAuthCallbackQuery = z.object({
  code: z.string().max(4000).optional(),
  state: z.string().max(4000).optional(),
  error: z.string().max(500).optional(),
  error_description: z.string().max(2000).optional(),
});

/** Cuts a value longer than `max` characters and adds an ellipsis (the list's rule). */
export function truncateValue(value: string, max: number = OAuthLimits.truncateAt): string {
  return value.length > max ? `${value.slice(0, max)}…` : value;
}
