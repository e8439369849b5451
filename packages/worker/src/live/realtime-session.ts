import {
  LiveCode,
  LiveMessages,
  LiveProtocol,
  type TLiveHistoryEntry,
  type TLiveState,
  type TLiveTurnError,
  type TLiveVoiceTurnMetrics,
  type TWorkerFrame,
} from '@persona/contract';
import type { ProviderError } from '../core/errors.js';
import { REALTIME_SAMPLE_RATE } from '../providers/realtime/openai.js';
import { RealtimeNoticeError, type RealtimeConnection, type RealtimeConnector, type RealtimeEvent } from '../providers/realtime/types.js';
import { Resampler, samplesToBytes } from '../core/audio.js';
import type { SpeechEvent } from '../speech/pipeline.js';
import type { ConversationHistory } from './history.js';
import { realtimeConnector, type ConnectorOptions } from './realtime-connectors.js';
import { KNOWLEDGE_TOOL, RealtimeToolCalls, type RealtimeToolbox, type ToolAnswer } from './realtime-tools.js';
import { addErrors, corrections, markHeard, mergeDetail, TurnDetail } from './turn-detail.js';
import type { ToolAllowance } from '../brains/tools.js';

export { realtimeSettings, type OperatorRealtime, type RealtimeBrainConfig } from './realtime-connectors.js';

/** What the realtime session may do to its conversation (live/conversation.ts gives it). */
export interface RealtimeHost {
  send(frame: TWorkerFrame): void;
  /** An utterance event (start, audio at `rate`, end) to the page, tracked for what was heard. */
  speech(ev: SpeechEvent, rate: number): void;
  nextUtt(): number;
  /** The visitor spoke over the avatar: the conversation's interruption (`interrupted` to the page, then `interrupted()` here). */
  interrupt(): void;
  /** Speech over utterance `utt` that may not be an interruption: its playback is held, then resumed. */
  pause(utt: number): void;
  resume(utt: number): void;
  readonly history: ConversationHistory;
  userActivity(): void;
  setState(state: TLiveState): void;
  speakerOn(): boolean;
  metrics(figures: TLiveVoiceTurnMetrics): void;
  providerError(err: unknown, phase: string): void;
  /** The failures reported so far and not yet placed with a turn, as the transcript shows them (ADR 102); taken once. */
  takeErrors?(): TLiveTurnError[];
}

/** A SpeechToSpeech conversation's model: mic audio and typed text in, the avatar's voice and words out. */
export interface RealtimeSession {
  /** The rate of the avatar audio sent to the page (`ready.audioSampleRate`; 0: text only). */
  readonly sampleRate: number;
  /** The page may send mic audio. */
  readonly listening: boolean;
  /** The utterance of the answer being generated (null: none). */
  readonly currentUtt: number | null;
  /** Connects, gives the model the conversation so far, and says the greeting (not on a resume). */
  start(resumed: boolean): Promise<void>;
  /** 16 kHz PCM16 from the page's mic. */
  pushMic(pcm: Int16Array): void;
  userText(text: string): void;
  say(text: string): void;
  /** The conversation interrupted utterance `utt` after the visitor heard `heardMs` of it. */
  interrupted(utt: number, heardMs: number): void;
  /** The utterance the visitor hears now changed (null: none). */
  avatarHeard(utt: number | null): void;
  close(): void;
}

export type RealtimeSessionFactory = (host: RealtimeHost) => RealtimeSession;

export interface RealtimeSessionOptions extends ConnectorOptions {
  /** The page's avatar audio rate (default 24 kHz). */
  sampleRate?: number;
  now?: () => number;
  /** The avatar's linked functions and knowledge search, offered to the model as tools (live/realtime-tools.ts). */
  tools?: RealtimeToolbox | null;
}

/** What the visitor heard of `text` after `heardMs` of `audioMs` (no word timings: by length, to the end of a word). */
export function heardPart(text: string, heardMs: number, audioMs: number): string {
  if (audioMs <= 0 || heardMs <= 0) return '';
  if (heardMs >= audioMs) return text;
  const cut = Math.round((text.length * heardMs) / audioMs);
  const space = text.slice(cut).search(/\s/);
  return (space < 0 ? text : text.slice(0, cut + space)).trim();
}

interface Answer {
  utt: number;
  responseId: string;
  itemId: string | null;
  text: string;
  /** Samples of the provider's audio (at `rate`) received for its item. */
  samples: number;
  /** The connection's output rate when the answer began. */
  rate: number;
  started: boolean;
  seq: number;
  sentSamples: number;
  resampler: Resampler | null;
  /** Interrupted: nothing more goes to the page; the visitor heard this much. */
  heardMs: number | null;
  entry: TLiveHistoryEntry | null;
  done: boolean;
  /** Tools the model called in this answer, and how many more it may (LiveRates). */
  calls: number;
  tools: ToolAllowance;
  /** A spoken turn's end of speech (for metrics), first words and first audio. */
  speechStoppedAt: number | null;
  firstTextAt: number | null;
  firstAudioAt: number | null;
}

const RECONNECT_MS = 5_000;
const SEEDED_TURNS = 40;

/**
 * The SpeechToSpeech mode of a conversation: OpenAI Realtime hears the visitor (server VAD) and
 * answers aloud. Each answer is one utterance (`utterance start`, PCM at the page's rate,
 * `assistant` deltas from the audio transcript, `utterance end`); the visitor's words come back
 * as transcripts; both go into the history. When the visitor speaks over the avatar the
 * conversation's interruption runs (`interrupted` with what was heard) and the provider's item is
 * truncated at that point, so the model knows what the visitor actually heard.
 */
export function createRealtimeSession(opts: RealtimeSessionOptions): RealtimeSessionFactory {
  return (host) => new OpenAiRealtimeSession(opts, host);
}

class OpenAiRealtimeSession implements RealtimeSession {
  readonly sampleRate: number;
  readonly listening: boolean;
  private readonly connector: RealtimeConnector | null;
  private readonly now: () => number;
  private readonly lifetime = new AbortController();
  private conn: Promise<RealtimeConnection | null> | null = null;
  private live: RealtimeConnection | null = null;
  private generation = 0;
  private lastAttemptAt = -Infinity;
  private mic: Resampler | null = null;
  private current: Answer | null = null;
  private last: Answer | null = null;
  private speechStoppedAt: number | null = null;
  /** Spoken turns waiting for their transcript; `answerUtt`: the answer that followed (the page shows the turn above it). */
  private readonly userItems = new Map<string, { entry: TLiveHistoryEntry; interim: string; interims: string[]; answerUtt: number | null }>();
  private readonly tools: RealtimeToolCalls;
  /** A response that only called tools: the answer that follows with their results shares its allowance (one visitor turn). */
  private toolsCarry: ToolAllowance | null = null;
  /** The visitor turn's functions and passages (ADR 102), kept across its responses that only called tools, for its answer's entry. */
  private turnDetail: TurnDetail | null = null;
  /** The utterance the visitor hears now (the conversation's playback tracking). */
  private heardUtt: number | null = null;
  private closed = false;

  constructor(
    private readonly opts: RealtimeSessionOptions,
    private readonly host: RealtimeHost,
  ) {
    this.connector = realtimeConnector(opts);
    this.now = opts.now ?? Date.now;
    this.sampleRate = opts.textOnly ? 0 : (opts.sampleRate ?? REALTIME_SAMPLE_RATE);
    this.listening = !opts.textOnly && this.connector !== null;
    this.tools = new RealtimeToolCalls(
      opts.tools ?? null,
      (frame) => this.host.send(frame),
      (answered) => {
        // All calls stopped: nothing more comes for this turn (after results, the model's answer does).
        if (!answered && !this.current && !this.closed) this.host.setState('listening');
      },
      (call, answer) => this.callSettled(call, answer),
    );
  }

  get currentUtt(): number | null {
    const a = this.current;
    return a && a.heardMs === null ? a.utt : null;
  }

  async start(resumed: boolean) {
    if (!this.connector) {
      this.host.send({ type: 'notice', code: LiveCode.platformNotConfigured, message: LiveMessages['platform-not-configured'] });
      this.host.setState('listening');
      return;
    }
    const c = await this.connect();
    const greeting = this.opts.brain.greeting.trim();
    if (c && !resumed && greeting) c.say(greeting);
    this.host.setState('listening');
  }

  pushMic(pcm: Int16Array) {
    if (this.closed || !this.connector || this.opts.textOnly) return;
    if (!this.live) {
      // Lost or never made: try again now and then while the visitor talks (audio meanwhile is dropped).
      if (!this.conn && this.now() - this.lastAttemptAt > RECONNECT_MS) void this.connect();
      return;
    }
    this.mic ??= new Resampler(LiveProtocol.micSampleRate, this.live.inputSampleRate);
    this.live.appendAudio(this.mic.push(pcm));
  }

  userText(text: string) {
    if (this.closed) return;
    this.toolsCarry = null;
    this.newVisitorTurn();
    const asked: TLiveHistoryEntry = { role: 'user', text, at: this.now() };
    this.errorsBetweenTurns(asked);
    this.host.history.remember(asked);
    this.host.history.report();
    if (!this.connector) {
      // The product's realtime without the operator's key: say so in the chat.
      const utt = this.host.nextUtt();
      const message = LiveMessages['platform-not-configured'];
      this.host.send({ type: 'assistant', utt, text: message, final: true });
      this.host.history.remember({ role: 'assistant', text: message, at: this.now() });
      return;
    }
    void this.connect().then((c) => c?.sendUserText(text));
  }

  say(text: string) {
    if (this.closed || !this.connector) return;
    void this.connect().then((c) => c?.say(text));
  }

  interrupted(utt: number, heardMs: number) {
    this.tools.abortAll();
    const a = this.current?.utt === utt ? this.current : this.last?.utt === utt ? this.last : null;
    if (!a || a.heardMs !== null) return;
    const audioMs = (a.samples * 1000) / a.rate;
    a.heardMs = Math.min(heardMs, audioMs);
    // The model forgets what was not heard (its item is cut at the page's playback position).
    if (a.itemId && a.samples > 0) this.live?.truncate(a.itemId, a.heardMs);
    if (!a.done) this.live?.cancelResponse();
    else if (a.entry) {
      a.entry.text = heardPart(a.text, a.heardMs, audioMs);
      a.entry.interrupted = true;
      markHeard(a.entry, a.heardMs, a.text);
      // Its words were shown whole while the voice played on: the page now shows what was heard.
      this.host.send({ type: 'assistant', utt: a.utt, text: a.entry.text, final: true, interrupted: true });
      this.host.history.report();
    }
  }

  avatarHeard(utt: number | null) {
    this.heardUtt = utt;
    const a = utt === null ? null : [this.current, this.last].find((x) => x?.utt === utt);
    this.live?.avatarHeard?.(utt, a?.text ?? '');
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    this.tools.abortAll();
    this.lifetime.abort();
    this.live?.close();
    this.live = null;
  }

  /** The open connection (made on first use, again after a loss); null when it cannot be made. */
  private connect(): Promise<RealtimeConnection | null> {
    if (this.conn) return this.conn;
    if (!this.connector || this.closed) return Promise.resolve(null);
    const generation = ++this.generation;
    this.lastAttemptAt = this.now();
    this.mic = null;
    const connector = this.connector;
    // The tools are resolved first (a cold sandbox is waited for a bounded time: the greeting waits with it).
    const conn = this.tools
      .offer()
      .then((tools) => connector((ev) => generation === this.generation && this.onEvent(ev), this.lifetime.signal, tools))
      .then(
      (c) => {
        if (this.closed) {
          c.close();
          return null;
        }
        this.live = c;
        // A resume or a reconnect: the model hears the conversation so far.
        c.seedHistory(this.host.history.entries.filter((h) => h.text).slice(-SEEDED_TURNS));
        return c;
      },
      (err: unknown) => {
        if (this.conn === conn) this.conn = null;
        if (!this.closed) this.fail(err, 'connect');
        return null;
      },
    );
    this.conn = conn;
    return conn;
  }

  /**
   * A provider failure: counted, logged and told. The transcript shows it with its turn (ADR 102):
   * with `holder` when given (the answer it cut short; null: the entry about to be stored takes it),
   * else with the answer in progress, else with the visitor's question still unanswered, else with
   * the visitor's next turn.
   */
  private fail(err: unknown, phase: string, holder?: TLiveHistoryEntry | null) {
    this.host.providerError(err, phase);
    if (holder === undefined && !this.current) {
      const last = this.host.history.entries.at(-1);
      if (last?.role === 'user' && last.text) holder = last;
    }
    if (holder) {
      addErrors(holder, this.takeErrors());
      this.host.history.report();
    }
    // A refusal the visitor should read as such (no agent connected…) is a notice of its own.
    if (err instanceof RealtimeNoticeError) this.host.send({ type: 'notice', code: err.code, message: LiveMessages[err.code] });
    else this.host.send({ type: 'error', code: LiveCode.providerError, message: LiveMessages['provider-error'], fatal: false });
  }

  private onEvent(ev: RealtimeEvent) {
    if (this.closed) return;
    switch (ev.type) {
      case 'speech-started':
        this.toolsCarry = null;
        this.host.userActivity();
        this.host.setState('listening');
        // Barge-in: calls still running are stopped; the conversation tells the page and calls interrupted() with what was heard.
        this.tools.abortAll();
        this.host.interrupt();
        break;
      case 'speech-paused':
        this.host.pause(ev.utt);
        break;
      case 'speech-resumed':
        this.host.resume(ev.utt);
        break;
      case 'speech-stopped':
        this.speechStoppedAt = this.now();
        this.host.setState('thinking');
        break;
      case 'user-item': {
        this.newVisitorTurn();
        // Its place in the history is kept now: the transcript may come after the answer starts.
        const entry: TLiveHistoryEntry = { role: 'user', text: '', at: this.now() };
        this.host.history.remember(entry);
        this.userItems.set(ev.itemId, { entry, interim: '', interims: [], answerUtt: null });
        break;
      }
      case 'user-transcript':
        this.onUserTranscript(ev.itemId, ev.text, ev.final, ev.replace === true);
        break;
      case 'user-transcript-failed': {
        const item = this.userItems.get(ev.itemId);
        if (item) this.host.history.forget(item.entry);
        this.userItems.delete(ev.itemId);
        break;
      }
      case 'response-start':
        if (this.current) this.finishAnswer(this.current, 'cancelled', null);
        this.current = this.newAnswer(ev.responseId);
        for (const item of this.userItems.values()) item.answerUtt ??= this.current.utt;
        this.host.setState('thinking');
        break;
      case 'audio':
        this.onAudio(ev.responseId, ev.itemId, ev.pcm);
        break;
      case 'text': {
        const a = this.answerOf(ev.responseId);
        if (!a || a.heardMs !== null) break;
        a.itemId ??= ev.itemId;
        if (!a.text) this.host.setState('speaking');
        a.firstTextAt ??= this.now();
        a.text += ev.delta;
        this.host.send({ type: 'assistant', utt: a.utt, delta: ev.delta, final: false });
        // Words of the answer being heard: a connection that listens tells its echo from the visitor.
        if (a.utt === this.heardUtt) this.live?.avatarHeard?.(a.utt, a.text);
        break;
      }
      case 'response-done': {
        const a = this.answerOf(ev.responseId);
        if (a) this.finishAnswer(a, ev.status, ev.error);
        break;
      }
      case 'tool-call':
        if (this.current) this.current.calls++;
        this.host.setState('thinking');
        if (this.live) this.tools.run(ev, this.live, this.current?.tools);
        break;
      case 'tool-cancelled':
        this.tools.abort(ev.callIds);
        break;
      case 'error':
        this.fail(ev.error, 'realtime');
        break;
      case 'closed': {
        this.live = null;
        this.conn = null;
        // The provider forgets its calls with the connection.
        this.tools.abortAll();
        const cut = this.current;
        if (cut) this.finishAnswer(cut, 'incomplete', null);
        // A loss mid-answer is shown with the answer it cut short.
        if (ev.error) this.fail(ev.error, 'connection', cut?.entry ?? undefined);
        this.host.setState('listening');
        break;
      }
    }
  }

  private onUserTranscript(itemId: string, text: string, final: boolean, replace: boolean) {
    const item = this.userItems.get(itemId);
    this.host.userActivity();
    if (!final) {
      const interim = replace ? text : `${item?.interim ?? ''}${text}`;
      if (item) {
        item.interim = interim;
        // Each version heard so far: those the final text does not merely complete are its corrections (ADR 102).
        item.interims.push(interim.slice(0, 2000));
        if (item.interims.length > 20) item.interims.shift();
      }
      if (interim.trim()) this.host.send({ type: 'transcript', text: interim.trim().slice(0, 2000), final: false });
      return;
    }
    this.userItems.delete(itemId);
    const clean = text.slice(0, 2000);
    if (!clean) {
      if (item) this.host.history.forget(item.entry);
      return;
    }
    const entry = item?.entry ?? { role: 'user', text: clean, at: this.now() };
    entry.text = clean;
    const corrected = item ? corrections(item.interims, clean) : [];
    if (corrected.length) entry.detail = { ...entry.detail, interims: corrected };
    this.errorsBetweenTurns(entry);
    if (!item) this.host.history.remember(entry);
    this.host.send({ type: 'transcript', text: clean, final: true, ...(item && item.answerUtt !== null ? { beforeUtt: item.answerUtt } : {}) });
    this.host.history.report();
  }

  /** A function call settled: its name, arguments and result (or, for the knowledge search, its passages) for the turn's detail. */
  private callSettled(call: { name: string; args: string }, answer: ToolAnswer | null) {
    const detail = (this.turnDetail ??= new TurnDetail());
    if (call.name === KNOWLEDGE_TOOL && answer?.passages) detail.addPassages(answer.passages);
    // A call stopped before its result (barge-in, a lost connection) shows as failed, without a result.
    else detail.call(call.name, call.args, answer?.ok === true, answer?.output);
  }

  /**
   * The visitor's next turn begins: what the last one gathered without an answer stays with its
   * question (an answer still in progress takes it when it ends).
   */
  private newVisitorTurn() {
    if (this.current) return;
    const gathered = this.turnDetail?.detail();
    this.turnDetail = null;
    this.keepWithQuestion(gathered, []);
  }

  /** A turn without an answer: its detail and failures go with the visitor's last question. */
  private keepWithQuestion(gathered: ReturnType<TurnDetail['detail']>, errors: readonly TLiveTurnError[]) {
    if (!gathered && !errors.length) return;
    const question = this.host.history.entries.findLast((e) => e.role === 'user' && e.text);
    if (!question) return;
    mergeDetail(question, gathered);
    addErrors(question, errors);
    this.host.history.report();
  }

  /** Failures while no answer runs go with the visitor's next turn (as in the pipeline); those of an answer in progress wait for it. */
  private errorsBetweenTurns(entry: TLiveHistoryEntry) {
    if (!this.current) addErrors(entry, this.takeErrors());
  }

  private takeErrors(): TLiveTurnError[] {
    return this.host.takeErrors?.() ?? [];
  }

  private newAnswer(responseId: string): Answer {
    const spoken = this.speechStoppedAt;
    this.speechStoppedAt = null;
    const carried = this.toolsCarry;
    this.toolsCarry = null;
    const rate = this.live?.outputSampleRate ?? REALTIME_SAMPLE_RATE;
    return {
      utt: this.host.nextUtt(),
      responseId,
      itemId: null,
      text: '',
      samples: 0,
      started: false,
      seq: 0,
      sentSamples: 0,
      rate,
      resampler: this.sampleRate && this.sampleRate !== rate ? new Resampler(rate, this.sampleRate) : null,
      heardMs: null,
      entry: null,
      done: false,
      calls: 0,
      tools: carried ?? this.tools.allowance(),
      speechStoppedAt: spoken,
      firstTextAt: null,
      firstAudioAt: null,
    };
  }

  private answerOf(responseId: string): Answer | null {
    return this.current?.responseId === responseId ? this.current : null;
  }

  private onAudio(responseId: string, itemId: string, pcm: Int16Array) {
    const a = this.answerOf(responseId);
    if (!a || a.heardMs !== null || this.sampleRate === 0) return;
    a.itemId ??= itemId;
    a.samples += pcm.length;
    if (!a.started) {
      if (!this.host.speakerOn()) return;
      a.started = true;
      a.firstAudioAt = this.now();
      this.host.speech({ type: 'utterance', utt: a.utt, phase: 'start' }, this.sampleRate);
      this.host.setState('speaking');
    }
    this.sendPcm(a, a.resampler ? a.resampler.push(pcm) : pcm);
  }

  /** Audio frames of at most 100 ms (well under the page's 64 KB frame). */
  private sendPcm(a: Answer, pcm: Int16Array) {
    const frame = Math.round(this.sampleRate / 10);
    for (let at = 0; at < pcm.length; at += frame) {
      const part = pcm.subarray(at, at + frame);
      a.sentSamples += part.length;
      this.host.speech({ type: 'audio', utt: a.utt, seq: a.seq++, pcm: samplesToBytes(part), last: false }, this.sampleRate);
    }
  }

  private finishAnswer(a: Answer, status: string, error: ProviderError | null) {
    if (a.done) return;
    a.done = true;
    if (this.current === a) this.current = null;
    this.last = a;
    const interrupted = a.heardMs !== null;
    if (a.calls > 0 && !a.text && a.samples === 0 && !error && !interrupted) {
      // Only tool calls: no message of its own. The answer with the results is the turn's answer (and its metrics, and its calls).
      this.speechStoppedAt ??= a.speechStoppedAt;
      this.toolsCarry = a.tools;
      if (!this.current && !this.tools.busy) this.host.setState('listening');
      return;
    }
    if (a.started && !interrupted) {
      if (a.resampler) this.sendPcm(a, a.resampler.flush());
      this.host.speech({ type: 'audio', utt: a.utt, seq: a.seq++, pcm: new Uint8Array(0), last: true }, this.sampleRate);
      this.host.speech({ type: 'utterance', utt: a.utt, phase: 'end', durationMs: (a.sentSamples * 1000) / this.sampleRate }, this.sampleRate);
    }
    let text = interrupted ? heardPart(a.text, a.heardMs!, (a.samples * 1000) / a.rate) : a.text;
    if (error) {
      this.fail(error, 'reply', null);
      if (!text) text = LiveMessages['provider-error'];
    }
    this.host.send({ type: 'assistant', utt: a.utt, text, final: true, ...(interrupted || status === 'cancelled' ? { interrupted: true } : {}) });
    // The turn's detail (ADR 102) goes with its answer, or with the visitor's question when nothing was said.
    const gathered = this.turnDetail?.detail();
    this.turnDetail = null;
    if (text) {
      a.entry = { role: 'assistant', text, at: this.now(), ...(interrupted ? { interrupted: true } : {}) };
      if (interrupted) markHeard(a.entry, a.heardMs!, a.text);
      mergeDetail(a.entry, gathered);
      addErrors(a.entry, this.takeErrors());
      this.host.history.remember(a.entry);
    } else this.keepWithQuestion(gathered, this.takeErrors());
    this.host.history.report();
    if (a.speechStoppedAt !== null) {
      this.host.metrics({
        at: a.speechStoppedAt,
        endOfUtteranceMs: null,
        sttMs: null,
        llmFirstTokenMs: a.firstTextAt === null ? null : a.firstTextAt - a.speechStoppedAt,
        ttsFirstByteMs: null,
        endToEndMs: a.firstAudioAt === null ? null : a.firstAudioAt - a.speechStoppedAt,
        interrupted,
      });
    }
    if (!this.current && !this.tools.busy) this.host.setState('listening');
  }
}
