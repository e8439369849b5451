import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { beforeEach, describe, expect, it } from 'vitest';
import { AudioFrameKind, AvatarStates, readAudioFrame, type TLiveStartAnswer } from '@persona/contract';
import { MicProblemText } from './audio/mic-capture';
import { mountAvatarApp } from './avatar-app';
import { parseAvatarPageOptions } from './params';
import { FakeMic, FakeSocket, admitted, liveFetch, pageConfig } from '../test/live-client-doubles';

/** A window framed by a host page at https://host.example: what the host receives. */
function hostWindow() {
  // Every post, whatever its target origin: the tests assert the origin (a post to '*' fails them).
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
  const deliver = async (data: unknown) => {
    for (const fn of listeners) fn({ data, origin: 'https://host.example', source: parent } as unknown as MessageEvent);
    await new Promise((r) => setTimeout(r, 0));
  };
  return { win, posted, deliver };
}

/**
 * The browser's speech recognition, scripted: the test says what it heard. Asynchronous like the
 * real API: onstart comes after start() returns (with `hold`, only on begin()); abort() stops at
 * once but reports 'aborted' and onend later, and a session aborted before it started never starts.
 */
class FakeRecognition {
  static last: FakeRecognition | null = null;
  static instances = 0;
  static refuse: string | null = null;
  static hold = false;
  lang = '';
  continuous = false;
  interimResults = false;
  running = false;
  aborted = false;
  onstart: (() => void) | null = null;
  onresult: ((e: { resultIndex: number; results: unknown }) => void) | null = null;
  onerror: ((e: { error: string }) => void) | null = null;
  onend: (() => void) | null = null;
  constructor() {
    FakeRecognition.last = this;
    FakeRecognition.instances++;
  }
  start() {
    if (!FakeRecognition.hold) setTimeout(() => this.begin(), 0);
  }
  /** The browser started (or refused) this session. */
  begin() {
    if (this.aborted) return;
    if (FakeRecognition.refuse) return this.onerror?.({ error: FakeRecognition.refuse });
    this.running = true;
    this.onstart?.();
  }
  stop() {
    this.abort();
  }
  abort() {
    if (this.aborted) return;
    this.aborted = true;
    this.running = false;
    setTimeout(() => {
      this.onerror?.({ error: 'aborted' });
      this.onend?.();
    }, 0);
  }
  hear(text: string, isFinal: boolean) {
    const result = Object.assign([{ transcript: text }], { isFinal });
    this.onresult?.({ resultIndex: 0, results: [result] });
  }
}

function mount(search: string, ui: Partial<NonNullable<TLiveStartAnswer['ui']>> = {}, speechRecognition: unknown = null) {
  const container = document.createElement('div');
  document.body.append(container);
  const host = hostWindow();
  const answer = admitted(1);
  answer.ui = { ...answer.ui!, ...ui };
  const api = liveFetch({
    '/api/live/avatars/12': () => ({ status: 200, body: pageConfig() }),
    '/api/live/sessions': () => ({ status: 200, body: answer }),
  });
  const app = mountAvatarApp(container, {
    avatarId: 12,
    options: parseAvatarPageOptions(search),
    session: { fetch: api.fetch, WebSocket: FakeSocket as unknown as typeof WebSocket },
    embedWindow: host.win,
    mic: (events) => new FakeMic(events),
    speechRecognition: speechRecognition as never,
  });
  return { app, host, mic: () => FakeMic.last! };
}

async function ready(listening: boolean | undefined) {
  await waitFor(() => expect(FakeSocket.instances).toHaveLength(1));
  const socket = FakeSocket.last();
  await waitFor(() => expect(socket.sent[0]).toMatchObject({ type: 'hello' }));
  socket.push({ type: 'ready', sessionId: 'sess-1', history: [], audioSampleRate: 0, echo: false, resumed: false, ...(listening === undefined ? {} : { listening }) });
  return socket;
}

const tone = () => Int16Array.from({ length: 320 }, (_, i) => Math.round(3000 * Math.sin(i / 5)));
const HOST = 'https://host.example';
/** The params of the posts named `name`; every post the page made must target the host's origin. */
const events = (posted: { eventName: string; eventParams: unknown; origin: string }[], name: string) => {
  expect(posted.filter((p) => p.origin !== HOST).map((p) => [p.eventName, p.origin])).toEqual([]);
  return posted.filter((p) => p.eventName === name).map((p) => p.eventParams);
};

describe('listening in the avatar page', () => {
  beforeEach(() => {
    FakeSocket.reset();
    FakeMic.last = null;
    document.body.replaceChildren();
  });

  it('offers the mic only when the worker listens; then streams 20 ms mic frames with a level meter', async () => {
    mount('');
    const socket = await ready(true);
    const button = await screen.findByRole('button', { name: 'Turn microphone off' });
    expect(button).toBeVisible();
    await waitFor(() => expect(FakeMic.last!.active).toBe(true));
    const meter = await screen.findByRole('meter', { name: 'Microphone level' });
    for (let i = 0; i < 3; i++) FakeMic.last!.frame(tone(), 0.1);
    expect(socket.binary).toHaveLength(3);
    const frames = socket.binary.map((b) => readAudioFrame(b)!);
    expect(frames.map((f) => f.header)).toEqual([0, 1, 2].map((seq) => ({ kind: AudioFrameKind.mic, flags: 0, utterance: 0, seq })));
    expect(frames[0]!.pcm.byteLength).toBe(640);
    expect(Array.from(new Int16Array(frames[0]!.pcm.slice().buffer))).toEqual(Array.from(tone()));
    expect(Number(meter.getAttribute('aria-valuenow'))).toBeGreaterThan(0);
    socket.push({ type: 'state', state: 'listening' });
    expect(await screen.findByText('Listening…')).toBeInTheDocument();
  });

  it('without listening in ready (older worker, typed chat only) there is no mic and no capture', async () => {
    mount('');
    await ready(undefined);
    await screen.findByText('Connected');
    expect(screen.queryByRole('button', { name: /microphone/ })).not.toBeInTheDocument();
    expect(FakeMic.last!.starts).toBe(0);
  });

  it('the mic button turns capture off and on, sends mic frames, and tells the host (mic-update)', async () => {
    const { host } = mount('');
    await host.deliver({ eventName: 'registerTrlEvents', eventParams: { events: ['mic-update', 'mic-error'] } });
    const socket = await ready(true);
    await waitFor(() => expect(FakeMic.last!.active).toBe(true));
    await userEvent.click(screen.getByRole('button', { name: 'Turn microphone off' }));
    expect(socket.sent.at(-1)).toEqual({ type: 'mic', enabled: false });
    expect(FakeMic.last!.active).toBe(false);
    expect(screen.queryByRole('meter')).not.toBeInTheDocument();
    FakeMic.last!.frame(tone());
    expect(socket.binary).toHaveLength(0);
    await userEvent.click(screen.getByRole('button', { name: 'Turn microphone on' }));
    expect(socket.sent.at(-1)).toEqual({ type: 'mic', enabled: true });
    await waitFor(() => expect(FakeMic.last!.active).toBe(true));
    expect(events(host.posted, 'mic-update')).toEqual([{ enabled: false }, { enabled: true }]);
  });

  it('micOn=false (or micOff) waits for the visitor: no prompt until the mic is turned on', async () => {
    mount('?micOn=false');
    const socket = await ready(true);
    expect(socket.sent[0]).toMatchObject({ type: 'hello', mic: false });
    const button = await screen.findByRole('button', { name: 'Turn microphone on' });
    expect(button).toHaveAttribute('aria-pressed', 'false');
    expect(FakeMic.last!.starts).toBe(0);
    await userEvent.click(button);
    await waitFor(() => expect(FakeMic.last!.active).toBe(true));
  });

  it('getState and the state events say the same word, from one vocabulary (AvatarStates): before, getState said "connected" while the events said "listening"', async () => {
    const { host } = mount('');
    await host.deliver({ eventName: 'registerTrlEvents', eventParams: { events: ['state'] } });
    const call = (callId: number) => host.deliver({ eventName: 'trl-method-call', eventParams: { method: 'getState', args: [], callId } });
    const socket = await ready(true);
    const asked: unknown[] = [];
    const ask = async () => {
      const id = asked.length + 1;
      await call(id);
      const answer = (events(host.posted, 'trl-method-response') as { callId: number; result: unknown }[]).find((a) => a.callId === id);
      asked.push(answer?.result);
      return answer?.result;
    };
    expect(await ask()).toBe('idle');
    socket.push({ type: 'state', state: 'listening' });
    expect(await ask()).toBe('listening');
    socket.push({ type: 'state', state: 'thinking' });
    expect(await ask()).toBe('thinking');
    // No player in this page (jsdom): speaking follows the worker's frames.
    socket.push({ type: 'state', state: 'speaking' });
    socket.push({ type: 'assistant', utt: 1, delta: 'Hi', final: false });
    expect(await ask()).toBe('speaking');
    socket.push({ type: 'assistant', utt: 1, text: 'Hi', final: true });
    socket.push({ type: 'state', state: 'listening' });
    expect(await ask()).toBe('listening');
    const stated = (events(host.posted, 'state') as { state: string }[]).map((e) => e.state);
    expect(stated).toEqual(['connecting', 'idle', 'listening', 'thinking', 'speaking', 'listening']);
    for (const word of [...stated, ...asked]) expect(AvatarStates).toContain(word);
  });

  it('the host page drives the mic: setMicEnabled, toggleMic, isMicEnabled', async () => {
    const { host } = mount('');
    const socket = await ready(true);
    await waitFor(() => expect(FakeMic.last!.active).toBe(true));
    const call = (method: string, args: unknown[], callId: number) => host.deliver({ eventName: 'trl-method-call', eventParams: { method, args, callId } });
    await call('setMicEnabled', [false], 1);
    expect(FakeMic.last!.active).toBe(false);
    await call('isMicEnabled', [], 2);
    await call('toggleMic', [], 3);
    await waitFor(() => expect(FakeMic.last!.active).toBe(true));
    await call('isMicEnabled', [], 4);
    const answers = events(host.posted, 'trl-method-response') as { callId: number; result: unknown }[];
    expect(answers.map((a) => [a.callId, a.result])).toEqual([
      [1, false],
      [2, false],
      [3, true],
      [4, true],
    ]);
    expect(socket.sent.filter((f) => (f as { type: string }).type === 'mic')).toEqual([
      { type: 'mic', enabled: false },
      { type: 'mic', enabled: true },
    ]);
    expect(screen.getByRole('button', { name: 'Turn microphone off' })).toHaveAttribute('aria-pressed', 'true');
  });

  it('a denied microphone is explained in the page and posted to the host (mic-error, mic-update false); typing still works', async () => {
    const { host, mic } = mount('');
    await host.deliver({ eventName: 'registerTrlEvents', eventParams: { events: ['mic-update', 'mic-error'] } });
    await waitFor(() => expect(FakeMic.last).not.toBeNull());
    mic().answer = { ok: false, problem: 'denied' };
    const socket = await ready(true);
    const alert = await screen.findByText(MicProblemText.denied);
    expect(alert).toHaveAttribute('role', 'alert');
    expect(alert).toBeVisible();
    expect(events(host.posted, 'mic-error')).toEqual([{ reason: 'denied', message: MicProblemText.denied }]);
    expect(events(host.posted, 'mic-update')).toEqual([{ enabled: false }]);
    expect(socket.sent.at(-1)).toEqual({ type: 'mic', enabled: false });
    expect(screen.getByRole('button', { name: 'Turn microphone on' })).toHaveAttribute('aria-pressed', 'false');
    expect(screen.getByLabelText('Message')).toBeEnabled();
    // Allowed later: turning it on again clears the explanation.
    mic().answer = { ok: true };
    await userEvent.click(screen.getByRole('button', { name: 'Turn microphone on' }));
    await waitFor(() => expect(screen.queryByText(MicProblemText.denied)).not.toBeInTheDocument());
  });

  it('no microphone at all says so', async () => {
    const { mic } = mount('');
    await waitFor(() => expect(FakeMic.last).not.toBeNull());
    mic().answer = { ok: false, problem: 'missing' };
    await ready(true);
    expect(await screen.findByRole('alert', { name: '' })).toHaveTextContent('No microphone was found.');
  });

  it('shows interim transcripts in one bubble that the final replaces, when transcription streams', async () => {
    mount('?chatOpen=true', { transcriptionStreaming: true });
    const socket = await ready(true);
    const log = await screen.findByRole('log', { name: 'Conversation' });
    socket.push({ type: 'transcript', text: 'what is', final: false });
    socket.push({ type: 'transcript', text: 'what is the weather', final: false });
    await waitFor(() => expect(log).toHaveTextContent('what is the weather'));
    const interim = log.querySelector('[data-interim="true"]');
    expect(interim).toHaveTextContent('what is the weather');
    expect(log.querySelectorAll('.ps-user')).toHaveLength(1);
    socket.push({ type: 'transcript', text: 'What is the weather today?', final: true });
    await waitFor(() => expect(within(log).getByText('What is the weather today?')).toBeInTheDocument());
    expect(log.querySelectorAll('.ps-user')).toHaveLength(1);
    expect(log.querySelector('[data-interim]')).toBeNull();
  });

  it('a spoken turn that continues the last one replaces its bubble; a withdrawn answer leaves nothing', async () => {
    mount('?chatOpen=true');
    const socket = await ready(true);
    const log = await screen.findByRole('log', { name: 'Conversation' });
    socket.push({ type: 'transcript', text: 'I want to cancel my order', final: true });
    await waitFor(() => expect(log).toHaveTextContent('I want to cancel my order'));
    // Withdrawn before a word of it went out (or held unheard): no bubble, not even an empty one.
    socket.push({ type: 'assistant', utt: 3, text: '', final: true, interrupted: true });
    socket.push({ type: 'transcript', text: 'I want to cancel my order because it arrived broken', final: true, continues: true });
    await waitFor(() => expect(log).toHaveTextContent('because it arrived broken'));
    socket.push({ type: 'assistant', utt: 4, text: 'I am sorry to hear that.', final: true });
    await waitFor(() => expect(log).toHaveTextContent('I am sorry to hear that.'));
    const order = [...log.querySelectorAll('.ps-msg')].map((m) => `${m.classList.contains('ps-user') ? 'user' : 'assistant'}: ${m.querySelector('.ps-msg-text')!.textContent}`);
    expect(order).toEqual(['user: I want to cancel my order because it arrived broken', 'assistant: I am sorry to hear that.']);
  });

  it('a transcript that arrives after its answer began (speech to speech) is shown above that answer', async () => {
    mount('?chatOpen=true', { transcriptionStreaming: true });
    const socket = await ready(true);
    const log = await screen.findByRole('log', { name: 'Conversation' });
    socket.push({ type: 'assistant', utt: 4, delta: 'The last boat leaves', final: false });
    socket.push({ type: 'transcript', text: 'what time is the', final: false });
    socket.push({ type: 'transcript', text: 'What time is the last boat?', final: true, beforeUtt: 4 });
    await waitFor(() => expect(log).toHaveTextContent('What time is the last boat?'));
    socket.push({ type: 'assistant', utt: 4, text: 'The last boat leaves at nine.', final: true });
    socket.push({ type: 'transcript', text: 'Thanks!', final: true, beforeUtt: 5 });
    await waitFor(() => expect(log).toHaveTextContent('Thanks!'));
    const order = [...log.querySelectorAll('.ps-msg')].map((m) => `${m.classList.contains('ps-user') ? 'user' : 'assistant'}: ${m.querySelector('.ps-msg-text')!.textContent}`);
    // An answer not shown (yet) leaves the turn where it arrived.
    expect(order).toEqual(['user: What time is the last boat?', 'assistant: The last boat leaves at nine.', 'user: Thanks!']);
  });

  it('an answer cut while its voice still played is corrected in place: the heard part, marked interrupted', async () => {
    mount('?chatOpen=true');
    const socket = await ready(true);
    const log = await screen.findByRole('log', { name: 'Conversation' });
    socket.push({ type: 'assistant', utt: 7, text: 'The last boat leaves at nine from the north quay.', final: true });
    socket.push({ type: 'assistant', utt: 7, text: 'The last boat', final: true, interrupted: true });
    await waitFor(() => expect(log.querySelector('.ps-assistant[data-interrupted="true"]')).toHaveTextContent('The last boat'));
    expect(log.querySelectorAll('.ps-assistant')).toHaveLength(1);
  });

  it('without transcriptionStreaming only the final transcript is shown', async () => {
    mount('?chatOpen=true');
    const socket = await ready(true);
    const log = await screen.findByRole('log', { name: 'Conversation' });
    socket.push({ type: 'transcript', text: 'what is', final: false });
    socket.push({ type: 'transcript', text: 'What is it?', final: true });
    await waitFor(() => expect(log).toHaveTextContent('What is it?'));
    expect(log).not.toHaveTextContent('what is What');
    expect(log.querySelectorAll('.ps-user')).toHaveLength(1);
  });

  it('handleSttResponse: the host receives what the visitor said only with permission bit 2', async () => {
    const allowed = mount('', { canHandleSttResponse: true, transcriptionStreaming: true });
    await allowed.host.deliver({ eventName: 'registerTrlEvents', eventParams: { events: ['trl-chat'] } });
    let socket = await ready(true);
    socket.push({ type: 'transcript', text: 'hello', final: false });
    socket.push({ type: 'transcript', text: 'Hello there.', final: true });
    await waitFor(() => expect(events(allowed.host.posted, 'trl-chat')).toHaveLength(2));
    expect(events(allowed.host.posted, 'trl-chat')).toEqual([
      { message: 'hello', sttResponse: true, final: false },
      { message: 'Hello there.', sttResponse: true, final: true },
    ]);
    allowed.app.destroy();

    FakeSocket.reset();
    const denied = mount('', { canHandleSttResponse: false });
    await denied.host.deliver({ eventName: 'registerTrlEvents', eventParams: { events: ['trl-chat'] } });
    socket = await ready(true);
    socket.push({ type: 'transcript', text: 'Secret.', final: true });
    await screen.findByText('Secret.');
    expect(events(denied.host.posted, 'trl-chat')).toEqual([]);
  });

  it('turning the mic off while it starts is no problem: nothing explained, no mic-error', async () => {
    const { host, mic } = mount('');
    await host.deliver({ eventName: 'registerTrlEvents', eventParams: { events: ['mic-update', 'mic-error'] } });
    await waitFor(() => expect(FakeMic.last).not.toBeNull());
    mic().hold = true;
    await ready(true);
    await waitFor(() => expect(mic().starting).toBe(true));
    await userEvent.click(screen.getByRole('button', { name: 'Turn microphone off' }));
    // The browser grants it after all: the page releases it at once.
    mic().release({ ok: true });
    await new Promise((r) => setTimeout(r, 10));
    expect(mic().active).toBe(false);
    expect(mic().stops).toBe(1);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(events(host.posted, 'mic-error')).toEqual([]);
    expect(events(host.posted, 'mic-update')).toEqual([{ enabled: false }]);
  });

  it('a start still pending when the page goes away reports nothing to the host, whatever it answers', async () => {
    for (const how of ['cancelled', 'denied'] as const) {
      FakeSocket.reset();
      const { app, host, mic } = mount('');
      await host.deliver({ eventName: 'registerTrlEvents', eventParams: { events: ['mic-update', 'mic-error'] } });
      await waitFor(() => expect(FakeMic.last).not.toBeNull());
      mic().hold = true;
      await ready(true);
      await waitFor(() => expect(mic().starting).toBe(true));
      const posted = host.posted.length;
      if (how === 'denied') {
        // The browser's refusal arrives after destroy().
        const held = mic();
        held.stop = () => undefined;
        app.destroy();
        held.release({ ok: false, problem: 'denied' });
      } else {
        app.destroy();
      }
      await new Promise((r) => setTimeout(r, 10));
      expect(host.posted.slice(posted).filter((p) => p.eventName === 'mic-error' || p.eventName === 'mic-update'), how).toEqual([]);
      expect(events(host.posted, 'mic-error')).toEqual([]);
    }
  });

  it('hanging up releases the microphone', async () => {
    mount('');
    await ready(true);
    await waitFor(() => expect(FakeMic.last!.active).toBe(true));
    await userEvent.click(screen.getByRole('button', { name: 'End conversation' }));
    expect(FakeMic.last!.active).toBe(false);
    expect(screen.queryByRole('button', { name: /microphone/ })).not.toBeInTheDocument();
  });
});

describe("the browser's own recognition when the worker does not listen", () => {
  beforeEach(() => {
    FakeSocket.reset();
    FakeMic.last = null;
    FakeRecognition.last = null;
    FakeRecognition.instances = 0;
    FakeRecognition.refuse = null;
    FakeRecognition.hold = false;
    document.body.replaceChildren();
  });

  it('offers the mic (off until the visitor asks), shows what it hears as interim, and sends the final text as a message; never streams PCM', async () => {
    mount('?chatOpen=true', { transcriptionStreaming: true }, FakeRecognition);
    const socket = await ready(false);
    const button = await screen.findByRole('button', { name: 'Turn microphone on' });
    expect(button).toHaveAttribute('aria-pressed', 'false');
    expect(FakeRecognition.instances).toBe(0);
    await userEvent.click(button);
    await waitFor(() => expect(FakeRecognition.last?.running).toBe(true));
    expect(FakeRecognition.last).toMatchObject({ continuous: true, interimResults: true });
    expect(FakeMic.last!.starts).toBe(0);
    const log = screen.getByRole('log', { name: 'Conversation' });
    FakeRecognition.last!.hear('tell me', false);
    await waitFor(() => expect(log.querySelector('[data-interim="true"]')).toHaveTextContent('tell me'));
    FakeRecognition.last!.hear('Tell me a joke.', true);
    expect(socket.sent.at(-1)).toMatchObject({ type: 'text', text: 'Tell me a joke.' });
    expect(log.querySelector('[data-interim]')).toBeNull();
    expect(log.querySelectorAll('.ps-user')).toHaveLength(1);
    expect(socket.binary).toHaveLength(0);
  });

  it('falling back to the browser recognition turns a wanted mic off and tells the host (mic-update)', async () => {
    const { host } = mount('', {}, FakeRecognition);
    await host.deliver({ eventName: 'registerTrlEvents', eventParams: { events: ['mic-update'] } });
    await ready(false);
    expect(await screen.findByRole('button', { name: 'Turn microphone on' })).toHaveAttribute('aria-pressed', 'false');
    expect(events(host.posted, 'mic-update')).toEqual([{ enabled: false }]);
  });

  it('pauses while the avatar speaks and listens again after', async () => {
    mount('', {}, FakeRecognition);
    const socket = await ready(false);
    await userEvent.click(await screen.findByRole('button', { name: 'Turn microphone on' }));
    await waitFor(() => expect(FakeRecognition.last?.running).toBe(true));
    const first = FakeRecognition.last!;
    socket.push({ type: 'assistant', utt: 1, delta: 'Why did', final: false });
    expect(first.running).toBe(false);
    socket.push({ type: 'assistant', utt: 1, text: 'Why did the chicken…', final: true });
    await waitFor(() => expect(FakeRecognition.last).not.toBe(first));
    await waitFor(() => expect(FakeRecognition.last!.running).toBe(true));
  });

  it('turning the mic off (or the avatar speaking) before the browser started: nothing explained, and it listens when asked again', async () => {
    const { host } = mount('', {}, FakeRecognition);
    await host.deliver({ eventName: 'registerTrlEvents', eventParams: { events: ['mic-update', 'mic-error'] } });
    const socket = await ready(false);
    FakeRecognition.hold = true;
    await userEvent.click(await screen.findByRole('button', { name: 'Turn microphone on' }));
    const first = FakeRecognition.last!;
    await userEvent.click(screen.getByRole('button', { name: 'Turn microphone off' }));
    first.begin();
    await new Promise((r) => setTimeout(r, 10));
    expect(first.running).toBe(false);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    // On again; the avatar starts speaking before the browser started.
    await userEvent.click(screen.getByRole('button', { name: 'Turn microphone on' }));
    const second = FakeRecognition.last!;
    expect(second).not.toBe(first);
    socket.push({ type: 'assistant', utt: 1, delta: 'Hi', final: false });
    second.begin();
    expect(second.running).toBe(false);
    FakeRecognition.hold = false;
    socket.push({ type: 'assistant', utt: 1, text: 'Hi there.', final: true });
    await waitFor(() => expect(FakeRecognition.last!.running).toBe(true));
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    expect(events(host.posted, 'mic-error')).toEqual([]);
    expect(screen.getByRole('button', { name: 'Turn microphone off' })).toHaveAttribute('aria-pressed', 'true');
  });

  it('a refused recognition is explained like a refused microphone', async () => {
    FakeRecognition.refuse = 'not-allowed';
    mount('', {}, FakeRecognition);
    await ready(false);
    await userEvent.click(await screen.findByRole('button', { name: 'Turn microphone on' }));
    expect(await screen.findByText(MicProblemText.denied)).toBeVisible();
    expect(screen.getByRole('button', { name: 'Turn microphone on' })).toHaveAttribute('aria-pressed', 'false');
  });
});
