import type { TAvatarState } from '@persona/contract';
import type { ConnectionState } from './live-session';

/** The avatar page's DOM, without React (the page must stay small): stage, status, chat panel. */
export interface ChatViewOptions {
  hideChatInput: boolean;
  hideChatHistory: boolean;
  hideFullscreen: boolean;
  hideMicButton: boolean;
  hideSpeakerButton?: boolean;
  hideHangUpButton: boolean;
  draggable: boolean;
  /** The chat-only widget: no stage, no audio controls. */
  textOnly: boolean;
  /** The conversation panel starts open (URL parameter chatOpen; the chat widget is always open). */
  chatOpen?: boolean;
}

export interface ChatViewHandlers {
  /** False: the message was not sent (over the message rate, not connected): it goes back into the input. */
  onSend(text: string): boolean | void;
  onConnect(): void;
  onHangUp(): void;
  onMic(enabled: boolean): void;
  onSpeaker(enabled: boolean): void;
  onSignIn(): void;
}

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, text?: string): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

/** Inline icons (24×24, currentColor): the page is a small bundle without an icon library. */
const ICONS = {
  mic: '<path d="M12 14a3 3 0 0 0 3-3V5a3 3 0 0 0-6 0v6a3 3 0 0 0 3 3zm5-3a5 5 0 0 1-10 0H5a7 7 0 0 0 6 6.92V21h2v-3.08A7 7 0 0 0 19 11h-2z"/>',
  micOff:
    '<path d="M19 11h-1.7c0 .74-.16 1.43-.43 2.05l1.23 1.23c.56-.98.9-2.09.9-3.28zm-4.02.17c0-.06.02-.11.02-.17V5a3 3 0 0 0-6 0v.18l5.98 5.99zM4.27 3 3 4.27l6.01 6.01V11a3 3 0 0 0 3 3c.22 0 .44-.03.65-.08l1.66 1.66c-.71.33-1.5.52-2.31.52A5.2 5.2 0 0 1 6.7 11H5c0 3.41 2.72 6.23 6 6.72V21h2v-3.28a7.1 7.1 0 0 0 2.54-.9L19.73 21 21 19.73 4.27 3z"/>',
  speaker: '<path d="M3 9v6h4l5 5V4L7 9H3zm13.5 3A4.5 4.5 0 0 0 14 7.97v8.05A4.48 4.48 0 0 0 16.5 12zM14 3.23v2.06a7 7 0 0 1 0 13.42v2.06a9 9 0 0 0 0-17.54z"/>',
  speakerOff:
    '<path d="M16.5 12A4.5 4.5 0 0 0 14 7.97v2.21l2.45 2.45c.03-.2.05-.41.05-.63zm2.5 0c0 .94-.2 1.82-.54 2.64l1.51 1.51A8.8 8.8 0 0 0 21 12a9 9 0 0 0-7-8.77v2.06A7 7 0 0 1 19 12zM4.27 3 3 4.27 7.73 9H3v6h4l5 5v-6.73l4.25 4.25c-.67.52-1.42.93-2.25 1.18v2.06a9 9 0 0 0 3.69-1.81L19.73 21 21 19.73l-9-9L4.27 3zM12 4 9.91 6.09 12 8.18V4z"/>',
  chat: '<path d="M20 2H4a2 2 0 0 0-2 2v18l4-4h14a2 2 0 0 0 2-2V4a2 2 0 0 0-2-2zM6 9h12v2H6V9zm8 5H6v-2h8v2zm4-6H6V6h12v2z"/>',
  fullscreen: '<path d="M7 14H5v5h5v-2H7v-3zm-2-4h2V7h3V5H5v5zm12 7h-3v2h5v-5h-2v3zM14 5v2h3v3h2V5h-5z"/>',
  hangUp:
    '<path d="M12 9c-1.6 0-3.15.25-4.6.72v3.1c0 .39-.23.74-.56.9-.98.49-1.87 1.12-2.66 1.85-.18.18-.43.28-.7.28-.28 0-.53-.11-.71-.29L.29 13.08a.96.96 0 0 1 0-1.36C3.34 8.78 7.46 7 12 7s8.66 1.78 11.71 4.72c.18.18.29.43.29.71 0 .28-.11.53-.29.71l-2.48 2.48c-.18.18-.43.29-.71.29-.27 0-.52-.11-.7-.28a11.3 11.3 0 0 0-2.67-1.85.99.99 0 0 1-.56-.9v-3.1C15.15 9.25 13.6 9 12 9z"/>',
  close: '<path d="M19 6.41 17.59 5 12 10.59 6.41 5 5 6.41 10.59 12 5 17.59 6.41 19 12 13.41 17.59 19 19 17.59 13.41 12z"/>',
} as const;

function setIcon(button: HTMLElement, icon: keyof typeof ICONS) {
  if (button.dataset.icon === icon) return;
  button.dataset.icon = icon;
  button.innerHTML = `<svg viewBox="0 0 24 24" width="24" height="24" fill="currentColor" aria-hidden="true" focusable="false">${ICONS[icon]}</svg>`;
}

const STATUS_TEXT: Record<ConnectionState, string> = {
  disconnected: 'Ready to talk',
  connecting: 'Connecting…',
  connected: 'Connected',
  reconnecting: 'Reconnecting…',
  ended: 'Conversation ended',
  failed: 'Could not connect',
};

export class ChatView {
  readonly root: HTMLElement;
  private readonly name = el('h1', { class: 'ps-name' });
  private readonly status = el('p', { class: 'ps-status', role: 'status', 'aria-live': 'polite' });
  /** The name and status: on the connect screen's card while it shows, in the top bar otherwise. */
  private readonly titles = el('div', { class: 'ps-titles' });
  private readonly bar = el('header', { class: 'ps-bar' });
  private readonly stage = el('section', { class: 'ps-stage', 'aria-label': 'Avatar' });
  /** The picture, blurred to fill the frame, behind the figure (the poster while a scene loads). */
  private readonly posterBackdrop = el('img', { class: 'ps-poster-bg', alt: '', 'aria-hidden': 'true', hidden: '' });
  private readonly figure = el('div', { class: 'ps-figure' });
  private readonly photo = el('img', { class: 'ps-photo', alt: '' });
  private readonly initial = el('span', { class: 'ps-initial', 'aria-hidden': 'true' });
  private readonly speaking = el('span', { class: 'ps-speaking', role: 'img', 'aria-label': 'Speaking' });
  /** Before the conversation: the avatar's picture and name, and a large Connect button. */
  private readonly connectScreen = el('div', { class: 'ps-connect-screen' });
  private readonly connectCard = el('div', { class: 'ps-connect-card' });
  private readonly connectPicture = el('div', { class: 'ps-connect-picture', 'aria-hidden': 'true' });
  private readonly connectPhoto = el('img', { class: 'ps-connect-photo', alt: '', hidden: '' });
  private readonly connectInitial = el('span', { class: 'ps-connect-initial' });
  private readonly banner = el('div', { class: 'ps-banner', role: 'alert', hidden: '' });
  private readonly bannerText = el('p', { class: 'ps-banner-text' });
  private readonly connectButton = el('button', { type: 'button', class: 'ps-button ps-primary ps-connect' }, 'Connect');
  private readonly signInButton = el('button', { type: 'button', class: 'ps-button ps-primary', hidden: '' }, 'Sign in to continue');
  private readonly hangUpButton = el('button', { type: 'button', class: 'ps-icon ps-hangup', 'aria-label': 'End conversation', title: 'End conversation', hidden: '' });
  private readonly micButton = el('button', { type: 'button', class: 'ps-icon ps-mic', 'aria-pressed': 'true' });
  private readonly speakerButton = el('button', { type: 'button', class: 'ps-icon ps-speaker', 'aria-pressed': 'true' });
  private readonly fullscreenButton = el('button', { type: 'button', class: 'ps-icon ps-fullscreen', 'aria-label': 'Full screen', title: 'Full screen' });
  /** Opens and closes the conversation panel (a side panel, a bottom sheet on a phone). */
  private readonly chatButton = el('button', { type: 'button', class: 'ps-icon ps-chat-toggle', 'aria-label': 'Chat', title: 'Chat', 'aria-controls': 'ps-chat', 'aria-expanded': 'false' });
  private readonly chatClose = el('button', { type: 'button', class: 'ps-icon ps-chat-close', 'aria-label': 'Close chat', title: 'Close chat' });
  private readonly chat = el('section', { class: 'ps-chat', id: 'ps-chat', 'aria-label': 'Chat' });
  /** The bottom of the frame: notices, the message input and the controls, over the stage. */
  private readonly dock = el('div', { class: 'ps-dock' });
  private readonly log = el('div', { class: 'ps-log', role: 'log', 'aria-label': 'Conversation', 'aria-live': 'polite' });
  private readonly notice = el('p', { class: 'ps-notice', role: 'status', hidden: '' });
  /** Why the microphone cannot be used (denied, missing…): stays until the mic works. */
  private readonly micNote = el('p', { class: 'ps-mic-note', role: 'alert', hidden: '' });
  /** The microphone's level while listening. */
  private readonly meter = el('div', { class: 'ps-meter', role: 'meter', 'aria-label': 'Microphone level', 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': '0', hidden: '' });
  private readonly meterBar = el('span', { class: 'ps-meter-bar', 'aria-hidden': 'true' });
  private interimBubble: HTMLElement | null = null;
  /** The visitor's last spoken turn's bubble (a turn that continues it replaces its text). */
  private lastSpoken: HTMLElement | null = null;
  private readonly answerBubbles = new Map<number, HTMLElement>();
  /** Answers whose text waits for their voice: their bubble is made in place, hidden. */
  private readonly heldAnswers = new Set<number>();
  private lastMeterAria = 0;
  private readonly form = el('form', { class: 'ps-input' });
  private readonly input = el('input', { id: 'ps-message', name: 'message', type: 'text', autocomplete: 'off', maxlength: '2000', placeholder: 'Type a message…', 'aria-label': 'Message' });
  private readonly sendButton = el('button', { type: 'submit', class: 'ps-button ps-primary ps-send' }, 'Send');
  private readonly assistantBubbles = new Map<number, HTMLElement>();
  private readonly userBubbles = new Map<string, HTMLElement>();
  private dragTarget: HTMLElement = this.figure;
  private mountedStage: HTMLElement | null = null;
  private micOn = true;
  private speakerOn = true;
  private connection: ConnectionState = 'disconnected';
  /** Connecting cannot succeed from this page (a protected avatar opened without a token): no Connect button. */
  private connectable = true;
  private dockObserver: ResizeObserver | null = null;

  constructor(
    private readonly opts: ChatViewOptions,
    private readonly handlers: ChatViewHandlers,
  ) {
    this.root = el('main', { class: `ps-avatar${opts.textOnly ? ' ps-text-only' : ''}`, 'data-connection': 'disconnected', 'data-speaking': 'false' });
    this.titles.append(this.name, this.status);
    this.bar.append(this.titles);
    this.bannerText.id = 'ps-banner-text';
    this.banner.append(this.bannerText, this.signInButton);
    const actions = el('div', { class: 'ps-actions' });
    actions.append(this.connectButton);
    const label = el('label', { for: 'ps-message', class: 'ps-visually-hidden' }, 'Message');
    this.form.append(label, this.input, this.sendButton);
    const hasChatPanel = !opts.hideChatHistory;

    if (opts.textOnly) {
      // The chat widget: a header, Connect, and the conversation with its input.
      const controls = el('div', { class: 'ps-controls' });
      if (!opts.hideHangUpButton) controls.append(this.hangUpButton);
      // The avatar's picture beside its name, like a messenger's header.
      this.connectPicture.append(this.connectPhoto, this.connectInitial);
      this.bar.prepend(this.connectPicture);
      this.bar.append(controls);
      if (hasChatPanel) this.chat.append(this.log);
      this.chat.append(this.micNote, this.notice);
      if (!opts.hideChatInput) this.chat.append(this.form);
      this.root.append(this.bar, this.banner, actions, this.chat);
    } else {
      // The avatar page: the stage fills the frame; everything else is laid over it.
      this.figure.append(this.photo, this.initial, this.speaking);
      this.photo.hidden = true;
      this.stage.append(this.posterBackdrop, this.figure);
      this.connectPicture.append(this.connectPhoto, this.connectInitial);
      this.connectCard.append(this.connectPicture, actions);
      this.connectScreen.append(this.connectCard);

      const controls = el('div', { class: 'ps-controls', role: 'group', 'aria-label': 'Call controls' });
      if (!opts.hideMicButton) {
        const micGroup = el('div', { class: 'ps-mic-group' });
        micGroup.append(this.micButton, this.meter);
        controls.append(micGroup);
      }
      // Offered once the worker says it listens (ready.listening).
      this.micButton.hidden = true;
      this.meter.append(this.meterBar);
      if (!opts.hideSpeakerButton) controls.append(this.speakerButton);
      if (hasChatPanel) controls.append(this.chatButton);
      if (!opts.hideFullscreen) controls.append(this.fullscreenButton);
      if (!opts.hideHangUpButton) controls.append(this.hangUpButton);
      const row = el('div', { class: 'ps-dock-row' });
      if (!opts.hideChatInput) row.append(this.form);
      row.append(controls);
      this.dock.append(this.micNote, this.notice, row);
      if (!controls.childElementCount) controls.hidden = true;

      if (hasChatPanel) {
        const head = el('div', { class: 'ps-chat-head' });
        head.append(el('h2', { class: 'ps-chat-title' }, 'Chat'), this.chatClose);
        this.chat.append(head, this.log);
      }
      this.root.append(this.stage, this.bar, this.banner, this.connectScreen);
      if (hasChatPanel) this.root.append(this.chat);
      this.root.append(this.dock);
      setIcon(this.fullscreenButton, 'fullscreen');
      setIcon(this.chatButton, 'chat');
      setIcon(this.chatClose, 'close');
      this.setChatOpen(opts.chatOpen ?? false);
      this.watchDock();
    }

    setIcon(this.hangUpButton, 'hangUp');
    this.form.addEventListener('submit', (event) => {
      event.preventDefault();
      const text = this.input.value.trim();
      if (!text) return;
      this.input.value = '';
      if (this.handlers.onSend(text) === false && !this.input.value) this.input.value = text;
    });
    this.connectButton.addEventListener('click', () => this.handlers.onConnect());
    this.signInButton.addEventListener('click', () => this.handlers.onSignIn());
    this.hangUpButton.addEventListener('click', () => this.handlers.onHangUp());
    this.micButton.addEventListener('click', () => this.handlers.onMic(!this.micOn));
    this.speakerButton.addEventListener('click', () => this.handlers.onSpeaker(!this.speakerOn));
    this.chatButton.addEventListener('click', () => this.setChatOpen(!this.chatOpen));
    this.chatClose.addEventListener('click', () => {
      this.setChatOpen(false);
      if (this.chatButton.isConnected) this.chatButton.focus({ preventScroll: true });
    });
    this.chat.addEventListener('keydown', (event) => {
      if (event.key === 'Escape' && !this.opts.textOnly && this.chatOpen) {
        this.setChatOpen(false);
        this.chatButton.focus({ preventScroll: true });
      }
    });
    this.fullscreenButton.addEventListener('click', () => {
      if (document.fullscreenElement) void document.exitFullscreen();
      else void this.root.requestFullscreen?.().catch(() => undefined);
    });
    if (opts.draggable && !opts.textOnly) this.enableDragging();
    this.setMic(true);
    this.setSpeaker(true);
    this.setConnection('disconnected');
  }

  /** The conversation panel is open (always, in the chat widget). */
  get chatOpen(): boolean {
    return this.opts.textOnly || this.root.dataset.chatOpen === 'true';
  }

  /** Opens or closes the conversation panel (the Chat button; chatOpen=true opens it at first). */
  setChatOpen(open: boolean) {
    if (this.opts.textOnly || this.opts.hideChatHistory) return;
    this.root.dataset.chatOpen = String(open);
    this.chat.hidden = !open;
    this.chatButton.setAttribute('aria-expanded', String(open));
    if (open) this.log.scrollTop = this.log.scrollHeight;
  }

  /** The dock's height, for what sits above it (captions, the chat sheet): --ps-dock-h on the root. */
  private watchDock() {
    if (typeof ResizeObserver !== 'function') return;
    this.dockObserver = new ResizeObserver(() => {
      const h = Math.round(this.dock.getBoundingClientRect().height);
      if (h > 0) this.root.style.setProperty('--ps-dock-h', `${h}px`);
    });
    this.dockObserver.observe(this.dock);
  }

  /** Puts the rendered avatar on the stage (the photo and ring stay as the fallback); the picture stays as its poster until sceneReady. */
  mountStage(scene: HTMLElement, dragTarget: HTMLElement) {
    this.mountedStage?.remove();
    this.mountedStage = scene;
    this.stage.prepend(scene);
    this.root.dataset.rendered = 'true';
    this.root.dataset.scene = 'loading';
    this.dragTarget.style.transform = '';
    this.dragTarget = dragTarget;
    if (this.opts.draggable) dragTarget.classList.add('ps-draggable');
  }

  /** The scene draws: the poster goes. */
  sceneReady() {
    if (this.mountedStage) this.root.dataset.scene = 'ready';
  }

  /** Back to the photo and the speaking ring (no WebGL, or the model did not load). */
  unmountStage() {
    this.mountedStage?.remove();
    this.mountedStage = null;
    delete this.root.dataset.rendered;
    delete this.root.dataset.scene;
    this.dragTarget = this.figure;
  }

  /** The browser keeps sound off until the visitor interacts with the page. */
  setAudioBlocked(blocked: boolean) {
    this.root.dataset.audioBlocked = String(blocked);
    if (blocked) this.showNotice('Click or tap anywhere to hear the avatar.');
    else if (this.notice.textContent === 'Click or tap anywhere to hear the avatar.') this.showNotice(null);
  }

  setAvatar(name: string, photoUrl: string | null) {
    this.name.textContent = name;
    document.title = `${name} · Persona Studio`;
    this.initial.textContent = name.trim().charAt(0).toUpperCase() || '?';
    this.connectInitial.textContent = this.initial.textContent;
    this.photo.alt = name;
    if (photoUrl) {
      for (const img of [this.photo, this.posterBackdrop, this.connectPhoto]) {
        img.src = photoUrl;
        img.hidden = false;
        img.onerror = () => {
          img.hidden = true;
          delete this.root.dataset.picture;
        };
      }
      this.root.dataset.picture = 'true';
    }
  }

  setConnection(state: ConnectionState) {
    this.connection = state;
    this.root.dataset.connection = state;
    this.status.textContent = STATUS_TEXT[state];
    const live = state === 'connected' || state === 'connecting' || state === 'reconnecting';
    this.connectButton.hidden = live || !this.connectable;
    this.connectButton.textContent = state === 'ended' || state === 'failed' ? 'Connect again' : 'Connect';
    this.hangUpButton.hidden = !live;
    this.input.disabled = !live;
    this.sendButton.disabled = !live;
    if (state === 'connected') this.hideBanner();
    if (!this.opts.textOnly) {
      // The connect screen: before the conversation, while it connects, and after it ends.
      const onConnectScreen = state !== 'connected' && state !== 'reconnecting';
      this.connectScreen.hidden = !onConnectScreen;
      this.root.dataset.screen = onConnectScreen ? 'connect' : 'stage';
      const home = onConnectScreen ? this.connectCard : this.bar;
      if (this.titles.parentElement !== home) {
        if (onConnectScreen) this.connectPicture.after(this.titles);
        else this.bar.prepend(this.titles);
      }
    }
  }

  /** The page cannot connect (the refusal in the banner says why): no Connect button, no input. */
  setUnavailable() {
    this.connectable = false;
    this.setConnection(this.connection);
  }

  setMic(enabled: boolean) {
    this.micOn = enabled;
    this.micButton.setAttribute('aria-pressed', String(enabled));
    this.micButton.setAttribute('aria-label', enabled ? 'Turn microphone off' : 'Turn microphone on');
    this.micButton.title = enabled ? 'Microphone on' : 'Microphone off';
    setIcon(this.micButton, enabled ? 'mic' : 'micOff');
  }

  /** The worker listens: offer the mic button (unless hidden by hideMicButton). */
  setListeningAvailable(available: boolean) {
    this.micButton.hidden = !available;
    this.root.dataset.listening = String(available);
    if (!available) this.setMeter(null);
  }

  /** The level meter: a level 0…1 while the microphone captures, null to hide it. */
  setMeter(level: number | null) {
    if (level === null) {
      if (this.meter.hidden) return;
      this.meter.hidden = true;
      delete this.root.dataset.micLive;
      if (this.root.dataset.state) this.setLiveState(this.root.dataset.state);
      return;
    }
    if (this.meter.hidden) {
      this.meter.hidden = false;
      this.root.dataset.micLive = 'true';
      if (this.root.dataset.state) this.setLiveState(this.root.dataset.state);
    }
    const pct = Math.round(Math.max(0, Math.min(1, level)) * 100);
    this.meterBar.style.transform = `scaleY(${Math.max(0.06, pct / 100)})`;
    // Screen readers need no 50 updates a second: the value moves in steps of 10.
    const step = Math.round(pct / 10) * 10;
    if (step !== this.lastMeterAria) {
      this.lastMeterAria = step;
      this.meter.setAttribute('aria-valuenow', String(step));
    }
  }

  /** Explains why the microphone cannot be used (null: it works now). */
  showMicProblem(text: string | null) {
    this.micNote.textContent = text ?? '';
    this.micNote.hidden = !text;
  }

  setSpeaker(enabled: boolean) {
    this.speakerOn = enabled;
    this.speakerButton.setAttribute('aria-pressed', String(enabled));
    this.speakerButton.setAttribute('aria-label', enabled ? 'Mute the avatar' : 'Unmute the avatar');
    this.speakerButton.title = enabled ? 'Sound on' : 'Sound off';
    setIcon(this.speakerButton, enabled ? 'speaker' : 'speakerOff');
  }

  setSpeaking(speaking: boolean) {
    this.root.dataset.speaking = String(speaking);
  }

  /** The header's label for the avatar's state (AvatarStates; listening reads so while the mic is live). */
  setLiveState(state: TAvatarState | string) {
    this.root.dataset.state = state;
    if (this.connection === 'connected') {
      this.status.textContent = state === 'thinking' ? 'Thinking…' : state === 'speaking' ? 'Speaking' : state === 'listening' && this.root.dataset.micLive === 'true' ? 'Listening…' : 'Connected';
    }
  }

  /** Replaces the log with the conversation so far (after a resume). */
  setHistory(entries: readonly { role: 'user' | 'assistant'; text: string }[]) {
    this.log.replaceChildren();
    this.interimBubble = null;
    this.assistantBubbles.clear();
    this.answerBubbles.clear();
    this.heldAnswers.clear();
    this.userBubbles.clear();
    for (const entry of entries) this.appendBubble(entry.role, entry.text);
  }

  private appendBubble(role: 'user' | 'assistant', text: string): HTMLElement {
    const bubble = el('p', { class: `ps-msg ps-${role}` });
    const who = el('span', { class: 'ps-visually-hidden' }, role === 'user' ? 'You: ' : `${this.name.textContent || 'Avatar'}: `);
    const body = el('span', { class: 'ps-msg-text' }, text);
    bubble.append(who, body);
    this.log.append(bubble);
    this.log.scrollTop = this.log.scrollHeight;
    return bubble;
  }

  addUser(text: string, id?: string) {
    const bubble = this.appendBubble('user', text);
    if (id) {
      bubble.dataset.pending = 'true';
      this.userBubbles.set(id, bubble);
    }
  }

  /** A message the worker did not take (over the message rate): its bubble goes. */
  dropUser(id: string) {
    this.userBubbles.get(id)?.remove();
    this.userBubbles.delete(id);
  }

  /** What the visitor is saying, as recognised so far (transcriptionStreaming): one bubble, updated. */
  interimUser(text: string) {
    if (!text.trim()) return;
    if (!this.interimBubble) {
      this.interimBubble = this.appendBubble('user', text);
      this.interimBubble.dataset.interim = 'true';
      return;
    }
    this.interimBubble.querySelector('.ps-msg-text')!.textContent = text;
    this.log.scrollTop = this.log.scrollHeight;
  }

  /** Drops the interim bubble (the final text arrives as a message of its own). */
  clearInterim() {
    this.interimBubble?.remove();
    this.interimBubble = null;
  }

  /**
   * The worker confirmed (or transcribed) what the visitor said; `beforeUtt`: above that answer when
   * it is shown; `continues`: it continues the visitor's last spoken turn, whose bubble it replaces.
   */
  confirmUser(text: string, id?: string, beforeUtt?: number, continues = false) {
    const pending = id ? this.userBubbles.get(id) : undefined;
    if (pending) {
      delete pending.dataset.pending;
      this.userBubbles.delete(id!);
      return;
    }
    const previous = continues && this.lastSpoken?.isConnected ? this.lastSpoken : null;
    if (previous && text.trim()) {
      this.clearInterim();
      previous.querySelector('.ps-msg-text')!.textContent = text;
      this.log.scrollTop = this.log.scrollHeight;
      return;
    }
    if (this.interimBubble) {
      const bubble = this.interimBubble;
      this.interimBubble = null;
      delete bubble.dataset.interim;
      if (!text.trim()) return bubble.remove();
      bubble.querySelector('.ps-msg-text')!.textContent = text;
      this.placeAbove(bubble, beforeUtt);
      this.lastSpoken = bubble;
      return;
    }
    if (text.trim()) {
      this.lastSpoken = this.appendBubble('user', text);
      this.placeAbove(this.lastSpoken, beforeUtt);
    }
  }

  /** Moves a visitor's bubble above the answer `utt` when that answer is shown below it. */
  private placeAbove(bubble: HTMLElement, utt: number | undefined) {
    const answer = utt === undefined ? undefined : this.answerBubbles.get(utt);
    if (answer?.isConnected && answer.compareDocumentPosition(bubble) & Node.DOCUMENT_POSITION_FOLLOWING) answer.before(bubble);
  }

  assistant(utt: number, part: { delta?: string; text?: string; final: boolean; interrupted?: boolean }) {
    // A correction of a finished answer (cut while its voice still played): the same bubble.
    let bubble = this.assistantBubbles.get(utt) ?? (part.final && part.interrupted ? this.answerBubbles.get(utt) : undefined);
    // An answer withdrawn before its voice was heard (the visitor went on): it never was.
    if (part.final && part.text === '' && (!bubble || bubble.hidden)) {
      bubble?.remove();
      this.assistantBubbles.delete(utt);
      this.answerBubbles.delete(utt);
      return;
    }
    if (!bubble) {
      bubble = this.appendBubble('assistant', '');
      if (this.heldAnswers.has(utt)) bubble.hidden = true;
      this.assistantBubbles.set(utt, bubble);
      // The last few answers, by utterance: a late transcript goes above its answer.
      this.answerBubbles.set(utt, bubble);
      if (this.answerBubbles.size > 20) this.answerBubbles.delete(this.answerBubbles.keys().next().value!);
    }
    const body = bubble.querySelector('.ps-msg-text')!;
    if (part.text !== undefined) body.textContent = part.text;
    else if (part.delta) body.textContent = (body.textContent ?? '') + part.delta;
    if (part.final) {
      bubble.dataset.final = 'true';
      if (part.interrupted) bubble.dataset.interrupted = 'true';
      this.assistantBubbles.delete(utt);
    }
    this.log.scrollTop = this.log.scrollHeight;
  }

  /** The answer `utt` is shown only once its voice is heard (revealAnswer). */
  holdAnswer(utt: number) {
    this.heldAnswers.add(utt);
    while (this.heldAnswers.size > 32) this.heldAnswers.delete(this.heldAnswers.values().next().value!);
  }

  revealAnswer(utt: number) {
    this.heldAnswers.delete(utt);
    const bubble = this.answerBubbles.get(utt);
    if (!bubble?.hidden) return;
    bubble.hidden = false;
    this.log.scrollTop = this.log.scrollHeight;
  }

  showNotice(text: string | null) {
    this.notice.textContent = text ?? '';
    this.notice.hidden = !text;
  }

  showError(text: string, opts: { signIn?: boolean } = {}) {
    this.bannerText.textContent = text;
    this.signInButton.hidden = !opts.signIn;
    this.banner.hidden = false;
  }

  hideBanner() {
    this.banner.hidden = true;
    this.signInButton.hidden = true;
  }

  /** Only once the visitor has used the page (see mountAvatarApp); never scrolls a host page. */
  focusInput() {
    if (!this.opts.hideChatInput) this.input.focus({ preventScroll: true });
  }

  /** draggable=true: the visitor can move the avatar around inside its window. */
  private enableDragging() {
    let start: { x: number; y: number; dx: number; dy: number } | null = null;
    let dx = 0;
    let dy = 0;
    this.figure.classList.add('ps-draggable');
    // Pointer events on the stage move whatever is the avatar now (photo, or the rendered one).
    this.stage.addEventListener('pointerdown', (event) => {
      if (!this.dragTarget.contains(event.target as Node)) return;
      start = { x: event.clientX, y: event.clientY, dx, dy };
      this.stage.setPointerCapture(event.pointerId);
    });
    this.stage.addEventListener('pointermove', (event) => {
      if (!start) return;
      dx = start.dx + event.clientX - start.x;
      dy = start.dy + event.clientY - start.y;
      this.dragTarget.style.transform = `translate(${dx}px, ${dy}px)`;
    });
    const stop = () => {
      start = null;
    };
    this.stage.addEventListener('pointerup', stop);
    this.stage.addEventListener('pointercancel', stop);
  }
}
