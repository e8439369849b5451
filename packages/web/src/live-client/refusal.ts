import { LiveCode, LiveFailReason, LiveMessages, type TEmbedEvent, type TEmbedEventParams } from '@persona/contract';
import { EmbedApi, detectHostOrigin } from './embed-api';
import { parseAvatarPageOptions } from './params';

/**
 * The refusal page (/avatar/{id} framed by a site that is not on the avatar's allowed origins,
 * ADR 085): says so, and tells the host page what the avatar page would have — `auth-fail` and a
 * fatal `error`, each once, as soon as the host has registered it (URL parameter or message);
 * every method call is answered with the refusal. Nothing here can be clicked and nothing is
 * called: framing this page gains a clickjacker nothing.
 */
export function mountRefusal(root: HTMLElement, win: Window = window): EmbedApi {
  const message = LiveMessages[LiveCode.originNotAllowed];
  const failReason = LiveFailReason[LiveCode.originNotAllowed];
  const host = detectHostOrigin(win);

  const box = document.createElement('main');
  box.className = 'ps-refused';
  box.setAttribute('role', 'alert');
  const title = document.createElement('p');
  title.className = 'ps-refused-title';
  title.textContent = message;
  const detail = document.createElement('p');
  detail.className = 'ps-refused-detail';
  detail.textContent = host
    ? `If ${host} is your website, add it to the avatar’s Allowed origins in Persona Studio.`
    : 'If this is your website, add its address to the avatar’s Allowed origins in Persona Studio.';
  box.append(title, detail);
  root.replaceChildren(box);

  const refuse = (): never => {
    throw new Error(message);
  };
  const told = new Set<TEmbedEvent>();
  let api: EmbedApi | null = null;
  const tellOnce = <K extends TEmbedEvent>(name: K, params: TEmbedEventParams[K]) => {
    if (!api || told.has(name) || !api.isRegistered(name)) return;
    told.add(name);
    api.emit(name, params);
  };
  const tell = () => {
    tellOnce('auth-fail', { code: LiveCode.originNotAllowed, message, ...(failReason !== undefined ? { failReason } : {}) });
    tellOnce('error', { code: LiveCode.originNotAllowed, message, fatal: true });
  };
  api = new EmbedApi(
    {
      sendMessage: refuse,
      sendMessageToAvatar: refuse,
      setMicEnabled: refuse,
      isMicEnabled: () => false,
      setSpeakerEnabled: refuse,
      isSpeakerEnabled: () => false,
      connect: async () => refuse(),
      disconnect: () => undefined,
      getState: () => 'ended',
      act: refuse,
    },
    win,
    parseAvatarPageOptions(win.location.search).registerEvents,
    () => tell(),
  );
  api.start();
  tell();
  return api;
}
