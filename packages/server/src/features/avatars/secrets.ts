import { AvatarSecretFields, isMasked, maskSecret } from '@persona/contract';
import type { SecretBox } from '../../lib/secret-box.js';

/** Where an avatar keeps secrets (dotted paths into its configuration): the contract's AvatarSecretFields. */
export const SECRET_PATHS: readonly string[] = AvatarSecretFields.map((f) => f.path);

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

/** Where the last four characters of each secret are kept, so listing needs no decryption. */
export const HINTS_KEY = 'secretHints';

/**
 * Seals the secrets of an incoming configuration. A masked value (as the API returned it) or
 * an absent one keeps what was stored; an empty string clears it; anything else is sealed.
 */
export function sealSecrets(incoming: Obj, stored: Obj | undefined, box: SecretBox): Obj {
  const out = structuredClone(incoming);
  const oldHints = (stored?.[HINTS_KEY] ?? {}) as Record<string, string>;
  const hints: Record<string, string> = {};
  for (const path of SECRET_PATHS) {
    const value = getPath(incoming, path);
    const previous = stored ? getPath(stored, path) : undefined;
    if (value === undefined || value === null || isMasked(value)) {
      setPath(out, path, previous);
      if (previous !== undefined && oldHints[path] !== undefined) hints[path] = oldHints[path];
    } else if (value === '') {
      setPath(out, path, undefined);
    } else {
      const plain = String(value);
      setPath(out, path, box.seal(plain));
      hints[path] = maskSecret(plain);
    }
  }
  out[HINTS_KEY] = hints;
  return out;
}

/** Copies the objects along a path so that setting it does not touch the original. */
function setPathCopy(obj: Obj, path: string, value: unknown): Obj {
  const parts = path.split('.');
  const root: Obj = { ...obj };
  let cur = root;
  for (const part of parts.slice(0, -1)) {
    const next = cur[part];
    if (!next || typeof next !== 'object') return root;
    cur[part] = { ...(next as Obj) };
    cur = cur[part] as Obj;
  }
  cur[parts.at(-1)!] = value;
  return root;
}

/** Replaces sealed secrets with a mask that shows only the last four characters. */
export function maskSecrets(config: Obj, box: SecretBox): Obj {
  const hints = (config[HINTS_KEY] ?? {}) as Record<string, string>;
  let out: Obj = { ...config };
  delete out[HINTS_KEY];
  for (const path of SECRET_PATHS) {
    const value = getPath(config, path);
    if (!box.isSealed(value)) continue;
    let mask = hints[path];
    if (mask === undefined) {
      try {
        mask = maskSecret(box.open(value));
      } catch {
        mask = maskSecret('');
      }
    }
    out = setPathCopy(out, path, mask);
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
