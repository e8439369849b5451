import { AVATAR_IFRAME_ALLOW } from '../../../lib/embed';

/**
 * The avatar page's URL parameters (documented in the Embed tab). The editor's preview uses the
 * spec's preview options: no connect, hidden fullscreen, hidden chat input and history, mic on,
 * no dragging, no cached config, and the token if any.
 */
export interface UrlParameter {
  name: string;
  values: string;
  defaultValue: string;
  description: string;
}

export const AVATAR_URL_PARAMETERS: readonly UrlParameter[] = [
  { name: 'autoConnect', values: 'true | false', defaultValue: 'true', description: 'Connect to the avatar as soon as the page opens (also accepted: connect).' },
  { name: 'hideFullscreen', values: 'true | false', defaultValue: 'false', description: 'Hide the fullscreen button (also accepted: hideFS).' },
  { name: 'hideChatInput', values: 'true | false', defaultValue: 'false', description: 'Hide the text chat input box.' },
  { name: 'hideChatHistory', values: 'true | false', defaultValue: 'false', description: 'Hide the chat history (transcript) panel.' },
  { name: 'chatOpen', values: 'true | false', defaultValue: 'false', description: 'Open the chat panel from the start; otherwise the visitor opens it with the Chat button.' },
  { name: 'micOn', values: 'true | false', defaultValue: 'true', description: 'Start with the microphone switched on (also accepted: micOffByDefault=true, micOff=true, disableMic=true to start muted).' },
  { name: 'speakerOffByDefault', values: 'true | false', defaultValue: 'false', description: 'Start with the avatar muted (also accepted: speakerOff).' },
  { name: 'hideMicButton', values: 'true | false', defaultValue: 'false', description: 'Hide the microphone button.' },
  { name: 'hideSpeakerButton', values: 'true | false', defaultValue: 'false', description: 'Hide the button that mutes the avatar.' },
  { name: 'hideHangUpButton', values: 'true | false', defaultValue: 'false', description: 'Hide the button that ends the conversation.' },
  { name: 'draggable', values: 'true | false', defaultValue: 'true', description: 'Let the visitor drag the avatar window around.' },
  { name: 'useCache', values: 'true | false', defaultValue: 'true', description: 'Use the cached avatar and client configuration; false reads the latest saved files.' },
  { name: 'token', values: 'access token', defaultValue: '—', description: 'Access token for avatars protected by an encryption key.' },
  { name: 'showFullscreenAvatar', values: 'true | false', defaultValue: 'false', description: 'Only the avatar: hides the chat and every button unless its own parameter shows it.' },
  { name: 'registerTrlEvents', values: 'event names, comma-separated', defaultValue: '—', description: 'Events to post to your page from the start, e.g. auth-success,auth-fail,trl-chat (as the registerTrlEvents message does).' },
];

export const PREVIEW_OPTIONS: Record<string, string> = {
  autoConnect: 'false',
  hideFullscreen: 'true',
  hideChatInput: 'true',
  hideChatHistory: 'true',
  micOn: 'true',
  draggable: 'false',
  useCache: 'false',
};

function withParams(base: string, params: Record<string, string | undefined>): string {
  const url = new URL(base, window.location.origin);
  for (const [key, value] of Object.entries(params)) if (value) url.searchParams.set(key, value);
  return url.toString();
}

/** The live preview in the editor: the avatar page on this origin with the preview options. */
export function previewUrl(avatarId: number, token?: string, version?: number): string {
  return withParams(`${window.location.origin}/avatar/${avatarId}`, { ...PREVIEW_OPTIONS, token, v: version ? String(version) : undefined });
}

/** Connect: the access link, with the token when there is one. */
export function connectUrl(accessLink: string, token?: string): string {
  return token ? withParams(accessLink, { token }) : accessLink;
}

export function embedSnippet(accessLink: string, token?: string): string {
  const src = connectUrl(accessLink, token);
  return [
    '<iframe',
    `  src="${src}"`,
    '  width="480"',
    '  height="640"',
    '  style="border:0"',
    `  allow="${AVATAR_IFRAME_ALLOW}"`,
    '  title="Persona Studio avatar"',
    '></iframe>',
  ].join('\n');
}

/** When an access token (JWT) stops working: its exp claim, or null when it has none or cannot be read. */
export function tokenExpiry(token: string | undefined): Date | null {
  const payload = token?.split('.')[1];
  if (!payload) return null;
  try {
    const json = JSON.parse(atob(payload.replace(/-/g, '+').replace(/_/g, '/'))) as { exp?: unknown };
    return typeof json.exp === 'number' ? new Date(json.exp * 1000) : null;
  } catch {
    return null;
  }
}
