import type { TCatalogAvatar } from '../api/get-avatar-catalog';
import { parentConfigOf, parseConfig, sameConfigUrl } from './avatar-config';
import type { TAvatar } from '@persona/contract';

/**
 * The picture of the appearance an avatar was made from: the catalogue (or own image avatar)
 * entry whose config is the avatar's ParentConfig. Undefined when it is not in the lists.
 */
export function appearancePictureOf(agent: Pick<TAvatar, 'avatarJson'>, catalogue: readonly TCatalogAvatar[]): string | undefined {
  const parent = parentConfigOf(parseConfig(agent.avatarJson));
  if (!parent) return undefined;
  return catalogue.find((item) => sameConfigUrl(item.avatarConfigURL, parent))?.thumbnail;
}
