/**
 * What the avatar page draws, read from the avatar config JSON and its ParentConfig chain
 * (spec "Avatar config JSON": ParentConfig, Subtitle.Enabled, panel {Enable, contentURL,
 * BgColor}, Scene.background 'transparent: true/false', Environment {shadow, position, rotation,
 * scale, gltf-model}, Lights; our Avatar {modelURL, portraitURL, image, landmarks, format}).
 * The documents come from anywhere a customer hosts them: every value is checked.
 */
export type AvatarKind = 'image' | 'upper' | 'full';

export interface PhotoLandmarks {
  /** Image size the points refer to. */
  width: number;
  height: number;
  /** Outer lip contour (12 points, dlib 48–59) and inner (8 points, 60–67), [x, y]. */
  mouth: [number, number][];
  /** Jaw line (17 points, dlib 0–16). */
  jaw: [number, number][];
  leftEye: [number, number][];
  rightEye: [number, number][];
  /** Each brow (5 points, dlib 17–21 and 22–26) and the nose (9 points: bridge 27–30, base 31–35), when stored. */
  leftBrow?: [number, number][];
  rightBrow?: [number, number][];
  nose?: [number, number][];
}

export interface StageConfig {
  kind: AvatarKind;
  /** A 3D model (.glb / .vrm): catalogue persona, Ready Player Me style GLB or VRM. */
  model: { url: string; format: 'glb' | 'vrm' } | null;
  /** A layered 2D portrait manifest (catalogue image avatars). */
  portrait: string | null;
  /** A talking photo (custom image avatars): the photo and its landmarks. */
  photo: { url: string; landmarks: PhotoLandmarks | null } | null;
  background: { transparent: boolean; color: string; image: string | null; video: string | null };
  lights: { preset: string; intensity: number };
  environment: { url: string; position: [number, number, number]; rotation: [number, number, number]; scale: [number, number, number]; shadow: boolean } | null;
  subtitles: boolean;
  /** A full body's camera: a medium shot (hair to hips, the default) or the whole figure (`Camera.shot: "full"`; `Camera.framing` names the kind). */
  framing: 'medium' | 'full';
}

const MAX_DEPTH = 6;
const MAX_BYTES = 512 * 1024;

type Doc = Record<string, unknown>;
const isRecord = (v: unknown): v is Doc => typeof v === 'object' && v !== null && !Array.isArray(v);

export function deepMerge(parent: Doc, child: Doc): Doc {
  const out: Doc = { ...parent };
  for (const [key, value] of Object.entries(child)) {
    if (key === '__proto__' || key === 'constructor' || key === 'prototype') continue;
    const base = out[key];
    out[key] = isRecord(base) && isRecord(value) ? deepMerge(base, value) : value;
  }
  return out;
}

/** A URL the page may load: http(s) only (relative ones resolve against `base`). */
export function safeUrl(value: unknown, base: string): string | null {
  if (typeof value !== 'string' || !value.trim() || value.length > 2000) return null;
  try {
    const url = new URL(value.trim(), base);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : null;
  } catch {
    return null;
  }
}

async function fetchDoc(url: string, fetcher: typeof fetch): Promise<Doc> {
  const res = await fetcher(url, { headers: { accept: 'application/json' }, credentials: 'omit' });
  if (!res.ok) throw new Error(`config ${url}: HTTP ${res.status}`);
  const text = await res.text();
  if (text.length > MAX_BYTES) throw new Error(`config ${url} is too large`);
  const parsed: unknown = JSON.parse(text);
  if (!isRecord(parsed)) throw new Error(`config ${url} is not an object`);
  return parsed;
}

/** Fetches a config and its parents (at most 6, no cycles) and merges them, parents first. */
export async function resolveConfigChain(url: string, fetcher: typeof fetch = (i, init) => fetch(i, init)): Promise<Doc> {
  const chain: Doc[] = [];
  const seen = new Set<string>();
  let next: string | null = url;
  while (next && chain.length < MAX_DEPTH && !seen.has(next)) {
    seen.add(next);
    const doc = await fetchDoc(next, fetcher);
    chain.unshift(doc);
    // A parent is relative to the document that names it.
    next = safeUrl(doc.ParentConfig, next);
  }
  return chain.reduce<Doc>((acc, doc) => deepMerge(acc, doc), {});
}

const vec3 = (value: unknown, fallback: number): [number, number, number] => {
  const parts = typeof value === 'string' ? value.trim().split(/[\s,]+/).map(Number) : Array.isArray(value) ? value.map(Number) : [];
  const get = (i: number) => (Number.isFinite(parts[i]) && Math.abs(parts[i]!) < 1e4 ? parts[i]! : fallback);
  return [get(0), get(1), get(2)];
};
const color = (value: unknown, fallback: string) => (typeof value === 'string' && /^#([0-9a-f]{3}|[0-9a-f]{6}|[0-9a-f]{8})$/i.test(value.trim()) ? value.trim() : fallback);
const point = (p: unknown): [number, number] | null =>
  Array.isArray(p) && p.length >= 2 && p.slice(0, 2).every((n) => typeof n === 'number' && Number.isFinite(n) && n >= 0 && n < 20_000) ? [p[0] as number, p[1] as number] : null;
const points = (value: unknown, n: number): [number, number][] | null => {
  if (!Array.isArray(value) || value.length !== n) return null;
  const out = value.map(point);
  return out.every((p) => p !== null) ? (out as [number, number][]) : null;
};

export function readLandmarks(value: unknown): PhotoLandmarks | null {
  if (!isRecord(value)) return null;
  const width = Number(value.width);
  const height = Number(value.height);
  if (!(width > 0 && height > 0 && width < 20_000 && height < 20_000)) return null;
  const mouth = points(value.mouth, 20);
  const jaw = points(value.jaw, 17);
  const leftEye = points(value.leftEye, 6);
  const rightEye = points(value.rightEye, 6);
  if (!mouth || !jaw || !leftEye || !rightEye) return null;
  const out: PhotoLandmarks = { width, height, mouth, jaw, leftEye, rightEye };
  // Brows and nose are optional (photos attached before they were kept have none): kept only whole.
  const leftBrow = points(value.leftBrow, 5);
  const rightBrow = points(value.rightBrow, 5);
  const nose = points(value.nose, 9);
  if (leftBrow && rightBrow) Object.assign(out, { leftBrow, rightBrow });
  if (nose) out.nose = nose;
  return out;
}

const VIDEO = /\.(mp4|mov|webm|m4v)(\?|#|$)/i;

/** The stage from a merged config; `base` resolves relative URLs (the page's origin). */
export function readStageConfig(doc: Doc, dhType: number, base: string, photoUrl: string | null = null): StageConfig {
  const kind: AvatarKind = dhType === 3 ? 'full' : dhType === 2 ? 'upper' : 'image';
  const avatar = isRecord(doc.Avatar) ? doc.Avatar : {};
  const panel = isRecord(doc.panel) ? doc.panel : {};
  const scene = isRecord(doc.Scene) ? doc.Scene : {};
  const lights = isRecord(doc.Lights) ? doc.Lights : {};
  const env = isRecord(doc.Environment) ? doc.Environment : {};
  const subtitle = isRecord(doc.Subtitle) ? doc.Subtitle : {};

  const modelUrl = safeUrl(avatar.modelURL, base);
  const format: 'glb' | 'vrm' = avatar.format === 'vrm' || (modelUrl !== null && /\.vrm(\?|#|$)/i.test(modelUrl)) ? 'vrm' : 'glb';
  const image = safeUrl(avatar.image, base);
  const transparent = typeof scene.background === 'string' && /transparent:\s*true/i.test(scene.background);
  const content = panel.Enable === true && !transparent ? safeUrl(panel.contentURL, base) : null;
  const intensity = Number(lights.intensity);
  const envUrl = kind === 'full' ? safeUrl(env['gltf-model'], base) : null;
  return {
    kind,
    model: kind !== 'image' && modelUrl ? { url: modelUrl, format } : null,
    portrait: kind === 'image' ? safeUrl(avatar.portraitURL, base) : null,
    photo: kind === 'image' && !avatar.portraitURL && (image || photoUrl) ? { url: image ?? photoUrl!, landmarks: readLandmarks(avatar.landmarks) } : null,
    background: {
      transparent,
      color: color(panel.BgColor, kind === 'full' ? '#dbe4f0' : '#eef2ff'),
      image: content && !VIDEO.test(content) ? content : null,
      video: content && VIDEO.test(content) ? content : null,
    },
    lights: { preset: typeof lights.preset === 'string' ? lights.preset.slice(0, 40) : kind === 'full' ? 'daylight' : 'studio', intensity: Number.isFinite(intensity) && intensity > 0 && intensity <= 5 ? intensity : 1 },
    environment: envUrl
      ? { url: envUrl, position: vec3(env.position, 0), rotation: vec3(env.rotation, 0), scale: vec3(env.scale, 1), shadow: env.shadow !== false }
      : null,
    subtitles: subtitle.Enabled !== false,
    framing: isRecord(doc.Camera) && doc.Camera.shot === 'full' ? 'full' : 'medium',
  };
}
