import type { MicProblem } from './mic-capture';

/**
 * The browser's own speech recognition (Web Speech API), the page's fallback when the worker does
 * not listen (no STT configured and no offline recogniser installed) — in browsers that have it
 * (Chrome, Edge, Safari; not Firefox, not headless Chromium). What it hears goes to the avatar as
 * typed text. Chrome sends the audio to its vendor's service: this is the browser's doing, and
 * only when the worker cannot listen itself. It is paused while the avatar speaks (its capture
 * may not cancel the avatar's voice, and the avatar must not answer itself).
 */
interface RecognitionResultList {
  readonly length: number;
  [index: number]: { readonly isFinal: boolean; readonly length: number; [index: number]: { transcript: string } };
}
export interface SpeechRecognitionLike {
  lang: string;
  continuous: boolean;
  interimResults: boolean;
  onstart: (() => void) | null;
  onresult: ((e: { resultIndex: number; results: RecognitionResultList }) => void) | null;
  onerror: ((e: { error: string }) => void) | null;
  onend: (() => void) | null;
  start(): void;
  stop(): void;
  abort(): void;
}
export type SpeechRecognitionCtor = new () => SpeechRecognitionLike;

export function browserRecognitionCtor(win: Window = window): SpeechRecognitionCtor | null {
  const w = win as unknown as { SpeechRecognition?: SpeechRecognitionCtor; webkitSpeechRecognition?: SpeechRecognitionCtor };
  return w.SpeechRecognition ?? w.webkitSpeechRecognition ?? null;
}

export interface BrowserRecognitionEvents {
  interim(text: string): void;
  final(text: string): void;
  lost(problem: MicProblem): void;
}

export function recognitionProblem(error: string): MicProblem | null {
  if (error === 'not-allowed' || error === 'service-not-allowed') return 'denied';
  if (error === 'audio-capture') return 'missing';
  if (error === 'no-speech' || error === 'aborted') return null;
  return 'unavailable';
}

type StartResult = { ok: true } | { ok: false; problem: MicProblem } | { ok: false; cancelled: true };

export interface BrowserRecognitionOptions {
  /** First delay before restarting a session that ended quickly (ms; doubles up to maxBackoffMs). */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** A session that ran at least this long (or heard something) restarts at once. */
  healthyMs?: number;
}

export class BrowserRecognition {
  private rec: SpeechRecognitionLike | null = null;
  private wanted = false;
  private paused = false;
  /** The pending start()'s resolver, until the browser started, refused, or start was cancelled. */
  private settle: ((r: StartResult) => void) | null = null;
  private restartTimer: ReturnType<typeof setTimeout> | null = null;
  /** Sessions in a row that ended quickly (Chrome ending at once, over and over): the backoff's exponent. */
  private quickEnds = 0;

  constructor(
    private readonly Ctor: SpeechRecognitionCtor,
    private readonly events: BrowserRecognitionEvents,
    private readonly lang: string,
    private readonly options: BrowserRecognitionOptions = {},
  ) {}

  get active(): boolean {
    return this.wanted;
  }

  /**
   * Starts listening; resolves once the browser started (after its permission prompt), refused, or
   * — when stop() or pause(true) ran first — with `cancelled`.
   */
  start(): Promise<StartResult> {
    if (this.wanted) return Promise.resolve({ ok: true });
    this.wanted = true;
    this.quickEnds = 0;
    return new Promise((resolve) => {
      this.settle = resolve;
      this.open();
    });
  }

  private finishStart(r: StartResult): boolean {
    const settle = this.settle;
    if (!settle) return false;
    this.settle = null;
    settle(r);
    return true;
  }

  /** A failure: the pending start() answers it, or (a restart) the page hears it through lost(). */
  private fail(problem: MicProblem) {
    this.wanted = false;
    this.rec = null;
    this.clearRestart();
    if (!this.finishStart({ ok: false, problem })) this.events.lost(problem);
  }

  private open() {
    this.clearRestart();
    let rec: SpeechRecognitionLike;
    try {
      rec = new this.Ctor();
    } catch {
      this.fail('unsupported');
      return;
    }
    this.rec = rec;
    let startedAt = 0;
    let heard = false;
    rec.lang = this.lang;
    rec.continuous = true;
    rec.interimResults = true;
    rec.onstart = () => {
      if (this.rec !== rec) return;
      startedAt = Date.now();
      this.finishStart({ ok: true });
    };
    rec.onresult = (e) => {
      if (this.rec !== rec) return;
      let interim = '';
      for (let i = e.resultIndex; i < e.results.length; i++) {
        const r = e.results[i]!;
        const text = r[0]?.transcript.trim() ?? '';
        if (!text) continue;
        heard = true;
        if (r.isFinal) this.events.final(text);
        else interim += (interim ? ' ' : '') + text;
      }
      if (interim) this.events.interim(interim);
    };
    rec.onerror = (e) => {
      if (this.rec !== rec) return;
      const problem = recognitionProblem(e.error);
      if (problem) this.fail(problem);
    };
    rec.onend = () => {
      // Chrome ends a session after a silence or a minute: go on while the visitor wants it —
      // at once after a healthy session, with a growing delay when sessions keep ending at once.
      if (this.rec !== rec) return;
      this.rec = null;
      if (!this.wanted || this.paused) return;
      const healthy = heard || (startedAt > 0 && Date.now() - startedAt >= (this.options.healthyMs ?? 5000));
      this.quickEnds = healthy ? 0 : this.quickEnds + 1;
      const delay = this.quickEnds === 0 ? 0 : Math.min(this.options.maxBackoffMs ?? 10_000, (this.options.backoffMs ?? 250) * 2 ** (this.quickEnds - 1));
      this.restartTimer = setTimeout(() => {
        this.restartTimer = null;
        if (this.wanted && !this.paused && !this.rec) this.open();
      }, delay);
    };
    try {
      rec.start();
    } catch {
      this.fail('unavailable');
    }
  }

  private clearRestart() {
    if (this.restartTimer !== null) clearTimeout(this.restartTimer);
    this.restartTimer = null;
  }

  /** The avatar speaks: stop listening until it is done (a start still pending answers cancelled). */
  pause(paused: boolean) {
    if (this.paused === paused) return;
    this.paused = paused;
    if (paused) {
      this.clearRestart();
      const rec = this.rec;
      this.rec = null;
      rec?.abort();
      this.finishStart({ ok: false, cancelled: true });
    } else if (this.wanted && !this.rec) {
      this.open();
    }
  }

  stop() {
    this.wanted = false;
    this.clearRestart();
    const rec = this.rec;
    this.rec = null;
    rec?.abort();
    this.finishStart({ ok: false, cancelled: true });
  }
}
