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

const STATUS_TEXT: Record<ConnectionState, string> = {
  disconnected: 'Not connected',
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
  private readonly stage = el('section', { class: 'ps-stage', 'aria-label': 'Avatar' });
  private readonly figure = el('div', { class: 'ps-figure' });
  private readonly photo = el('img', { class: 'ps-photo', alt: '' });
  private readonly initial = el('span', { class: 'ps-initial', 'aria-hidden': 'true' });
  private readonly speaking = el('span', { class: 'ps-speaking', role: 'img', 'aria-label': 'Speaking' });
  private readonly banner = el('div', { class: 'ps-banner', role: 'alert', hidden: '' });
  private readonly bannerText = el('p', { class: 'ps-banner-text' });
  private readonly connectButton = el('button', { type: 'button', class: 'ps-button ps-primary ps-connect' }, 'Connect');
  private readonly signInButton = el('button', { type: 'button', class: 'ps-button ps-primary', hidden: '' }, 'Sign in to continue');
  private readonly hangUpButton = el('button', { type: 'button', class: 'ps-icon ps-hangup', 'aria-label': 'End conversation', title: 'End conversation', hidden: '' });
  private readonly micButton = el('button', { type: 'button', class: 'ps-icon ps-mic', 'aria-pressed': 'true' });
  private readonly speakerButton = el('button', { type: 'button', class: 'ps-icon ps-speaker', 'aria-pressed': 'true' });
  private readonly fullscreenButton = el('button', { type: 'button', class: 'ps-icon ps-fullscreen', 'aria-label': 'Full screen', title: 'Full screen' });
  private readonly log = el('div', { class: 'ps-log', role: 'log', 'aria-label': 'Conversation', 'aria-live': 'polite' });
  private readonly notice = el('p', { class: 'ps-notice', role: 'status', hidden: '' });
  /** Why the microphone cannot be used (denied, missing…): stays until the mic works. */
  private readonly micNote = el('p', { class: 'ps-mic-note', role: 'alert', hidden: '' });
  /** The microphone's level while listening. */
  private readonly meter = el('div', { class: 'ps-meter', role: 'meter', 'aria-label': 'Microphone level', 'aria-valuemin': '0', 'aria-valuemax': '100', 'aria-valuenow': '0', hidden: '' });
  private readonly meterBar = el('span', { class: 'ps-meter-bar', 'aria-hidden': 'true' });
  private interimBubble: HTMLElement | null = null;
  private readonly answerBubbles = new Map<number, HTMLElement>();
  /** Answers whose text waits for their voice: their bubble is made in place, hidden. */
  private readonly heldAnswers = new Set<number>();
  private lastMeterAria = 0;
  private readonly form = el('form', { class: 'ps-input' });
  private readonly input = el('input', { id: 'ps-message', name: 'message', type: 'text', autocomplete: 'off', maxlength: '2000', placeholder: 'Type a message…', 'aria-label': 'Message' });
  private readonly sendButton = el('button', { type: 'submit', class: 'ps-button ps-primary' }, 'Send');
  private readonly assistantBubbles = new Map<number, HTMLElement>();
  private readonly userBubbles = new Map<string, HTMLElement>();
  private dragTarget: HTMLElement = this.figure;
  private mountedStage: HTMLElement | null = null;
  private micOn = true;
  private speakerOn = true;
  private connection: ConnectionState = 'disconnected';
  /** Connecting cannot succeed from this page (a protected avatar opened without a token): no Connect button. */
  private connectable = true;

  constructor(
    private readonly opts: ChatViewOptions,
    private readonly handlers: ChatViewHandlers,
  ) {
    this.root = el('main', { class: `ps-avatar${opts.textOnly ? ' ps-text-only' : ''}`, 'data-connection': 'disconnected', 'data-speaking': 'false' });
    const bar = el('header', { class: 'ps-bar' });
    const titles = el('div', { class: 'ps-titles' });
    titles.append(this.name, this.status);
    const controls = el('div', { class: 'ps-controls' });
    if (!opts.textOnly) {
      if (!opts.hideMicButton) controls.append(this.meter, this.micButton);
      // Offered once the worker says it listens (ready.listening).
      this.micButton.hidden = true;
      this.meter.append(this.meterBar);
      if (!opts.hideSpeakerButton) controls.append(this.speakerButton);
      if (!opts.hideFullscreen) controls.append(this.fullscreenButton);
    }
    if (!opts.hideHangUpButton) controls.append(this.hangUpButton);
    bar.append(titles, controls);

    this.figure.append(this.photo, this.initial, this.speaking);
    this.photo.hidden = true;
    this.bannerText.id = 'ps-banner-text';
    this.banner.append(this.bannerText, this.signInButton);
    const actions = el('div', { class: 'ps-actions' });
    actions.append(this.connectButton);
    this.stage.append(this.figure, actions);

    const chat = el('section', { class: 'ps-chat', 'aria-label': 'Chat' });
    const label = el('label', { for: 'ps-message', class: 'ps-visually-hidden' }, 'Message');
    this.form.append(label, this.input, this.sendButton);
    if (!opts.hideChatHistory) chat.append(this.log);
    chat.append(this.micNote, this.notice);
    if (!opts.hideChatInput) chat.append(this.form);

    this.root.append(bar, this.banner);
    if (!opts.textOnly) this.root.append(this.stage);
    else this.root.append(actions);
    this.root.append(chat);

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
    this.fullscreenButton.addEventListener('click', () => {
      if (document.fullscreenElement) void document.exitFullscreen();
      else void this.root.requestFullscreen?.().catch(() => undefined);
    });
    if (opts.draggable && !opts.textOnly) this.enableDragging();
    this.setMic(true);
    this.setSpeaker(true);
    this.setConnection('disconnected');
  }

  /** Puts the rendered avatar on the stage (the photo and ring stay as the fallback). */
  mountStage(scene: HTMLElement, dragTarget: HTMLElement) {
    this.mountedStage?.remove();
    this.mountedStage = scene;
    this.stage.prepend(scene);
    this.root.dataset.rendered = 'true';
    this.dragTarget.style.transform = '';
    this.dragTarget = dragTarget;
    if (this.opts.draggable) dragTarget.classList.add('ps-draggable');
  }

  /** Back to the photo and the speaking ring (no WebGL, or the model did not load). */
  unmountStage() {
    this.mountedStage?.remove();
    this.mountedStage = null;
    delete this.root.dataset.rendered;
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
    this.photo.alt = name;
    if (photoUrl) {
      this.photo.src = photoUrl;
      this.photo.hidden = false;
      this.photo.onerror = () => {
        this.photo.hidden = true;
      };
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

  /** The worker confirmed (or transcribed) what the visitor said; `beforeUtt`: above that answer when it is shown. */
  confirmUser(text: string, id?: string, beforeUtt?: number) {
    const pending = id ? this.userBubbles.get(id) : undefined;
    if (pending) {
      delete pending.dataset.pending;
      this.userBubbles.delete(id!);
      return;
    }
    if (this.interimBubble) {
      const bubble = this.interimBubble;
      this.interimBubble = null;
      delete bubble.dataset.interim;
      if (!text.trim()) return bubble.remove();
      bubble.querySelector('.ps-msg-text')!.textContent = text;
      this.placeAbove(bubble, beforeUtt);
      return;
    }
    if (text.trim()) this.placeAbove(this.appendBubble('user', text), beforeUtt);
  }

  /** Moves a visitor's bubble above the answer `utt` when that answer is shown below it. */
  private placeAbove(bubble: HTMLElement, utt: number | undefined) {
    const answer = utt === undefined ? undefined : this.answerBubbles.get(utt);
    if (answer?.isConnected && answer.compareDocumentPosition(bubble) & Node.DOCUMENT_POSITION_FOLLOWING) answer.before(bubble);
  }

  assistant(utt: number, part: { delta?: string; text?: string; final: boolean; interrupted?: boolean }) {
    // A correction of a finished answer (cut while its voice still played): the same bubble.
    let bubble = this.assistantBubbles.get(utt) ?? (part.final && part.interrupted ? this.answerBubbles.get(utt) : undefined);
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
