import { enginesCalling, OutboundUrlFields as F, OutboundUrlLimits, OutboundUrlMessages as M, readAvatarConfig, type TAvatarConfig, type TAvatarInputParsed } from '@persona/contract';
import { checkUrl, SafeFetchError } from '@persona/net';

/**
 * Every URL of the avatar that the server or a worker will call later, checked on save with the
 * outbound-URL rule those calls follow (`checkUrl` of @persona/net, the rule the look-ups
 * use): http(s) — ws(s) for the realtime URL, held to the same host rule —, no user name or
 * password, a sane length, and no private, loopback, link-local or reserved address unless
 * ALLOW_PRIVATE_URLS.
 *
 * Called (the worker's brains and speech, the server's billing ping):
 *   customData.agent_pipeline_config.llm.base_url          LLM / prompt / assistant engines
 *   restEndPointURL                                        REST engine
 *   customData.agent_pipeline_config.speech_to_speech.url  realtime engine (ws/wss/http/https)
 *   customData.agent_pipeline_config.stt.base_url          OpenAI-compatible speech to text
 *   customData.agent_pipeline_config.tts.base_url          OpenAI-compatible text to speech
 *   billingAuthURL                                         the billing-auth ping at session start
 * Not called by the server or a worker, so not checked here: avatarConfigURL/clientConfigURL
 * (the avatar page reads them in the visitor's browser), avatarPhotoURL (an image in the page),
 * callBackURL (stored only). Regions and project ids that become part of a provider's host name
 * are checked by the worker's provider clients (letters, digits and dashes only).
 *
 * Only literal addresses (every IPv4/IPv6 form, through the URL parser and the one address
 * classifier) and `localhost` names are refused here; a host name is checked where it is
 * resolved, by the connection itself (the server's and the worker's guarded fetches). Resolving it
 * on save would not protect anything (DNS can change after the save) and would tell a user which
 * internal names exist.
 *
 * A field is checked when the save sets or changes it, or when the save changes the engine (or
 * its settings) and the field is that engine's URL — as the engine forms' rules are: a save from
 * another tab is not refused for a URL stored before this rule or under another ALLOW_PRIVATE_URLS.
 */

type Obj = Record<string, unknown>;

interface UrlField {
  /** The field's value (trimmed, '' none) in the save's or the stored configuration (contract readAvatarConfig). */
  read: (config: TAvatarConfig) => string;
  label: string;
  /** Also ws:// and wss:// (a realtime socket). */
  websocket?: boolean;
  /** The engines that call it, from the engines' rows (a changed engine re-checks its URL). */
  engines?: number[];
}

export const OUTBOUND_URL_FIELDS: readonly UrlField[] = [
  { read: (c) => c.brain.llm.baseUrl, label: F.llmBaseUrl, engines: enginesCalling('llmBaseUrl') },
  { read: (c) => c.brain.rest.url, label: F.restEndpointUrl, engines: enginesCalling('restEndpointUrl') },
  { read: (c) => c.brain.realtime.url, label: F.realtimeUrl, websocket: true, engines: enginesCalling('realtimeUrl') },
  { read: (c) => c.speechBaseUrls.stt, label: F.sttBaseUrl },
  { read: (c) => c.speechBaseUrls.tts, label: F.ttsBaseUrl },
  { read: (c) => c.access.billingAuthUrl ?? '', label: F.billingAuthUrl },
];

/** Names that are the local machine by definition (RFC 6761); the connection would refuse them too. */
const LOCALHOST = /(^|\.)localhost$/i;

/** What is wrong with one URL (null when it may be called). */
export function outboundUrlProblem(value: string, label: string, opts: { allowPrivate: boolean; websocket?: boolean }): string | null {
  const schemes = opts.websocket ? 'http(s) or ws(s)' : 'http(s)';
  if (value.length > OutboundUrlLimits.urlMax) return M.tooLong(label);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return M.invalid(label, schemes);
  }
  const isSocket = url.protocol === 'ws:' || url.protocol === 'wss:';
  if (isSocket && !opts.websocket) return M.invalid(label, schemes);
  if (url.username || url.password) return M.credentials(label);
  try {
    // A socket URL is held to the rule of its http(s) twin: the same host, TLS or not.
    checkUrl(isSocket ? url.href.replace(/^ws/, 'http') : url.href, opts.allowPrivate);
  } catch (err) {
    if (!(err instanceof SafeFetchError)) throw err;
    return err.kind === 'blocked' ? M.privateAddress(label) : M.invalid(label, schemes);
  }
  if (!opts.allowPrivate && LOCALHOST.test(url.hostname.replace(/\.$/, ''))) return M.privateAddress(label);
  return null;
}

/**
 * The save's URL problems, one message per field. `engineTouched`: the save changes the engine,
 * the mode or the engine's settings (engine-validation.ts `touchesEngine`; always on a create).
 */
export function outboundUrlErrors(
  input: TAvatarInputParsed,
  storedConfig: Obj | undefined,
  opts: { allowPrivate: boolean; engineTouched: boolean },
): string[] {
  const errors: string[] = [];
  const incoming = readAvatarConfig(input);
  const stored = storedConfig && readAvatarConfig(storedConfig);
  for (const field of OUTBOUND_URL_FIELDS) {
    const value = field.read(incoming);
    if (!value) continue;
    const changed = !stored || value !== field.read(stored);
    const engineUses = opts.engineTouched && (field.engines?.includes(input.nlpEngine) ?? false);
    if (!changed && !engineUses) continue;
    const problem = outboundUrlProblem(value, field.label, { allowPrivate: opts.allowPrivate, websocket: field.websocket });
    if (problem) errors.push(problem);
  }
  return errors;
}
