import {
  AudioFrameKind,
  LiveCode,
  LiveLimits,
  LiveMessages,
  LiveProtocol,
  LiveRates,
  LiveTurnDetailLimits,
  TokenBucket,
  ZPageFrame,
  readAudioFrame,
  type TLiveCode,
  type TLiveHistoryEntry,
  type TLiveState,
  type TLiveTurnError,
  type TLiveVoiceTurnMetrics,
  type TPageFrame,
  type TWorkerFrame,
} from '@persona/contract';
import { Listener, realClock, type ListenTurnMetrics } from '../listening/turns.js';
import { EchoCanceller } from '../listening/echo-cancel.js';
import { bytesToSamples } from '../core/audio.js';
import { Fillers, type FillerCounts, type FillerRun } from './filler.js';
import type { Brain, BrainEvent } from '../brains/types.js';
import { speechFrame, type SpeechEvent, type SpeechTurn } from '../speech/pipeline.js';
import { AnswerActions, answerActions, type AnswerPiece } from '../speech/answer-actions.js';
import type { RealtimeHost, RealtimeSession } from './realtime-session.js';
import type { ConversationOptions, PageSocket } from './conversation-types.js';
import { ConversationHistory } from './history.js';
import { ProviderFaults } from './provider-faults.js';
import { addErrors, corrections, markHeard, mergeDetail, TurnDetail, withoutDetail } from './turn-detail.js';
import { SpeakingTracker } from './speaking.js';

export type { ConversationOptions, PageSocket, PortalLink } from './conversation-types.js';

const echoBrain: Brain = {
  kind: 'echo',
  async *reply(turn) {
    yield { type: 'text', delta: turn.text };
  },
};

/**
 * An answer started on the visitor's words before their turn was committed (preemptive
 * generation): its events are kept here, unseen — nothing is spoken, sent or remembered — until
 * the commit takes it (same words) or it is discarded (ADR 095).
 */
interface EarlyAnswer {
  /** The normalised words it was started on, and the history it saw. */
  words: string;
  historyLength: number;
  abort: AbortController;
  events: BrainEvent[];
  done: boolean;
  error: unknown;
  wake: (() => void) | null;
}

/**
 * A spoken turn committed and queued or being answered, while the visitor may still be going on
 * (the listener's `reopen`): withdrawn, its answer is stopped before a word of it is heard.
 */
interface SpokenTurn {
  withdrawn: boolean;
  /** Its answer's abort, once it runs. */
  abort: AbortController | null;
  /** A function started in its answer: it may have acted, the turn stands. */
  acted: boolean;
  /** Its answer's text went to a page that shows it at once (no voice): seen, the turn stands. */
  seen: boolean;
}

/** Words as compared between a preview and its commit: lower case, no punctuation. */
const sameWords = (text: string) => (text.toLowerCase().match(/[\p{L}\p{N}']+/gu) ?? []).join(' ');

/** No preemptive answer after this much speech in a turn (a long turn is likelier to change; LiveKit's default too). */
const EARLY_MAX_SPEECH_MS = 10_000;

/**
 * Close codes of a socket the page closed itself (RFC 6455): its own end (1000, or 1005: a close
 * frame without a code), and a tab closed or gone to another page (1001). A lost connection is 1006.
 */
const PAGE_CLOSED = new Set([1000, 1001, 1005]);

/**
 * One visitor's conversation on this worker: the page's frames in, the brain's streamed answers
 * out, history, the idle and demo timers and the heartbeat to the portal. Turns run one at a
 * time in arrival order. A socket that drops without `bye` leaves the session open on the portal
 * (the page resumes, here or on another worker); `bye`, idle, demo and the portal's `end` finish it.
 *
 * What a visitor costs is bounded (LiveRates): messages (typed text, `speak`) at the
 * message rate, turns waiting behind the one being answered at most `maxQueuedTurns`; a message
 * over either is not answered and the page is told (`notice` too-fast with its id), and a page that
 * keeps sending past `maxRefusedMessages` refusals ends the session.
 */
export class Conversation {
  private readonly opts: ConversationOptions;
  private readonly now: () => number;
  private socket: PageSocket | null = null;
  private brain: Brain;
  /** Over a daily limit: echo-back, and the page is told (not for EchoTest avatars). */
  private echo: boolean;
  private readonly history: ConversationHistory;
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
  /** The avatar's voice taken out of the mic (ADR 103): fed with the audio sent, placed by the page's playback reports. */
  private readonly echoCanceller: EchoCanceller | null = null;
  private realtime: RealtimeSession | null = null;
  /** The avatar utterance the visitor hears now, and how much of it was heard. */
  private readonly speaking: SpeakingTracker;
  /** What the visitor heard of an utterance they interrupted. */
  private interruption: { utt: number; heardMs: number } | null = null;
  private readonly turnMetrics: TLiveVoiceTurnMetrics[] = [];
  /** The last answer given in full, while it may still be cut short by an interruption. */
  private spoken: { utt: number; entry: TLiveHistoryEntry; speech: SpeechTurn } | null = null;
  private firstAudioAt = new Map<number, number>();
  private speechTurn: SpeechTurn | null = null;
  /** Provider failures: counted, logged, and the visitor told (provider-faults.ts). */
  private readonly faults: ProviderFaults;
  /** Messages the visitor may still send now, and refusals the page may still pile up (LiveRates). */
  private readonly messages: TokenBucket;
  private readonly refusals: TokenBucket;
  /** Visitor turns queued or being answered (typed, spoken, `speak`). */
  private turnsPending = 0;
  /** The preemptive answer of the turn being heard, and the listener's turn that had one (one per turn). */
  private early: EarlyAnswer | null = null;
  private earlyTurn = -1;
  /** Preemptive answers started, used and discarded (tests, the bench). */
  readonly earlyAnswers = { started: 0, used: 0, discarded: 0 };
  /** The last spoken turn, while it may be withdrawn and continued; spoken turns continued so far. */
  private lastSpoken: SpokenTurn | null = null;
  readonly continuedTurns = { count: 0 };
  /** Fillers while an answer is slow (ADR 100), and the turn's run. */
  private readonly fillers: Fillers;
  private fillerRun: FillerRun | null = null;
  /** The transcript's detail (ADR 102): the turn being answered gathers it; failures outside a turn wait for the next visitor turn. */
  private turnDetail: TurnDetail | null = null;
  private pendingErrors: TLiveTurnError[] = [];
  /** The interim texts of the spoken turn being heard (its corrections are kept with it). */
  private interims: string[] = [];

  constructor(opts: ConversationOptions) {
    this.opts = opts;
    this.now = opts.now ?? Date.now;
    this.echo = opts.config.echo;
    this.brain = this.echo || opts.brain === null ? echoBrain : opts.brain;
    this.history = new ConversationHistory(
      opts.config.history,
      (h) => opts.portal.history(h),
      (err) => opts.log.warn('could not store the history', { sessionId: this.sessionId, error: String(err) }),
      () => this.finished,
    );
    this.speakerOn = opts.speakerOn ?? true;
    this.messages = TokenBucket.every(LiveRates.messageBurst, LiveRates.messageIntervalMs, this.now);
    this.refusals = TokenBucket.every(LiveRates.maxRefusedMessages, LiveRates.messageIntervalMs, this.now);
    this.faults = new ProviderFaults({
      metrics: opts.metrics,
      log: opts.log,
      context: () => ({ avatarId: opts.config.avatar.id, sessionId: this.sessionId }),
      send: (frame) => this.send(frame),
      nextUtt: () => ++this.utt,
      now: this.now,
      onError: (e) => {
        if (this.turnDetail) this.turnDetail.error(e);
        else if (this.pendingErrors.length < LiveTurnDetailLimits.errors) this.pendingErrors.push(e);
      },
    });
    this.speaking = new SpeakingTracker(this.now, (utt) => {
      this.listener?.setAgentSpeaking(utt);
      this.realtime?.avatarHeard(utt);
    });
    if (opts.realtime && !this.echo) this.realtime = opts.realtime(this.realtimeHost());
    this.fillers = new Fillers(opts.config.avatar.fillers ?? [], {
      clock: opts.clock ?? opts.listening?.clock ?? realClock,
      quiet: () => !this.listener?.isSpeaking && this.speaking.utt === null,
      speak: (text, onEvent, signal) => this.speakFiller(text, onEvent, signal),
      emit: (ev) => {
        const speech = this.opts.speech;
        if (speech) this.emitSpeech(ev, speech.sampleRate);
      },
    });
    const l = opts.listening;
    if (l) {
      const { options, vad, denoiser, stt, clock, languages: sttLanguages, model: sttModel, phrases: sttPhrases, pronounce } = l;
      const echo = l.echoCancel ? new EchoCanceller(() => this.speaking.playingNow()) : undefined;
      this.echoCanceller = echo ?? null;
      this.listener = new Listener({
        options, vad, denoiser, echo, stt, clock, sttLanguages, sttModel, sttPhrases, pronounce,
        events: {
          transcript: (text, final) => {
            if (final) return;
            this.send({ type: 'transcript', text: text.slice(0, 2000), final: false });
            if (this.interims.at(-1) !== text) this.interims.push(text.slice(0, 2000));
            if (this.interims.length > 20) this.interims.shift();
          },
          commit: (text, m) => this.onSpokenTurn(text, m),
          preview: (text, turn) => this.onPreview(text, turn),
          reopen: () => this.withdrawSpokenTurn(),
          pause: (utt) => this.holdAvatar(utt, true),
          resume: (utt) => this.holdAvatar(utt, false),
          interrupt: () => this.interruptAvatar(),
          error: (err) => this.faults.listeningFailed(err, stt.provider),
          unheard: () => this.faults.unheard(),
        },
      });
      this.setMic(opts.micOn ?? false);
    }
  }

  /** Fillers said, cancelled before a sound, and not needed (ADR 100). */
  get fillerCounts(): Readonly<FillerCounts> {
    return this.fillers.counts;
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
      history: withoutDetail(this.history.entries),
      audioSampleRate: this.realtime ? this.realtime.sampleRate : (this.opts.speech?.sampleRate ?? 0),
      echo: this.echo,
      resumed: this.opts.config.resumed || this.started,
      listening: this.listener !== null || this.realtime?.listening === true,
    });
    if (this.echo) this.send({ type: 'notice', code: LiveCode.dailyLimitEcho, message: LiveMessages['daily-limit-echo'] });
    this.armIdle();
    if (this.started) return;
    this.started = true;
    this.armDemo();
    this.heartbeat = setInterval(() => void this.beat(), this.opts.heartbeatMs ?? LiveLimits.heartbeatSeconds * 1000);
    this.heartbeat.unref();
    this.enqueue(async () => {
      if (this.realtime) return this.realtime.start(this.opts.config.resumed);
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

  /** A text frame from the page; false when it could not be read (the page was told, non-fatally). */
  onMessage(raw: string): boolean {
    if (this.finished) return true;
    if (raw.length > LiveProtocol.maxTextFrame) {
      this.send({ type: 'error', code: LiveCode.badFrame, message: LiveMessages['bad-frame'], fatal: false });
      return false;
    }
    let frame: TPageFrame;
    try {
      const parsed = ZPageFrame.safeParse(JSON.parse(raw));
      if (!parsed.success) throw new Error('invalid');
      frame = parsed.data;
    } catch {
      this.send({ type: 'error', code: LiveCode.badFrame, message: LiveMessages['bad-frame'], fatal: false });
      return false;
    }
    switch (frame.type) {
      case 'ping':
        this.send({ type: 'pong', t: frame.t });
        break;
      case 'text': {
        const text = frame.text.trim();
        if (!text) break;
        // Over the message rate, or too many turns waiting: not answered (and not part of the history).
        if (!this.messages.take() || (!this.realtime && this.turnsPending > LiveRates.maxQueuedTurns)) {
          this.refuseMessage(frame.id, this.realtime ? 'realtime' : 'text');
          break;
        }
        this.touch();
        this.send({ type: 'transcript', ...(frame.id !== undefined ? { id: frame.id } : {}), text, final: true });
        if (this.realtime) this.realtime[frame.speak ? 'say' : 'userText'](text);
        else if (frame.speak) this.enqueueTurn(() => this.say(text));
        else this.enqueueTurn(() => this.turn(text));
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
        this.speaking.onPlayback(frame);
        if (frame.micSeq !== undefined) this.echoCanceller?.anchor(frame.utt, frame.playedMs, frame.micSeq, frame.state === 'ended');
        break;
      case 'speaker':
        // Muted: what is being said stops, and nothing more is synthesised until it is back on.
        this.speakerOn = frame.enabled;
        if (!frame.enabled) {
          this.fillerRun?.stop();
          this.speechTurn?.cancel();
        }
        break;
      case 'bye':
        void this.finish(LiveCode.hangUp);
        break;
      default:
        // hello again: ignored.
        break;
    }
    return true;
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

  /** A binary frame from the page: mic audio (16 kHz PCM16LE, 20 ms frames) for the listener or the realtime model. */
  onAudio(data: Uint8Array) {
    if ((!this.listener && !this.realtime) || this.finished) return;
    const frame = readAudioFrame(data);
    if (!frame || frame.header.kind !== AudioFrameKind.mic || frame.pcm.byteLength === 0) return;
    // Copied: the socket's buffer may be reused, and Int16Array wants an aligned offset.
    const pcm = new Int16Array(frame.pcm.byteLength / 2);
    new Uint8Array(pcm.buffer).set(frame.pcm);
    if (this.realtime) this.realtime.pushMic(pcm);
    else void this.listener?.push(pcm, frame.header.seq);
  }

  /**
   * Preemptive generation (ADR 095): the visitor paused on words that look like a whole turn, so
   * the brain starts on them now; the commit uses that answer if its words are the same, and
   * discards it otherwise. Bounded: one per turn, none while an answer is still queued or spoken
   * (its history would differ), none after 10 s of speech, and only for brains where a discarded
   * start costs little and does nothing (preemptiveBrain).
   */
  private onPreview(text: string | null, turn: number) {
    if (text === null) {
      // The visitor went on: the answer started on a part of the turn is not wanted.
      this.discardEarly();
      return;
    }
    if (turn === this.earlyTurn || this.early || this.finished || !this.preemptiveBrain() || this.turnsPending > 0) return;
    if ((this.listener?.speechMsSoFar ?? 0) > EARLY_MAX_SPEECH_MS) return;
    this.earlyTurn = turn;
    const run: EarlyAnswer = { words: sameWords(text), historyLength: this.history.entries.length, abort: new AbortController(), events: [], done: false, error: null, wake: null };
    this.early = run;
    this.earlyAnswers.started += 1;
    const signal = AbortSignal.any([run.abort.signal, this.lifetime.signal]);
    const history = [...this.history.entries];
    void (async () => {
      try {
        for await (const ev of this.brain.reply({ text, history, signal }) as AsyncIterable<BrainEvent>) {
          if (signal.aborted) break;
          run.events.push(ev);
          run.wake?.();
        }
      } catch (err) {
        run.error = err ?? new Error('failed');
      } finally {
        run.done = true;
        run.wake?.();
      }
    })();
  }

  /**
   * Which brains may start early: the language model without functions only. Its discarded start
   * costs the prompt's tokens and the few streamed before the abort, and changes nothing. Not the
   * others: a function may act in the world (a booking, an email) on words the visitor had not
   * finished; an Assistant's thread, Dialogflow's session and an own REST endpoint keep state (or
   * bill) per request, so a discarded call would change or cost the owner something for nothing.
   */
  private preemptiveBrain(): boolean {
    return this.brain === this.opts.brain && this.brain.kind === 'llm' && this.opts.config.functions.length === 0 && !this.realtime;
  }

  private discardEarly() {
    const run = this.early;
    if (!run) return;
    this.early = null;
    run.abort.abort();
    this.earlyAnswers.discarded += 1;
  }

  /** The commit's text: the early answer if it was started on the same words (and history), else discarded. */
  private takeEarly(text: string): EarlyAnswer | null {
    const run = this.early;
    this.early = null;
    if (!run) return null;
    if (run.words === sameWords(text) && run.historyLength === this.history.entries.length && !run.abort.signal.aborted) {
      this.earlyAnswers.used += 1;
      return run;
    }
    run.abort.abort();
    this.earlyAnswers.discarded += 1;
    return null;
  }

  /** The early answer's events, those kept and those still coming; the turn's abort stops it. */
  private async *replayEarly(run: EarlyAnswer, signal: AbortSignal): AsyncIterable<BrainEvent> {
    const stop = () => run.abort.abort();
    signal.addEventListener('abort', stop, { once: true });
    try {
      let i = 0;
      for (;;) {
        while (i < run.events.length) yield run.events[i++]!;
        if (run.done) break;
        await new Promise<void>((resolve) => (run.wake = resolve));
        run.wake = null;
      }
      if (run.error) throw run.error;
    } finally {
      signal.removeEventListener('abort', stop);
    }
  }

  /** The listener committed the visitor's spoken turn: answered like typed text. */
  private onSpokenTurn(text: string, m: ListenTurnMetrics) {
    if (this.finished) return;
    this.touch();
    this.faults.listeningWorked();
    // Spoken turns come at the pace of speech; only the queue bounds them.
    if (this.turnsPending > LiveRates.maxQueuedTurns) {
      this.discardEarly();
      this.refuseMessage(undefined, 'voice');
      return;
    }
    this.send({ type: 'transcript', text: text.slice(0, 2000), final: true, ...(m.continues ? { continues: true } : {}) });
    const corrected = corrections(this.interims, text.slice(0, 2000));
    this.interims = [];
    const spoken: SpokenTurn = { withdrawn: false, abort: null, acted: false, seen: false };
    this.lastSpoken = spoken;
    // A turn committed while the avatar still answers the previous one (it was not an
    // interruption, e.g. interruptions are off) waits for it, like typed text.
    this.enqueueTurn(async () => {
      if (spoken.withdrawn) return;
      await this.turn(text.slice(0, 2000), m, this.takeEarly(text.slice(0, 2000)), corrected, spoken);
    });
  }

  /**
   * The visitor went on after their turn was committed, and nothing of its answer has been heard
   * (the listener asks only while the avatar is silent; without a voice, nothing of its text has
   * been sent): the answer is stopped and forgotten, and the committed words begin the turn being
   * heard (ADR 095, stop 39). Only for the language model,
   * and only before a function starts: asking it again costs a prompt and changes nothing, while
   * an Assistant's thread, Dialogflow's session, an own REST endpoint or an external agent keep
   * the request (the first turn stands, as before), and a function may have acted.
   */
  private withdrawSpokenTurn(): boolean {
    const spoken = this.lastSpoken;
    this.lastSpoken = null;
    if (!spoken || spoken.withdrawn || spoken.acted || spoken.seen || this.finished || this.realtime || this.brain.kind !== 'llm') return false;
    spoken.withdrawn = true;
    spoken.abort?.abort();
    // An early answer it had not taken yet (it was queued) was started on its words alone.
    this.discardEarly();
    this.continuedTurns.count += 1;
    return true;
  }

  /**
   * A message that will not be answered (over the rate, or the queue is full): the page is told
   * which; a page that keeps sending regardless ends the session (it cannot be resumed).
   */
  private refuseMessage(id: string | undefined, input: 'text' | 'voice' | 'realtime') {
    if (this.finished) return;
    this.opts.metrics?.turn(input, 'refused');
    if (!this.refusals.take()) {
      this.opts.log.warn('a page kept sending messages over the rate: session ended', { sessionId: this.sessionId });
      void this.finish(LiveCode.tooManyMessages);
      return;
    }
    this.send({ type: 'notice', code: LiveCode.tooFast, message: LiveMessages['too-fast'], ...(id !== undefined ? { id } : {}) });
  }

  /**
   * The visitor interrupted the avatar (by voice, or the page's `interrupt`): the page flushes
   * playback, the brain's and the voice's work stop, and history keeps what was heard.
   */
  private interruptAvatar(opts: { tellPage?: boolean } = {}) {
    const utt = this.speaking.utt ?? this.speechTurn?.utt ?? this.realtime?.currentUtt ?? null;
    if (utt !== null && (this.opts.speech || this.realtime)) {
      const heardMs = this.speaking.heardMs(utt);
      this.interruption = { utt, heardMs };
      if (opts.tellPage !== false) this.send({ type: 'interrupted', utt, heardMs });
      // The answer was complete (still being spoken or played): history keeps what was heard.
      const spoken = this.spoken;
      if (spoken?.utt === utt) {
        const full = spoken.entry.text;
        spoken.entry.text = spoken.speech.heardText(heardMs);
        spoken.entry.interrupted = true;
        markHeard(spoken.entry, heardMs, full);
        // The page showed it whole: it now shows what was heard, marked interrupted.
        if (opts.tellPage !== false) this.send({ type: 'assistant', utt, text: spoken.entry.text, final: true, interrupted: true });
        this.spoken = null;
        this.history.report();
      }
      this.realtime?.interrupted(utt, heardMs);
    }
    this.speaking.stop();
    this.speechTurn?.cancel();
    this.turnAbort?.abort();
  }

  /** Speech over the avatar that may not be an interruption: its playback is held (true), or goes on. */
  private holdAvatar(utt: number, held: boolean) {
    if (held) this.speaking.pause(utt);
    else this.speaking.resume(utt);
    this.send({ type: held ? 'pause' : 'resume', utt });
  }

  /**
   * The page's socket closed. Closed by the page itself (1000: its own end; 1001: the tab closed
   * or went to another page; 1005) the visitor has left and nothing will resume: the session ends now
   * (hang-up, billed to now) instead of waiting for the portal's sweep of silent sessions, which
   * took such a session for one whose worker stopped reporting. Any other close (the connection
   * lost, 1006) keeps the session open on the portal for a resume.
   */
  onSocketClosed(socket: PageSocket, code?: number) {
    if (socket !== this.socket) return;
    this.socket = null;
    if (this.finished) return;
    if (code !== undefined && PAGE_CLOSED.has(code)) {
      void this.finish(LiveCode.hangUp);
      return;
    }
    this.teardown();
    this.opts.onClosed?.();
  }

  /** The same session opened again on this worker (a resume): this copy goes quietly. */
  replaced() {
    if (this.finished) return;
    this.teardown();
    const socket = this.socket;
    this.socket = null;
    if (socket?.isOpen) socket.close(LiveProtocol.close.replaced, 'replaced');
  }

  /** Ends the conversation: `bye` to the page, the portal told (it bills the session). */
  async finish(code: TLiveCode, opts: { tellPortal?: boolean; closeCode?: number } = {}) {
    if (this.finished) return;
    this.teardown();
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
      const providerErrors = this.faults.counts();
      await this.opts.portal.end(code, summary, this.turnMetrics.length ? [...this.turnMetrics] : undefined, providerErrors.length ? providerErrors : undefined).catch((err: unknown) => this.opts.log.warn('could not report a session end', { sessionId: this.sessionId, error: String(err) }));
    }
    await this.opts.brain?.end?.().catch(() => undefined);
  }

  /** Avatar memory: the brain's note about this visitor (LLM brains with memory on), at most 10 s. */
  private async summarize(): Promise<string | null> {
    const brain = this.opts.brain;
    if (!brain?.summarize || this.brain !== brain || !this.history.entries.some((h) => h.role === 'user')) return null;
    try {
      return await brain.summarize([...this.history.entries], AbortSignal.timeout(10_000));
    } catch (err) {
      this.logProviderError(err, 'summary');
      return null;
    }
  }

  /** Stops everything running for this conversation (ended, replaced or its socket gone). */
  private teardown() {
    this.finished = true;
    this.listener?.close();
    this.realtime?.close();
    this.speaking.dispose();
    clearTimeout(this.idleTimer);
    clearTimeout(this.demoTimer);
    clearInterval(this.heartbeat);
    this.turnAbort?.abort();
    this.lifetime.abort();
  }

  /** The visitor did something: the idle timer starts again. */
  private touch() {
    this.lastUserActivityAt = this.now();
    this.armIdle();
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
      // The portal answers again after an outage: the history it missed goes now (for a resume).
      this.history.retryUnsaved();
      if (answer.end) {
        await this.finish(answer.end, { tellPortal: false });
        return;
      }
      if (answer.echo && !this.echo) {
        this.echo = true;
        this.brain = echoBrain;
        this.realtime?.close();
        this.realtime = null;
        this.send({ type: 'notice', code: LiveCode.dailyLimitEcho, message: LiveMessages['daily-limit-echo'] });
      }
    } catch (err) {
      const code = err instanceof Error ? err.message : String(err);
      if (code === LiveCode.sessionNotFound) await this.finish(LiveCode.sessionEnded, { tellPortal: false });
      else this.opts.log.warn('heartbeat failed', { sessionId: this.sessionId, error: code });
    }
  }

  /** A visitor's turn: counted while it waits and runs (LiveRates.maxQueuedTurns). */
  private enqueueTurn(task: () => Promise<void>) {
    this.turnsPending += 1;
    this.enqueue(() => task().finally(() => (this.turnsPending -= 1)));
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

  /** The avatar says a line itself (wake-up message, sendMessageToAvatar); its avatar tags are done, not said. */
  private async say(line: string) {
    const utt = ++this.utt;
    const pieces = answerActions(line);
    const text = pieces.map((p) => (p.type === 'text' ? p.text : '')).join('');
    if (!text.trim()) {
      // Only tags (a host page's `<trl-anim …/>`): done at once, nothing said.
      for (const p of pieces) if (p.type === 'action') this.act(utt, null, p);
      return;
    }
    this.send({ type: 'assistant', utt, text, final: true });
    const entry: TLiveHistoryEntry = { role: 'assistant', text, at: this.now() };
    this.history.remember(entry);
    const abort = new AbortController();
    this.turnAbort = abort;
    this.listener?.setAgentText(utt, text);
    const speech = this.startSpeech(utt, AbortSignal.any([abort.signal, this.lifetime.signal]));
    for (const p of pieces) {
      if (p.type === 'text') speech?.push(p.text);
      else this.act(utt, speech, p);
    }
    speech?.end();
    if (speech) {
      this.setState('speaking');
      this.spoken = { utt, entry, speech };
      this.faults.voiceEnded(await speech.done);
      this.speechTurn = null;
    }
    this.firstAudioAt.delete(utt);
    if (this.turnAbort === abort) this.turnAbort = null;
  }

  /**
   * The voice of one utterance (null when text only or the speaker is off); `whole` speaks a line at
   * once; `route` takes its events instead of the page (a filler may hold them, ADR 100).
   */
  private startSpeech(utt: number, signal: AbortSignal, whole?: string, route?: (ev: SpeechEvent) => void): SpeechTurn | null {
    const speech = this.opts.speech;
    if (!speech || !this.speakerOn || this.finished) return null;
    const onEvent = route ?? ((ev: SpeechEvent) => this.emitSpeech(ev, speech.sampleRate));
    const turn = whole === undefined ? speech.startTurn({ utt, onEvent, signal }) : speech.speak(whole, { utt, onEvent, signal });
    this.speechTurn = turn;
    return turn;
  }

  /**
   * A filler in the avatar's voice (ADR 100): an utterance of its own, heard and interruptible as
   * any other, its words the listener's reference for its echo; not shown, not remembered.
   */
  private speakFiller(text: string, onEvent: (ev: SpeechEvent) => void, signal: AbortSignal): { utt: number; turn: SpeechTurn } | null {
    const speech = this.opts.speech;
    if (!speech || !this.speakerOn || this.finished) return null;
    const utt = ++this.utt;
    const turn = speech.speak(text, {
      utt,
      signal,
      onEvent: (ev) => {
        onEvent(ev);
        if (ev.type === 'utterance' && ev.phase === 'start') this.listener?.setAgentText(utt, text);
      },
    });
    void turn.done.then(() => this.firstAudioAt.delete(utt));
    this.opts.log.info('filler', { sessionId: this.sessionId, utt });
    return { utt, turn };
  }

  /** An avatar action of utterance `utt`: timed with its voice, or at once when it has none. */
  private act(utt: number, speech: SpeechTurn | null, piece: Extract<AnswerPiece, { type: 'action' }>) {
    if (speech) speech.mark(piece.action, piece.source, piece.at);
    else {
      // A speed asked for while nothing is said (a host's tags-only line, the speaker off) holds for what follows.
      this.opts.speech?.configure(piece.action);
      this.send({ type: 'action', utt, action: piece.action, source: piece.source });
    }
  }

  /** An utterance event to the page (audio at `rate`), tracked for interruptions and what was heard. */
  private emitSpeech(ev: SpeechEvent, rate: number) {
    if (ev.type === 'error') return this.logProviderError(ev.error, 'speech');
    if (!this.realtime && ev.type === 'audio' && ev.pcm.byteLength > 0 && !this.firstAudioAt.has(ev.utt)) this.firstAudioAt.set(ev.utt, this.now());
    this.speaking.track(ev, rate);
    // What the page will play: the echo canceller's reference.
    if (ev.type === 'audio' && ev.pcm.byteLength > 1) this.echoCanceller?.reference(ev.utt, bytesToSamples(ev.pcm), rate);
    const frame = speechFrame(ev);
    if (!frame || !this.socket?.isOpen) return;
    if ('binary' in frame) this.socket.sendBinary?.(frame.binary);
    else this.send(frame.json);
  }

  private logProviderError(err: unknown, phase: string) {
    this.faults.report(err, phase, this.brain.kind);
  }

  private async turn(text: string, spoken?: ListenTurnMetrics, early: EarlyAnswer | null = null, corrected: readonly string[] = [], heard?: SpokenTurn) {
    if (this.finished) {
      early?.abort.abort();
      return;
    }
    const startedAt = this.now();
    let firstTokenAt: number | null = null;
    const history = [...this.history.entries];
    const asked: TLiveHistoryEntry = { role: 'user', text, at: this.now(), ...(corrected.length ? { detail: { interims: [...corrected] } } : {}) };
    // Failures between turns (the recogniser's) are shown with the visitor's next turn.
    addErrors(asked, this.pendingErrors);
    this.pendingErrors = [];
    this.history.remember(asked);
    const detail = new TurnDetail();
    this.turnDetail = detail;
    const utt = ++this.utt;
    const abort = new AbortController();
    this.turnAbort = abort;
    if (heard) heard.abort = abort;
    const signal = AbortSignal.any([abort.signal, this.lifetime.signal]);
    this.setState('thinking');
    let answer = '';
    let failed = false;
    // A filler if the answer is slow (ADR 100); the answer's voice goes through it (held while it is said).
    const filler = this.opts.speech && this.speakerOn ? this.fillers.start(signal) : null;
    this.fillerRun = filler;
    // The answer is spoken while it is still being generated (pieces as soon as they are complete).
    const speech = this.startSpeech(utt, signal, undefined, filler ? (ev) => filler.answerEvent(ev) : undefined);
    if (!speech) filler?.stop();
    // Avatar tags are taken out of what is said, shown and remembered, and done at their place.
    const actions = new AnswerActions();
    const take = (pieces: AnswerPiece[]) => {
      for (const p of pieces) {
        if (p.type === 'action') {
          this.act(utt, speech, p);
          continue;
        }
        if (!answer) {
          filler?.answerStarted();
          this.setState('speaking');
        }
        answer += p.text;
        // Without a voice the page shows the text as it comes (with one, once its voice is heard).
        if (heard && !speech) heard.seen = true;
        this.listener?.setAgentText(utt, answer);
        speech?.push(p.text);
        this.send({ type: 'assistant', utt, delta: p.text, final: false });
      }
    };
    try {
      // Preemptive generation: the answer started on the same words before the commit goes on here.
      const answerEvents = early ? this.replayEarly(early, signal) : (this.brain.reply({ text, history, signal }) as AsyncIterable<BrainEvent>);
      for await (const ev of answerEvents) {
        if (signal.aborted) break;
        if (ev.type === 'text') {
          if (!ev.delta) continue;
          firstTokenAt ??= this.now();
          take(actions.push(ev.delta));
        } else if (ev.type === 'passages') {
          detail.usedPassages(ev.passages);
        } else if (ev.type === 'tool') {
          if (heard) heard.acted = true;
          this.send({ type: 'tool', name: ev.name, status: ev.status });
          if (ev.status !== 'started') detail.call(ev.name, ev.arguments, ev.status === 'ok', ev.result ?? ev.error);
          if (ev.status === 'error') {
            void this.opts.portal.functionFailed?.(ev.name, ev.error?.slice(0, 500) ?? null).catch((err: unknown) => this.opts.log.warn('could not report a failed function', { sessionId: this.sessionId, error: String(err) }));
          }
        } else if (ev.type === 'notice') {
          this.send({ type: 'notice', code: ev.code, message: LiveMessages[ev.code] });
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
    // The brain is done: no filler from now on (an apology or nothing may follow).
    filler?.answerStarted();
    if (!signal.aborted) take(actions.end());
    if (!failed && !signal.aborted && !answer.trim()) {
      // The brain ended without a word (a model that only called functions, an empty completion):
      // the visitor must not be left with nothing.
      failed = true;
      answer = '';
      this.opts.log.warn('the brain gave no answer: the visitor is told', { sessionId: this.sessionId, avatarId: this.opts.config.avatar.id, brain: this.brain.kind });
    }
    if (this.finished) {
      speech?.cancel();
      return;
    }
    if (heard?.withdrawn) return this.withdrawn(utt, asked, speech, detail, filler, answer !== '');
    if (this.lastSpoken === heard) this.lastSpoken = null;
    const interrupted = abort.signal.aborted;
    let whole = answer;
    if (failed) {
      // What was said stays (chat, voice, history); the apology follows it, said as well as shown.
      const apology = LiveMessages['provider-error'];
      speech?.push(answer ? `\n${apology}` : apology);
      this.send({ type: 'assistant', utt, text: answer ? `${answer.trimEnd()}\u2026 ${apology}` : apology, final: true });
      this.send({ type: 'error', code: LiveCode.providerError, message: apology, fatal: false });
      answer ||= apology;
    } else {
      // Interrupted while speaking: the chat and the history keep what the visitor heard.
      whole = answer;
      if (interrupted && speech && this.interruption?.utt === utt) answer = speech.heardText(this.interruption.heardMs);
      // Interrupted during the filler: nothing of the answer was heard.
      else if (interrupted && filler && filler.utt !== null && this.interruption?.utt === filler.utt) answer = '';
      this.send({ type: 'assistant', utt, text: answer, final: true, ...(interrupted ? { interrupted: true } : {}) });
    }
    const entry: TLiveHistoryEntry | null = answer ? { role: 'assistant', text: answer, at: this.now(), ...(interrupted ? { interrupted: true } : {}) } : null;
    if (entry && interrupted && this.interruption?.utt === utt) markHeard(entry, this.interruption.heardMs, whole);
    if (entry) this.history.remember(entry);
    if (entry && speech && !interrupted) this.spoken = { utt, entry, speech };
    if (speech) {
      // The next turn waits until this one has been synthesised (or was interrupted).
      this.turnAbort = abort;
      if (interrupted) speech.cancel();
      else speech.end();
      this.faults.voiceEnded(await speech.done);
      // The answer's voice held behind a filler has gone on too.
      if (filler) await filler.settled;
      if (this.turnAbort === abort) this.turnAbort = null;
      if (this.speechTurn === speech) this.speechTurn = null;
    }
    // The turn's detail goes with its answer (or with the question when nothing was said).
    if (this.turnDetail === detail) this.turnDetail = null;
    mergeDetail(entry ?? asked, detail.detail());
    this.opts.metrics?.turn(spoken ? 'voice' : 'text', failed ? 'failed' : interrupted ? 'interrupted' : 'answered');
    if (!spoken && firstTokenAt !== null) this.opts.metrics?.latencies({ llmFirstTokenMs: firstTokenAt - startedAt });
    if (spoken) this.recordMetrics(utt, spoken, startedAt, firstTokenAt);
    this.firstAudioAt.delete(utt);
    if (this.fillerRun === filler) this.fillerRun = null;
    this.setState('listening');
    this.history.report();
  }

  /** A spoken turn's answer stopped unheard, the visitor going on (withdrawSpokenTurn): as if never asked. */
  private async withdrawn(utt: number, asked: TLiveHistoryEntry, speech: SpeechTurn | null, detail: TurnDetail, filler: FillerRun | null, sentText: boolean) {
    // Its text, if any went out, was held on the page until its voice was heard: an empty final takes it away.
    if (sentText) this.send({ type: 'assistant', utt, text: '', final: true, interrupted: true });
    this.history.forget(asked);
    // Failures it met (and those it carried) are shown with the turn that continues it.
    this.pendingErrors = [...(asked.detail?.errors ?? []), ...(detail.detail()?.errors ?? []), ...this.pendingErrors].slice(0, LiveTurnDetailLimits.errors);
    if (this.turnDetail === detail) this.turnDetail = null;
    if (speech) {
      speech.cancel();
      await speech.done;
      if (this.speechTurn === speech) this.speechTurn = null;
    }
    if (filler) await filler.settled;
    if (this.fillerRun === filler) this.fillerRun = null;
    this.firstAudioAt.delete(utt);
    this.opts.metrics?.turn('voice', 'continued');
    this.setState('listening');
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
    this.keepMetrics(figures);
  }

  private keepMetrics(figures: TLiveVoiceTurnMetrics) {
    this.opts.metrics?.latencies(figures);
    this.turnMetrics.push(figures);
    if (this.turnMetrics.length > 200) this.turnMetrics.shift();
    this.opts.log.info('turn metrics', { sessionId: this.sessionId, avatarId: this.opts.config.avatar.id, ...figures });
  }

  /** What the realtime model's session may do here (SpeechToSpeech: live/realtime-session.ts). */
  private realtimeHost(): RealtimeHost {
    return {
      send: (frame) => this.send(frame),
      speech: (ev, rate) => this.emitSpeech(ev, rate),
      nextUtt: () => ++this.utt,
      interrupt: () => this.interruptAvatar(),
      pause: (utt) => this.holdAvatar(utt, true),
      resume: (utt) => this.holdAvatar(utt, false),
      history: this.history,
      userActivity: () => this.touch(),
      setState: (state) => this.setState(state),
      speakerOn: () => this.speakerOn,
      metrics: (figures) => {
        this.keepMetrics(figures);
        this.opts.metrics?.turn('realtime', figures.interrupted ? 'interrupted' : 'answered');
      },
      providerError: (err, phase) => this.logProviderError(err, phase),
      takeErrors: () => {
        // No turn of ours runs in this mode: every failure waits here for the session to place it.
        const errors = this.pendingErrors;
        this.pendingErrors = [];
        return errors;
      },
    };
  }
}
