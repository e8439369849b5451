import { ProviderError } from '../core/errors.js';
import { GuardedFetchError } from '@persona/net';

/**
 * What every provider client shares: a watchdog that turns "no bytes for N ms" into an abort the
 * client can tell apart from the caller's own abort, and one translation of whatever went wrong
 * into ProviderError (the caller's abort passes through untouched).
 */
export interface Watchdog {
  /** Aborted by the caller's signal or by an expired timer. */
  readonly signal: AbortSignal;
  /** (Re)starts the timer: when it fires, `expired` names what was late. */
  arm(ms: number, what: string): void;
  disarm(): void;
  readonly expired: string | null;
  dispose(): void;
}

export function createWatchdog(caller: AbortSignal): Watchdog {
  const ctl = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  let expired: string | null = null;
  const onAbort = () => ctl.abort(caller.reason);
  if (caller.aborted) ctl.abort(caller.reason);
  else caller.addEventListener('abort', onAbort, { once: true });
  return {
    signal: ctl.signal,
    arm(ms, what) {
      clearTimeout(timer);
      timer = setTimeout(() => {
        expired = `${what} (${ms >= 1000 ? `${Math.round(ms / 100) / 10} s` : `${ms} ms`})`;
        ctl.abort(new ProviderError('timeout', `timed out waiting for ${expired}`));
      }, ms);
    },
    disarm() {
      clearTimeout(timer);
    },
    get expired() {
      return expired;
    },
    dispose() {
      clearTimeout(timer);
      caller.removeEventListener('abort', onAbort);
    },
  };
}

/**
 * Whatever was thrown while talking to a provider → what the brain throws: the caller's abort
 * reason as is (the visitor interrupted; not an error), else a ProviderError naming the provider.
 */
export function providerFailure(provider: string, err: unknown, caller: AbortSignal, dog?: Watchdog): unknown {
  if (caller.aborted) return caller.reason;
  if (dog?.expired) return new ProviderError(provider, `timed out waiting for ${dog.expired}`);
  if (err instanceof ProviderError) return err.provider === provider ? err : new ProviderError(provider, err.message, err.status);
  // The request's own deadline and the watchdog's are often the same length: whichever fires
  // first, the error says it timed out.
  if (err instanceof GuardedFetchError) return new ProviderError(provider, err.kind === 'timeout' ? `timed out: ${err.message}` : err.message);
  if (err instanceof SyntaxError) return new ProviderError(provider, `unreadable answer: ${err.message}`);
  return new ProviderError(provider, err instanceof Error ? err.message : String(err));
}

/**
 * A short description of a provider's error body, the one parser for every client: Deepgram's
 * `err_msg`, `message`, OpenAI/Google/Azure `error.message`, OAuth `error` + `error_description`,
 * `detail` (also FastAPI's list of `{msg}`), `errors`, `title`, `msg`, `reason`; a string as is.
 */
export function errorDetail(body: unknown): string {
  if (typeof body === 'string') return body.replace(/\s+/g, ' ').trim().slice(0, 300);
  if (Array.isArray(body)) return body.length ? errorDetail(body[0]) : '';
  if (!body || typeof body !== 'object') return '';
  const o = body as Record<string, unknown>;
  if (typeof o.error === 'string' && o.error && typeof o.error_description === 'string') return errorDetail(`${o.error}: ${o.error_description}`);
  for (const key of ['err_msg', 'message', 'error', 'detail', 'errors', 'title', 'msg', 'reason']) {
    const v = o[key];
    if (typeof v === 'string' && v) return errorDetail(v);
    if (v && typeof v === 'object') {
      const inner = errorDetail(v);
      if (inner) return inner;
    }
  }
  return '';
}

/** An error body's text → its detail: the JSON's message when it has one, else the text itself (short). */
export function errorBodyDetail(text: string): string {
  try {
    const detail = errorDetail(JSON.parse(text) as unknown);
    if (detail) return detail;
  } catch {
    // not JSON: the text is the message
  }
  return errorDetail(text);
}

/** A non-2xx answer → ProviderError with the status and the provider's own message (short). */
export async function httpFailure(provider: string, res: Response): Promise<ProviderError> {
  let detail = '';
  try {
    detail = errorBodyDetail((await res.text()).slice(0, 4000));
  } catch {
    // unreadable body
  }
  return new ProviderError(provider, `HTTP ${res.status}${detail ? `: ${detail}` : ''}`, res.status);
}

/**
 * The one guard of a 2xx answer's kind, before its body is read: an HTML page is never a
 * provider's answer (a proxy's, load balancer's or captive portal's error page served with 200),
 * and where raw audio is expected, neither is text, JSON or XML (an error document would be
 * played as noise). Throws ProviderError with what the body says (its title, its message).
 */
export async function refuseWrongAnswer(provider: string, res: Response, expected: 'audio' | 'stream'): Promise<void> {
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  const html = /html/.test(type);
  if (!html && !(expected === 'audio' && /^text\/|json|xml/.test(type))) return;
  let detail = '';
  try {
    const text = (await res.text()).slice(0, 4000);
    detail = html ? htmlDetail(text) : errorBodyDetail(text);
  } catch {
    // unreadable body
  }
  throw new ProviderError(provider, `answered ${html ? 'an HTML page' : type} instead of ${expected === 'audio' ? 'audio' : 'a stream'} (HTTP ${res.status})${detail ? `: ${detail}` : ''}`, res.status);
}

/** An HTML page's title, or else its text, short. */
function htmlDetail(html: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1]?.trim();
  return errorDetail(title || html.replace(/<[^>]*>/g, ' ')).slice(0, 200);
}

/** Checks a value that goes into a host name or a path segment (regions, language codes). */
export function safeToken(value: string, what: string, provider: string, pattern = /^[A-Za-z0-9-]{1,40}$/): string {
  if (!pattern.test(value)) throw new ProviderError(provider, `${what} ${JSON.stringify(value.slice(0, 40))} is not valid`);
  return value;
}

/** Joins a base URL and a relative path the way every OpenAI-style SDK does (base keeps its path). */
export function joinUrl(base: string, path: string): string {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/${path.replace(/^\/+/, '')}`;
  return url.toString();
}
