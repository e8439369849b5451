/**
 * A catalogue person as a recipe (`/catalog/models/<id>-<kind>.persona.json`, written by
 * scripts/make-catalog.mjs): the few facts the page needs to build the toon-shaded character in
 * three.js (toon-persona.ts). It comes from our own catalogue, but it is data: every field is
 * checked, sizes and colours included, and anything else in the document is ignored.
 */
export const RECIPE_FORMAT = 'persona-toon';
export const RECIPE_VERSION = 1;
/** A recipe is a few hundred bytes; anything near this is not one. */
export const RECIPE_MAX_BYTES = 16 * 1024;

export interface ToonRecipe {
  name: string;
  body: 'upper' | 'full';
  build: 'f' | 'm';
  hairStyle: 'long' | 'short' | 'bun';
  colours: { skin: string; hair: string; top: string; eyes: string; lips: string; legs: string; shoes: string };
  /** Overall size (1 = the catalogue's adult), 0.85–1.15. */
  scale: number;
}

/** The model URL names a recipe rather than a GLB/VRM. */
export const isRecipeUrl = (url: string) => /\.persona\.json(\?|#|$)/i.test(url);

const HEX = /^#[0-9a-f]{6}$/i;
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function pick<T extends string>(value: unknown, allowed: readonly T[], what: string): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw new Error(`persona recipe: ${what} must be one of ${allowed.join(', ')}`);
}

function colour(value: unknown, what: string, fallback?: string): string {
  if (value === undefined && fallback) return fallback;
  if (typeof value === 'string' && HEX.test(value)) return value.toLowerCase();
  throw new Error(`persona recipe: ${what} must be a colour #rrggbb`);
}

/** Checks a parsed recipe; throws with what is wrong. */
export function readRecipe(doc: unknown): ToonRecipe {
  if (!isRecord(doc)) throw new Error('persona recipe: not an object');
  if (doc.format !== RECIPE_FORMAT) throw new Error(`persona recipe: format must be ${RECIPE_FORMAT}`);
  if (doc.version !== RECIPE_VERSION) throw new Error(`persona recipe: version ${String(doc.version)} is not supported`);
  const c = isRecord(doc.colours) ? doc.colours : null;
  if (!c) throw new Error('persona recipe: colours missing');
  const name = typeof doc.name === 'string' ? doc.name.slice(0, 80) : '';
  const scale = doc.scale === undefined ? 1 : Number(doc.scale);
  if (typeof doc.scale !== 'undefined' && (typeof doc.scale !== 'number' || !Number.isFinite(scale) || scale < 0.85 || scale > 1.15)) throw new Error('persona recipe: scale must be a number from 0.85 to 1.15');
  return {
    name,
    body: pick(doc.body, ['upper', 'full'] as const, 'body'),
    build: pick(doc.build, ['f', 'm'] as const, 'build'),
    hairStyle: pick(doc.hairStyle, ['long', 'short', 'bun'] as const, 'hairStyle'),
    colours: {
      skin: colour(c.skin, 'colours.skin'),
      hair: colour(c.hair, 'colours.hair'),
      top: colour(c.top, 'colours.top'),
      eyes: colour(c.eyes, 'colours.eyes'),
      lips: colour(c.lips, 'colours.lips'),
      legs: colour(c.legs, 'colours.legs', '#2f3545'),
      shoes: colour(c.shoes, 'colours.shoes', '#3b2f2a'),
    },
    scale,
  };
}

/** Fetches and checks a recipe (same rules as the avatar config: JSON, bounded size). */
export async function fetchRecipe(url: string, fetcher: typeof fetch = (i, init) => fetch(i, init)): Promise<ToonRecipe> {
  const res = await fetcher(url, { headers: { accept: 'application/json' }, credentials: 'omit' });
  if (!res.ok) throw new Error(`persona recipe ${url}: HTTP ${res.status}`);
  const text = await res.text();
  if (text.length > RECIPE_MAX_BYTES) throw new Error(`persona recipe ${url} is too large`);
  return readRecipe(JSON.parse(text) as unknown);
}
