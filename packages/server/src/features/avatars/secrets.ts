import { isMasked, maskSecret } from '@persona/contract';
import type { SecretBox } from '../../lib/secret-box.js';

/** Where an avatar keeps secrets (dotted paths into its configuration). */
export const SECRET_PATHS = [
  'jsonKey',
  'jsonKeyBase64',
  'restApiKey',
  'billingAuthHeader',
  'customData.agent_pipeline_config.stt.api_key',
  'customData.agent_pipeline_config.tts.api_key',
  'customData.agent_pipeline_config.tts.secret_key',
  'customData.agent_pipeline_config.llm.api_key',
  'customData.agent_pipeline_config.speech_to_speech.api_key',
  'customData.agent_pipeline_config.third_party.api_key',
] as const;

type Obj = Record<string, unknown>;

export function getPath(obj: Obj, path: string): unknown {
  let cur: unknown = obj;
  for (const part of path.split('.')) {
    if (!cur || typeof cur !== 'object') return undefined;
    cur = (cur as Obj)[part];
  }
  return cur;
}

export function setPath(obj: Obj, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur = obj;
  for (const part of parts.slice(0, -1)) {
    if (!cur[part] || typeof cur[part] !== 'object') cur[part] = {};
    cur = cur[part] as Obj;
  }
  const last = parts.at(-1)!;
  if (value === undefined) delete cur[last];
  else cur[last] = value;
}

/**
 * Seals the secrets of an incoming configuration. A masked value (as the API returned it) or
 * an absent one keeps what was stored; an empty string clears it; anything else is sealed.
 */
export function sealSecrets(incoming: Obj, stored: Obj | undefined, box: SecretBox): Obj {
  const out = structuredClone(incoming);
  for (const path of SECRET_PATHS) {
    const value = getPath(incoming, path);
    const previous = stored ? getPath(stored, path) : undefined;
    if (value === undefined || value === null || isMasked(value)) setPath(out, path, previous);
    else if (value === '') setPath(out, path, undefined);
    else setPath(out, path, box.seal(String(value)));
  }
  return out;
}

/** Replaces sealed secrets with a mask that shows only the last four characters. */
export function maskSecrets(config: Obj, box: SecretBox): Obj {
  const out = structuredClone(config);
  for (const path of SECRET_PATHS) {
    const value = getPath(config, path);
    if (box.isSealed(value)) {
      let plain = '';
      try {
        plain = box.open(value);
      } catch {
        plain = '';
      }
      setPath(out, path, maskSecret(plain));
    }
  }
  return out;
}

/** The plain secrets, for the runtime that talks to providers. */
export function openSecrets(config: Obj, box: SecretBox): Obj {
  const out = structuredClone(config);
  for (const path of SECRET_PATHS) {
    const value = getPath(config, path);
    if (box.isSealed(value)) setPath(out, path, box.open(value));
  }
  return out;
}
