import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The server's catalogue (served at /catalog): its avatars.json lists each look's config and thumbnail. */
const catalogueList = fileURLToPath(new URL('../../../catalog/avatars.json', import.meta.url));

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function pathOf(url: string): string {
  try {
    return new URL(url, 'http://local').pathname;
  } catch {
    return url;
  }
}

/** Config path → thumbnail, read once: the catalogue ships with the server and does not change while it runs. */
let thumbnails: Map<string, string> | null = null;
function catalogueThumbnails(file: string): Map<string, string> {
  if (thumbnails) return thumbnails;
  const map = new Map<string, string>();
  try {
    const doc: unknown = JSON.parse(fs.readFileSync(file, 'utf8'));
    for (const list of isObj(doc) ? Object.values(doc) : []) {
      for (const item of Array.isArray(list) ? list : []) {
        if (isObj(item) && typeof item.avatarConfigURL === 'string' && typeof item.thumbnail === 'string' && item.thumbnail.startsWith('/catalog/')) {
          map.set(pathOf(item.avatarConfigURL), item.thumbnail);
        }
      }
    }
  } catch {
    // No catalogue: avatars without a photo show their initial.
  }
  thumbnails = map;
  return map;
}

/**
 * The picture of a catalogue look an avatar was made from (its avatar JSON's ParentConfig is a
 * catalogue config): the avatar page's connect screen and poster when the avatar has no photo
 * of its own (ADR 090). Null for an avatar wearing its own model (Avatar.modelURL) or another look.
 */
export function cataloguePicture(avatarJson: string, file = catalogueList): string | null {
  let doc: unknown;
  try {
    doc = JSON.parse(avatarJson || '{}');
  } catch {
    return null;
  }
  if (!isObj(doc) || typeof doc.ParentConfig !== 'string') return null;
  const avatar = isObj(doc.Avatar) ? doc.Avatar : {};
  if (typeof avatar.modelURL === 'string' && avatar.modelURL.trim()) return null;
  return catalogueThumbnails(file).get(pathOf(doc.ParentConfig)) ?? null;
}
