import { describe, expect, it, vi } from 'vitest';
import type { TAvatarAction } from '@persona/contract';
import { EmbedApi, detectHostOrigin, type EmbedTarget } from './embed-api';

/** A window framed by a host page: what the avatar page sees of its parent. */
function framedWindow(opts: { ancestor?: string; referrer?: string } = {}) {
  const posted: { message: unknown; targetOrigin: string }[] = [];
  const parent = { postMessage: (message: unknown, targetOrigin: string) => posted.push({ message, targetOrigin }) };
  const listeners: ((e: MessageEvent) => void)[] = [];
  const win = {
    parent,
    location: { ancestorOrigins: opts.ancestor ? Object.assign([opts.ancestor], { contains: () => true, item: (i: number) => (i === 0 ? opts.ancestor : null) }) : undefined },
    document: { referrer: opts.referrer ?? '' },
    addEventListener: (_: string, fn: (e: MessageEvent) => void) => listeners.push(fn),
    removeEventListener: () => undefined,
  } as unknown as Window;
  const deliver = async (data: unknown, origin: string, source: unknown = parent) => {
    for (const fn of listeners) fn({ data, origin, source } as MessageEvent);
    await new Promise((r) => setTimeout(r, 0));
  };
  return { win, posted, deliver, parent };
}

function target(): EmbedTarget & { sent: string[]; said: string[]; acted: TAvatarAction[] } {
  let mic = true;
  let speaker = true;
  const sent: string[] = [];
  const said: string[] = [];
  const acted: TAvatarAction[] = [];
  return {
    sent,
    said,
    acted,
    act: (a) => void acted.push(a),
    sendMessage: (t) => (sent.push(t), true),
    sendMessageToAvatar: (t) => (said.push(t), true),
    setMicEnabled: (v) => (mic = v),
    isMicEnabled: () => mic,
    setSpeakerEnabled: (v) => (speaker = v),
    isSpeakerEnabled: () => speaker,
    connect: async () => true,
    disconnect: vi.fn(),
    getState: () => 'idle',
  };
}

const call = (method: string, args: unknown[] = [], callId: string | number = 1) => ({ eventName: 'trl-method-call', eventParams: { method, args, callId } });

describe('the postMessage API for host pages', () => {
  it('knows its host from the ancestor origin, else the referrer', () => {
    expect(detectHostOrigin(framedWindow({ ancestor: 'https://shop.example' }).win)).toBe('https://shop.example');
    expect(detectHostOrigin(framedWindow({ referrer: 'https://blog.example/post/1' }).win)).toBe('https://blog.example');
  });

  it('answers Trulience-style method calls with their callId, to the host origin only', async () => {
    const { win, posted, deliver } = framedWindow({ ancestor: 'https://shop.example' });
    const t = target();
    new EmbedApi(t, win).start();
    await deliver(call('sendMessage', ['Hi there'], 'c1'), 'https://shop.example');
    await deliver(call('sendMessageToAvatar', ['Welcome to our shop'], 'c2'), 'https://shop.example');
    await deliver(call('setMicEnabled', [false], 7), 'https://shop.example');
    await deliver(call('toggleSpeaker', [], 8), 'https://shop.example');
    await deliver(call('isSpeakerEnabled', [], 9), 'https://shop.example');
    expect(t.sent).toEqual(['Hi there']);
    expect(t.said).toEqual(['Welcome to our shop']);
    expect(posted.map((p) => p.targetOrigin)).toEqual(Array(5).fill('https://shop.example'));
    expect(posted.map((p) => p.message)).toEqual([
      { eventName: 'trl-method-response', eventParams: { callId: 'c1', status: 'success', result: true } },
      { eventName: 'trl-method-response', eventParams: { callId: 'c2', status: 'success', result: true } },
      { eventName: 'trl-method-response', eventParams: { callId: 7, status: 'success', result: false } },
      { eventName: 'trl-method-response', eventParams: { callId: 8, status: 'success', result: false } },
      { eventName: 'trl-method-response', eventParams: { callId: 9, status: 'success', result: false } },
    ]);
  });

  it('ignores other origins and other windows, and refuses bad arguments with an error', async () => {
    const { win, posted, deliver } = framedWindow({ ancestor: 'https://shop.example' });
    const t = target();
    new EmbedApi(t, win).start();
    await deliver(call('sendMessage', ['from evil']), 'https://evil.example');
    await deliver(call('sendMessage', ['from a sibling']), 'https://shop.example', {});
    expect(t.sent).toEqual([]);
    expect(posted).toEqual([]);
    await deliver(call('sendMessage', [42], 'x'), 'https://shop.example');
    await deliver(call('launchRockets', [], 'y'), 'https://shop.example');
    expect(posted.map((p) => p.message)).toEqual([
      { eventName: 'trl-method-response', eventParams: { callId: 'x', status: 'error', error: 'A non-empty text argument is required.' } },
      { eventName: 'trl-method-response', eventParams: { callId: 'y', status: 'error', error: 'Unknown method: launchRockets' } },
    ]);
  });

  it('sets a mood or plays a gesture the host asks for; unknown names and bad intensities are refused', async () => {
    const { win, posted, deliver } = framedWindow({ ancestor: 'https://shop.example' });
    const t = target();
    new EmbedApi(t, win).start();
    await deliver(call('setMood', ['happy', 0.6], 1), 'https://shop.example');
    await deliver(call('playGesture', ['nod'], 2), 'https://shop.example');
    await deliver(call('setMood', ['furious'], 3), 'https://shop.example');
    await deliver(call('playGesture', ['backflip'], 4), 'https://shop.example');
    await deliver(call('setMood', ['sad', 7], 5), 'https://shop.example');
    await deliver(call('setMood', [], 6), 'https://shop.example');
    expect(t.acted).toEqual([
      { kind: 'mood', mood: 'happy', intensity: 0.6 },
      { kind: 'gesture', gesture: 'nod' },
    ]);
    expect(posted.map((p) => p.message)).toEqual([
      { eventName: 'trl-method-response', eventParams: { callId: 1, status: 'success', result: true } },
      { eventName: 'trl-method-response', eventParams: { callId: 2, status: 'success', result: true } },
      { eventName: 'trl-method-response', eventParams: { callId: 3, status: 'error', error: 'Unknown mood: furious. Moods: neutral, happy, sad, surprised, concerned, thinking.' } },
      { eventName: 'trl-method-response', eventParams: { callId: 4, status: 'error', error: 'Unknown gesture: backflip. Gestures: nod, shake, wave, shrug, point.' } },
      { eventName: 'trl-method-response', eventParams: { callId: 5, status: 'error', error: 'The intensity must be a number from 0 to 1.' } },
      { eventName: 'trl-method-response', eventParams: { callId: 6, status: 'error', error: 'Unknown mood: undefined. Moods: neutral, happy, sad, surprised, concerned, thinking.' } },
    ]);
  });

  it('posts only the events the host registered for', async () => {
    const { win, posted, deliver } = framedWindow({ ancestor: 'https://shop.example' });
    const api = new EmbedApi(target(), win);
    api.start();
    api.emit('trl-chat', { message: 'not yet', sttResponse: false });
    expect(posted).toEqual([]);
    await deliver({ eventName: 'registerTrlEvents', eventParams: { events: ['trl-chat', 'mic-update', 'no-such-event'] } }, 'https://shop.example');
    api.emit('trl-chat', { message: 'Hello!', sttResponse: false });
    api.emit('speaker-update', { enabled: false });
    api.emit('mic-update', { enabled: false });
    expect(posted).toEqual([
      { message: { eventName: 'trl-chat', eventParams: { message: 'Hello!', sttResponse: false } }, targetOrigin: 'https://shop.example' },
      { message: { eventName: 'mic-update', eventParams: { enabled: false } }, targetOrigin: 'https://shop.example' },
    ]);
  });

  it('without a known host origin, the host’s first message fixes it', async () => {
    const { win, posted, deliver } = framedWindow();
    const api = new EmbedApi(target(), win);
    api.start();
    expect(api.origin).toBeNull();
    await deliver(call('isMicEnabled', [], 1), 'https://host.example');
    expect(posted[0]?.targetOrigin).toBe('https://host.example');
    await deliver(call('sendMessage', ['x'], 2), 'https://other.example');
    expect(posted).toHaveLength(1);
  });

  it('registers the events of the registerTrlEvents URL parameter without any message (a page written for Trulience)', () => {
    const { win, posted } = framedWindow({ ancestor: 'https://shop.example' });
    const api = new EmbedApi(target(), win, ['auth-success', 'trl-chat', 'mic-access', 'no-such-event']);
    api.start();
    api.emit('auth-success', { sessionId: 's1' });
    api.emit('trl-chat', { message: 'Hello!', sttResponse: false });
    api.emit('state', { state: 'idle' });
    expect(posted).toEqual([
      { message: { eventName: 'auth-success', eventParams: { sessionId: 's1' } }, targetOrigin: 'https://shop.example' },
      { message: { eventName: 'trl-chat', eventParams: { message: 'Hello!', sttResponse: false } }, targetOrigin: 'https://shop.example' },
    ]);
  });

  it('takes Trulience’s deprecated {command, message} messages', async () => {
    const { win, posted, deliver } = framedWindow({ ancestor: 'https://shop.example' });
    const t = target();
    new EmbedApi(t, win).start();
    await deliver({ command: 'trl-chat', message: 'Typed on the host' }, 'https://shop.example');
    await deliver({ command: 'trl-chat-send', message: 'Sent again' }, 'https://shop.example');
    await deliver({ command: 'trl-avatar-chat', message: 'Say this' }, 'https://shop.example');
    await deliver({ command: 'trl-avatar-chat-send', message: 'And this' }, 'https://shop.example');
    await deliver({ command: 'trl-mic-status', message: false }, 'https://shop.example');
    expect(t.isMicEnabled()).toBe(false);
    await deliver({ command: 'trl-mic-set', message: true }, 'https://shop.example');
    expect(t.isMicEnabled()).toBe(true);
    await deliver({ command: 'trl-set-speaker-status', message: false }, 'https://shop.example');
    expect(t.isSpeakerEnabled()).toBe(false);
    await deliver({ command: 'trl-speaker-set', message: true }, 'https://shop.example');
    expect(t.isSpeakerEnabled()).toBe(true);
    await deliver({ command: 'end-call' }, 'https://shop.example');
    expect(t.disconnect).toHaveBeenCalledTimes(1);
    // A bad argument or an unknown command does nothing; no answers in this form…
    await deliver({ command: 'trl-chat', message: 42 }, 'https://shop.example');
    await deliver({ command: 'format-disk' }, 'https://shop.example');
    // …from another origin, nothing at all.
    await deliver({ command: 'trl-chat', message: 'from evil' }, 'https://evil.example');
    expect(t.sent).toEqual(['Typed on the host', 'Sent again']);
    expect(t.said).toEqual(['Say this', 'And this']);
    expect(posted).toEqual([]);
    // The deprecated method call carries its fields beside `command`, and is answered.
    await deliver({ command: 'trl-method-call', method: 'isMicEnabled', args: [], callId: 'm1' }, 'https://shop.example');
    expect(posted.map((p) => p.message)).toEqual([{ eventName: 'trl-method-response', eventParams: { callId: 'm1', status: 'success', result: true } }]);
  });
});
