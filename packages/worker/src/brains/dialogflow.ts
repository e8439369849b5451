import { createHash } from 'node:crypto';
import type { TLiveBrainConfig } from '@persona/contract';
import { createWatchdog, httpFailure, providerFailure } from '../providers/http.js';
import { accessToken, CLOUD_PLATFORM_SCOPE, forgetToken, parseServiceAccount, type ServiceAccount } from '../providers/google/service-account.js';
import { brainConfigOf, DEFAULT_REQUEST_TIMEOUT_MS, type BrainOptions } from './options.js';
import { ProviderError } from '../core/errors.js';
import type { Brain, BrainDeps } from './types.js';

/**
 * Dialogflow ES and CX through REST detectIntent, authenticated with the avatar's service-account
 * JSON key (signed JWT → access token, cached). ES:
 * `POST https://dialogflow.googleapis.com/v2/projects/{project}/agent/sessions/{session}:detectIntent`
 * (regional agents: `https://{region}-dialogflow.googleapis.com/v2/projects/{p}/locations/{region}/agent/…`);
 * CX: `POST https://{region}-dialogflow.googleapis.com/v3/projects/{p}/locations/{region}/agents/{agent}/sessions/{session}:detectIntent`
 * (`global` → dialogflow.googleapis.com). The agent's text replies are joined into one answer.
 */
const PROVIDER = 'dialogflow';
/** Dialogflow refuses longer text inputs. */
const MAX_INPUT_CHARS = 256;
const REGION = /^[a-z][a-z0-9-]{0,62}$/;

type DialogflowConfig = Extract<TLiveBrainConfig, { kind: 'dialogflow' }>;

/** Dialogflow session ids: at most 36 characters of [A-Za-z0-9_-]; longer or other ids are hashed. */
export function dialogflowSessionId(sessionId: string): string {
  return /^[A-Za-z0-9_-]{1,36}$/.test(sessionId) ? sessionId : createHash('sha256').update(sessionId).digest('hex').slice(0, 32);
}

export function detectIntentUrl(config: DialogflowConfig, session: string, baseUrl?: string): string {
  const region = config.regionId.trim().toLowerCase();
  if (region && !REGION.test(region)) throw new ProviderError(PROVIDER, `"${config.regionId}" is not a Dialogflow region`);
  const regional = region !== '' && region !== 'global';
  const origin = (baseUrl ?? (regional ? `https://${region}-dialogflow.googleapis.com` : 'https://dialogflow.googleapis.com')).replace(/\/+$/, '');
  const e = encodeURIComponent;
  const project = config.projectId.trim();
  if (!project) throw new ProviderError(PROVIDER, 'the Dialogflow project id is missing');
  if (config.version === 'es') {
    const agent = regional ? `projects/${e(project)}/locations/${e(region)}/agent` : `projects/${e(project)}/agent`;
    return `${origin}/v2/${agent}/sessions/${e(session)}:detectIntent`;
  }
  const agentId = config.agentId.trim();
  if (!agentId) throw new ProviderError(PROVIDER, 'the Dialogflow CX agent id is missing');
  return `${origin}/v3/projects/${e(project)}/locations/${e(region || 'global')}/agents/${e(agentId)}/sessions/${e(session)}:detectIntent`;
}

interface TextMessages {
  text?: { text?: unknown };
}

/** The agent's spoken text: ES fulfillmentText (or its text messages); CX its text response messages. */
export function replyText(version: 'es' | 'cx', body: unknown): string {
  const result = (body as { queryResult?: Record<string, unknown> } | null)?.queryResult;
  if (!result) throw new ProviderError(PROVIDER, 'detectIntent answered without a queryResult');
  const texts = (list: unknown) =>
    (Array.isArray(list) ? (list as TextMessages[]) : [])
      .flatMap((m) => (Array.isArray(m?.text?.text) ? (m.text.text as unknown[]) : []))
      .filter((t): t is string => typeof t === 'string' && t.trim() !== '')
      .map((t) => t.trim());
  if (version === 'es') {
    if (typeof result.fulfillmentText === 'string' && result.fulfillmentText.trim()) return result.fulfillmentText.trim();
    return texts(result.fulfillmentMessages).join(' ');
  }
  return texts(result.responseMessages).join(' ');
}

export function createDialogflowBrain(deps: BrainDeps, options: BrainOptions = {}): Brain {
  const config = brainConfigOf(deps.config.brain, 'dialogflow');
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const session = dialogflowSessionId(deps.config.sessionId);
  let account: ServiceAccount | null = null;
  const serviceAccount = () => (account ??= parseServiceAccount(config.serviceAccountJson, PROVIDER));

  async function detectIntent(text: string, signal: AbortSignal, retried = false): Promise<string> {
    const url = detectIntentUrl(config, session, options.dialogflowBaseUrl);
    const sa = serviceAccount();
    const token = await accessToken(sa, CLOUD_PLATFORM_SCOPE, { fetch: deps.fetch, now: deps.now, timeoutMs }, PROVIDER, signal);
    const language = config.language.trim() || 'en';
    const input = text.slice(0, MAX_INPUT_CHARS);
    const body = config.version === 'es' ? { queryInput: { text: { text: input, languageCode: language } } } : { queryInput: { text: { text: input }, languageCode: language } };
    const dog = createWatchdog(signal);
    try {
      dog.arm(timeoutMs, "Dialogflow's answer");
      const res = await deps.fetch(url, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json; charset=utf-8', accept: 'application/json' },
        body: JSON.stringify(body),
        signal: dog.signal,
        timeoutMs,
        maxBytes: 2 * 1024 * 1024,
      });
      if (res.status === 401 && !retried) {
        // A cached token the API no longer accepts: get a fresh one, once.
        await res.body?.cancel();
        forgetToken(sa, CLOUD_PLATFORM_SCOPE);
        dog.dispose();
        return detectIntent(text, signal, true);
      }
      if (!res.ok) throw await httpFailure(PROVIDER, res);
      return replyText(config.version, await res.json());
    } catch (err) {
      throw providerFailure(PROVIDER, err, signal, dog);
    } finally {
      dog.dispose();
    }
  }

  return {
    kind: 'dialogflow',
    async *reply(turn) {
      if (!turn.text.trim()) return;
      let reply: string;
      try {
        reply = await detectIntent(turn.text, turn.signal);
      } catch (err) {
        throw providerFailure(PROVIDER, err, turn.signal);
      }
      if (reply) yield { type: 'text', delta: reply };
    },
  };
}
