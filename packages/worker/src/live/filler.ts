import { FillerOptions } from '@persona/contract';
import type { Clock } from '../listening/turns.js';
import type { SpeechEvent, SpeechTurn } from '../speech/pipeline.js';

/**
 * Fillers (issue 29, ADR 100): when the answer to a turn is slow — a function call, a slow model —
 * the avatar says a short line of the owner's ("Let me check that.") in its own voice, so the
 * visitor knows they were heard. Per turn, a `FillerRun`:
 *
 * - waits `afterMs` (1.5 s) from the start of the turn; the answer's first words before then
 *   (or the brain being done) and nothing is said;
 * - is said only when nobody is speaking — not over the visitor, not over the avatar's previous
 *   words still being heard: it looks again every 250 ms until the answer comes;
 * - at most once per turn; the lines are said in turn, so the same line is never said twice in a
 *   row (with a single line: not in two turns in a row);
 * - the answer's words arriving while the filler is still being synthesised (none of its audio
 *   sent) cancel it: nothing of it reaches the page. Once its audio has started, it is said to its
 *   end and the answer's voice is held behind it (it follows as the next utterance);
 * - is an utterance of its own (its own `utt`): the visitor can talk over it or interrupt it as
 *   any other; an interruption stops the turn, and the answer held behind it is dropped;
 * - is not the answer: not shown in the chat, not in the history the brain sees.
 */

export const FILLER_RECHECK_MS = 250;

export interface FillerHost {
  clock: Clock;
  /** Nobody is speaking now: the visitor is not, and no earlier avatar words are being heard. */
  quiet(): boolean;
  /** Starts the filler's voice as a new utterance; null when there is no voice now (speaker off). */
  speak(text: string, onEvent: (ev: SpeechEvent) => void, signal: AbortSignal): { utt: number; turn: SpeechTurn } | null;
  /** A voice event on to the page. */
  emit(ev: SpeechEvent): void;
}

export type FillerState = 'off' | 'waiting' | 'synthesising' | 'playing' | 'said' | 'cancelled' | 'skipped';

/** What happened to the fillers of a session (tests, the log). */
export interface FillerCounts {
  said: number;
  cancelled: number;
  skipped: number;
}

/** A session's fillers: its lines, the one said last, whether the last turn had one. */
export class Fillers {
  private next = 0;
  private lastTurnHadOne = false;
  readonly counts: FillerCounts = { said: 0, cancelled: 0, skipped: 0 };

  constructor(
    private readonly phrases: readonly string[],
    private readonly host: FillerHost,
    private readonly afterMs: number = FillerOptions.afterMs,
  ) {}

  get enabled(): boolean {
    return this.phrases.length > 0;
  }

  /** A turn's run: it may say a filler; its `answerEvent` carries the answer's voice to the page. */
  start(turnSignal: AbortSignal): FillerRun {
    // A single line is not said in two turns in a row; several are said in turn.
    const off = !this.enabled || (this.phrases.length === 1 && this.lastTurnHadOne);
    this.lastTurnHadOne = false;
    return new FillerRun(this.host, turnSignal, off ? null : this.afterMs, () => this.phrases[this.next % this.phrases.length]!, (outcome) => {
      if (outcome === 'said') {
        this.counts.said += 1;
        this.next = (this.next + 1) % this.phrases.length;
        this.lastTurnHadOne = true;
      } else if (outcome === 'cancelled') this.counts.cancelled += 1;
      else if (outcome === 'skipped') this.counts.skipped += 1;
    });
  }
}

export class FillerRun {
  private state: FillerState;
  private timer: unknown = null;
  private voice: { utt: number; turn: SpeechTurn; abort: AbortController } | null = null;
  private held: SpeechEvent[] = [];
  private settle!: () => void;
  /** Resolves when the filler is over and the answer's voice held behind it has gone on (or was dropped). */
  readonly settled = new Promise<void>((resolve) => (this.settle = resolve));

  constructor(
    private readonly host: FillerHost,
    private readonly turnSignal: AbortSignal,
    afterMs: number | null,
    private readonly pick: () => string,
    private readonly outcome: (state: 'said' | 'cancelled' | 'skipped') => void,
  ) {
    if (afterMs === null || turnSignal.aborted) {
      this.state = 'off';
      this.settle();
      return;
    }
    this.state = 'waiting';
    this.arm(afterMs);
  }

  get status(): FillerState {
    return this.state;
  }
  /** The filler's utterance, once it is being said. */
  get utt(): number | null {
    return this.voice?.utt ?? null;
  }

  /** The answer's first words arrived (or the brain is done): no filler is needed any more. */
  answerStarted() {
    if (this.state === 'waiting') this.end('skipped');
    else if (this.state === 'synthesising') this.cancel();
  }

  /** The answer's voice: on to the page, or held while the filler is being sent. */
  answerEvent(ev: SpeechEvent) {
    if (this.state === 'synthesising') this.cancel();
    if (this.state === 'playing') this.held.push(ev);
    else if (!this.turnSignal.aborted) this.host.emit(ev);
  }

  /**
   * No filler now (the speaker turned off): not started, or cancelled while nothing of it was sent.
   * One whose audio has started ends on its own (a line is short; cut, the page would wait for its end).
   */
  stop() {
    if (this.state === 'waiting') this.end('skipped');
    else if (this.state === 'synthesising') this.cancel();
  }

  private arm(ms: number) {
    this.timer = this.host.clock.setTimeout(() => this.fire(), ms);
  }

  private fire() {
    this.timer = null;
    if (this.state !== 'waiting') return;
    if (this.turnSignal.aborted) return this.end('skipped');
    if (!this.host.quiet()) return this.arm(FILLER_RECHECK_MS);
    const abort = new AbortController();
    const text = this.pick();
    const started = this.host.speak(text, (ev) => this.fillerEvent(ev), AbortSignal.any([abort.signal, this.turnSignal]));
    if (!started) return this.end('skipped');
    this.voice = { ...started, abort };
    this.state = 'synthesising';
    void started.turn.done.then(() => this.fillerDone());
  }

  private fillerEvent(ev: SpeechEvent) {
    if (this.state === 'synthesising' && ev.type === 'utterance' && ev.phase === 'start') this.state = 'playing';
    if (this.state !== 'playing' || this.turnSignal.aborted) return;
    this.host.emit(ev);
  }

  /** The filler's voice has sent its last event: the answer held behind it goes on. */
  private fillerDone() {
    if (this.state !== 'playing') return;
    this.state = 'said';
    this.outcome('said');
    const held = this.held.splice(0);
    if (!this.turnSignal.aborted) for (const ev of held) this.host.emit(ev);
    this.settle();
  }

  /** Only while nothing of it has been sent: the page never hears a part of it. */
  private cancel() {
    this.voice?.abort.abort();
    this.voice?.turn.cancel();
    this.end('cancelled');
  }

  private end(state: 'skipped' | 'cancelled') {
    if (this.timer !== null) this.host.clock.clearTimeout(this.timer);
    this.timer = null;
    this.state = state;
    this.outcome(state);
    this.held = [];
    this.settle();
  }
}
