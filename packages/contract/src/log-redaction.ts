/**
 * What a log line may show of a URL: the path, and the query with every
 * credential's value replaced. Credentials travel in our URLs as `signature` (private files'
 * signed links), `code` and `state` (the OAuth callback), `token` (a protected avatar's page),
 * `oauthCode` (the page an OAuth sign-in returns to), S3's `X-Amz-Signature`/`X-Amz-Credential`,
 * Gemini's `key`; and in two paths, the e-mail links' codes (`/react/reset-password/<code>`,
 * `/react/email-verification/<code>`). The portal's access log, its error and other log lines, and
 * the worker's log lines go through these functions. A parameter is taken for a credential by its
 * name — any name containing token, secret, signature, password, ticket, jwt, apikey, credential,
 * session or authorization, or ending in code, key, sig, state or auth (case and `_`/`-` ignored):
 * a harmless parameter that looks like one is hidden too, rather than a credential shown.
 */
export const REDACTED = '[REDACTED]';

const CREDENTIAL_WORDS = ['token', 'secret', 'signature', 'password', 'passwd', 'ticket', 'jwt', 'apikey', 'credential', 'session', 'authorization', 'cookie'];
const CREDENTIAL_ENDINGS = ['code', 'key', 'sig', 'state', 'auth', 'pwd'];

const safeDecode = (value: string) => {
  try {
    return decodeURIComponent(value.replace(/\+/g, ' '));
  } catch {
    return null;
  }
};

/** Whether a query parameter of this name carries a credential. */
export function isCredentialParam(name: string): boolean {
  const plain = (safeDecode(name) ?? name).toLowerCase().replace(/[^a-z0-9]/g, '');
  return CREDENTIAL_WORDS.some((w) => plain.includes(w)) || CREDENTIAL_ENDINGS.some((e) => plain.endsWith(e));
}

/** Paths whose next segment is a credential (the e-mail links of features/auth). */
const SECRET_PATHS = /(\/react\/(?:reset-password|email-verification)\/)[^/?#\s]+/g;

/** `a=1&token=x` → `a=1&token=[REDACTED]`; a value that is itself a URL (a `returnTo`) is redacted too, once. */
const redactParams = (query: string, nested: boolean) =>
  query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1 || pair.length === eq + 1) return pair;
      const name = pair.slice(0, eq);
      if (isCredentialParam(name)) return `${name}=${REDACTED}`;
      if (!nested) return pair;
      const value = safeDecode(pair.slice(eq + 1));
      if (value === null || !/[?#]/.test(value)) return pair;
      const safe = redactOnce(value, false);
      return safe === value ? pair : `${name}=${encodeURIComponent(safe)}`;
    })
    .join('&');

/**
 * The URL (a request's `/path?query`, or an absolute URL) with credentials replaced: query and
 * fragment parameters that name one, a password in the user-info, and the e-mail links' codes.
 * Never throws; a URL without any comes back unchanged (the same string).
 */
export function redactUrl(url: string): string {
  return redactOnce(url, true);
}

function redactOnce(url: string, nested: boolean): string {
  if (!url.includes('?') && !url.includes('#') && !url.includes('@') && !url.includes('/react/')) return url;
  const hashAt = url.indexOf('#');
  const beforeHash = hashAt === -1 ? url : url.slice(0, hashAt);
  const queryAt = beforeHash.indexOf('?');
  let path = queryAt === -1 ? beforeHash : beforeHash.slice(0, queryAt);
  // scheme://user:password@host → scheme://user:[REDACTED]@host
  path = path.replace(/^([a-z][a-z0-9+.-]*:\/\/[^/@:]*:)[^/@]*@/i, `$1${REDACTED}@`);
  path = path.replace(SECRET_PATHS, `$1${REDACTED}`);
  const query = queryAt === -1 ? '' : `?${redactParams(beforeHash.slice(queryAt + 1), nested)}`;
  const fragment = hashAt === -1 ? '' : `#${redactParams(url.slice(hashAt + 1), nested)}`;
  return `${path}${query}${fragment}`;
}

/** The words of free text (runs between spaces, quotes and brackets: linear, no backtracking). */
const WORD = /[^\s"'<>()[\]{}]+/g;
const URL_LIKE = /[?#@]|:\/\/|\/react\//;

/** Free text (a log message, an error's message or stack) with every URL in it redacted. */
export function redactUrlsIn(text: string): string {
  if (!URL_LIKE.test(text)) return text;
  return text.replace(WORD, (word) => (URL_LIKE.test(word) ? redactUrl(word) : word));
}

/** A log line's fields (one level deep) with the URLs in their text redacted: the same object when none had any. */
export function redactLogFields<T extends object>(fields: T): T {
  let copy: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(fields)) {
    if (typeof value !== 'string') continue;
    const safe = redactUrlsIn(value);
    if (safe !== value) (copy ??= { ...(fields as Record<string, unknown>) })[key] = safe;
  }
  return (copy as T | undefined) ?? fields;
}

type LineLogger = Record<'info' | 'warn' | 'error', (msg: string, data?: object) => void>;

/** A logger of `(message, fields)` lines (the worker's) that writes them with their URLs redacted. */
export function redactingLogger(log: LineLogger): LineLogger {
  const line = (write: LineLogger['info']) => (msg: string, data?: object) => write(redactUrlsIn(msg), data === undefined ? undefined : redactLogFields(data));
  return { info: line(log.info), warn: line(log.warn), error: line(log.error) };
}
