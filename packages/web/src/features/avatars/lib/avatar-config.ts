/**
 * The avatar config JSON (spec "Avatar config JSON"): ParentConfig, Subtitle.Enabled,
 * panel {Enable, contentURL, BgColor}, Scene.background ('transparent: true/false'),
 * Environment {shadow, position, rotation, scale, gltf-model}, NavigationMesh, Lights.
 * The avatar stores only its own overrides; the parent chain supplies the rest.
 */
export type TAvatarConfig = Record<string, unknown>;

export interface TPanel {
  Enable: boolean;
  contentURL: string;
  BgColor: string;
}

export const DEFAULT_PANEL: TPanel = { Enable: false, contentURL: '', BgColor: '#FFFFFF' };
export const DEFAULT_ENVIRONMENT = { shadow: true, position: '0 0 0', rotation: '0 0 0', scale: '1 1 1' } as const;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses a stored JSON string into an object ({} when empty or invalid). */
export function parseConfig(json: string | undefined | null): TAvatarConfig {
  if (!json) return {};
  try {
    const parsed: unknown = JSON.parse(json);
    return isRecord(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** Parses editor text: the object, or null when it is not a JSON object ('JSON is invalid'). */
export function parseJsonObject(text: string): TAvatarConfig | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return isRecord(parsed) ? parsed : null;
  } catch {
    return null;
  }
}

/** Child values win over parent values; objects merge key by key. */
export function deepMerge(parent: TAvatarConfig, child: TAvatarConfig): TAvatarConfig {
  const out: TAvatarConfig = { ...parent };
  for (const [key, value] of Object.entries(child)) {
    const base = out[key];
    out[key] = isRecord(base) && isRecord(value) ? deepMerge(base, value) : value;
  }
  return out;
}

export const parentConfigOf = (config: TAvatarConfig): string | undefined =>
  typeof config.ParentConfig === 'string' && config.ParentConfig ? config.ParentConfig : undefined;

/** Compares config URLs by path, so '/catalog/x.json' equals 'https://host/catalog/x.json'. */
export function sameConfigUrl(a: string | undefined, b: string | undefined): boolean {
  if (!a || !b) return false;
  const path = (u: string) => {
    try {
      return new URL(u, 'http://local').pathname;
    } catch {
      return u;
    }
  };
  return path(a) === path(b);
}

/** Selecting an appearance: a new type starts a fresh config, the same type only changes the parent. */
/** A catalogue look: its config becomes the parent (an own model chosen before is dropped). */
export function selectAppearance(config: TAvatarConfig, parentUrl: string, isSameType: boolean): TAvatarConfig {
  return isSameType ? { ...setOwnModel(config, null), ParentConfig: parentUrl } : { ParentConfig: parentUrl };
}

/** The customer's own 3D model (Avatar.modelURL), if one is chosen. */
export function readOwnModel(effective: TAvatarConfig): string {
  const avatar = isRecord(effective.Avatar) ? effective.Avatar : {};
  return typeof avatar.modelURL === 'string' ? avatar.modelURL : '';
}

/** Chooses (or with null drops) an own model; the catalogue parent still gives lights and scene. */
export function setOwnModel(config: TAvatarConfig, model: { url: string; format: 'glb' | 'vrm' } | null): TAvatarConfig {
  const { modelURL: _url, format: _format, ...avatar } = isRecord(config.Avatar) ? config.Avatar : {};
  if (!model) {
    if (Object.keys(avatar).length > 0) return { ...config, Avatar: avatar };
    const { Avatar: _avatar, ...rest } = config;
    return rest;
  }
  return { ...config, Avatar: { ...avatar, modelURL: model.url, format: model.format } };
}

export function readPanel(effective: TAvatarConfig): TPanel {
  const panel = isRecord(effective.panel) ? effective.panel : {};
  return {
    Enable: panel.Enable === true,
    contentURL: typeof panel.contentURL === 'string' ? panel.contentURL : '',
    BgColor: typeof panel.BgColor === 'string' && panel.BgColor ? panel.BgColor : DEFAULT_PANEL.BgColor,
  };
}

export function isTransparent(effective: TAvatarConfig): boolean {
  const scene = isRecord(effective.Scene) ? effective.Scene : {};
  return typeof scene.background === 'string' && /transparent:\s*true/i.test(scene.background);
}

function withPanel(config: TAvatarConfig, patch: Partial<TPanel>): TAvatarConfig {
  const panel = isRecord(config.panel) ? config.panel : {};
  return { ...config, panel: { ...panel, ...patch } };
}

function withTransparent(config: TAvatarConfig, value: boolean): TAvatarConfig {
  const scene = isRecord(config.Scene) ? config.Scene : {};
  return { ...config, Scene: { ...scene, background: `transparent: ${value}` } };
}

/** Transparent forces the background panel off. */
export function setTransparent(config: TAvatarConfig, value: boolean): TAvatarConfig {
  const next = withTransparent(config, value);
  return value ? withPanel(next, { Enable: false }) : next;
}

/** Enabling the background panel turns transparency off. */
export function setPanelEnabled(config: TAvatarConfig, value: boolean): TAvatarConfig {
  const next = withPanel(config, { Enable: value });
  return value ? withTransparent(next, false) : next;
}

export function setBgColor(config: TAvatarConfig, color: string): TAvatarConfig {
  return withPanel(config, { BgColor: color });
}

/** Choosing a background image or video shows it (panel on, not transparent). */
export function setBackground(config: TAvatarConfig, url: string): TAvatarConfig {
  if (!url) return withPanel(config, { contentURL: '' });
  return setPanelEnabled(withPanel(config, { contentURL: url }), true);
}

export function readLightPreset(effective: TAvatarConfig): string | undefined {
  const lights = isRecord(effective.Lights) ? effective.Lights : {};
  return typeof lights.preset === 'string' ? lights.preset : undefined;
}

export function setLight(config: TAvatarConfig, preset: string, intensity: number): TAvatarConfig {
  const lights = isRecord(config.Lights) ? config.Lights : {};
  return { ...config, Lights: { ...lights, preset, intensity } };
}

export function readSceneModel(effective: TAvatarConfig): string {
  const env = isRecord(effective.Environment) ? effective.Environment : {};
  return typeof env['gltf-model'] === 'string' ? env['gltf-model'] : '';
}

/** Sets (or with '' removes) the full-body avatar's 3D environment. */
export function setSceneModel(config: TAvatarConfig, url: string): TAvatarConfig {
  const env = isRecord(config.Environment) ? config.Environment : {};
  if (!url) {
    const { 'gltf-model': _removed, ...rest } = env;
    return { ...config, Environment: rest };
  }
  return { ...config, Environment: { ...DEFAULT_ENVIRONMENT, ...env, 'gltf-model': url } };
}

export function isSubtitleEnabled(effective: TAvatarConfig): boolean {
  const subtitle = isRecord(effective.Subtitle) ? effective.Subtitle : {};
  return subtitle.Enabled !== false;
}

export function setSubtitleEnabled(config: TAvatarConfig, value: boolean): TAvatarConfig {
  const subtitle = isRecord(config.Subtitle) ? config.Subtitle : {};
  return { ...config, Subtitle: { ...subtitle, Enabled: value } };
}

export const prettyJson = (value: unknown) => JSON.stringify(value, null, 2);
