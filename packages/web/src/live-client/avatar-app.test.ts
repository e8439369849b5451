import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { LiveCode, LiveMessages, LiveRates } from '@persona/contract';
import { handOverOAuthGrant, mountAvatarApp } from './avatar-app';
import { parseAvatarPageOptions } from './params';
import { FakeSocket, admitted, liveFetch, pageConfig } from '../test/live-client-doubles';

function mount(search: string, routes: Parameters<typeof liveFetch>[0]) {
  const container = document.createElement('div');
  document.body.append(container);
  const api = liveFetch(routes);
  const app = mountAvatarApp(container, {
    avatarId: 12,
    options: parseAvatarPageOptions(search),
    session: { fetch: api.fetch, WebSocket: FakeSocket as unknown as typeof WebSocket },
  });
  return { ...api, app, container };
}

const okRoutes = {
  '/api/live/avatars/12': () => ({ status: 200, body: pageConfig() }),
  '/api/live/sessions': () => ({ status: 200, body: admitted(1) }),
  '/api/live/sessions/resume': () => ({ status: 200, body: admitted(2) }),
};

async function ready(socket: FakeSocket, history: { role: 'user' | 'assistant'; text: string; at: number }[] = [], resumed = false) {
  await waitFor(() => expect(socket.sent[0]).toMatchObject({ type: 'hello', protocol: 1 }));
  socket.push({ type: 'ready', sessionId: 'sess-1', history, audioSampleRate: 0, echo: false, resumed });
}

describe('the avatar page', () => {
  beforeEach(() => {
    FakeSocket.reset();
    document.body.replaceChildren();
  });

  it('connects on its own, shows the wake-up message and a streamed answer, and says what the visitor typed', async () => {
    const { calls } = mount('?autoConnect=true', okRoutes);
    await waitFor(() => expect(FakeSocket.instances).toHaveLength(1));
    const socket = FakeSocket.last();
    expect(socket.url).toBe('ws://worker-1.test/avatar-ws');
    await ready(socket);
    expect(socket.sent[0]).toMatchObject({ ticket: 'ticket-1', mic: true, speaker: true });
    expect(calls.find((c) => c.path === '/api/live/sessions')?.body).toMatchObject({ avatarId: 12, visitorId: expect.stringMatching(/^[A-Za-z0-9_-]{8,64}$/) });
    expect(await screen.findByRole('status', { name: '' })).toBeInTheDocument();

    // The chat panel starts closed (chatOpen is not set): the Chat button opens it.
    expect(screen.queryByRole('log', { name: 'Conversation' })).toBeNull();
    const chatButton = screen.getByRole('button', { name: 'Chat' });
    expect(chatButton).toHaveAttribute('aria-expanded', 'false');
    await userEvent.click(chatButton);
    expect(chatButton).toHaveAttribute('aria-expanded', 'true');
    socket.push({ type: 'assistant', utt: 1, delta: 'Hello', final: false });
    const log = screen.getByRole('log', { name: 'Conversation' });
    await waitFor(() => expect(log).toHaveTextContent('Hello'));
    expect(document.querySelector('.ps-avatar')).toHaveAttribute('data-speaking', 'true');
    socket.push({ type: 'assistant', utt: 1, text: 'Hello! I am Nova.', final: true });
    await waitFor(() => expect(log).toHaveTextContent('Hello! I am Nova.'));
    expect(document.querySelector('.ps-avatar')).toHaveAttribute('data-speaking', 'false');

    await userEvent.type(screen.getByLabelText('Message'), 'What can you do?');
    await userEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(socket.sent.at(-1)).toMatchObject({ type: 'text', text: 'What can you do?' });
    expect(within(log).getByText('What can you do?')).toBeInTheDocument();
    expect(screen.getByLabelText('Message')).toHaveValue('');
  });

  it('hands an action frame to the stage: without voice at once, on the test hook', async () => {
    mount('?autoConnect=true', okRoutes);
    await waitFor(() => expect(FakeSocket.instances).toHaveLength(1));
    const socket = FakeSocket.last();
    await ready(socket);
    const probe = () => (window as unknown as { __personaAvatar?: { actions: { action: unknown }[] } }).__personaAvatar;
    await waitFor(() => expect(probe()).toBeDefined());
    socket.push({ type: 'action', utt: 1, action: { kind: 'gesture', gesture: 'nod' }, source: 'tag' });
    socket.push({ type: 'action', utt: 1, t: 400, action: { kind: 'mood', mood: 'happy', intensity: 0.5 }, source: 'cue' });
    expect(probe()!.actions.map((a) => a.action)).toEqual([
      { kind: 'gesture', gesture: 'nod' },
      { kind: 'mood', mood: 'happy', intensity: 0.5 },
    ]);
  });

  it('in a frame, takes the focus only once the visitor has used the frame (issue 26, item 12)', async () => {
    const framedWindow = () =>
      ({ parent: { postMessage: () => undefined }, location: {}, document: { referrer: '' }, addEventListener: () => undefined, removeEventListener: () => undefined }) as unknown as Window;
    const mountFramed = () => {
      const container = document.createElement('div');
      document.body.append(container);
      const api = liveFetch(okRoutes);
      const app = mountAvatarApp(container, { avatarId: 12, options: parseAvatarPageOptions('?autoConnect=true'), embedWindow: framedWindow(), session: { fetch: api.fetch, WebSocket: FakeSocket as unknown as typeof WebSocket } });
      return { container, app };
    };
    // Connected while the visitor reads the host page: the input stays unfocused.
    const first = mountFramed();
    await waitFor(() => expect(FakeSocket.instances).toHaveLength(1));
    await ready(FakeSocket.last());
    const input = first.container.querySelector('input')!;
    await waitFor(() => expect(input).toBeEnabled());
    expect(document.activeElement).not.toBe(input);
    first.app.destroy();
    // The visitor pressed something in the frame first (e.g. Connect): the input is ready to type in.
    FakeSocket.reset();
    const second = mountFramed();
    second.container.dispatchEvent(new Event('pointerdown', { bubbles: true }));
    await waitFor(() => expect(FakeSocket.instances).toHaveLength(1));
    await ready(FakeSocket.last());
    await waitFor(() => expect(document.activeElement).toBe(second.container.querySelector('input')));
    second.app.destroy();
  });

  it('a visitor typing faster than the message rate reads why and keeps what they typed; a message the worker refused loses its bubble', async () => {
    let now = 0;
    const container = document.createElement('div');
    document.body.append(container);
    const api = liveFetch(okRoutes);
    mountAvatarApp(container, { avatarId: 12, options: parseAvatarPageOptions('?autoConnect=true&chatOpen=true'), session: { fetch: api.fetch, WebSocket: FakeSocket as unknown as typeof WebSocket, now: () => now } });
    await waitFor(() => expect(FakeSocket.instances).toHaveLength(1));
    const socket = FakeSocket.last();
    await ready(socket);
    const input = screen.getByLabelText('Message');
    const notice = container.querySelector('.ps-notice')!;
    const texts = () => socket.sent.filter((f) => (f as { type: string }).type === 'text');
    for (let i = 1; i <= LiveRates.messageBurst; i++) await userEvent.type(input, `question ${i}{enter}`);
    expect(texts()).toHaveLength(LiveRates.messageBurst);
    // One more at once: not sent, the page says why, the text stays in the box.
    await userEvent.type(input, 'one more{enter}');
    expect(texts()).toHaveLength(LiveRates.messageBurst);
    expect(notice).toHaveTextContent(LiveMessages['too-fast']);
    expect(notice).toBeVisible();
    expect(input).toHaveValue('one more');
    // A moment later it goes, and the notice with it.
    now += LiveRates.messageIntervalMs;
    await userEvent.type(input, '{enter}');
    expect(texts().at(-1)).toMatchObject({ text: 'one more' });
    expect(input).toHaveValue('');
    expect(notice).not.toBeVisible();
    // The worker did not take a message (its own count): the bubble goes and the notice says why.
    const log = screen.getByRole('log', { name: 'Conversation' });
    const refused = texts().at(-1) as { id: string };
    expect(within(log).getByText('one more')).toBeInTheDocument();
    socket.push({ type: 'notice', code: LiveCode.tooFast, message: LiveMessages['too-fast'], id: refused.id });
    await waitFor(() => expect(within(log).queryByText('one more')).not.toBeInTheDocument());
    expect(within(log).getByText('question 1')).toBeInTheDocument();
    expect(notice).toHaveTextContent(LiveMessages['too-fast']);
    expect(notice).toBeVisible();
  });

  it('says the avatar is getting its tools ready while a question waits for them, until the answer comes', async () => {
    const { container } = mount('?autoConnect=true', okRoutes);
    await waitFor(() => expect(FakeSocket.instances).toHaveLength(1));
    const socket = FakeSocket.last();
    await ready(socket);
    const notice = container.querySelector('.ps-notice')!;
    socket.push({ type: 'notice', code: LiveCode.toolsStarting, message: LiveMessages['tools-starting'] });
    await waitFor(() => expect(notice).toHaveTextContent(LiveMessages['tools-starting']));
    expect(notice).toBeVisible();
    socket.push({ type: 'assistant', utt: 2, delta: 'It is sunny', final: false });
    await waitFor(() => expect(notice).not.toBeVisible());
  });

  it('shows a connect screen with the picture and name, then the stage with the name over it', async () => {
    const config = pageConfig({ name: 'Nova' });
    const withPhoto = { ...config, avatar: { ...config.avatar, photoUrl: '/photos/nova.png' } };
    const { container } = mount('?autoConnect=false', { ...okRoutes, '/api/live/avatars/12': () => ({ status: 200, body: withPhoto }) });
    const connect = await screen.findByRole('button', { name: 'Connect' });
    const screenEl = container.querySelector('.ps-connect-screen')!;
    expect(screenEl).toBeVisible();
    expect(screenEl.contains(screen.getByRole('heading', { name: 'Nova' }))).toBe(true);
    expect(screenEl.contains(connect)).toBe(true);
    expect(screenEl.querySelector('img.ps-connect-photo')).toHaveAttribute('src', '/photos/nova.png');
    // The same picture is the stage's poster until a scene draws.
    expect(container.querySelector('.ps-photo')).toHaveAttribute('src', '/photos/nova.png');
    await userEvent.click(connect);
    await ready(FakeSocket.last());
    await waitFor(() => expect(screenEl).not.toBeVisible());
    expect(container.querySelector('.ps-bar')!.contains(screen.getByRole('heading', { name: 'Nova' }))).toBe(true);
    // Hung up: the connect screen is back, offering to connect again.
    await userEvent.click(screen.getByRole('button', { name: 'End conversation' }));
    await waitFor(() => expect(screenEl).toBeVisible());
    expect(screenEl.contains(screen.getByRole('button', { name: 'Connect again' }))).toBe(true);
  });

  it('keeps the chat in a panel the visitor opens and closes; chatOpen=true opens it at first', async () => {
    const closed = mount('', okRoutes);
    const toggle = await screen.findByRole('button', { name: 'Chat' });
    expect(toggle).toHaveAttribute('aria-controls', 'ps-chat');
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(closed.container.querySelector('#ps-chat')).not.toBeVisible();
    // The message input stays in the controls at the bottom, the panel closed or open.
    expect(screen.getByLabelText('Message')).toBeVisible();
    await userEvent.click(toggle);
    expect(screen.getByRole('log', { name: 'Conversation' })).toBeVisible();
    await userEvent.click(screen.getByRole('button', { name: 'Close chat' }));
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(document.activeElement).toBe(toggle);
    await userEvent.click(toggle);
    await userEvent.keyboard('{Escape}');
    expect(screen.getByRole('button', { name: 'Chat' })).toHaveAttribute('aria-expanded', 'true');
    screen.getByRole('button', { name: 'Close chat' }).focus();
    await userEvent.keyboard('{Escape}');
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    closed.app.destroy();

    document.body.replaceChildren();
    mount('?chatOpen=true', okRoutes);
    expect(await screen.findByRole('button', { name: 'Chat' })).toHaveAttribute('aria-expanded', 'true');
    expect(screen.getByRole('log', { name: 'Conversation' })).toBeVisible();
  });

  it('puts every control in one group of labelled buttons; no Chat button without a history', async () => {
    mount('?hideChatHistory=true', okRoutes);
    const toolbar = await screen.findByRole('group', { name: 'Call controls' });
    for (const button of within(toolbar).getAllByRole('button')) {
      expect(button.tagName).toBe('BUTTON');
      expect(button.getAttribute('aria-label')).toBeTruthy();
    }
    expect(within(toolbar).getByRole('button', { name: 'Full screen' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Chat' })).not.toBeInTheDocument();
  });

  it('waits for Connect when autoConnect=false and hides what the URL hides', async () => {
    mount('?autoConnect=false&hideChatInput=true&hideChatHistory=true&hideFS=true&micOffByDefault=true', okRoutes);
    const connect = await screen.findByRole('button', { name: 'Connect' });
    expect(FakeSocket.instances).toHaveLength(0);
    expect(screen.queryByLabelText('Message')).not.toBeInTheDocument();
    expect(screen.queryByRole('log')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Full screen' })).not.toBeInTheDocument();
    // The mic is offered once the worker says it listens (avatar-listening.test.ts); the preference goes in hello.
    expect(screen.queryByRole('button', { name: /microphone/ })).not.toBeInTheDocument();
    await userEvent.click(connect);
    await waitFor(() => expect(FakeSocket.instances).toHaveLength(1));
    await waitFor(() => expect(FakeSocket.last().sent[0]).toMatchObject({ type: 'hello', mic: false }));
  });

  it('explains each refusal in words', async () => {
    mount('', {
      ...okRoutes,
      '/api/live/sessions': () => ({ status: 403, body: { status: 'FAIL', code: 'token-expired', failReason: 13, errors: [LiveMessages['token-expired']] } }),
    });
    expect(await screen.findByRole('alert')).toHaveTextContent('The access token has expired. Reload the page to get a new one.');
    expect(screen.getByRole('button', { name: 'Connect again' })).toBeInTheDocument();
    expect(FakeSocket.instances).toHaveLength(0);
  });

  it('says when the avatar does not exist', async () => {
    mount('', { '/api/live/avatars/12': () => ({ status: 404, body: { status: 'FAIL', errors: ['Avatar not found.'] } }) });
    expect(await screen.findByRole('alert')).toHaveTextContent(LiveMessages['avatar-not-found']);
  });

  it('asks for a token before connecting when the avatar needs one', async () => {
    const { calls } = mount('', { ...okRoutes, '/api/live/avatars/12': () => ({ status: 200, body: pageConfig({ tokenRequired: true }) }) });
    expect(await screen.findByRole('alert')).toHaveTextContent(LiveMessages['token-required']);
    expect(calls.some((c) => c.path === '/api/live/sessions')).toBe(false);
  });

  it('a protected avatar opened without a token says so as it loads and offers no Connect that would fail, with or without autoConnect; the host gets auth-fail even when it registers later', async () => {
    for (const search of ['', '?autoConnect=false']) {
      document.body.replaceChildren();
      const posted: { eventName: string; eventParams: unknown; origin: string }[] = [];
      const listeners: ((e: MessageEvent) => void)[] = [];
      const parent = { postMessage: (message: { eventName: string; eventParams: unknown }, origin: string) => posted.push({ ...message, origin }) };
      const win = {
        parent,
        location: { ancestorOrigins: Object.assign(['https://host.example'], { contains: () => true, item: () => 'https://host.example' }) },
        document: { referrer: '' },
        addEventListener: (_: string, fn: (e: MessageEvent) => void) => listeners.push(fn),
        removeEventListener: () => undefined,
      } as unknown as Window;
      const container = document.createElement('div');
      document.body.append(container);
      const api = liveFetch({ ...okRoutes, '/api/live/avatars/12': () => ({ status: 200, body: pageConfig({ tokenRequired: true }) }) });
      mountAvatarApp(container, { avatarId: 12, options: parseAvatarPageOptions(search), session: { fetch: api.fetch, WebSocket: FakeSocket as unknown as typeof WebSocket }, embedWindow: win });
      expect(await screen.findByRole('alert')).toHaveTextContent(LiveMessages['token-required']);
      expect(screen.queryByRole('button', { name: /^Connect/ })).not.toBeInTheDocument();
      expect(screen.getByRole('textbox', { name: 'Message' })).toBeDisabled();
      // The host registers after the page found out (its iframe's load event comes late).
      for (const fn of listeners) fn({ data: { eventName: 'registerTrlEvents', eventParams: { events: ['auth-fail'] } }, origin: 'https://host.example', source: parent } as unknown as MessageEvent);
      await waitFor(() => expect(posted.filter((p) => p.eventName === 'auth-fail')).toEqual([
        { eventName: 'auth-fail', eventParams: { code: LiveCode.tokenRequired, message: LiveMessages['token-required'], failReason: 13 }, origin: 'https://host.example' },
      ]));
      expect(api.calls.some((c) => c.path === '/api/live/sessions')).toBe(false);
    }
  });

  it('offers sign-in for an OAuth avatar and connects with the grant in the request body', async () => {
    const { calls } = mount('', { ...okRoutes, '/api/live/avatars/12': () => ({ status: 200, body: pageConfig({ oauth: { appId: 5, startUrl: '/api/oauth/start/5', provider: 'Google' } }) }) });
    expect(await screen.findByRole('alert')).toHaveTextContent(LiveMessages['oauth-required']);
    expect(screen.getByRole('button', { name: 'Sign in to continue' })).toBeVisible();
    window.dispatchEvent(new MessageEvent('message', { origin: window.location.origin, data: { type: 'persona-oauth-grant', grant: 'grant-123' } }));
    await waitFor(() => expect(calls.find((c) => c.path === '/api/live/sessions')?.body).toMatchObject({ oauthGrant: 'grant-123' }));
    // Messages from other origins are ignored.
    window.dispatchEvent(new MessageEvent('message', { origin: 'https://evil.example', data: { type: 'persona-oauth-grant', grant: 'x' } }));
    expect(calls.filter((c) => c.path === '/api/live/sessions')).toHaveLength(1);
  });

  it('signs in through a fresh start link: the popup opens on the click, then goes to the link the portal signed just now', async () => {
    let served = 0;
    const { calls } = mount('', {
      ...okRoutes,
      '/api/live/avatars/12': () => ({ status: 200, body: pageConfig({ oauth: { appId: 5, startUrl: `/api/oauth/start/5?start=signed-${++served}`, provider: 'Google' } }) }),
    });
    const popup = { location: { href: '' } };
    const open = vi.spyOn(window, 'open').mockReturnValue(popup as unknown as Window);
    try {
      await userEvent.click(await screen.findByRole('button', { name: 'Sign in to continue' }));
      expect(open).toHaveBeenCalledWith('', 'persona-oauth', 'popup,width=520,height=680');
      await waitFor(() => expect(popup.location.href).not.toBe(''));
      const url = new URL(popup.location.href);
      expect(url.pathname).toBe('/api/oauth/start/5');
      // Not the link of the page's load: a new one (they expire in minutes).
      expect(url.searchParams.get('start')).toBe('signed-2');
      expect(url.searchParams.get('returnTo')).toBe(`${window.location.pathname}?oauthApp=5`);
      expect(calls.filter((c) => c.path === '/api/live/avatars/12')).toHaveLength(2);
    } finally {
      open.mockRestore();
    }
  });

  it('in the sign-in popup, swaps the one-time code for the grant and hands it to the avatar page', async () => {
    const posted: { message: unknown; origin: string }[] = [];
    const opener = { postMessage: (message: unknown, origin: string) => posted.push({ message, origin }) };
    let replaced = '';
    const win = {
      location: { href: 'http://localhost:3000/avatar/12?oauthApp=5&oauthCode=one-time', origin: 'http://localhost:3000' },
      history: { replaceState: (_s: unknown, _t: string, url: string) => (replaced = url) },
      opener,
      close: vi.fn(),
    } as unknown as Window;
    const api = liveFetch({ '/api/oauth/grant': (body) => ({ status: 200, body: { status: 'OK', oauthGrant: `grant-for-${(body as { code: string }).code}`, expiresAt: '2030-01-01T00:00:00Z' } }) });
    expect(await handOverOAuthGrant(win, api.fetch)).toBe(true);
    expect(api.calls).toEqual([{ path: '/api/oauth/grant', body: { appId: 5, code: 'one-time' } }]);
    expect(replaced).toBe('/avatar/12');
    expect(posted).toEqual([{ message: { type: 'persona-oauth-grant', grant: 'grant-for-one-time' }, origin: 'http://localhost:3000' }]);
    expect(win.close).toHaveBeenCalled();
  });

  it('reconnects through the portal when the worker is lost and keeps the conversation', async () => {
    const { calls } = mount('?chatOpen=true', okRoutes);
    await waitFor(() => expect(FakeSocket.instances).toHaveLength(1));
    await ready(FakeSocket.last());
    FakeSocket.last().push({ type: 'assistant', utt: 1, text: 'Hello!', final: true });
    FakeSocket.last().drop();
    expect(await screen.findByText('Reconnecting…')).toBeInTheDocument();
    await waitFor(() => expect(FakeSocket.instances).toHaveLength(2));
    expect(calls.find((c) => c.path === '/api/live/sessions/resume')?.body).toEqual({ sessionId: 'sess-1', resumeToken: 'resume-1' });
    const second = FakeSocket.last();
    expect(second.url).toBe('ws://worker-2.test/avatar-ws');
    await ready(second, [{ role: 'assistant', text: 'Hello!', at: 1 }, { role: 'user', text: 'Are you there?', at: 2 }], true);
    const log = screen.getByRole('log');
    await waitFor(() => expect(log).toHaveTextContent('Are you there?'));
    expect(await screen.findByText('Connected')).toBeInTheDocument();
  });

  it('shows why the session ended and offers to connect again', async () => {
    mount('', okRoutes);
    await waitFor(() => expect(FakeSocket.instances).toHaveLength(1));
    await ready(FakeSocket.last());
    FakeSocket.last().push({ type: 'bye', code: 'idle-timeout', message: LiveMessages['idle-timeout'] });
    expect(await screen.findByRole('alert')).toHaveTextContent(LiveMessages['idle-timeout']);
    expect(screen.getByRole('button', { name: 'Connect again' })).toBeInTheDocument();
    expect(screen.getByLabelText('Message')).toBeDisabled();
  });

  it('hangs up with a bye frame', async () => {
    mount('', okRoutes);
    await waitFor(() => expect(FakeSocket.instances).toHaveLength(1));
    const socket = FakeSocket.last();
    await ready(socket);
    await userEvent.click(await screen.findByRole('button', { name: 'End conversation' }));
    expect(socket.sent.at(-1)).toEqual({ type: 'bye' });
    expect(await screen.findByText('Conversation ended')).toBeInTheDocument();
  });
});

describe('URL parameters', () => {
  it('accepts Trulience names beside ours', () => {
    expect(parseAvatarPageOptions('?connect=false&hideFS=true&micOffByDefault=true&speakerOffByDefault=1&hideMicButton=true&hideHangUpButton=true')).toMatchObject({
      autoConnect: false,
      hideFullscreen: true,
      micOn: false,
      speakerOn: false,
      hideMicButton: true,
      hideHangUpButton: true,
    });
    expect(parseAvatarPageOptions('')).toMatchObject({ autoConnect: true, micOn: true, speakerOn: true, draggable: true, useCache: true, token: undefined });
    expect(parseAvatarPageOptions('?micOn=false&draggable=false&useCache=false&token=abc')).toMatchObject({ micOn: false, draggable: false, useCache: false, token: 'abc' });
    // Trulience's iframe app: the events to post, the avatar alone, the mic disabled.
    expect(parseAvatarPageOptions('?connect=true&showFullscreenAvatar=true&disableMic=true&registerTrlEvents=auth-success,%20trl-chat,,auth-success')).toMatchObject({
      autoConnect: true,
      micOn: false,
      hideChatInput: true,
      hideChatHistory: true,
      hideMicButton: true,
      hideSpeakerButton: true,
      hideHangUpButton: true,
      hideFullscreen: true,
      registerEvents: ['auth-success', 'trl-chat'],
    });
    expect(parseAvatarPageOptions('?showFullscreenAvatar=true&hideChatInput=false')).toMatchObject({ hideChatInput: false, hideChatHistory: true });
    expect(parseAvatarPageOptions('')).toMatchObject({ hideSpeakerButton: false, registerEvents: [] });
  });
});
