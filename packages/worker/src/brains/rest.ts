import { createWatchdog, httpFailure, providerFailure } from '../providers/http.js';
import { brainConfigOf, DEFAULT_REQUEST_TIMEOUT_MS, type BrainOptions } from './options.js';
import { ProviderError } from '../core/errors.js';
import type { Brain, BrainDeps } from './types.js';

/**
 * The REST brain (RestEndpoint; Trulience-compatible — docs/rest-brain.md): the avatar's own
 * server answers. Every call is `POST {url}` with `Authorization: Bearer {apiKey}` and a JSON body:
 * - `{action:"LOGIN", sessionId, userId, locale, lastSeen}` when the session starts;
 * - `{action:"CHAT", sessionId, userId, message, chatHistory?, customText?}` per visitor turn
 *   (`chatHistory: [{role, text}]` only with sendChatHistory);
 * - `{action:"LOGOUT", sessionId, userId}` when it ends.
 * The answer to CHAT is `{status:"OK", reply | message | text}` or a bare (JSON or plain) string;
 * an empty answer means "say nothing"; `{status:"FAIL"|"ERROR", …}` or a non-2xx status is a
 * ProviderError. Through the guarded fetch, bounded in time and size.
 */
const PROVIDER = 'rest';
const MAX_ANSWER_BYTES = 1024 * 1024;
const MAX_REPLY_CHARS = 20_000;

export function createRestBrain(deps: BrainDeps, options: BrainOptions = {}): Brain {
  const config = brainConfigOf(deps.config.brain, 'rest');
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const { sessionId, visitorId } = deps.config;
  // The site owner's server recognises a returning visitor by the page's anonymous id.
  const userId = visitorId ?? `session-${sessionId}`;

  async function post(payload: Record<string, unknown>, signal: AbortSignal): Promise<string | null> {
    const dog = createWatchdog(signal);
    try {
      dog.arm(timeoutMs, `the REST endpoint's answer to ${String(payload.action)}`);
      const res = await deps.fetch(config.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${config.apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/plain;q=0.9' },
        body: JSON.stringify(payload),
        signal: dog.signal,
        timeoutMs,
        maxBytes: MAX_ANSWER_BYTES,
      });
      if (!res.ok) throw await httpFailure(PROVIDER, res);
      return parseReply(await res.text(), res.headers.get('content-type') ?? '', res.status);
    } catch (err) {
      throw providerFailure(PROVIDER, err, signal, dog);
    } finally {
      dog.dispose();
    }
  }

  return {
    kind: 'rest',
    async start(signal) {
      const last = deps.config.history.at(-1);
      await post({ action: 'LOGIN', sessionId, userId, locale: config.agentLanguage || 'en-US', lastSeen: deps.config.resumed && last ? new Date(last.at).toISOString() : null }, signal);
    },
    async *reply(turn) {
      const payload: Record<string, unknown> = { action: 'CHAT', sessionId, userId, message: turn.text };
      if (config.sendChatHistory) payload.chatHistory = turn.history.map((h) => ({ role: h.role, text: h.text }));
      if (config.customText) payload.customText = config.customText;
      const reply = await post(payload, turn.signal);
      if (reply) yield { type: 'text', delta: reply };
    },
    async end() {
      try {
        await post({ action: 'LOGOUT', sessionId, userId }, AbortSignal.timeout(timeoutMs + 1_000));
      } catch (err) {
        deps.log.warn('REST endpoint LOGOUT failed', { avatarId: deps.config.avatar.id, error: err instanceof Error ? err.message : String(err), status: err instanceof ProviderError ? err.status : undefined });
      }
    },
  };
}

/** The answer's text: null or '' = say nothing. */
export function parseReply(body: string, contentType: string, status: number): string | null {
  const text = body.trim();
  if (!text) return null;
  const looksJson = contentType.includes('json') || /^[[{"]/.test(text);
  if (!looksJson) return text.slice(0, MAX_REPLY_CHARS);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    if (contentType.includes('json')) throw new ProviderError(PROVIDER, 'the answer is not valid JSON', status);
    return text.slice(0, MAX_REPLY_CHARS);
  }
  if (json === null) return null;
  if (typeof json === 'string') return json.trim().slice(0, MAX_REPLY_CHARS) || null;
  if (typeof json !== 'object' || Array.isArray(json)) throw new ProviderError(PROVIDER, 'the answer is neither a string nor an object', status);
  const o = json as Record<string, unknown>;
  const state = typeof o.status === 'string' ? o.status.toUpperCase() : null;
  if (state && state !== 'OK' && state !== 'SUCCESS') {
    const why = [o.message, o.error, o.errorMessage].find((v) => typeof v === 'string') as string | undefined;
    throw new ProviderError(PROVIDER, `the endpoint answered status ${state}${why ? `: ${why.slice(0, 300)}` : ''}`, status);
  }
  for (const key of ['reply', 'message', 'text'] as const) {
    const v = o[key];
    if (typeof v === 'string') return v.trim().slice(0, MAX_REPLY_CHARS) || null;
  }
  return null;
}
