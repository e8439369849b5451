import { AvatarPageParams } from '@persona/contract';

/** The avatar page's options, from its URL: our names (Embed tab) and Trulience's beside them. */
export interface AvatarPageOptions {
  autoConnect: boolean;
  hideFullscreen: boolean;
  hideChatInput: boolean;
  hideChatHistory: boolean;
  /** The conversation panel starts open (closed unless the embed asks: chatOpen=true). */
  chatOpen: boolean;
  micOn: boolean;
  speakerOn: boolean;
  hideMicButton: boolean;
  hideSpeakerButton: boolean;
  hideHangUpButton: boolean;
  draggable: boolean;
  useCache: boolean;
  token: string | undefined;
  /** Events to post to the host page from the start (Trulience's registerTrlEvents URL parameter). */
  registerEvents: string[];
}

function flag(params: URLSearchParams, names: readonly string[]): boolean | undefined {
  for (const name of names) {
    const raw = params.get(name);
    if (raw === null) continue;
    const value = raw.trim().toLowerCase();
    if (value === 'true' || value === '1' || value === '' || value === 'yes') return true;
    if (value === 'false' || value === '0' || value === 'no') return false;
  }
  return undefined;
}

/** A comma-separated list (registerTrlEvents=auth-success,trl-chat): at most 64 names of at most 64 characters. */
function list(params: URLSearchParams, names: readonly string[]): string[] {
  const joined = names.flatMap((name) => params.getAll(name)).join(',');
  return [...new Set(joined.split(',').map((n) => n.trim()).filter((n) => n.length > 0 && n.length <= 64))].slice(0, 64);
}

export function parseAvatarPageOptions(search: string): AvatarPageOptions {
  const params = new URLSearchParams(search);
  const p = AvatarPageParams;
  const micOff = flag(params, p.micOff);
  const micOn = flag(params, p.micOn);
  const token = params.get('token')?.trim();
  // Trulience's showFullscreenAvatar: only the avatar, its controls hidden unless asked for one by one.
  const onlyAvatar = flag(params, p.showFullscreenAvatar) ?? false;
  return {
    autoConnect: flag(params, p.autoConnect) ?? true,
    hideFullscreen: flag(params, p.hideFullscreen) ?? onlyAvatar,
    hideChatInput: flag(params, p.hideChatInput) ?? onlyAvatar,
    hideChatHistory: flag(params, p.hideChatHistory) ?? onlyAvatar,
    chatOpen: flag(params, p.chatOpen) ?? false,
    micOn: micOn ?? (micOff === undefined ? true : !micOff),
    speakerOn: !(flag(params, p.speakerOff) ?? false),
    hideMicButton: flag(params, p.hideMicButton) ?? onlyAvatar,
    hideSpeakerButton: flag(params, p.hideSpeakerButton) ?? onlyAvatar,
    hideHangUpButton: flag(params, p.hideHangUpButton) ?? onlyAvatar,
    draggable: flag(params, p.draggable) ?? true,
    useCache: flag(params, p.useCache) ?? true,
    token: token && token.length <= 8192 ? token : undefined,
    registerEvents: list(params, p.registerEvents),
  };
}

/** The avatar id from /avatar/{id} (or /react/chatWidget/{id}); null when it is not a valid id. */
export function avatarIdFromPath(pathname: string): number | null {
  const match = /\/(?:avatar|chatWidget)\/(\d{1,10})\/?$/.exec(pathname);
  if (!match) return null;
  const id = Number(match[1]);
  return id > 0 && id <= 2_147_483_647 ? id : null;
}
