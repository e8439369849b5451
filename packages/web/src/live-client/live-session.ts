import {
  AudioFrameFlag,
  AudioFrameKind,
  LiveCode,
  LiveLimits,
  LiveMessages,
  LivePaths,
  LiveProtocol,
  LiveRates,
  PageFigurePath,
  TokenBucket,
  ZLivePageConfig,
  ZLiveStartAnswer,
  ZWorkerFrame,
  readAudioFrame,
  writeAudioFrame,
  type TAvatarAction,
  type TLiveCode,
  type TLiveHistoryEntry,
  type TLivePageConfig,
  type TLiveStartAnswer,
  type TLiveState,
  type TLiveUiConfig,
  type TPageFigures,
  type TPageFrame,
  type TWorkerFrame,
} from '@persona/contract';

/** Where the page is with the portal and the worker. */
export type ConnectionState = 'disconnected' | 'connecting' | 'connected' | 'reconnecting' | 'ended' | 'failed';

export interface LiveFailure {
  code: TLiveCode;
  message: string;
  failReason?: number;
}

export interface LiveSessionEvents {
  connection: (state: ConnectionState) => void;
  /** The conversation state the worker reports (listening, thinking, speaking…). */
  state: (state: TLiveState) => void;
  /** Session admitted (auth-success) and socket ready. */
  ready: (info: { sessionId: string; resumed: boolean; echo: boolean; history: TLiveHistoryEntry[]; audioSampleRate: number; listening: boolean }) => void;
  admitted: (info: { sessionId: string; ui: TLiveUiConfig | undefined }) => void;
  refused: (failure: LiveFailure) => void;
  /** What the visitor said, as the worker confirmed it. */
  transcript: (t: { id?: string; text: string; final: boolean; beforeUtt?: number; continues?: boolean }) => void;
  assistant: (a: { utt: number; delta?: string; text?: string; final: boolean; interrupted?: boolean }) => void;
  speaking: (s: { utt: number; speaking: boolean; interrupted: boolean }) => void;
  /** An avatar utterance's bounds as the worker sends them (audio follows on binary frames). */
  utterance: (u: { utt: number; phase: 'start' | 'end'; text?: string }) => void;
  /** Avatar audio: PCM16LE mono at the `ready` rate. */
  audio: (a: { utt: number; seq: number; pcm: Uint8Array; last: boolean }) => void;
  visemes: (v: { utt: number; items: { t: number; v: string; d?: number }[] }) => void;
  words: (w: { utt: number; items: { t: number; d: number; w: string }[] }) => void;
  /** A mood, gesture or tag of the avatar, at `t` ms of utterance `utt` (absent: at once). */
  action: (a: { utt: number; t?: number; action: TAvatarAction; source: 'tag' | 'cue' }) => void;
  /** The worker cut an utterance off (the visitor spoke); heardMs as the worker knows it. */
  interrupted: (i: { utt: number; heardMs: number }) => void;
  /** The visitor started talking over an utterance: hold it (it may go on, or be interrupted). */
  pause: (p: { utt: number }) => void;
  /** The visitor's sound was not a turn: the held utterance goes on. */
  resume: (r: { utt: number }) => void;
  tool: (t: { name: string; status: 'started' | 'ok' | 'error' }) => void;
  /** `id`: a message the worker did not take (too-fast). */
  notice: (n: { code: TLiveCode; message: string; id?: string }) => void;
  error: (e: { code: TLiveCode; message: string; fatal: boolean }) => void;
  ended: (e: { code: TLiveCode; message: string }) => void;
}

type Listener<K extends keyof LiveSessionEvents> = LiveSessionEvents[K];

export interface LiveSessionOptions {
  avatarId: number;
  token?: string;
  /** The embedding page's origin, when framed. */
  hostOrigin?: string;
  visitorId?: string;
  textOnly?: boolean;
  useCache?: boolean;
  mic?: boolean;
  speaker?: boolean;
  client?: { deviceOS?: string; locale?: string; spokenLanguage?: string };
  /** Injected for tests; default the browser's. */
  fetch?: typeof fetch;
  WebSocket?: typeof WebSocket;
  /** Where the portal is (default: this page's origin). */
  portalOrigin?: string;
  /** The clock of the message rate (default Date.now). */
  now?: () => number;
}

const textMessage = (code: TLiveCode) => LiveMessages[code];

/**
 * One visitor's conversation with an avatar, without any DOM: admission through the portal,
 * the WebSocket to the worker (ADR 013), resume after a lost worker, and typed events for the
 * page, the chat widget and the host page's postMessage API.
 */
export class LiveSession {
  private readonly opts: LiveSessionOptions;
  private readonly listeners = new Map<keyof LiveSessionEvents, Set<(...args: unknown[]) => void>>();
  private socket: WebSocket | null = null;
  private sessionId: string | null = null;
  private resumeToken: string | null = null;
  private pinger: ReturnType<typeof setInterval> | undefined;
  private connection: ConnectionState = 'disconnected';
  private stopping = false;
  private resumeDeadline = 0;
  private speakingUtt: number | null = null;
  private micOn: boolean;
  private speakerOn: boolean;
  private outbox: TPageFrame[] = [];
  private nextTextId = 1;
  /** The worker's message rate (LiveRates), applied here too: a visitor typing fast is told at once. */
  private readonly messages: TokenBucket;
  ui: TLiveUiConfig | undefined;

  constructor(opts: LiveSessionOptions) {
    this.opts = opts;
    this.messages = TokenBucket.every(LiveRates.messageBurst, LiveRates.messageIntervalMs, opts.now);
    this.micOn = opts.mic ?? true;
    this.speakerOn = opts.speaker ?? true;
  }

  on<K extends keyof LiveSessionEvents>(event: K, listener: Listener<K>): () => void {
    let set = this.listeners.get(event);
    if (!set) this.listeners.set(event, (set = new Set()));
    const fn = listener as unknown as (...args: unknown[]) => void;
    set.add(fn);
    return () => set.delete(fn);
  }

  private emit<K extends keyof LiveSessionEvents>(event: K, ...args: Parameters<Listener<K>>): void {
    for (const listener of this.listeners.get(event) ?? []) listener(...args);
  }

  get state(): ConnectionState {
    return this.connection;
  }
  get id(): string | null {
    return this.sessionId;
  }
  get isMicEnabled(): boolean {
    return this.micOn;
  }
  get isSpeakerEnabled(): boolean {
    return this.speakerOn;
  }

  private setConnection(next: ConnectionState) {
    if (this.connection === next) return;
    this.connection = next;
    this.emit('connection', next);
  }

  private get fetcher(): typeof fetch {
    return this.opts.fetch ?? ((input, init) => fetch(input, init));
  }

  private url(path: string): string {
    return new URL(path, this.opts.portalOrigin ?? window.location.origin).toString();
  }

  /** Public facts about the avatar (name, photo, whether a token or sign-in is needed). */
  async loadPageConfig(): Promise<TLivePageConfig> {
    const res = await this.fetcher(this.url(LivePaths.pageConfig(this.opts.avatarId)), {
      cache: this.opts.useCache === false ? 'no-store' : 'default',
      headers: { accept: 'application/json' },
    });
    const body: unknown = await res.json().catch(() => null);
    const parsed = ZLivePageConfig.safeParse(body);
    if (!res.ok || !parsed.success || parsed.data.status !== 'OK') {
      const code = res.status === 404 ? LiveCode.avatarNotFound : LiveCode.serverError;
      throw Object.assign(new Error(textMessage(code)), { code });
    }
    return parsed.data;
  }

  /** Asks the portal for a session, then opens the worker socket. */
  async connect(extra: { oauthGrant?: string } = {}): Promise<boolean> {
    if (this.connection === 'connecting' || this.connection === 'connected' || this.connection === 'reconnecting') return true;
    this.stopping = false;
    this.setConnection('connecting');
    const answer = await this.post(LivePaths.start, {
      avatarId: this.opts.avatarId,
      ...(this.opts.token ? { token: this.opts.token } : {}),
      ...(extra.oauthGrant ? { oauthGrant: extra.oauthGrant } : {}),
      ...(this.opts.visitorId ? { visitorId: this.opts.visitorId } : {}),
      ...(this.opts.hostOrigin ? { hostOrigin: this.opts.hostOrigin } : {}),
      ...(this.opts.client ? { client: this.opts.client } : {}),
      ...(this.opts.textOnly ? { textOnly: true } : {}),
    });
    if (!answer.ok) {
      this.setConnection('failed');
      this.emit('refused', answer.failure);
      return false;
    }
    this.sessionId = answer.data.sessionId ?? null;
    this.resumeToken = answer.data.resumeToken ?? null;
    this.ui = answer.data.ui;
    this.emit('admitted', { sessionId: this.sessionId ?? '', ui: this.ui });
    this.open(answer.data);
    return true;
  }

  private async post(path: string, body: object): Promise<{ ok: true; data: TLiveStartAnswer } | { ok: false; failure: LiveFailure }> {
    let res: Response;
    try {
      res = await this.fetcher(this.url(path), {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
      });
    } catch {
      return { ok: false, failure: { code: LiveCode.serverError, message: 'We are having trouble connecting. Please check your internet connection and try again.' } };
    }
    const json: unknown = await res.json().catch(() => null);
    const parsed = ZLiveStartAnswer.safeParse(json);
    if (parsed.success && parsed.data.status === 'OK' && parsed.data.ticket && parsed.data.wsUrl && parsed.data.sessionId) return { ok: true, data: parsed.data };
    const code: TLiveCode = parsed.success && parsed.data.code ? parsed.data.code : res.status === 429 ? LiveCode.rateLimited : LiveCode.serverError;
    return {
      ok: false,
      failure: {
        code,
        message: (parsed.success && parsed.data.errors?.[0]) || textMessage(code),
        ...(parsed.success && parsed.data.failReason !== undefined ? { failReason: parsed.data.failReason } : {}),
      },
    };
  }

  private open(answer: TLiveStartAnswer) {
    const WS = this.opts.WebSocket ?? WebSocket;
    const socket = new WS(answer.wsUrl!);
    socket.binaryType = 'arraybuffer';
    this.socket = socket;
    socket.onopen = () => {
      this.sendFrame({ type: 'hello', protocol: 1, ticket: answer.ticket!, mic: this.micOn, speaker: this.speakerOn, ...(this.opts.textOnly ? { textOnly: true } : {}) }, socket);
    };
    socket.onmessage = (event: MessageEvent) => {
      if (typeof event.data !== 'string') {
        if (event.data instanceof ArrayBuffer) this.onAudio(new Uint8Array(event.data));
        return;
      }
      if (event.data.length > LiveProtocol.maxTextFrame * 4) return;
      let frame: TWorkerFrame;
      try {
        const parsed = ZWorkerFrame.safeParse(JSON.parse(event.data));
        if (!parsed.success) return;
        frame = parsed.data;
      } catch {
        return;
      }
      this.onFrame(frame);
    };
    socket.onclose = (event: CloseEvent) => {
      if (this.socket !== socket) return;
      this.socket = null;
      clearInterval(this.pinger);
      this.endSpeaking(true);
      if (this.stopping || this.connection === 'ended' || this.connection === 'failed') return;
      if (event.code === LiveProtocol.close.ended) return; // bye already handled
      if (event.code === LiveProtocol.close.ticketRefused || event.code === LiveProtocol.close.badFrame) {
        this.finish(LiveCode.ticketInvalid);
        return;
      }
      void this.resume();
    };
  }

  private async resume() {
    if (!this.sessionId || !this.resumeToken) {
      this.finish(LiveCode.sessionEnded);
      return;
    }
    if (this.connection !== 'reconnecting') {
      this.resumeDeadline = Date.now() + LiveLimits.resumeWindowSeconds * 1000;
      this.setConnection('reconnecting');
      this.emit('notice', { code: LiveCode.workerLost, message: textMessage(LiveCode.workerLost) });
    }
    let delay = 300;
    while (!this.stopping && Date.now() < this.resumeDeadline) {
      const answer = await this.post(LivePaths.resume, { sessionId: this.sessionId, resumeToken: this.resumeToken });
      if (this.stopping) return;
      if (answer.ok) {
        this.resumeToken = answer.data.resumeToken ?? this.resumeToken;
        this.open(answer.data);
        return;
      }
      if (answer.failure.code !== LiveCode.noWorker && answer.failure.code !== LiveCode.serverError && answer.failure.code !== LiveCode.rateLimited) {
        this.finish(answer.failure.code, answer.failure.message);
        return;
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 5000);
    }
    if (!this.stopping) this.finish(LiveCode.sessionEnded);
  }

  private onFrame(frame: TWorkerFrame) {
    switch (frame.type) {
      case 'ready':
        this.setConnection('connected');
        clearInterval(this.pinger);
        this.pinger = setInterval(() => this.sendFrame({ type: 'ping', t: Date.now() }), LiveProtocol.pingIntervalMs);
        this.emit('ready', { sessionId: frame.sessionId, resumed: frame.resumed, echo: frame.echo, history: frame.history, audioSampleRate: frame.audioSampleRate, listening: frame.listening === true });
        for (const queued of this.outbox.splice(0)) this.sendFrame(queued);
        break;
      case 'state':
        this.emit('state', frame.state);
        break;
      case 'transcript':
        this.emit('transcript', { ...(frame.id !== undefined ? { id: frame.id } : {}), text: frame.text, final: frame.final, ...(frame.beforeUtt !== undefined ? { beforeUtt: frame.beforeUtt } : {}), ...(frame.continues ? { continues: true } : {}) });
        break;
      case 'assistant':
        if (!this.playbackDriven && this.speakingUtt !== frame.utt && !frame.final) this.startSpeaking(frame.utt);
        this.emit('assistant', frame);
        if (!this.playbackDriven && frame.final && !this.audioUtterances.has(frame.utt)) this.endSpeaking(frame.interrupted ?? false, frame.utt);
        break;
      case 'utterance':
        this.emit('utterance', { utt: frame.utt, phase: frame.phase, ...(frame.text !== undefined ? { text: frame.text } : {}) });
        // Without a player in the page the frames mark speaking; with one, real playback does.
        if (this.playbackDriven) break;
        if (frame.phase === 'start') {
          this.audioUtterances.add(frame.utt);
          this.startSpeaking(frame.utt);
        } else {
          this.audioUtterances.delete(frame.utt);
          this.endSpeaking(false, frame.utt);
        }
        break;
      case 'visemes':
        this.emit('visemes', { utt: frame.utt, items: frame.items });
        break;
      case 'words':
        this.emit('words', { utt: frame.utt, items: frame.items });
        break;
      case 'action':
        this.emit('action', { utt: frame.utt, ...(frame.t !== undefined ? { t: frame.t } : {}), action: frame.action, source: frame.source });
        break;
      case 'interrupted':
        this.emit('interrupted', { utt: frame.utt, heardMs: frame.heardMs });
        if (!this.playbackDriven) this.endSpeaking(true, frame.utt);
        break;
      case 'pause':
        this.emit('pause', { utt: frame.utt });
        break;
      case 'resume':
        this.emit('resume', { utt: frame.utt });
        break;
      case 'tool':
        this.emit('tool', { name: frame.name, status: frame.status });
        break;
      case 'notice':
        this.emit('notice', { code: frame.code, message: frame.message, ...(frame.id !== undefined ? { id: frame.id } : {}) });
        break;
      case 'error':
        this.emit('error', { code: frame.code, message: frame.message, fatal: frame.fatal });
        if (frame.fatal) this.finish(frame.code, frame.message);
        break;
      case 'bye':
        this.finish(frame.code, frame.message);
        break;
      default:
        break;
    }
  }

  private readonly audioUtterances = new Set<number>();

  /**
   * The page plays the avatar's audio itself: speaking then follows what is heard (the page
   * calls `playback`), not the worker's utterance frames.
   */
  playbackDriven = false;

  private onAudio(frame: Uint8Array) {
    const parsed = readAudioFrame(frame);
    if (!parsed || parsed.header.kind !== AudioFrameKind.avatar) return;
    const { header, pcm } = parsed;
    this.emit('audio', { utt: header.utterance, seq: header.seq, pcm, last: (header.flags & AudioFrameFlag.last) !== 0 });
  }

  /** Tells the worker how far the visitor has heard an utterance (started, progress, ended). */
  playback(utt: number, state: 'started' | 'progress' | 'ended', playedMs: number) {
    this.sendFrame({ type: 'playback', utt, state, playedMs: Math.max(0, Math.round(playedMs)), micSeq: this.micSeq });
    if (state === 'started') {
      if (this.speakingUtt !== utt) this.startSpeaking(utt);
    } else if (state === 'ended') {
      this.endSpeaking(false, utt);
    }
  }

  /** An utterance heard only in part (the visitor interrupted or the page muted the rest). */
  playbackCut(utt: number, playedMs: number) {
    this.sendFrame({ type: 'playback', utt, state: 'ended', playedMs: Math.max(0, Math.round(playedMs)) });
    this.endSpeaking(true, utt);
  }

  private startSpeaking(utt: number) {
    if (this.speakingUtt === utt) return;
    if (this.speakingUtt !== null) this.endSpeaking(true);
    this.speakingUtt = utt;
    this.emit('speaking', { utt, speaking: true, interrupted: false });
  }

  private endSpeaking(interrupted: boolean, utt?: number) {
    if (this.speakingUtt === null || (utt !== undefined && utt !== this.speakingUtt)) return;
    const current = this.speakingUtt;
    this.speakingUtt = null;
    this.emit('speaking', { utt: current, speaking: false, interrupted });
  }

  private finish(code: TLiveCode, message: string = textMessage(code)) {
    if (this.connection === 'ended') return;
    this.stopping = true;
    clearInterval(this.pinger);
    this.endSpeaking(true);
    const socket = this.socket;
    this.socket = null;
    if (socket && socket.readyState === socket.OPEN) socket.close(1000);
    this.setConnection('ended');
    this.emit('ended', { code, message });
  }

  private sendFrame(frame: TPageFrame, socket: WebSocket | null = this.socket): boolean {
    if (!socket || socket.readyState !== socket.OPEN) return false;
    socket.send(JSON.stringify(frame));
    return true;
  }

  /**
   * A message from the visitor (or, with speak, a line the avatar says itself). Queued while the
   * socket is (re)connecting. Returns the client id the transcript will echo; null when it was not
   * sent (not connected, or over the message rate: then a `notice` too-fast says so).
   */
  send(text: string, opts: { speak?: boolean } = {}): string | null {
    const trimmed = text.trim().slice(0, LiveLimits.textMax);
    if (!trimmed) return null;
    if (this.connection !== 'connected' && this.connection !== 'connecting' && this.connection !== 'reconnecting') return null;
    if (!this.messages.take()) {
      this.emit('notice', { code: LiveCode.tooFast, message: textMessage(LiveCode.tooFast) });
      return null;
    }
    const id = `m${this.nextTextId++}`;
    const frame: TPageFrame = { type: 'text', id, text: trimmed, ...(opts.speak ? { speak: true } : {}) };
    if (this.connection === 'connected') this.sendFrame(frame);
    else this.outbox.push(frame);
    return id;
  }

  setMic(enabled: boolean) {
    if (this.micOn === enabled) return;
    this.micOn = enabled;
    this.sendFrame({ type: 'mic', enabled });
  }

  private micSeq = 0;

  /**
   * One 20 ms frame of the visitor's 16 kHz PCM16 (binary: AudioFrameKind.mic, the sequence
   * number counting frames). Dropped unless connected with the mic on, or when the socket is
   * backed up (late audio is worse than lost audio for turn-taking).
   */
  sendMic(pcm: Int16Array): boolean {
    const socket = this.socket;
    if (!this.micOn || this.connection !== 'connected' || !socket || socket.readyState !== socket.OPEN) return false;
    if (socket.bufferedAmount > 64 * 1024) return false;
    const bytes = new Uint8Array(pcm.buffer, pcm.byteOffset, pcm.byteLength);
    // writeAudioFrame allocates a fresh (non-shared) buffer.
    socket.send(writeAudioFrame({ kind: AudioFrameKind.mic, flags: 0, utterance: 0, seq: this.micSeq++ }, bytes) as Uint8Array<ArrayBuffer>);
    return true;
  }

  setSpeaker(enabled: boolean) {
    this.speakerOn = enabled;
    this.sendFrame({ type: 'speaker', enabled });
  }

  interrupt() {
    this.sendFrame({ type: 'interrupt' });
  }

  private figuresSentFor: string | null = null;

  /**
   * The page's own figures (ADR 099), once per session, near its end: a keepalive POST (it
   * outlives the page on pagehide) with the session's resume token, which the portal checks.
   */
  reportFigures(figures: TPageFigures): boolean {
    const { sessionId, resumeToken } = this;
    if (!sessionId || !resumeToken || this.figuresSentFor === sessionId) return false;
    if (figures.firstFrameMs === null && figures.avOffsetMs === null && figures.droppedFrames === null) return false;
    this.figuresSentFor = sessionId;
    void this.fetcher(this.url(PageFigurePath), {
      method: 'POST',
      keepalive: true,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ sessionId, resumeToken, ...figures }),
    }).catch(() => undefined);
    return true;
  }

  /** The visitor hangs up: the worker ends and bills the session. */
  hangUp() {
    if (this.connection === 'ended' || this.connection === 'disconnected' || this.connection === 'failed') return;
    this.sendFrame({ type: 'bye' });
    this.finish(LiveCode.hangUp);
  }
}
