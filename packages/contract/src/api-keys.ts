import { z } from 'zod';
import { TextChecks, ZId, ZStatus } from './common.js';

/**
 * Account API keys (issue 30, ADR 094): a customer's server calls the REST API with
 * `Authorization: Bearer ps_live_<prefix>_<secret>` instead of a portal session. A key acts as its
 * account with only its scopes; a route reachable with a key names the one scope it needs, every
 * other route refuses keys. Keys are managed with a portal session only.
 */
export const ApiKeyPaths = {
  /** GET → ZListApiKeysResponse. */
  list: '/api/list_api_key',
  /** POST ZAddApiKeyRequest → ZAddApiKeyResponse (the secret, this once). */
  add: '/api/add_api_key',
  /** POST ZDelApiKeyRequest → ZDelApiKeyResponse (revokes: the key answers 401 from then on). */
  del: '/api/del_api_key',
  /** POST ZCreateVisitorTokenRequest → ZCreateVisitorTokenResponse (scope tokens:create). */
  visitorToken: '/api/create_visitor_token',
} as const;

/** What a key may do; exactly these. */
export const ApiKeyScopes = ['conversations:read', 'conversations:delete', 'avatars:read', 'avatars:write', 'tokens:create'] as const;
export const ZApiKeyScope = z.enum(ApiKeyScopes);
export type TApiKeyScope = z.infer<typeof ZApiKeyScope>;

export const ApiKeyScopeLabels: Record<TApiKeyScope, string> = {
  'conversations:read': 'Read conversations (list, transcript, export)',
  'conversations:delete': 'Delete conversations',
  'avatars:read': 'Read avatars',
  'avatars:write': 'Save avatars',
  'tokens:create': 'Mint visitor tokens for token-protected avatars',
};

export const ApiKeyLimits = {
  nameMax: 100,
  /** Keys per account (revoked ones not counted). */
  perAccountMax: 50,
  /** Expiry choices, days; null = never. */
  expiryDays: [30, 90, 365] as const,
  /** A key's calls per minute, over every route (besides each route's own limits). */
  callsPerMinute: 600,
  /** last_used_at is written at most this often. */
  lastUsedEverySeconds: 60,
  visitorTokenMaxSeconds: 3600,
  visitorTokenDefaultSeconds: 600,
} as const;

/** `ps_live_` + 12 hex (the prefix, shown in lists) + `_` + 43 base64url (256 random bits). */
export const API_KEY_PATTERN = /^ps_live_([0-9a-f]{12})_([A-Za-z0-9_-]{43})$/;
export const API_KEY_TOKEN_PREFIX = 'ps_live_';

export const ApiKeyMessages = {
  nameRequired: 'Name is a required field.',
  nameTooLong: `Name must be at most ${ApiKeyLimits.nameMax} characters`,
  scopesRequired: 'Choose at least one scope.',
  tooMany: `An account may have at most ${ApiKeyLimits.perAccountMax} API keys. Revoke one first.`,
  notFound: 'This API key does not exist or has been revoked.',
  created: 'The API key has been created.',
  revoked: 'The API key has been revoked.',
  revokeConfirm: (name: string) => `Revoke the API key "${name}"? Servers using it are refused from now on. This cannot be undone.`,
  shownOnce: 'This is the only time the key is shown. Copy it now and keep it on your server, never in a web page.',
  copied: 'API key copied!',
  invalid: 'The API key is invalid, expired or revoked.',
  notAllowed: 'API keys cannot call this route.',
  missingScope: (scope: TApiKeyScope) => `This API key lacks the scope ${scope}.`,
  sessionOnly: 'API keys are managed in the portal, signed in.',
  notAsAdmin: 'An administrator signed in as this account cannot make API keys: a key would outlive the visit. The account’s owner can.',
  listFailed: 'Failed to fetch API keys.',
  avatarNotFound: 'This avatar does not exist.',
  avatarNotProtected: 'This avatar does not require a token: its page is open to every visitor.',
  rateLimited: 'Too many calls with this API key. Try again in a minute.',
} as const;

const ZApiKeyName = z
  .string({ error: ApiKeyMessages.nameRequired })
  .trim()
  .min(1, { error: ApiKeyMessages.nameRequired, abort: true })
  .max(ApiKeyLimits.nameMax, { error: ApiKeyMessages.nameTooLong })
  .check(TextChecks.singleLine());

export const ZAddApiKeyRequest = z
  .object({
    name: ZApiKeyName,
    scopes: z
      .array(ZApiKeyScope)
      .min(1, { error: ApiKeyMessages.scopesRequired })
      .max(ApiKeyScopes.length)
      .transform((s) => [...new Set(s)]),
    /** Days until it expires (one of ApiKeyLimits.expiryDays), or null: never. */
    expiresInDays: z.union([z.literal(30), z.literal(90), z.literal(365), z.null()]).default(90),
  })
  .strict();
export type TAddApiKeyRequest = z.input<typeof ZAddApiKeyRequest>;

/** A key as lists show it: never its secret. */
export const ZApiKey = z.object({
  id: z.string(),
  name: z.string(),
  /** The 12 hex after `ps_live_`: tells keys apart in lists and logs. */
  prefix: z.string(),
  scopes: z.array(ZApiKeyScope),
  created: z.string(),
  expiresAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});
export type TApiKey = z.infer<typeof ZApiKey>;

export const ZListApiKeysResponse = z.object({ status: ZStatus, apiKeys: z.array(ZApiKey) });
export const ZAddApiKeyResponse = z.object({ status: ZStatus, apiKey: ZApiKey, /** The whole key, this once. */ secret: z.string() });
export type TAddApiKeyResponse = z.infer<typeof ZAddApiKeyResponse>;
export const ZDelApiKeyRequest = z.object({ id: z.uuid({ error: ApiKeyMessages.notFound }) }).strict();
export const ZDelApiKeyResponse = z.object({ status: ZStatus, id: z.string() });

/** A visitor token for a token-protected avatar of the key's account, signed by the portal (no JWT code on the customer's side). */
export const ZCreateVisitorTokenRequest = z
  .object({
    avatarId: ZId,
    ttlSeconds: z.number().int().min(30).max(ApiKeyLimits.visitorTokenMaxSeconds).default(ApiKeyLimits.visitorTokenDefaultSeconds),
    /** Your own id of the visitor, carried in the token's `userId` claim. */
    userId: z.string().trim().min(1).max(200).check(TextChecks.singleLine()).optional(),
  })
  .strict();
export const ZCreateVisitorTokenResponse = z.object({
  status: ZStatus,
  /** Give it to the avatar page as `token` (ES256 JWT, `avatarId`, `exp`). */
  token: z.string(),
  expiresAt: z.string(),
});
