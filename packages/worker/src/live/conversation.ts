import {
  AudioFrameKind,
  LiveCode,
  LiveLimits,
  LiveMessages,
  LiveProtocol,
  ZPageFrame,
  readAudioFrame,
  type TLiveCode,
  type TLiveHistoryEntry,
  type TLiveSessionConfig,
  type TLiveState,
  type TLiveVoiceTurnMetrics,
  type TPageFrame,
  type TWorkerFrame,
} from '@persona/contract';
import { Listener, type Clock, type ListenTurnMetrics } from '../listening/turns.js';
import type { TurnOptions } from '../listening/options.js';
import type { VadStream } from '../listening/vad.js';
import type { SttEngine } from '../providers/stt/types.js';
import { ProviderError, type Brain, type BrainEvent, type BrainLogger } from '../brains/types.js';
import { speechFrame, type SpeechEvent, type SpeechPipeline, type SpeechTurn } from '../speech/pipeline.js';

/** The page's socket as a session sees it (the transport seam: ws today, WebRTC data later). */
export interface PageSocket {
  send(data: string): void;
  /** Audio frames (LiveProtocol's 8-byte header + PCM16LE). */
  sendBinary?(data: Uint8Array): void;
  close(code: number, reason?: string): void;
  readonly isOpen: boolean;
}

/** What a conversation reports to the portal (worker RPC), injected so it runs alone in tests. */
export interface PortalLink {
  heartbeat(lastUserActivityAt: number | null): Promise<{ echo: boolean; end: TLiveCode | null }>;
  history(history: TLiveHistoryEntry[]): Promise<void>;
  end(code: TLiveCode, summary: string | null, turns?: TLiveVoiceTurnMetrics[]): Promise<void>;
}

/** Listening (issue 14): the visitor's mic frames → VAD → STT → turns. Absent: typed chat only. */
export interface ConversationListening {
  stt: SttEngine;
  vad: VadStream;
  options: TurnOptions;
  languages?: string[];
  model?: string;
  phrases?: string[];
  clock?: Clock;
  /** Called when the mic is first turned on: load the VAD model, start the recogniser. */
  warm?: () => void;
}

export interface ConversationOptions {
  config: TLiveSessionConfig;
  /** The avatar's brain; null answers in echo-back (EchoTest, over the daily limit). */
  brain: Brain | null;
  /** The avatar's voice; null for text only (the chat widget, TTS None). */
  speech?: SpeechPipeline | null;
  /** The page's speaker at hello (off: nothing is synthesised until it is turned on). */
  speakerOn?: boolean;
  listening?: ConversationListening | null;
  /** The page's mic at hello. */
  micOn?: boolean;
  portal: PortalLink;
  log: BrainLogger;
  heartbeatMs?: number;
  now?: () => number;
  /** Called once the conversation is over (ended or its socket dropped). */
  onClosed?: () => void;
}

const echoBrain: Brain = {
  kind: 'echo',
  async *reply(turn) {
    yield { type: 'text', delta: turn.text };
  },
};

/**
 * One visitor's conversation on this worker: the page's frames in, the brain's streamed answers
 * out, history, the idle and demo timers and the heartbeat to the portal. Turns run one at a
 * time in arrival order. A socket that drops without `bye` leaves the session open on the portal
 * (the page resumes, here or on another worker); `bye`, idle, demo and the portal's `end` finish it.
 */
export class Conversation {
  private readonly opts: ConversationOptions;
  private readonly now: () => number;
  private socket: PageSocket | null = null;
  private brain: Brain;
  /** Over a daily limit: echo-back, and the page is told (not for EchoTest avatars). */
  private echo: boolean;
  private readonly history: TLiveHistoryEntry[];
  private utt = 0;
  private queue: Promise<void> = Promise.resolve();
  private turnAbort: AbortController | null = null;
  private readonly lifetime = new AbortController();
  private idleTimer: NodeJS.Timeout | undefined;
  private demoTimer: NodeJS.Timeout | undefined;
  private heartbeat: NodeJS.Timeout | undefined;
  private lastUserActivityAt: number | null = null;
  private speakerOn: boolean;
  private finished = false;
  private started = false;
  private readonly listener: Listener | null = null;
  /** The avatar utterance the visitor hears now (first audio sent → playback ended). */
  private speaking: { utt: number; startedAt: number; pausedAt: number | null; pausedMs: number; audioMs: number; ended: boolean } | null = null;
  private speakingTimer: NodeJS.Timeout | undefined;
  /** The page's last playback report. */
  private playback: { utt: number; playedMs: number; at: number; state: 'started' | 'progress' | 'ended' } | null = null;
  /** What the visitor heard of an utterance they interrupted. */
  private interruption: { utt: number; heardMs: number } | null = null;
  private readonly turnMetrics: TLiveVoiceTurnMetrics[] = [];
  /** The last answer given in full, while it may still be cut short by an interruption. */
  private spoken: { utt: number; entry: TLiveHistoryEntry; speech: SpeechTurn } | null = null;
  private firstAudioAt = new Map<number, number>();

  constructor(opts: ConversationOptions) {
    this.opts = opts;
    this.now = opts.now ?? Date.now;
    this.echo = opts.config.echo;
    this.brain = this.echo || opts.brain === null ? echoBrain : opts.brain;
    this.history = [...opts.config.history];
    this.speakerOn = opts.speakerOn ?? true;
    const l = opts.listening;
    if (l) {
      this.listener = new Listener({
        options: l.options,
        vad: l.vad,
        stt: l.stt,
        sttLanguages: l.languages,
        sttModel: l.model,
        sttPhrases: l.phrases,
        clock: l.clock,
        events: {
          transcript: (text, final) => {
            if (!final) this.send({ type: 'transcript', text: text.slice(0, 2000), final: false });
          },
          commit: (text, m) => this.onSpokenTurn(text, m),
          pause: (utt) => {
            if (this.speaking?.utt === utt && this.speaking.pausedAt === null) this.speaking.pausedAt = this.now();
            this.send({ type: 'pause', utt });
          },
          resume: (utt) => {
            const sp = this.speaking;
            if (sp?.utt === utt && sp.pausedAt !== null) {
              sp.pausedMs += this.now() - sp.pausedAt;
              sp.pausedAt = null;
              if (sp.ended) this.armSpeakingEnd();
            }
            this.send({ type: 'resume', utt });
          },
          interrupt: () => this.interruptAvatar(),
          error: (err) => this.logProviderError(err, 'listening'),
        },
      });
      this.setMic(opts.micOn ?? false);
    }
  }

  /** Per-turn latency figures of the spoken turns so far (also sent with the session's end). */
  get metrics(): readonly TLiveVoiceTurnMetrics[] {
    return this.turnMetrics;
  }

  get sessionId(): string {
    return this.opts.config.sessionId;
  }
  get isFinished(): boolean {
    return this.finished;
  }

  /** Takes the page's socket (a resume to this worker replaces the previous one). */
  attach(socket: PageSocket) {
    const previous = this.socket;
    this.socket = socket;
    if (previous && previous !== socket && previous.isOpen) previous.close(LiveProtocol.close.replaced, 'replaced');
    this.send({
      type: 'ready',
      sessionId: this.sessionId,
      history: this.history,
      audioSampleRate: this.opts.speech?.sampleRate ?? 0,
      echo: this.echo,
      resumed: this.opts.config.resumed || this.started,
      listening: this.listener !== null,
    });
    if (this.echo) this.send({ type: 'notice', code: LiveCode.dailyLimitEcho, message: LiveMessages['daily-limit-echo'] });
    this.armIdle();
    if (this.started) return;
    this.started = true;
    this.armDemo();
    this.heartbeat = setInterval(() => void this.beat(), this.opts.heartbeatMs ?? LiveLimits.heartbeatSeconds * 1000);
    this.heartbeat.unref();
    this.enqueue(async () => {
      if (this.opts.brain?.start && this.brain === this.opts.brain) {
        try {
          await this.opts.brain.start(this.lifetime.signal);
        } catch (err) {
          this.logProviderError(err, 'start');
        }
      }
      const wake = this.opts.config.avatar.wakeUpMessage.trim();
      if (!this.opts.config.resumed && wake) await this.say(wake);
      this.setState('listening');
    });
  }

  /** A text frame from the page. */
  onMessage(raw: string) {
    if (raw.length > LiveProtocol.maxTextFrame) {
      this.send({ type: 'error', code: LiveCode.badFrame, message: LiveMessages['bad-frame'], fatal: false });
      return;
    }
    let frame: TPageFrame;
    try {
      const parsed = ZPageFrame.safeParse(JSON.parse(raw));
      if (!parsed.success) throw new Error('invalid');
      frame = parsed.data;
    } catch {
      this.send({ type: 'error', code: LiveCode.badFrame, message: LiveMessages['bad-frame'], fatal: false });
      return;
    }
    switch (frame.type) {
      case 'ping':
        this.send({ type: 'pong', t: frame.t });
        break;
      case 'text': {
        const text = frame.text.trim();
        if (!text) break;
        this.lastUserActivityAt = this.now();
        this.armIdle();
        this.send({ type: 'transcript', ...(frame.id !== undefined ? { id: frame.id } : {}), text, final: true });
        if (frame.speak) this.enqueue(() => this.say(text));
        else this.enqueue(() => this.turn(text));
        break;
      }
      case 'interrupt':
        // The page stopped playback itself (a button, the host page): it heard what it played.
        this.interruptAvatar({ tellPage: false });
        break;
      case 'mic':
        this.setMic(frame.enabled);
        break;
      case 'playback':
        this.onPlayback(frame);
        break;
      case 'speaker':
        // Muted: what is being said stops, and nothing more is synthesised until it is back on.
        this.speakerOn = frame.enabled;
        if (!frame.enabled) this.speechTurn?.cancel();
        break;
      case 'bye':
        void this.finish(LiveCode.hangUp);
        break;
      default:
        // hello again: ignored.
        break;
    }
  }

  private warmed = false;
  private setMic(on: boolean) {
    if (!this.listener) return;
    if (on && !this.warmed) {
      this.warmed = true;
      this.opts.listening?.warm?.();
    }
    this.listener.setMic(on);
  }

  /** A binary frame from the page: mic audio (16 kHz PCM16LE, 20 ms frames) for the listener. */
  onAudio(data: Uint8Array) {
    if (!this.listener || this.finished) return;
    const frame = readAudioFrame(data);
    if (!frame || frame.header.kind !== AudioFrameKind.mic || frame.pcm.byteLength === 0) return;
    // Copied: the socket's buffer may be reused, and Int16Array wants an aligned offset.
    const pcm = new Int16Array(frame.pcm.byteLength / 2);
    new Uint8Array(pcm.buffer).set(frame.pcm);
    void this.listener.push(pcm);
  }

  /** The listener committed the visitor's spoken turn: answered like typed text. */
  private onSpokenTurn(text: string, m: ListenTurnMetrics) {
    if (this.finished) return;
    this.lastUserActivityAt = this.now();
    this.armIdle();
    this.send({ type: 'transcript', text: text.slice(0, 2000), final: true });
    // A turn committed while the avatar still answers the previous one (it was not an
    // interruption, e.g. interruptions are off) waits for it, like typed text.
    this.enqueue(() => this.turn(text.slice(0, 2000), m));
  }

  private onPlayback(frame: Extract<TPageFrame, { type: 'playback' }>) {
    if (!Number.isFinite(frame.playedMs) || frame.playedMs < 0) return;
    this.playback = { utt: frame.utt, playedMs: Math.min(frame.playedMs, 3_600_000), at: this.now(), state: frame.state };
    if (frame.state === 'ended' && this.speaking?.utt === frame.utt) this.stopSpeaking();
  }

  /** ms of utterance `utt` the visitor has heard: the page's report, carried on to now. */
  private heardMs(utt: number): number {
    const sp = this.speaking?.utt === utt ? this.speaking : null;
    const pb = this.playback?.utt === utt ? this.playback : null;
    const until = sp?.pausedAt ?? this.now();
    let ms: number;
    if (pb) ms = pb.state === 'ended' ? pb.playedMs : pb.playedMs + Math.max(0, until - pb.at);
    else if (sp) ms = until - sp.startedAt - sp.pausedMs;
    else return 0;
    return Math.max(0, Math.round(sp ? Math.min(ms, sp.audioMs || ms) : ms));
  }

  /**
   * The visitor interrupted the avatar (by voice, or the page's `interrupt`): the page flushes
   * playback, the brain's and the voice's work stop, and history keeps what was heard.
   */
  private interruptAvatar(opts: { tellPage?: boolean } = {}) {
    const sp = this.speaking;
    const utt = sp?.utt ?? this.speechTurn?.utt ?? null;
    if (utt !== null && this.opts.speech) {
      const heardMs = this.heardMs(utt);
      this.interruption = { utt, heardMs };
      if (opts.tellPage !== false) this.send({ type: 'interrupted', utt, heardMs });
      // The answer was complete (still being spoken or played): history keeps what was heard.
      const spoken = this.spoken;
      if (spoken?.utt === utt) {
        spoken.entry.text = spoken.speech.heardText(heardMs);
        spoken.entry.interrupted = true;
        this.spoken = null;
        this.reportHistory();
      }
    }
    this.stopSpeaking();
    this.speechTurn?.cancel();
    this.turnAbort?.abort();
  }

  private stopSpeaking() {
    clearTimeout(this.speakingTimer);
    this.speaking = null;
    this.listener?.setAgentSpeaking(null);
  }

  /** Without playback reports, the utterance is taken as heard once its audio has had time to play. */
  private armSpeakingEnd() {
    const sp = this.speaking;
    clearTimeout(this.speakingTimer);
    if (!sp || sp.pausedAt !== null) return;
    const left = sp.startedAt + sp.pausedMs + sp.audioMs + 1000 - this.now();
    this.speakingTimer = setTimeout(() => {
      if (this.speaking === sp) this.stopSpeaking();
    }, Math.max(0, left));
    this.speakingTimer.unref();
  }

  /** The page's socket closed. Without `bye` the session stays open on the portal for a resume. */
  onSocketClosed(socket: PageSocket) {
    if (socket !== this.socket) return;
    this.socket = null;
    if (this.finished) return;
    this.listener?.close();
    this.stopTimers();
    this.turnAbort?.abort();
    this.lifetime.abort();
    this.finished = true;
    this.opts.onClosed?.();
  }

  /** The same session opened again on this worker (a resume): this copy goes quietly. */
  replaced() {
    if (this.finished) return;
    this.finished = true;
    this.listener?.close();
    this.stopTimers();
    this.turnAbort?.abort();
    this.lifetime.abort();
    const socket = this.socket;
    this.socket = null;
    if (socket?.isOpen) socket.close(LiveProtocol.close.replaced, 'replaced');
  }

  /** Ends the conversation: `bye` to the page, the portal told (it bills the session). */
  async finish(code: TLiveCode, opts: { tellPortal?: boolean; closeCode?: number } = {}) {
    if (this.finished) return;
    this.finished = true;
    this.listener?.close();
    this.stopTimers();
    this.turnAbort?.abort();
    this.lifetime.abort();
    const socket = this.socket;
    this.socket = null;
    if (socket?.isOpen) {
      if (opts.closeCode === LiveProtocol.close.goingAway) socket.close(LiveProtocol.close.goingAway, 'worker shutting down');
      else {
        socket.send(JSON.stringify({ type: 'bye', code, message: LiveMessages[code] } satisfies TWorkerFrame));
        socket.close(LiveProtocol.close.ended, code);
      }
    }
    this.opts.onClosed?.();
    if (opts.tellPortal !== false) {
      const summary = await this.summarize();
      await this.opts.portal.end(code, summary, this.turnMetrics.length ? [...this.turnMetrics] : undefined).catch((err: unknown) => this.opts.log.warn('could not report a session end', { sessionId: this.sessionId, error: String(err) }));
    }
    await this.opts.brain?.end?.().catch(() => undefined);
  }

  /** Avatar memory: the brain's note about this visitor (LLM brains with memory on), at most 10 s. */
  private async summarize(): Promise<string | null> {
    const brain = this.opts.brain;
    if (!brain?.summarize || this.brain !== brain || !this.history.some((h) => h.role === 'user')) return null;
    try {
      return await brain.summarize([...this.history], AbortSignal.timeout(10_000));
    } catch (err) {
      this.logProviderError(err, 'summary');
      return null;
    }
  }

  private stopTimers() {
    clearTimeout(this.speakingTimer);
    clearTimeout(this.idleTimer);
    clearTimeout(this.demoTimer);
    clearInterval(this.heartbeat);
  }

  private armIdle() {
    clearTimeout(this.idleTimer);
    const seconds = Math.min(Math.max(1, this.opts.config.avatar.idleTimeoutSeconds || LiveLimits.idleTimeoutDefault), LiveLimits.idleTimeoutMax);
    this.idleTimer = setTimeout(() => void this.finish(LiveCode.idleTimeout), seconds * 1000);
    this.idleTimer.unref();
  }

  private armDemo() {
    const demo = this.opts.config.avatar.demoSeconds;
    if (!(demo > 0)) return;
    const left = this.opts.config.avatar.startedAt + demo * 1000 - this.now();
    this.demoTimer = setTimeout(() => void this.finish(LiveCode.demoEnded), Math.max(0, left));
    this.demoTimer.unref();
  }

  private async beat() {
    if (this.finished) return;
    try {
      const answer = await this.opts.portal.heartbeat(this.lastUserActivityAt);
      if (answer.end) {
        await this.finish(answer.end, { tellPortal: false });
        return;
      }
      if (answer.echo && !this.echo) {
        this.echo = true;
        this.brain = echoBrain;
        this.send({ type: 'notice', code: LiveCode.dailyLimitEcho, message: LiveMessages['daily-limit-echo'] });
      }
    } catch (err) {
      const code = err instanceof Error ? err.message : String(err);
      if (code === LiveCode.sessionNotFound) await this.finish(LiveCode.sessionEnded, { tellPortal: false });
      else this.opts.log.warn('heartbeat failed', { sessionId: this.sessionId, error: code });
    }
  }

  private enqueue(task: () => Promise<void>) {
    this.queue = this.queue.then(task).catch((err: unknown) => this.opts.log.error('a turn failed', { sessionId: this.sessionId, error: String(err) }));
  }

  private send(frame: TWorkerFrame) {
    if (this.socket?.isOpen) this.socket.send(JSON.stringify(frame));
  }

  private setState(state: TLiveState) {
    this.send({ type: 'state', state });
  }

  /** The avatar says a line itself (wake-up message, sendMessageToAvatar). */
  private async say(text: string) {
    const utt = ++this.utt;
    this.send({ type: 'assistant', utt, text, final: true });
    const entry: TLiveHistoryEntry = { role: 'assistant', text, at: this.now() };
    this.remember(entry);
    const abort = new AbortController();
    this.turnAbort = abort;
    this.listener?.setAgentText(utt, text);
    const speech = this.startSpeech(utt, AbortSignal.any([abort.signal, this.lifetime.signal]), text);
    if (speech) {
      this.setState('speaking');
      this.spoken = { utt, entry, speech };
      await speech.done;
      this.speechTurn = null;
    }
    this.firstAudioAt.delete(utt);
    if (this.turnAbort === abort) this.turnAbort = null;
  }

  private speechTurn: SpeechTurn | null = null;

  /** The voice of one utterance (null when text only or the speaker is off); `whole` speaks a line at once. */
  private startSpeech(utt: number, signal: AbortSignal, whole?: string): SpeechTurn | null {
    const speech = this.opts.speech;
    if (!speech || !this.speakerOn || this.finished) return null;
    const onEvent = (ev: SpeechEvent) => {
      if (ev.type === 'error') {
        this.logProviderError(ev.error, 'speech');
        return;
      }
      this.trackSpeaking(ev, speech.sampleRate);
      const frame = speechFrame(ev);
      if (!frame || !this.socket?.isOpen) return;
      if ('binary' in frame) this.socket.sendBinary?.(frame.binary);
      else this.send(frame.json);
    };
    const turn = whole === undefined ? speech.startTurn({ utt, onEvent, signal }) : speech.speak(whole, { utt, onEvent, signal });
    this.speechTurn = turn;
    return turn;
  }

  /** Which utterance the visitor hears, for interruptions (the listener) and what was heard. */
  private trackSpeaking(ev: SpeechEvent, rate: number) {
    if (ev.type === 'utterance' && ev.phase === 'start') {
      clearTimeout(this.speakingTimer);
      this.speaking = { utt: ev.utt, startedAt: this.now(), pausedAt: null, pausedMs: 0, audioMs: 0, ended: false };
      this.listener?.setAgentSpeaking(ev.utt);
    } else if (ev.type === 'audio' && this.speaking?.utt === ev.utt) {
      if (ev.pcm.byteLength > 0 && !this.firstAudioAt.has(ev.utt)) this.firstAudioAt.set(ev.utt, this.now());
      this.speaking.audioMs += (ev.pcm.byteLength / 2 / rate) * 1000;
    } else if (ev.type === 'utterance' && ev.phase === 'end' && this.speaking?.utt === ev.utt) {
      this.speaking.ended = true;
      this.armSpeakingEnd();
    }
  }

  private remember(entry: TLiveHistoryEntry) {
    this.history.push(entry);
    const max = LiveLimits.historyMaxTurns * 2;
    if (this.history.length > max) this.history.splice(0, this.history.length - max);
  }

  private logProviderError(err: unknown, phase: string) {
    const status = err instanceof ProviderError ? err.status : undefined;
    const provider = err instanceof ProviderError ? err.provider : this.brain.kind;
    this.opts.log.warn('the avatar\u2019s provider failed', {
      avatarId: this.opts.config.avatar.id,
      sessionId: this.sessionId,
      provider,
      status: status ?? null,
      phase,
      error: err instanceof Error ? err.message : String(err),
    });
  }

  private async turn(text: string, spoken?: ListenTurnMetrics) {
    if (this.finished) return;
    const startedAt = this.now();
    let firstTokenAt: number | null = null;
    const history = [...this.history];
    this.remember({ role: 'user', text, at: this.now() });
    const utt = ++this.utt;
    const abort = new AbortController();
    this.turnAbort = abort;
    const signal = AbortSignal.any([abort.signal, this.lifetime.signal]);
    this.setState('thinking');
    let answer = '';
    let failed = false;
    // The answer is spoken while it is still being generated (pieces as soon as they are complete).
    const speech = this.startSpeech(utt, signal);
    try {
      for await (const ev of this.brain.reply({ text, history, signal }) as AsyncIterable<BrainEvent>) {
        if (signal.aborted) break;
        if (ev.type === 'text') {
          if (!ev.delta) continue;
          if (!answer) this.setState('speaking');
          firstTokenAt ??= this.now();
          answer += ev.delta;
          this.listener?.setAgentText(utt, answer);
          speech?.push(ev.delta);
          this.send({ type: 'assistant', utt, delta: ev.delta, final: false });
        } else if (ev.type === 'tool') {
          this.send({ type: 'tool', name: ev.name, status: ev.status });
        }
      }
    } catch (err) {
      if (!signal.aborted) {
        failed = true;
        this.logProviderError(err, 'reply');
      }
    } finally {
      if (this.turnAbort === abort) this.turnAbort = null;
    }
    if (this.finished) {
      speech?.cancel();
      return;
    }
    const interrupted = abort.signal.aborted;
    if (failed && !answer) {
      answer = LiveMessages['provider-error'];
      // The apology is said as well as shown.
      speech?.push(answer);
      this.send({ type: 'assistant', utt, text: answer, final: true });
      this.send({ type: 'error', code: LiveCode.providerError, message: LiveMessages['provider-error'], fatal: false });
    } else {
      // Interrupted while speaking: the chat and the history keep what the visitor heard.
      if (interrupted && speech && this.interruption?.utt === utt) answer = speech.heardText(this.interruption.heardMs);
      this.send({ type: 'assistant', utt, text: answer, final: true, ...(interrupted ? { interrupted: true } : {}) });
    }
    const entry: TLiveHistoryEntry | null = answer ? { role: 'assistant', text: answer, at: this.now(), ...(interrupted ? { interrupted: true } : {}) } : null;
    if (entry) this.remember(entry);
    if (entry && speech && !interrupted) this.spoken = { utt, entry, speech };
    if (speech) {
      // The next turn waits until this one has been synthesised (or was interrupted).
      this.turnAbort = abort;
      if (interrupted) speech.cancel();
      else speech.end();
      await speech.done;
      if (this.turnAbort === abort) this.turnAbort = null;
      if (this.speechTurn === speech) this.speechTurn = null;
    }
    if (spoken) this.recordMetrics(utt, spoken, startedAt, firstTokenAt);
    this.firstAudioAt.delete(utt);
    this.setState('listening');
    this.reportHistory();
  }

  private recordMetrics(utt: number, m: ListenTurnMetrics, startedAt: number, firstTokenAt: number | null) {
    const firstAudio = this.firstAudioAt.get(utt) ?? null;
    this.firstAudioAt.delete(utt);
    const figures: TLiveVoiceTurnMetrics = {
      at: m.committedAt,
      endOfUtteranceMs: Math.round(m.endOfUtteranceMs),
      sttMs: m.sttMs === null ? null : Math.round(m.sttMs),
      llmFirstTokenMs: firstTokenAt === null ? null : firstTokenAt - startedAt,
      ttsFirstByteMs: firstAudio === null || firstTokenAt === null ? null : firstAudio - firstTokenAt,
      endToEndMs: firstAudio === null ? null : firstAudio - m.lastSpeechAt,
      interrupted: this.interruption?.utt === utt,
    };
    this.turnMetrics.push(figures);
    if (this.turnMetrics.length > 200) this.turnMetrics.shift();
    this.opts.log.info('turn metrics', { sessionId: this.sessionId, avatarId: this.opts.config.avatar.id, ...figures });
  }

  private historyInFlight = false;
  private historyDirty = false;

  /** Sends the history to the portal (for a resume); one call at a time, later turns coalesced. */
  private reportHistory() {
    if (this.historyInFlight) {
      this.historyDirty = true;
      return;
    }
    this.historyInFlight = true;
    this.historyDirty = false;
    void this.opts.portal
      .history([...this.history])
      .catch((err: unknown) => this.opts.log.warn('could not store the history', { sessionId: this.sessionId, error: String(err) }))
      .finally(() => {
        this.historyInFlight = false;
        if (this.historyDirty && !this.finished) this.reportHistory();
      });
  }
}
