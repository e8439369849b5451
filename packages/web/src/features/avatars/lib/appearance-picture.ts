import type { TCatalogAvatar } from '../api/get-avatar-catalog';
import { parentConfigOf, parseConfig, readOwnModel, sameConfigUrl } from './avatar-config';
import type { TAvatar } from '@persona/contract';

/**
 * The picture of the appearance an avatar was made from: the catalogue (or own image avatar)
 * entry whose config is the avatar's ParentConfig. Undefined when it is not in the lists, and for
 * an avatar wearing its own uploaded model (it keeps a catalogue look as its parent, for the
 * lights and scene, but that look is not what it shows: see `hasOwnModel`).
 */
export function appearancePictureOf(agent: Pick<TAvatar, 'avatarJson'>, catalogue: readonly TCatalogAvatar[]): string | undefined {
  const config = parseConfig(agent.avatarJson);
  if (readOwnModel(config)) return undefined;
  const parent = parentConfigOf(config);
  if (!parent) return undefined;
  return catalogue.find((item) => sameConfigUrl(item.avatarConfigURL, parent))?.thumbnail;
}

/** The avatar wears a model its owner uploaded (.glb / .vrm). */
export function hasOwnModel(agent: Pick<TAvatar, 'avatarJson'>): boolean {
  return readOwnModel(parseConfig(agent.avatarJson)) !== '';
}
