import { NlpEngine, OutboundUrlFields as F, OutboundUrlLimits, OutboundUrlMessages as M, type TAvatarInputParsed } from '@persona/contract';
import { checkUrl, SafeFetchError } from '@persona/net';
import { getPath } from './secrets.js';

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
  path: string;
  label: string;
  /** Also ws:// and wss:// (a realtime socket). */
  websocket?: boolean;
  /** The engines that call it (a changed engine re-checks its URL). */
  engines?: number[];
}

export const OUTBOUND_URL_FIELDS: readonly UrlField[] = [
  { path: 'customData.agent_pipeline_config.llm.base_url', label: F.llmBaseUrl, engines: [NlpEngine.LargeLanguageModel, NlpEngine.CustomChatGPTPrompt, NlpEngine.CustomChatGPTAssistant] },
  { path: 'restEndPointURL', label: F.restEndpointUrl, engines: [NlpEngine.RestEndpoint] },
  { path: 'customData.agent_pipeline_config.speech_to_speech.url', label: F.realtimeUrl, websocket: true, engines: [NlpEngine.TrulienceRealtime] },
  { path: 'customData.agent_pipeline_config.stt.base_url', label: F.sttBaseUrl },
  { path: 'customData.agent_pipeline_config.tts.base_url', label: F.ttsBaseUrl },
  { path: 'billingAuthURL', label: F.billingAuthUrl },
];

/** Names that are the local machine by definition (RFC 6761); the connection would refuse them too. */
const LOCALHOST = /(^|\.)localhost$/i;

const text = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

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
  for (const field of OUTBOUND_URL_FIELDS) {
    const value = text(getPath(input as unknown as Obj, field.path));
    if (!value) continue;
    const changed = !storedConfig || value !== text(getPath(storedConfig, field.path));
    const engineUses = opts.engineTouched && (field.engines?.includes(input.nlpEngine) ?? false);
    if (!changed && !engineUses) continue;
    const problem = outboundUrlProblem(value, field.label, { allowPrivate: opts.allowPrivate, websocket: field.websocket });
    if (problem) errors.push(problem);
  }
  return errors;
}
