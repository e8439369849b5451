import { isMasked } from './avatars.js';
import { EngineSecretMessages, engineSecretFields } from './engines.js';
import { providerNumber, providerSecretFields, SpeechSecretMessages, type TSpeechKind } from './providers.js';

/**
 * Every secret an avatar stores (dotted paths into its configuration), declared once: the portal
 * seals, masks and opens these (features/avatars/secrets.ts), and each names the fields beside it
 * that say where it is sent — its base URL or its provider. A save that changes one of those while
 * it keeps the stored secret (the mask the editor shows, or no value) is refused with `message`:
 * whoever can edit an avatar must know its key to point that key somewhere else (the
 * same rule as an OAuth config's client secret, isSecretNeededAgain in oauth.ts).
 */
const P = 'customData.agent_pipeline_config';

export interface TAvatarSecretField {
  path: string;
  /** The fields whose change sends the secret somewhere else: a URL, or a provider (which picks the host). */
  boundTo: readonly { path: string; kind: 'url' | 'stt' | 'tts' }[];
  /** Said when the secret must be typed again. */
  message: string;
}

export const AvatarSecretMessages = {
  billingHeaderAgain: 'Billing Auth Header is required again when the Billing Auth URL changes',
  ...EngineSecretMessages,
  ...SpeechSecretMessages,
} as const;

const url = (path: string) => ({ path, kind: 'url' as const });
const provider = (path: string, kind: 'stt' | 'tts') => ({ path, kind });
/** The STT or TTS section's secrets: every stored key a provider's row marks secret, bound to the provider and the endpoint URL. */
const speechSecrets = (kind: TSpeechKind): TAvatarSecretField[] =>
  providerSecretFields(kind).map((f) => ({ path: `${P}.${kind}.${f.stored}`, boundTo: [provider(`${P}.${kind}.provider`, kind), url(`${P}.${kind}.base_url`)], message: f.messageAgain }));

/**
 * An engine row's keys (engines.ts), each bound to its engine's outbound URLs. The top-level
 * ones (`restApiKey`, `jsonKey`) come first and the pipeline's after the speech sections: the
 * order a save's messages are said in.
 */
const engineSecrets = (where: 'top' | 'pipeline'): TAvatarSecretField[] =>
  engineSecretFields()
    .filter((f) => f.stored.startsWith(`${P}.`) === (where === 'pipeline'))
    .map((f) => ({ path: f.stored, boundTo: f.boundToUrls.map(url), message: f.messageAgain }));

export const AvatarSecretFields: readonly TAvatarSecretField[] = [
  ...engineSecrets('top'),
  { path: 'billingAuthHeader', boundTo: [url('billingAuthURL')], message: AvatarSecretMessages.billingHeaderAgain },
  ...speechSecrets('stt'),
  ...speechSecrets('tts'),
  ...engineSecrets('pipeline'),
];

type Obj = Record<string, unknown>;

/** The value at a dotted path (undefined along a missing or non-object step). */
export function valueAtPath(obj: Obj, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Obj)[part];
  }
  return cur;
}

/** A base URL as compared (and called, by the look-ups): trimmed, no trailing slash, scheme and host in lower case. */
export function canonicalBaseUrl(value: string): string {
  const trimmed = value.trim().replace(/\/+$/, '');
  try {
    const u = new URL(trimmed);
    return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}${u.search}`;
  } catch {
    return trimmed;
  }
}

/** A bound field's value as compared: a URL canonical, a provider as its number (a name or digits alike). */
function canonical(value: unknown, kind: 'url' | 'stt' | 'tts'): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'string' ? value.trim() : typeof value === 'number' || typeof value === 'boolean' ? String(value) : JSON.stringify(value);
  if (kind === 'url') return canonicalBaseUrl(text);
  const n = providerNumber(value, kind);
  return n === undefined ? '' : Number.isNaN(n) ? text.toLowerCase() : String(n);
}

/**
 * The messages of the stored secrets this save would keep while sending them somewhere else:
 * the incoming secret is the mask or absent (kept), one is stored, and a field it is bound to is
 * in the save with another value than the stored one. Empty when the save may go on.
 */
export function secretsNeededAgain(stored: Obj, incoming: Obj): string[] {
  const out: string[] = [];
  for (const field of AvatarSecretFields) {
    if (field.boundTo.length === 0) continue;
    const value = valueAtPath(incoming, field.path);
    const keeps = value === undefined || value === null || isMasked(value);
    const held = valueAtPath(stored, field.path);
    if (!keeps || held === undefined || held === null || held === '') continue;
    const moved = field.boundTo.some((b) => {
      const next = valueAtPath(incoming, b.path);
      return next !== undefined && canonical(next, b.kind) !== canonical(valueAtPath(stored, b.path), b.kind);
    });
    if (moved && !out.includes(field.message)) out.push(field.message);
  }
  return out;
}
