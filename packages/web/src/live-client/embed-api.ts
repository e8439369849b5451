import {
  AvatarGestures,
  AvatarMoods,
  EmbedCommands,
  EmbedEvents,
  EmbedMessages,
  EmbedMethods,
  ZEmbedCommand,
  ZEmbedMethodCall,
  ZEmbedRegister,
  isAvatarGesture,
  isAvatarMood,
  type TAvatarAction,
  type TEmbedEvent,
  type TEmbedEventParams,
  type TEmbedMethod,
  type TEmbedMethodResponse,
} from '@persona/contract';

/** What the host page can drive (implemented by the avatar page). */
export interface EmbedTarget {
  sendMessage(text: string): boolean;
  sendMessageToAvatar(text: string): boolean;
  setMicEnabled(enabled: boolean): void;
  isMicEnabled(): boolean;
  setSpeakerEnabled(enabled: boolean): void;
  isSpeakerEnabled(): boolean;
  connect(): Promise<boolean>;
  disconnect(): void;
  getState(): string;
  /** A mood or gesture the host page asks for, done now. */
  act(action: TAvatarAction): void;
}

/**
 * The embed origin as the browser reports it: the first ancestor (Chromium, Safari), else the
 * referrer's origin. Null when the page is not framed or the origin cannot be known (then the
 * host's first message decides).
 */
export function detectHostOrigin(win: Window = window): string | null {
  if (win.parent === win) return null;
  const ancestors = (win.location as Location & { ancestorOrigins?: DOMStringList }).ancestorOrigins;
  if (ancestors && ancestors.length > 0) return ancestors[0] ?? null;
  try {
    return win.document.referrer ? new URL(win.document.referrer).origin : null;
  } catch {
    return null;
  }
}

const isEvent = (name: string): name is TEmbedEvent => (EmbedEvents as readonly string[]).includes(name);
const isMethod = (name: string): name is TEmbedMethod => (EmbedMethods as readonly string[]).includes(name);

/**
 * The avatar page's postMessage API for the page that embeds it, compatible with Trulience's
 * iframe API (see contract/live/embed-api.ts). Messages are accepted only from the parent window
 * and its origin; events go only to that origin, and only those the host registered.
 */
export class EmbedApi {
  private hostOrigin: string | null;
  private readonly registered = new Set<TEmbedEvent>();
  /** Events that state a standing fact (the page cannot connect): posted again to a host that registers later. */
  private readonly standing = new Map<TEmbedEvent, unknown>();
  private readonly win: Window;
  private readonly target: EmbedTarget;
  private readonly onMessage = (event: MessageEvent) => void this.handle(event);

  private readonly onRegister: ((added: readonly TEmbedEvent[]) => void) | undefined;

  /**
   * `events`: registered from the start (the registerTrlEvents URL parameter of a page written for
   * Trulience). `onRegister`: told of the events a host registers later (the refusal page answers
   * a late auth-fail registration with the failure that already happened).
   */
  constructor(target: EmbedTarget, win: Window = window, events: readonly string[] = [], onRegister?: (added: readonly TEmbedEvent[]) => void) {
    this.target = target;
    this.win = win;
    this.hostOrigin = detectHostOrigin(win);
    this.onRegister = onRegister;
    if (events.length > 0) this.register(events);
  }

  get origin(): string | null {
    return this.hostOrigin;
  }

  get framed(): boolean {
    return this.win.parent !== this.win;
  }

  start() {
    if (this.framed) this.win.addEventListener('message', this.onMessage);
  }

  stop() {
    this.win.removeEventListener('message', this.onMessage);
  }

  isRegistered(eventName: TEmbedEvent): boolean {
    return this.registered.has(eventName);
  }

  /** Posts a registered event to the host page (never to '*'). */
  emit<K extends TEmbedEvent>(eventName: K, eventParams: TEmbedEventParams[K]) {
    if (!this.framed || !this.hostOrigin || !this.registered.has(eventName)) return;
    this.win.parent.postMessage({ eventName, eventParams }, this.hostOrigin);
  }

  /**
   * An event that stays true (auth-fail of a protected avatar opened without a token, known as the
   * page loads): a host that registers for it after it happened still gets it.
   */
  emitStanding<K extends TEmbedEvent>(eventName: K, eventParams: TEmbedEventParams[K]) {
    this.standing.set(eventName, eventParams);
    this.emit(eventName, eventParams);
  }

  private respond(callId: string | number | undefined, result: { result?: unknown; error?: string }) {
    if (!this.hostOrigin) return;
    const message: TEmbedMethodResponse = {
      eventName: 'trl-method-response',
      eventParams: { callId, status: result.error === undefined ? 'success' : 'error', ...result },
    };
    this.win.parent.postMessage(message, this.hostOrigin);
  }

  private register(names: unknown): string[] {
    const list = Array.isArray(names) ? names : EmbedEvents;
    const added: TEmbedEvent[] = [];
    for (const name of list) {
      if (typeof name === 'string' && isEvent(name)) {
        const fresh = !this.registered.has(name);
        this.registered.add(name);
        added.push(name);
        const standing = this.standing.get(name);
        if (fresh && standing !== undefined) this.emit(name, standing as TEmbedEventParams[typeof name]);
      }
    }
    this.onRegister?.(added);
    return added;
  }

  private async handle(event: MessageEvent) {
    if (event.source !== this.win.parent) return;
    if (this.hostOrigin && event.origin !== this.hostOrigin) return;
    const data: unknown = typeof event.data === 'string' ? safeJson(event.data) : event.data;
    if (!data || typeof data !== 'object') return;
    const reg = ZEmbedRegister.safeParse(data);
    if (reg.success) {
      this.hostOrigin ??= event.origin;
      this.register(reg.data.eventParams?.events);
      return;
    }
    const call = ZEmbedMethodCall.safeParse(data);
    if (call.success) return this.call(event.origin, call.data.eventParams);
    // Trulience's deprecated form: {command, message}, or {command: 'trl-method-call', method, args, callId}.
    const command = ZEmbedCommand.safeParse(data);
    if (!command.success) return;
    const { command: name, message, method, args, callId } = command.data;
    if (name === EmbedMessages.methodCall && method !== undefined) return this.call(event.origin, { method, args, callId });
    if (!Object.hasOwn(EmbedCommands, name)) return;
    const mapped = EmbedCommands[name as keyof typeof EmbedCommands];
    this.hostOrigin ??= event.origin;
    // No callId in this form: the host gets no answer, as from Trulience's page.
    await this.invoke(mapped, message === undefined ? [] : [message]).catch(() => undefined);
  }

  private async call(origin: string, params: { method: string; args?: unknown[] | undefined; callId?: string | number | undefined }) {
    // The host's origin was unknown (no referrer): its first valid call fixes it.
    this.hostOrigin ??= origin;
    const { method, args = [], callId } = params;
    if (!isMethod(method)) {
      this.respond(callId, { error: `Unknown method: ${method}` });
      return;
    }
    try {
      this.respond(callId, { result: await this.invoke(method, args) });
    } catch (err) {
      this.respond(callId, { error: err instanceof Error ? err.message : String(err) });
    }
  }

  private async invoke(method: TEmbedMethod, args: unknown[]): Promise<unknown> {
    const text = () => {
      const value = args[0];
      if (typeof value !== 'string' || !value.trim()) throw new Error('A non-empty text argument is required.');
      return value;
    };
    const bool = () => {
      if (typeof args[0] !== 'boolean') throw new Error('A boolean argument is required.');
      return args[0];
    };
    const intensity = () => {
      const value = args[1];
      if (value === undefined) return {};
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) throw new Error('The intensity must be a number from 0 to 1.');
      return { intensity: value };
    };
    const t = this.target;
    switch (method) {
      case 'sendMessage':
        if (!t.sendMessage(text())) throw new Error('The avatar is not connected.');
        return true;
      case 'sendMessageToAvatar':
        if (!t.sendMessageToAvatar(text())) throw new Error('The avatar is not connected.');
        return true;
      case 'setMicEnabled':
        t.setMicEnabled(bool());
        return t.isMicEnabled();
      case 'toggleMic':
        t.setMicEnabled(!t.isMicEnabled());
        return t.isMicEnabled();
      case 'isMicEnabled':
        return t.isMicEnabled();
      case 'setSpeakerEnabled':
        t.setSpeakerEnabled(bool());
        return t.isSpeakerEnabled();
      case 'toggleSpeaker':
        t.setSpeakerEnabled(!t.isSpeakerEnabled());
        return t.isSpeakerEnabled();
      case 'isSpeakerEnabled':
        return t.isSpeakerEnabled();
      case 'registerTrlEvents':
        return this.register(args[0]);
      case 'connect':
        return t.connect();
      case 'disconnect':
        t.disconnect();
        return true;
      case 'getState':
        return t.getState();
      case 'setMood': {
        const mood = args[0];
        if (!isAvatarMood(mood)) throw new Error(`Unknown mood: ${String(mood).slice(0, 40)}. Moods: ${AvatarMoods.join(', ')}.`);
        t.act({ kind: 'mood', mood, ...intensity() });
        return true;
      }
      case 'playGesture': {
        const gesture = args[0];
        if (!isAvatarGesture(gesture)) throw new Error(`Unknown gesture: ${String(gesture).slice(0, 40)}. Gestures: ${AvatarGestures.join(', ')}.`);
        t.act({ kind: 'gesture', gesture, ...intensity() });
        return true;
      }
    }
  }
}

function safeJson(text: string): unknown {
  if (text.length > 64 * 1024) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

export { EmbedMessages };
