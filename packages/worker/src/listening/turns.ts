import type { Pronounce, SttEngine, SttResult, SttSession } from '../providers/stt/types.js';
import type { Denoiser } from './denoise.js';
import type { EchoCanceller } from './echo-cancel.js';
import { createRoomGate, levelDb, ROOM_MIN_SPEECH_MS, type RoomGate } from './room-gate.js';
import { soundsLikeStopRequest } from './sounds-like.js';
import { endOfTurn, endpointingDelay, isBackchannel, isStopRequest, looksLikeEcho, looksUnfinished, wordsOf, type TurnOptions } from './options.js';
import { VAD_WINDOW_MS, VAD_WINDOW_SAMPLES, type VadStream } from './vad.js';

/**
 * Listening for one session (ADR 067): the visitor's 16 kHz PCM16 → 32 ms windows →
 * speech probability (VadStream) → speech segments (LiveKit Agents' option semantics) → STT →
 * endpointing → a committed user turn; and, while the avatar speaks, pause / interrupt / resume.
 *
 * Durations of speech and silence are counted in audio (32 ms per window); the endpointing and
 * false-interruption timers run on the injected clock, so tests drive both with scripted
 * probabilities and a fake clock.
 */
export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref?.();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** Figures of one committed turn (ms); the session adds the brain's and the voice's. */
export interface ListenTurnMetrics {
  /** Clock time of the last speech window (the end of the visitor's speech). */
  lastSpeechAt: number;
  /** Clock time of the commit. */
  committedAt: number;
  /** From the end of speech to the commit. */
  endOfUtteranceMs: number;
  /** From asking the STT for the final result to getting it (the last segment's). */
  sttMs: number | null;
  /** Speech in the turn, ms of audio. */
  speechMs: number;
  /** The turn continues one committed before it, whose answer was withdrawn unheard (`reopen`). */
  continues?: true;
}

export interface ListenerEvents {
  /** What the visitor is saying (interim, as segments are transcribed). */
  transcript(text: string, final: boolean): void;
  /** The visitor's turn is over: the brain answers `text`. */
  commit(text: string, metrics: ListenTurnMetrics): void;
  /**
   * The visitor paused and what they said so far looks like a complete turn and has stopped
   * changing: the brain may start on it (preemptive generation) before the commit, whose text may
   * yet differ. `null`: they went on speaking (or the turn was dropped), an answer started on the
   * preview is not wanted. `turn` numbers the visitor's turns (one preemptive answer per turn).
   */
  preview?(text: string | null, turn: number): void;
  /**
   * The visitor spoke again soon after a commit, before the avatar said anything of its answer (a
   * pause mid-thought taken for the end of the turn): true if the session withdrew that answer —
   * the committed words then begin the turn now heard, one turn for the brain, not two; false if
   * the answer stands (it cannot be taken back).
   */
  reopen?(): boolean;
  /** Speech over the avatar: hold its playback (it may resume). */
  pause(utt: number): void;
  resume(utt: number): void;
  /** A real interruption: stop the avatar for good. */
  interrupt(utt: number): void;
  /** VAD state for the page (listening indicator). */
  speaking?(speaking: boolean): void;
  error?(err: Error): void;
  /** The visitor spoke while the recogniser was down (after `error`, before it works again). */
  unheard?(): void;
}

export interface ListenerOptions {
  options: TurnOptions;
  vad: VadStream;
  stt: SttEngine;
  /** Noise suppression of the mic audio before the VAD and the STT (ADR 096); none: raw audio. */
  denoiser?: Denoiser;
  /** The avatar's own voice taken out of the mic audio, before the denoiser (ADR 103). */
  echo?: EchoCanceller;
  /** Languages, model, phrases… as the STT engine takes them. */
  sttLanguages?: string[];
  sttModel?: string;
  sttPhrases?: string[];
  /**
   * The recogniser's pronunciations (the offline one's dictionary): words over the avatar that
   * sound like a stop request stop it (ADR 109). None: only the words as written count.
   */
  pronounce?: Pronounce;
  events: ListenerEvents;
  clock?: Clock;
}

/** What a live session listens with (a Listener is made of it): mic frames → VAD → STT → turns. Without it: typed chat only. */
export interface ConversationListening {
  stt: SttEngine;
  vad: VadStream;
  /** This session's noise suppressor (ADR 096); none: the VAD and the STT hear the raw mic. */
  denoiser?: Denoiser;
  /**
   * Cancel the avatar's own voice in the mic (ADR 103): the conversation makes the session's
   * canceller from the audio it sends and the page's playback reports. Off: left to the echo rules.
   */
  echoCancel?: boolean;
  options: TurnOptions;
  languages?: string[];
  model?: string;
  phrases?: string[];
  /** The offline recogniser's pronunciations: misheard stop requests over the avatar stop it (ADR 109). */
  pronounce?: Pronounce;
  clock?: Clock;
  /** Called when the mic is first turned on: load the VAD model, start the recogniser. */
  warm?: () => void;
}

type SegmentRole = 'turn' | 'discard';

/** Peak level (−66 dBFS) under which a window is silence without asking the VAD model. */
export const SILENCE_PEAK = 0.0005;

/**
 * A recogniser that failed is opened again: at once after the first failure (a dropped connection
 * is usually a passing thing), then after these waits (ms), while audio meanwhile is not
 * transcribed; a result resets it. A wrong key thus costs a few attempts a minute, not one per frame.
 */
export const STT_REOPEN_BACKOFF_MS = [0, 2_000, 5_000, 15_000, 30_000];

/** A streaming recogniser's interim text unchanged this long in a pause is stable enough for a preview (ms). */
export const PREVIEW_STABLE_MS = 96;
/** Speech over the avatar: a pause this long is enough to ask the recogniser what it was (ms). */
export const HELD_TRANSCRIPT_MS = 96;
/** One word from a sound this short over the avatar is taken for a misheard backchannel (ADR 100). */
export const MISHEARD_BACKCHANNEL_MS = 1000;
/**
 * Over the avatar, a burst at least this much louder (dB) than the visitor's own speech is not
 * resumed before the recogniser has answered (ADR 104): a shouted "stop!", not an "mm-hm".
 */
export const LOUD_BURST_DB = 6;
/**
 * Speech starting this soon (ms) after a commit, with the avatar still silent, continues the
 * committed turn (`reopen`): a cut-off's pause is 300–900 ms and the commit comes 150–550 ms into it,
 * so the visitor goes on within ~850 ms; later speech is a new thought and a turn of its own (on a
 * slow machine whose answers come late, a longer window took a backchannel or a "wait" for more of
 * the question and restarted the answer).
 */
export const REOPEN_WINDOW_MS = 1_200;

export class Listener {
  private readonly o: TurnOptions;
  private readonly clock: Clock;
  private readonly ev: ListenerEvents;
  private readonly abort = new AbortController();
  private sttSession: Promise<SttSession> | null = null;
  /** Failures since the recogniser last gave a result, and when it may be opened again. */
  private sttFailures = 0;
  private sttRetryAt = 0;

  // ─── windowing and VAD ───
  private pending = new Int16Array(VAD_WINDOW_SAMPLES);
  private pendingLen = 0;
  private chain: Promise<void> = Promise.resolve();
  /** The denoiser's answers, heard in order. */
  private denoised: Promise<void> = Promise.resolve();
  private readonly floatWindow = new Float32Array(VAD_WINDOW_SAMPLES);
  /** The room's level: speech no louder than the room is the room's, not the visitor's (room-gate.ts). */
  private readonly room: RoomGate;

  // ─── segmenter (VAD state) ───
  private speaking = false;
  private speechRunMs = 0;
  private silenceRunMs = 0;
  private segmentSpeechMs = 0;
  private segmentSamples = 0;
  private capped = false;
  private prefix: Int16Array[] = [];
  private earlyDone = false;
  private speechSinceFlush = false;
  private role: SegmentRole = 'turn';

  // ─── the turn ───
  private finals: string[] = [];
  private interim = '';
  private turnSpeechMs = 0;
  private lastSpeechAt: number | null = null;
  private flushes: Promise<void>[] = [];
  /** Flushes the recogniser has not answered yet (a slow one must not turn words into a cough). */
  private unanswered = 0;
  /** The false-interruption time ran out while the recogniser still had the visitor's audio. */
  private decideWhenHeard = false;
  private lastSttMs: number | null = null;
  private commitTimer: unknown = null;
  private generation = 0;
  /** A commit armed during the silence before the end of speech (complete-looking text). */
  private earlyArmed = false;
  /** The text last offered as a preview this turn, and when the turn's text last changed. */
  private previewed: string | null = null;
  private textChangedAt = 0;
  /** The visitor's turns so far (committed or dropped): previews say which turn they belong to. */
  private turnNo = 0;
  /** The last commit, while the avatar has not started its answer's voice: speech may continue it (`reopen`). */
  private committed: { text: string; speechMs: number; at: number } | null = null;
  /** The turn being heard began with a reopened commit's words. */
  private continues = false;

  // ─── the avatar ───
  private agentUtt: number | null = null;
  private agentSince = 0;
  private agentText = '';
  /** The last text given for an utterance (`setAgentText`), kept for when it starts being heard. */
  private textFor: { utt: number; text: string } | null = null;
  /**
   * Speech over this utterance of the avatar waits for its verdict (a backchannel or no words: it
   * goes on; an interruption: it stops). Whether its playback is held meanwhile is `held`.
   */
  private paused: number | null = null;
  /**
   * The page holds the utterance's playback (`pause` sent, no `resume` since). An early decision
   * (ADR 104) resumes it — or never holds it — before the verdict, which may still stop it.
   */
  private held = false;
  /** The utterance ended (was heard to its end) while a verdict on speech over it was pending unheld. */
  private pendingEnded = false;
  /** Speech in the turn over the avatar at which its playback is held (0: at once; `holdAfterMs` at the start of a segment). */
  private holdAt = 0;
  /** The visitor's level when they speak to the avatar (dBFS, an average of their voiced windows); null until heard. */
  private visitorDb: number | null = null;
  /** Voiced windows of the speech over the avatar waiting for its verdict: their level summed, their count. */
  private burstDb = 0;
  private burstWindows = 0;
  private resumeTimer: unknown = null;
  private micOn = true;
  private closed = false;

  /** The text rules of interruptions are English: applied when the recogniser listens for English (or for its default). */
  private readonly englishRules: boolean;

  constructor(private readonly opts: ListenerOptions) {
    const langs = opts.sttLanguages ?? [];
    this.englishRules = langs.length === 0 || langs.some((l) => /^en\b/i.test(l));
    this.o = opts.options;
    this.room = createRoomGate(this.o.roomGateDb);
    this.clock = opts.clock ?? realClock;
    this.ev = opts.events;
  }

  get engine(): SttEngine {
    return this.opts.stt;
  }
  get isSpeaking(): boolean {
    return this.speaking;
  }
  /** The avatar's playback is held for speech over it (a verdict pending, nothing decided early). */
  get isPaused(): boolean {
    return this.paused !== null && this.held;
  }
  /** Speech in the turn being heard so far, ms of audio. */
  get speechMsSoFar(): number {
    return this.turnSpeechMs;
  }

  /** Mic frames (16 kHz PCM16 mono, any length; `seq`: the page's number of a 20 ms frame). Resolves when they have been through the VAD. */
  push(mic: Int16Array, seq?: number): Promise<void> {
    if (this.closed || !this.micOn) return this.chain;
    // The avatar's echo out first (ADR 103): it needs the audio as the mic heard it, in time (the
    // page's frame number places it exactly).
    const pcm = this.opts.echo ? this.opts.echo.process(mic, seq) : mic;
    const denoiser = this.opts.denoiser;
    if (!denoiser) return this.hear(pcm);
    // Noise suppression first (ADR 096): the pieces come back in order and are heard as they come.
    const clean = denoiser.process(pcm);
    this.denoised = this.denoised.then(async () => {
      // A failed piece is heard as it was (the denoiser reports its failure).
      const c = await clean.catch(() => pcm);
      if (!this.closed && this.micOn) void this.hear(c);
    });
    return this.denoised.then(() => this.chain);
  }

  /** Mic audio (denoised when the session suppresses noise) → windows → VAD; a streaming STT hears it all. */
  private hear(pcm: Int16Array): Promise<void> {
    let at = 0;
    const windows: Int16Array[] = [];
    while (at < pcm.length) {
      const take = Math.min(VAD_WINDOW_SAMPLES - this.pendingLen, pcm.length - at);
      this.pending.set(pcm.subarray(at, at + take), this.pendingLen);
      this.pendingLen += take;
      at += take;
      if (this.pendingLen === VAD_WINDOW_SAMPLES) {
        windows.push(this.pending);
        this.pending = new Int16Array(VAD_WINDOW_SAMPLES);
        this.pendingLen = 0;
      }
    }
    if (this.opts.stt.mode === 'stream') this.sttPush(pcm);
    for (const w of windows) {
      this.chain = this.chain.then(async () => {
        if (this.closed) return;
        let peak = 0;
        for (let i = 0; i < w.length; i++) {
          const x = w[i]! / 32768;
          this.floatWindow[i] = x;
          if (x > peak) peak = x;
          else if (-x > peak) peak = -x;
        }
        let p: number;
        try {
          // Near-digital silence (the page's noise suppression gives plenty) is not speech: the
          // model is not asked (it costs ~0.1–0.5 ms a window).
          p = peak < SILENCE_PEAK ? 0 : await this.opts.vad.probability(this.floatWindow);
        } catch (err) {
          this.ev.error?.(err instanceof Error ? err : new Error(String(err)));
          return;
        }
        // The visitor's speech is louder than the room's (babble at the next tables is speech too).
        const wasTalking = this.room.talking();
        const db = levelDb(w);
        const visitor = this.room.hear(db, p > this.o.activationThreshold);
        // The room started talking inside an open segment: a second of it at the room's level was
        // the room's (babble as the session starts), not the visitor's.
        if (!wasTalking && this.room.talking() && this.speaking && this.role === 'turn') this.discardSegment();
        this.window(visitor ? p : Math.min(p, this.o.activationThreshold), w, db);
      });
    }
    return this.chain;
  }

  /** The mic turned on/off on the page: off drops what is being said. */
  setMic(on: boolean) {
    if (this.micOn === on) return;
    this.micOn = on;
    if (!on) this.dropSegment();
  }

  /** The avatar started an utterance (its first audio went out) / stopped being heard (null). */
  setAgentSpeaking(utt: number | null, text = '') {
    if (utt === null) {
      // Heard to its end while a verdict on speech over it was pending, unheld (ADR 104): the
      // verdict still decides whether those words are a turn (nothing is left to stop).
      if (this.paused !== null && !this.held) this.pendingEnded = true;
      else if (this.paused !== null) this.doResume();
      this.agentUtt = null;
      this.agentText = '';
      return;
    }
    // Its voice goes out: the last commit is answered aloud, no longer continued by what follows.
    this.committed = null;
    if (this.agentUtt !== utt) {
      this.agentUtt = utt;
      this.agentSince = this.clock.now();
    }
    // Its text given before its first audio (a wake-up line, an answer streamed ahead of its voice) stays.
    this.agentText = text || (this.textFor?.utt === utt ? this.textFor.text : '');
  }

  /** The text the avatar is saying (grows as it streams), for telling its echo apart. */
  setAgentText(utt: number, text: string) {
    this.textFor = { utt, text };
    if (this.agentUtt === utt || this.agentUtt === null) this.agentText = text;
  }

  close() {
    if (this.closed) return;
    this.closed = true;
    this.abort.abort();
    this.clearTimers();
    this.opts.denoiser?.close();
    void this.sttSession?.then((s) => s.close()).catch(() => undefined);
  }

  // ─── segmenter ───

  /** One 32 ms window and its speech probability (LiveKit's Silero stream semantics). */
  private window(prob: number, pcm: Int16Array, db: number) {
    const isSpeech = prob > this.o.activationThreshold;
    if (isSpeech) {
      this.speechRunMs += VAD_WINDOW_MS;
      this.silenceRunMs = 0;
    } else {
      this.silenceRunMs += VAD_WINDOW_MS;
      this.speechRunMs = 0;
      // A short burst over the avatar has stopped (in its segment, or after it ended): ADR 104.
      if (this.paused !== null && this.held && this.silenceRunMs >= this.resumeAfter()) this.resumeEarly();
    }
    if (!this.speaking) {
      this.prefix.push(pcm);
      // The prefix keeps prefix_padding plus the windows that are proving to be speech.
      const keep = Math.ceil((this.o.prefixPaddingMs + this.speechRunMs) / VAD_WINDOW_MS);
      if (this.prefix.length > keep) this.prefix.splice(0, this.prefix.length - keep);
      if (isSpeech && this.speechRunMs >= this.o.minSpeechMs) this.startOfSpeech();
      return;
    }
    this.addAudio(pcm);
    if (isSpeech) {
      this.segmentSpeechMs += VAD_WINDOW_MS;
      this.turnSpeechMs += VAD_WINDOW_MS;
      this.speechSinceFlush = true;
      this.earlyDone = false;
      this.hearLevel(db);
      this.speechResumed();
      this.holdIfLonger();
      this.checkInterruption();
      return;
    }
    if (this.silenceRunMs >= this.o.minSilenceMs) {
      this.endOfSpeech();
      return;
    }
    // Batch STT: transcribe what was said so far during the pause, so the final text is ready
    // by the time the silence counts as the end of speech.
    // Over the avatar (held), sooner: what was said decides whether it goes on.
    const early = this.paused !== null ? Math.min(this.o.earlyTranscriptMs, HELD_TRANSCRIPT_MS) : this.o.earlyTranscriptMs;
    // (A streaming recogniser is asked too over the avatar: its final decides a cough or a "no".)
    if (!this.earlyDone && this.role === 'turn' && (this.opts.stt.mode === 'batch' || this.paused !== null) && this.silenceRunMs >= early && this.speechSinceFlush && !this.roomBurst()) {
      this.earlyDone = true;
      this.flush();
    }
    this.pauseInSpeech();
  }

  // ─── speech over the avatar, decided early (ADR 104) ───

  /** The early decision applies: English rules, a batch recogniser (a streaming one's words come in time), and it is on. */
  private get decidesEarly(): boolean {
    return this.o.overlapDecision === 'early' && this.englishRules && this.opts.stt.mode === 'batch';
  }

  /** A voiced window's level: the visitor's own level from their turns, the burst's over the avatar. */
  private hearLevel(db: number) {
    if (this.role !== 'turn') return;
    if (this.paused !== null) {
      this.burstDb += db;
      this.burstWindows++;
    } else if (this.agentUtt === null) this.visitorDb = this.visitorDb === null ? db : this.visitorDb + (db - this.visitorDb) * 0.05;
  }

  /** Speech over the avatar not held yet (holdAfterMs), or again after an early resume: held once long enough. */
  private holdIfLonger() {
    if (this.paused === null || this.held || this.pendingEnded || this.role !== 'turn' || this.turnSpeechMs < this.holdAt) return;
    this.held = true;
    this.ev.pause(this.paused);
  }

  /**
   * Speech over the avatar that stopped (a pause of `resumeAfterMs`) while still short — under
   * `shortBurstMs` of voice, and not a shout — is taken for a backchannel, a cough or a laugh: the
   * avatar goes on now, from where it was held, without waiting for the recogniser. Its verdict
   * still comes (`decidePause`, `checkInterruption`): a stop request, or words enough to interrupt,
   * stop it then; more speech holds it again at once.
   */
  private resumeEarly() {
    if (!this.decidesEarly || this.role !== 'turn' || this.turnSpeechMs > this.o.shortBurstMs || this.loudBurst()) return;
    const utt = this.paused!;
    this.held = false;
    this.holdAt = 0;
    this.ev.resume(utt);
  }

  /**
   * The pause after a short burst before it resumes the avatar: `verdictBudgetMs` when the
   * recogniser's last answer (this session's, else the engine's) would fit in it (its verdict will
   * come first), else `resumeAfterMs`.
   */
  private resumeAfter(): number {
    const budget = this.o.verdictBudgetMs;
    // Before this session has measured its recogniser, what the engine knows of it (other sessions').
    const sttMs = this.lastSttMs ?? this.opts.stt.answerMs?.() ?? null;
    return budget > 0 && sttMs !== null && HELD_TRANSCRIPT_MS + sttMs <= budget ? Math.max(budget, this.o.resumeAfterMs) : this.o.resumeAfterMs;
  }

  /** The burst over the avatar is clearly louder than the visitor speaks (a shouted "stop!"). */
  private loudBurst(): boolean {
    return this.visitorDb !== null && this.burstWindows > 0 && this.burstDb / this.burstWindows >= this.visitorDb + LOUD_BURST_DB;
  }

  /** Speech again in the same segment: a commit armed in the pause, and its preview, are off. */
  private speechResumed() {
    if (this.earlyArmed) {
      this.earlyArmed = false;
      this.cancelCommit();
    }
    this.withdrawPreview();
  }

  /** The words offered as a preview are not the turn (the visitor went on, or it was dropped). */
  private withdrawPreview(dropped = false) {
    if (dropped) this.turnNo++;
    if (this.previewed === null) return;
    this.previewed = null;
    this.ev.preview?.(null, this.turnNo);
  }

  /** Text endpointing applies: English recognition and the rule set (not the old hanging-words rule). */
  private get textRules(): boolean {
    return this.englishRules && this.o.endOfTurn === 'rules';
  }

  /**
   * A silence window inside a segment (before min_silence_duration ends it). With the rule set,
   * a turn whose text looks complete is committed from here, sooner than the end of speech
   * (endpointingDelay: under min_endpointing_delay, never under its floor), and offered as a
   * preview once it has stopped changing.
   */
  private pauseInSpeech() {
    // Over the avatar, a streaming recogniser's interim backchannel in a pause: it goes on now.
    if (this.paused !== null && this.role === 'turn' && this.englishRules && this.opts.stt.mode === 'stream' && this.silenceRunMs >= HELD_TRANSCRIPT_MS && this.isBackchannel(this.turnText())) {
      this.decidePause();
      return;
    }
    if (!this.textRules || this.role !== 'turn' || this.paused !== null) return;
    const batch = this.opts.stt.mode === 'batch';
    // A streaming recogniser's words that have not changed for a while: the preview.
    if (!batch && this.silenceRunMs >= PREVIEW_STABLE_MS && this.clock.now() - this.textChangedAt >= PREVIEW_STABLE_MS) this.maybePreview();
    if (this.silenceRunMs < this.o.earlyTranscriptMs) return;
    // A streaming recogniser: what it said so far must look complete before it is asked for its final text.
    if (!batch && this.speechSinceFlush && endOfTurn(this.turnText()).kind === 'complete') this.flush();
    if (!this.earlyArmed && !this.speechSinceFlush) {
      this.earlyArmed = true;
      this.lastSpeechAt = this.clock.now() - this.silenceRunMs;
      this.scheduleCommit(true);
    }
  }

  /** The turn's text has stopped changing and looks complete: offered once (per text) as a preview. */
  private maybePreview() {
    if (!this.textRules || this.role !== 'turn' || this.paused !== null || (this.opts.stt.mode === 'batch' && (this.unanswered > 0 || this.speechSinceFlush))) return;
    const text = this.turnText();
    if (!text || text === this.previewed || endOfTurn(text).kind !== 'complete') return;
    this.previewed = text;
    this.ev.preview?.(text, this.turnNo);
  }

  private startOfSpeech() {
    this.speaking = true;
    this.capped = false;
    this.segmentSamples = 0;
    this.segmentSpeechMs = this.speechRunMs;
    this.turnSpeechMs += this.speechRunMs;
    this.speechSinceFlush = true;
    this.earlyDone = false;
    // A new segment: the turn is not over yet.
    this.cancelCommit();
    this.earlyArmed = false;
    this.withdrawPreview();
    this.role = 'turn';
    const agent = this.agentUtt;
    if (agent !== null && this.paused === null) {
      if (!this.o.allowInterruptions) this.role = 'discard';
      // The avatar's own voice as its utterance starts (before the page's echo canceller adapts).
      else if (this.clock.now() - this.agentSince < this.o.echoGuardMs) this.role = 'discard';
    }
    this.ev.speaking?.(true);
    const audio = this.prefix;
    this.prefix = [];
    if (this.role === 'discard') return;
    if (agent === null) this.continueCommitted();
    else this.committed = null;
    if (this.resumeTimer !== null) {
      this.clock.clearTimeout(this.resumeTimer);
      this.resumeTimer = null;
    }
    if (agent !== null && this.paused === null) {
      this.paused = agent;
      this.held = false;
      this.pendingEnded = false;
      this.burstDb = 0;
      this.burstWindows = 0;
      // Held at once, or (holdAfterMs, with the early decision) only once it has lasted that long.
      this.holdAt = this.decidesEarly ? this.o.holdAfterMs : 0;
    }
    this.holdIfLonger();
    // Speech over the avatar is likeliest a backchannel or a stop request: an English recogniser
    // given cut segments may listen for those (ADR 107).
    if (this.opts.stt.mode === 'batch' && this.englishRules) this.sttOverAvatar(this.paused !== null);
    for (const w of audio) this.addAudio(w);
    this.checkInterruption();
  }

  /**
   * Speech soon after a commit the avatar has not answered aloud: the visitor had only paused. If
   * the session withdraws that answer, its words begin this turn (the page replaces its bubble).
   * A sound with no words then re-commits them at its end: the answer is only late.
   */
  private continueCommitted() {
    const c = this.committed;
    this.committed = null;
    if (!c || this.clock.now() - c.at > REOPEN_WINDOW_MS) return;
    if (!this.ev.reopen?.()) return;
    // A streaming recogniser may have words of this speech already (it hears all the audio).
    this.finals = [c.text, ...this.finals];
    this.turnSpeechMs += c.speechMs;
    this.continues = true;
  }

  private addAudio(pcm: Int16Array) {
    if (this.role === 'discard') return;
    const max = (this.o.maxBufferedSpeechMs * 16_000) / 1000;
    if (this.segmentSamples + pcm.length > max) {
      this.capped = true;
      return;
    }
    this.segmentSamples += pcm.length;
    if (this.opts.stt.mode === 'batch') this.sttPush(pcm);
  }

  private endOfSpeech() {
    this.speaking = false;
    this.speechRunMs = 0;
    this.ev.speaking?.(false);
    const silence = this.silenceRunMs;
    // In a room that talks, a short burst louder than the room is the room's (a loud word or a
    // laugh at the next table): not transcribed; what the turn had before it still counts.
    if (this.role === 'turn' && this.roomBurst()) this.discardSegment();
    if (this.role === 'discard') {
      this.segmentSamples = 0;
      return;
    }
    this.lastSpeechAt = this.clock.now() - silence;
    if (this.speechSinceFlush) this.flush();
    // Batch STT: the silence after an early transcription is not kept for the next segment.
    else if (this.opts.stt.mode === 'batch') void this.sttSession?.then((s) => s.reset?.()).catch(() => undefined);
    if (this.paused !== null) this.armResume();
    this.scheduleCommit();
    // Over the avatar, a backchannel already heard (an early transcript): it goes on now.
    if (this.paused !== null && this.englishRules && this.isBackchannel(this.turnText())) {
      if (this.unanswered === 0) this.decidePause();
      else this.decideWhenHeard = true;
    }
  }

  /** The open segment was the room's: nothing of it is transcribed; the turn's earlier words still count. */
  private discardSegment() {
    this.role = 'discard';
    this.turnSpeechMs = Math.max(0, this.turnSpeechMs - this.segmentSpeechMs);
    if (this.opts.stt.mode === 'batch') void this.sttSession?.then((s) => s.reset?.()).catch(() => undefined);
    if (this.paused !== null) this.armResume();
    if (this.finals.length > 0) this.scheduleCommit();
  }

  /** The segment so far is too short to be the visitor's in a room that talks (room-gate.ts). */
  private roomBurst(): boolean {
    return this.room.talking() && this.segmentSpeechMs < ROOM_MIN_SPEECH_MS;
  }

  private dropSegment() {
    this.speaking = false;
    this.speechRunMs = 0;
    this.silenceRunMs = 0;
    this.prefix = [];
    this.pendingLen = 0;
    this.opts.vad.reset();
    void this.sttSession?.then((s) => s.reset?.()).catch(() => undefined);
    this.finals = [];
    this.interim = '';
    this.turnSpeechMs = 0;
    this.committed = null;
    this.continues = false;
    this.cancelCommit();
    this.withdrawPreview(true);
    if (this.paused !== null) this.doResume();
  }

  // ─── STT ───

  /**
   * The recogniser's session, opened on first use and again after it failed (null while waiting
   * to reopen; a streaming one also waits for a pause, so that it does not start mid-sentence).
   */
  private session(): Promise<SttSession> | null {
    if (this.sttSession) return this.sttSession;
    if (this.closed || this.clock.now() < this.sttRetryAt || (this.sttFailures > 0 && this.speaking && this.opts.stt.mode === 'stream')) return null;
    const opening: Promise<SttSession> = this.opts.stt.open(
      {
        languages: this.opts.sttLanguages?.length ? this.opts.sttLanguages : ['en-US'],
        model: this.opts.sttModel,
        phrases: this.opts.sttPhrases,
        endpointingMs: this.o.minSilenceMs,
        interim: true,
        sampleRate: 16_000,
        signal: this.abort.signal,
      },
      {
        onResult: (r) => this.onResult(r),
        // A streaming session that reports an error is over; a batch one failed one request.
        onError: (err) => this.sttFailed(opening, err, this.opts.stt.mode === 'stream'),
      },
    );
    this.sttSession = opening;
    opening.catch((err: unknown) => this.sttFailed(opening, err instanceof Error ? err : new Error(String(err)), true));
    return opening;
  }

  /**
   * The recogniser failed: the visitor's turn in progress is dropped (its text would be partial),
   * the error is reported once, and a session that is over is opened again later.
   */
  private sttFailed(which: Promise<SttSession>, err: Error, over: boolean) {
    if (this.closed) return;
    if (over && this.sttSession === which) {
      this.sttSession = null;
      const wait = STT_REOPEN_BACKOFF_MS[Math.min(this.sttFailures, STT_REOPEN_BACKOFF_MS.length - 1)]!;
      this.sttFailures++;
      this.sttRetryAt = this.clock.now() + wait;
      void which.then((s) => s.close()).catch(() => undefined);
    } else if (!over) {
      // A batch request failed: audio buffered since belongs to the dropped turn.
      void which.then((s) => s.reset?.()).catch(() => undefined);
    }
    this.finals = [];
    this.interim = '';
    this.turnSpeechMs = 0;
    this.lastSpeechAt = null;
    this.cancelCommit();
    this.withdrawPreview(true);
    // The rest of a sentence being said is not a turn of its own; speech over the avatar can no
    // longer be told from a cough, so the avatar goes on.
    if (this.speaking) this.role = 'discard';
    if (this.paused !== null) this.doResume();
    this.ev.error?.(err);
  }

  private sttOverAvatar(on: boolean) {
    void this.session()
      ?.then((s) => s.overAvatar?.(on))
      .catch(() => undefined);
  }

  private sttPush(pcm: Int16Array) {
    void this.session()
      ?.then((s) => s.push(pcm))
      .catch(() => undefined);
  }

  /** Asks the STT for the final text of what it has; the commit waits for every flush. */
  private flush() {
    this.speechSinceFlush = false;
    const started = this.clock.now();
    // No session: the audio went nowhere (the recogniser failed and is not open again yet).
    const session = this.sttSession;
    if (!session) {
      if (this.sttFailures > 0 && this.role === 'turn') this.ev.unheard?.();
      return;
    }
    this.unanswered++;
    const done = session
      .then((s) => s.finalize())
      .then(
        () => {
          this.lastSttMs = this.clock.now() - started;
        },
        () => undefined,
      )
      .finally(() => {
        this.unanswered--;
        if (this.unanswered === 0 && this.decideWhenHeard) {
          this.decideWhenHeard = false;
          this.decidePause();
        }
      });
    this.flushes.push(done);
  }

  private onResult(r: SttResult) {
    if (this.closed) return;
    this.sttFailures = 0;
    const text = r.text.trim();
    if (r.final) {
      if (text) this.finals.push(text);
      this.interim = '';
    } else this.interim = text;
    this.textChangedAt = this.clock.now();
    const all = this.turnText();
    if (all) this.ev.transcript(all, false);
    this.checkInterruption(r.final);
    // A backchannel over the avatar, or a sound with no words (a cough, a laugh), heard to its end
    // (or to a pause the recogniser has answered for): it goes on now, not after the false-interruption time.
    const heardToEnd = !this.speaking || (this.silenceRunMs > 0 && !this.speechSinceFlush);
    if (r.final && this.paused !== null && heardToEnd && ((this.englishRules && this.isBackchannel(all)) || wordsOf(all).length === 0)) {
      if (this.unanswered === 0) this.decidePause();
      else this.decideWhenHeard = true;
    }
  }

  private turnText(): string {
    return [...this.finals, this.interim].filter(Boolean).join(' ').trim();
  }

  // ─── endpointing ───

  private cancelCommit() {
    this.generation++;
    if (this.commitTimer !== null) {
      this.clock.clearTimeout(this.commitTimer);
      this.commitTimer = null;
    }
  }

  /**
   * Commit at last speech + the endpointing delay for what was said (endpointingDelay: min, max,
   * or shorter than min for a complete turn), once the STT has answered. `early`: armed in a pause
   * before the end of speech — only a complete-looking turn is committed from there.
   */
  private scheduleCommit(early = false) {
    this.cancelCommit();
    const gen = this.generation;
    // Armed in a pause, the flushes stay for the end of speech's own schedule (the early one may be cancelled).
    const flushes = early ? [...this.flushes] : this.flushes.splice(0);
    void Promise.all(flushes).then(() => {
      if (gen !== this.generation || this.closed || this.lastSpeechAt === null) return;
      const text = this.turnText();
      if (early && endOfTurn(text).kind !== 'complete') return;
      const delay = this.delayFor(text);
      // Not sooner than the end of speech would commit it: left to it.
      if (early && delay >= this.o.minSilenceMs) return;
      if (this.role === 'turn') this.maybePreview();
      const wait = Math.max(0, this.lastSpeechAt + delay - this.clock.now());
      this.commitTimer = this.clock.setTimeout(() => {
        this.commitTimer = null;
        if (gen === this.generation) this.commit();
      }, wait);
    });
  }

  /** The endpointing delay for this text: the rule set with English recognition, else the silence rule (and pause marks). */
  private delayFor(text: string): number {
    if (this.o.endOfTurn === 'hanging-words') return looksUnfinished(text) ? this.o.maxEndpointingMs : this.o.minEndpointingMs;
    if (this.englishRules) return endpointingDelay(text, this.o, this.o.completeFloorMs);
    return /(?:[,;:\-–—]|\.\.\.|…)$/.test(text.trim()) ? this.o.maxEndpointingMs : this.o.minEndpointingMs;
  }

  /** The segment ends at a commit made in its pause: what follows is speech of its own (over the avatar, a pause). */
  private endSegmentEarly() {
    if (!this.speaking) return;
    this.speaking = false;
    this.speechRunMs = 0;
    this.earlyArmed = false;
    this.ev.speaking?.(false);
    // The silence after the last transcription is not kept for the next turn.
    if (this.opts.stt.mode === 'batch') void this.sttSession?.then((s) => s.reset?.()).catch(() => undefined);
  }

  private commit() {
    this.endSegmentEarly();
    this.flushes = [];
    const previewed = this.previewed !== null;
    this.previewed = null;
    this.turnNo++;
    // Not a turn after all (its echo, no words): a preview of it is withdrawn.
    const withdraw = () => previewed && this.ev.preview?.(null, this.turnNo - 1);
    const text = this.turnText();
    const lastSpeechAt = this.lastSpeechAt ?? this.clock.now();
    const speechMs = this.turnSpeechMs;
    const continues = this.continues;
    this.finals = [];
    this.interim = '';
    this.turnSpeechMs = 0;
    this.lastSpeechAt = null;
    this.continues = false;
    if (this.paused !== null) {
      // Over the avatar: words that make an interruption stop it; anything else is not a turn
      // (a cough, a "mm-hm", its own echo) and it resumes when the false-interruption time is up.
      if (!this.interrupts(text, speechMs)) {
        if (this.resumeTimer === null) this.doResume();
        return withdraw();
      }
      this.confirmInterruption();
    } else if (this.agentUtt !== null && text && looksLikeEcho(text, this.agentText)) return withdraw();
    if (!text) return withdraw();
    const committedAt = this.clock.now();
    this.ev.transcript(text, true);
    // Answered by a silent avatar, it may yet be continued (the avatar speaking: it waits its turn),
    // once: a continued turn is not reopened again (its answer is not restarted twice).
    this.committed = this.agentUtt === null && !continues ? { text, speechMs, at: committedAt } : null;
    this.ev.commit(text, { lastSpeechAt, committedAt, endOfUtteranceMs: committedAt - lastSpeechAt, sttMs: this.lastSttMs, speechMs, ...(continues ? { continues } : {}) });
  }

  // ─── interruptions ───

  /**
   * Does what was said over the avatar stop it? With English recognition, a request to stop
   * ("wait", "no, I meant…") does as soon as it is heard, however short (min_speech_duration
   * aside), and a backchannel ("mm-hm", "I see"; "okay", "yes" when the avatar asked nothing)
   * never does (ADR 067); anything else when the speech is long enough and has enough words (at
   * least one: the avatar's echo has none that are new).
   */
  private interrupts(text: string, speechMs: number, final = true): boolean {
    if (this.englishRules) {
      if (speechMs >= this.o.minSpeechMs && isStopRequest(text, final)) return !looksLikeEcho(text, this.agentText);
      if (this.isBackchannel(text)) return false;
      // By sound only words the recogniser will not change (an interim "top" may yet be "topic").
      if (final && this.interim === '' && speechMs >= this.o.minSpeechMs && this.soundsLikeStop(text)) return !looksLikeEcho(text, this.agentText);
    }
    if (speechMs < this.o.minInterruptionMs) return false;
    const words = wordsOf(text).length;
    if (words < Math.max(1, this.o.minInterruptionWords)) return false;
    return !looksLikeEcho(text, this.agentText);
  }

  private checkInterruption(final = false) {
    if (this.paused === null || this.role !== 'turn') return;
    if (this.interrupts(this.turnText(), this.turnSpeechMs, final && !this.interim)) this.confirmInterruption();
  }


  /**
   * A backchannel over the avatar's utterance; affirmations only when the avatar asked nothing.
   * With a batch recogniser (the offline one), also one word heard from a short sound (≤ 1 s) over
   * an avatar that asked nothing, unless a stop request: the recogniser mishearing "mm-hm" (it
   * wrote "two" for espeak's, ADR 100), not a turn — a visitor who means to take the turn says more,
   * or "wait". Streaming recognisers' interim words keep the owner's thresholds.
   */
  private isBackchannel(text: string): boolean {
    const asked = this.agentText.includes('?');
    if (isBackchannel(text, { affirmations: !asked })) return true;
    return this.opts.stt.mode === 'batch' && !asked && this.turnSpeechMs <= MISHEARD_BACKCHANNEL_MS && wordsOf(text).length === 1 && !isStopRequest(text, true) && !this.soundsLikeStop(text);
  }

  /** Words that are no stop request as written but sound like one ("gold on", "top"; ADR 109). Asked again for the same text as speech goes on: kept. */
  private soundsLikeStop(text: string): boolean {
    const pronounce = this.opts.pronounce;
    if (pronounce === undefined) return false;
    if (this.soundsLikeMemo?.text !== text) this.soundsLikeMemo = { text, stop: soundsLikeStopRequest(text, pronounce) !== null };
    return this.soundsLikeMemo.stop;
  }
  private soundsLikeMemo: { text: string; stop: boolean } | null = null;

  private confirmInterruption() {
    const utt = this.paused;
    if (utt === null) return;
    this.paused = null;
    if (this.resumeTimer !== null) {
      this.clock.clearTimeout(this.resumeTimer);
      this.resumeTimer = null;
    }
    this.agentUtt = null;
    this.agentText = '';
    const ended = this.pendingEnded;
    this.held = false;
    this.pendingEnded = false;
    // Heard to its end meanwhile: nothing left to stop; the words are the visitor's turn.
    if (!ended) this.ev.interrupt(utt);
  }

  /** No words after the pause: the avatar goes on after falseInterruptionMs. */
  private armResume() {
    if (this.resumeTimer !== null) this.clock.clearTimeout(this.resumeTimer);
    this.resumeTimer = this.clock.setTimeout(() => {
      this.resumeTimer = null;
      // A recogniser slower than this time (a busy machine's offline one): the avatar stays
      // paused until it has answered (its own timeout bounds the wait), then it is decided.
      if (this.unanswered > 0) this.decideWhenHeard = true;
      else this.decidePause();
    }, this.o.falseInterruptionMs);
  }

  /** After a pause: words enough make an interruption; anything else was no turn, and the avatar goes on. */
  private decidePause() {
    if (this.paused === null || this.closed) return;
    if (this.speaking) {
      // In a pause the recogniser has answered for: the segment ends here, so that speech after it pauses the avatar again.
      if (this.silenceRunMs === 0 || (this.opts.stt.mode === 'batch' && this.speechSinceFlush)) return;
      if (!this.interrupts(this.turnText(), this.turnSpeechMs)) this.endSegmentEarly();
    }
    if (this.interrupts(this.turnText(), this.turnSpeechMs)) {
      this.confirmInterruption();
      return;
    }
    this.finals = [];
    this.interim = '';
    this.turnSpeechMs = 0;
    this.cancelCommit();
    this.doResume();
  }

  private doResume() {
    const utt = this.paused;
    if (utt === null) return;
    this.paused = null;
    if (this.resumeTimer !== null) {
      this.clock.clearTimeout(this.resumeTimer);
      this.resumeTimer = null;
    }
    const held = this.held;
    this.held = false;
    this.pendingEnded = false;
    // Resumed early (or never held): the page plays it already.
    if (held) this.ev.resume(utt);
  }

  private clearTimers() {
    this.cancelCommit();
    if (this.resumeTimer !== null) this.clock.clearTimeout(this.resumeTimer);
    this.resumeTimer = null;
  }
}
