import { useConfigFile } from '../api/get-config-file';
import { parseConfig, type TAvatarConfig } from '../lib/avatar-config';
import { isSelfHosted, productOriginOf, toFetchable } from '../lib/hosting';
import type { EditorMode } from './editor/editor-session';
import type { TAvatar } from '@persona/contract';

export const DEFAULT_CLIENT_CONFIG_URL = '/catalog/client-config.json';
const FALLBACK_PARENT = '/catalog/avatar-configs/base-upper-body.json';

export interface InitialConfigs {
  isReady: boolean;
  avatarConfig: TAvatarConfig;
  clientConfig: TAvatarConfig | null;
}

/**
 * What the editor starts from: the avatar's stored JSON, or, for a self-hosted config, the file
 * at its URL; the client JSON falls back to the default client config.
 */
export function useInitialConfigs(mode: EditorMode, agent: TAvatar | undefined): InitialConfigs {
  const isEdit = mode.kind === 'edit' && agent !== undefined;
  const origin = productOriginOf(agent?.accessLink);
  const avatarSelfHosted = isEdit && isSelfHosted(agent.avatarConfigURL, origin);
  const clientSelfHosted = isEdit && isSelfHosted(agent.clientConfigURL, origin);
  const avatarUrl = avatarSelfHosted ? agent?.avatarConfigURL : undefined;
  const clientUrl = isEdit && (clientSelfHosted || !agent.clientJson) ? (clientSelfHosted ? agent.clientConfigURL : DEFAULT_CLIENT_CONFIG_URL) : undefined;
  const avatarFile = useConfigFile(avatarUrl ? toFetchable(avatarUrl) : undefined, agent?.updated);
  const clientFile = useConfigFile(clientUrl ? toFetchable(clientUrl) : undefined, agent?.updated);
  if (!isEdit) return { isReady: true, avatarConfig: {}, clientConfig: null };
  const isReady = (!avatarUrl || !avatarFile.isPending) && (!clientUrl || !clientFile.isPending);
  const stored = parseConfig(agent.avatarJson);
  const avatarConfig = avatarUrl ? (avatarFile.data ?? stored) : Object.keys(stored).length ? stored : { ParentConfig: FALLBACK_PARENT };
  const clientConfig = clientUrl ? (clientFile.data ?? {}) : parseConfig(agent.clientJson);
  return { isReady, avatarConfig, clientConfig };
}
