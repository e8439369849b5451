import { AudioFrameFlag, AudioFrameKind, AvatarActionLimits, writeAudioFrame, type TAvatarAction, type TWorkerFrame } from '@persona/contract';
import { ProviderError } from '../core/errors.js';
import type { TtsChunk, TtsEngine } from '../providers/tts/types.js';
import { Resampler, SilenceTrimmer, samplesToBytes } from '../core/audio.js';
import { SpeechChunker, type ChunkerOptions, type PieceBoundary, type SpeechPiece } from './chunker.js';
import { speechControl } from './speech-controls.js';
import { shiftVisemes, shiftWords, textToVisemes, textToWords, type VisemeItem, type WordItem } from '../core/visemes.js';


/** Lets timers and I/O run before the next piece of work (a macrotask turn). */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));
/**
 * The avatar's voice for one session: the brain's text stream → pieces (chunker) → speech (one
 * TTS engine) → events the session turns into frames (LiveProtocol): `utterance start`, binary
 * PCM16LE audio at one rate per session, `visemes` and `words` with times in ms from the
 * utterance's first sample, `utterance end`.
 *
 * One turn is one utterance (the session's `utt`, as in `assistant {utt}`): its pieces are laid
 * end to end, so a piece's timings are offset by the audio of the pieces before it. Pieces are
 * synthesised as soon as they are complete, up to `lookahead` at once (piece N+1 is being made
 * while piece N plays), and always emitted in order. Each piece's leading silence is cut and its
 * trailing silence capped by the pause its end calls for. Interrupting a turn aborts every
 * request at once and emits nothing more. A provider failure ends the turn's speech with one
 * `error` event (what was already said stays); the text goes on in the chat.
 *
 * Two avatar tags change the voice (speech-controls.ts, ADR 088): at a `<trl-break>` the text is
 * cut and the pause's silence goes out before the next piece's audio (its words, visemes and the
 * actions after it come that much later; what is heard of it is nothing), at most
 * AvatarActionLimits.breakTotalMs in one turn, none after the last word; a `<trl-config
 * speechSpeed>` cuts the text too, and the pieces after it are synthesised at that rate — for the
 * rest of the session (Trulience's tag configures the avatar), until another one.
 */

export type SpeechEvent =
  | { type: 'utterance'; utt: number; phase: 'start' }
  /** PCM16LE mono at the pipeline's rate; the last frame of an utterance is empty and flagged. */
  | { type: 'audio'; utt: number; seq: number; pcm: Uint8Array; last: boolean }
  | { type: 'visemes'; utt: number; items: VisemeItem[] }
  | { type: 'words'; utt: number; items: WordItem[] }
  | { type: 'utterance'; utt: number; phase: 'end'; durationMs: number }
  /** An avatar action, at `t` ms of the utterance: where the words after its mark begin. */
  | { type: 'action'; utt: number; t: number; action: TAvatarAction; source: ActionSource }
  | { type: 'error'; utt: number; error: ProviderError };

/** Who asked for an action: a tag in the brain's answer, or the worker's cue from its tone. */
export type ActionSource = 'tag' | 'cue';

export interface SpeechTurnMetrics {
  utt: number;
  provider: string;
  /** performance.now() when the first text arrived / the first audio was emitted. */
  firstTextAt: number | null;
  firstAudioAt: number | null;
  /** From the first text token to the first audio: the voice's share of the wait. */
  firstAudioMs: number | null;
  pieces: number;
  /** Audio emitted, ms. */
  audioMs: number;
  /** Per piece: from its request to its first audio, ms. */
  synthesisMs: number[];
  error: string | null;
  interrupted: boolean;
}

export interface SpeechTurn {
  readonly utt: number;
  /** Text from the brain, as it streams (the chat shows it as is; only speech is cleaned). */
  push(delta: string): void;
  /**
   * An avatar action at a place in the text pushed (`at`, in characters; default: the end of what
   * was pushed so far). It is sent once that place's time in the utterance is known: the start of
   * the word that follows it; after the last word, at the end of the voice. Dropped when the turn
   * is cancelled.
   */
  mark(action: TAvatarAction, source: ActionSource, at?: number): void;
  /** The brain finished: the rest of the text is spoken. */
  end(): void;
  /** Interruption: stops every request and emits nothing more. */
  cancel(): void;
  /** Resolves when the turn's last event was emitted (or it was cancelled). */
  readonly done: Promise<SpeechTurnMetrics>;
  /** What the visitor heard when playback stopped after `playedMs` of this utterance. */
  heardText(playedMs: number): string;
}

export interface StartTurnOptions {
  /** The utterance id (the session's `utt`; 16 bits on audio frames). */
  utt: number;
  onEvent: (event: SpeechEvent) => void;
  /** Aborting it is `cancel()`. */
  signal?: AbortSignal;
}

export interface SpeechPipeline {
  readonly provider: string;
  /** The rate of every audio event (`ready.audioSampleRate`). */
  readonly sampleRate: number;
  startTurn(options: StartTurnOptions): SpeechTurn;
  /** A whole text at once (the wake-up message, `speak` frames). */
  speak(text: string, options: StartTurnOptions): SpeechTurn;
  /**
   * An avatar action outside any utterance (a line of tags only, the speaker off): a `<trl-config
   * speechSpeed>` sets the session's rate all the same; a pause has nothing to pause.
   */
  configure(action: TAvatarAction): void;
}

export interface SpeechPipelineOptions {
  tts: TtsEngine;
  /** The session's audio rate (default: the engine's). */
  sampleRate?: number;
  chunker?: ChunkerOptions;
  /** Pieces being synthesised at once (default 2). */
  lookahead?: number;
  /** Longest audio frame, ms (default 100). */
  frameMs?: number;
  /** Called with each turn's figures when it ends. */
  onMetrics?: (metrics: SpeechTurnMetrics) => void;
  now?: () => number;
}

/** Words of a stretch of pushed text, as the voice's word timings count them. */
const countWords = (text: string) => text.split(/\s+/).filter((w) => /[\p{L}\p{N}]/u.test(w)).length;

/** Cuts of the text for the voice's tags in one answer; past them a pause or a speed starts with the next piece. */
const MAX_CUTS = 16;

/** Items per `visemes`/`words` frame (≈ 40 bytes each: far below the 16 KB frame limit). */
const MAX_ITEMS = 150;

/** Silence kept after a piece, by what ended it (ms). */
const TRAIL_MS: Record<PieceBoundary, number> = { sentence: 260, line: 320, clause: 140, forced: 40, end: 120, cut: 40 };

/** What a piece's synthesis produced, times relative to the piece's first emitted sample. */
type PieceEvent = { kind: 'audio'; samples: Int16Array } | { kind: 'visemes'; items: VisemeItem[] } | { kind: 'words'; items: WordItem[] };

interface PieceJob {
  piece: SpeechPiece;
  /** Aborts this piece's request (interruption, or an earlier piece failed). */
  ctl: AbortController;
  previousText: string;
  started: boolean;
  finished: boolean;
  error: ProviderError | null;
  buffered: PieceEvent[];
  /** Set while this job's events go straight out. */
  live: boolean;
  /** Utterance ms where this piece's audio begins (known once it is emitting). */
  offsetMs: number;
  audioSamples: number;
  words: WordItem[];
  /** The speaking rate it is synthesised at (`<trl-config speechSpeed>`; 1: the voice's as configured). */
  rate: number;
  /** All of its audio went out (not cut off by an interruption or a failure). */
  spoken: boolean;
}

export function createSpeechPipeline(options: SpeechPipelineOptions): SpeechPipeline {
  const tts = options.tts;
  const rate = options.sampleRate ?? tts.sampleRate;
  const lookahead = Math.max(1, options.lookahead ?? 2);
  const frameSamples = Math.max(1, Math.round(((options.frameMs ?? 100) * rate) / 1000));
  const now = options.now ?? (() => performance.now());
  /** `<trl-config speechSpeed>`: the session's speaking rate, a multiplier of the voice's as configured. */
  let speechRate = 1;

  const startTurn = ({ utt, onEvent, signal }: StartTurnOptions): SpeechTurn => {
    const chunker = new SpeechChunker(options.chunker);
    const jobs: PieceJob[] = [];
    let emitIndex = 0;
    let ended = false;
    let stopped = false;
    let failed: ProviderError | null = null;
    let startedUtterance = false;
    let seq = 0;
    let utteranceSamples = 0;
    let lastText = '';
    /** Everything pushed, as pushed (the pieces' raw offsets point into it). */
    let pushed = '';
    const marks: { action: TAvatarAction; source: ActionSource; at: number }[] = [];
    /** `<trl-break>`s waiting for the piece after them; `at` is where the text was cut. */
    const breaks: { action: TAvatarAction; source: ActionSource; at: number; ms: number }[] = [];
    let breakMsLeft: number = AvatarActionLimits.breakTotalMs;
    let cutsLeft = MAX_CUTS;
    let resolveDone!: (m: SpeechTurnMetrics) => void;
    const done = new Promise<SpeechTurnMetrics>((r) => (resolveDone = r));
    const metrics: SpeechTurnMetrics = {
      utt,
      provider: tts.provider,
      firstTextAt: null,
      firstAudioAt: null,
      firstAudioMs: null,
      pieces: 0,
      audioMs: 0,
      synthesisMs: [],
      error: null,
      interrupted: false,
    };

    const emit = (ev: SpeechEvent) => {
      if (stopped) return;
      try {
        onEvent(ev);
      } catch {
        // the session's handler must not break the voice
      }
    };
    const ensureStarted = () => {
      if (!startedUtterance) {
        startedUtterance = true;
        emit({ type: 'utterance', utt, phase: 'start' });
      }
    };

    /** The utterance time of a mark, or null while it cannot be known yet. */
    const markTime = (at: number): number | null => {
      const job = jobs.find((j) => j.piece.rawEnd > at);
      if (!job?.live) return null;
      const k = at <= job.piece.rawStart ? 0 : countWords(pushed.slice(job.piece.rawStart, at));
      if (k === 0) return job.offsetMs;
      if (job.words.length > k) return job.words[k]!.t;
      return job.finished ? job.offsetMs + (job.audioSamples * 1000) / rate : null;
    };
    /** Sends the marks whose time is known (once the utterance has started: its frames come first). */
    const resolveMarks = () => {
      if (stopped || !startedUtterance) return;
      for (let m = 0; m < marks.length; ) {
        const t = markTime(marks[m]!.at);
        if (t === null) {
          m++;
          continue;
        }
        const [mark] = marks.splice(m, 1);
        emit({ type: 'action', utt, t: Math.max(0, Math.round(t)), action: mark!.action, source: mark!.source });
      }
    };

    const finish = (interrupted: boolean) => {
      if (stopped) return;
      if (!interrupted && startedUtterance) {
        resolveMarks();
        // Marks after the last word: at the end of the voice (a pause there pauses nothing).
        const endMs = Math.round((utteranceSamples * 1000) / rate);
        for (const mark of [...breaks.splice(0), ...marks.splice(0)]) emit({ type: 'action', utt, t: endMs, action: mark.action, source: mark.source });
        emit({ type: 'audio', utt, seq: seq++, pcm: new Uint8Array(0), last: true });
        emit({ type: 'utterance', utt, phase: 'end', durationMs: (utteranceSamples * 1000) / rate });
      }
      stopped = true;
      metrics.interrupted = interrupted;
      metrics.audioMs = (utteranceSamples * 1000) / rate;
      metrics.error = failed ? failed.message : null;
      for (const job of jobs) job.ctl.abort(new Error('speech stopped'));
      options.onMetrics?.(metrics);
      resolveDone(metrics);
    };

    /** Sends one piece event to the page, in utterance time. */
    const forward = (job: PieceJob, ev: PieceEvent) => {
      if (ev.kind === 'audio') {
        if (ev.samples.length === 0) return;
        ensureStarted();
        if (metrics.firstAudioAt === null) {
          metrics.firstAudioAt = now();
          metrics.firstAudioMs = metrics.firstTextAt === null ? null : metrics.firstAudioAt - metrics.firstTextAt;
        }
        for (let at = 0; at < ev.samples.length; at += frameSamples) {
          const part = ev.samples.subarray(at, Math.min(ev.samples.length, at + frameSamples));
          emit({ type: 'audio', utt, seq: seq++, pcm: samplesToBytes(part), last: false });
        }
        utteranceSamples += ev.samples.length;
        job.audioSamples += ev.samples.length;
        return;
      }
      ensureStarted();
      // In batches, so that no JSON frame comes near LiveProtocol.maxTextFrame.
      if (ev.kind === 'visemes') {
        const items = shiftVisemes(ev.items, job.offsetMs);
        for (let at = 0; at < items.length; at += MAX_ITEMS) emit({ type: 'visemes', utt, items: items.slice(at, at + MAX_ITEMS) });
      } else {
        const items = shiftWords(ev.items, job.offsetMs);
        job.words.push(...items);
        for (let at = 0; at < items.length; at += MAX_ITEMS) emit({ type: 'words', utt, items: items.slice(at, at + MAX_ITEMS) });
      }
      resolveMarks();
    };

    /**
     * The pauses (`<trl-break>`) before a piece whose audio starts now: each one's action at its
     * start, then its silence — the piece's audio, words and visemes come after it.
     */
    const pauseBefore = (job: PieceJob) => {
      for (let b = 0; b < breaks.length; ) {
        const pause = breaks[b]!;
        if (pause.at > job.piece.rawStart) {
          b++;
          continue;
        }
        breaks.splice(b, 1);
        ensureStarted();
        emit({ type: 'action', utt, t: Math.round((utteranceSamples * 1000) / rate), action: pause.action, source: pause.source });
        const silence = new Int16Array(Math.round((pause.ms * rate) / 1000));
        for (let at = 0; at < silence.length; at += frameSamples) {
          emit({ type: 'audio', utt, seq: seq++, pcm: samplesToBytes(silence.subarray(at, Math.min(silence.length, at + frameSamples))), last: false });
        }
        utteranceSamples += silence.length;
      }
    };

    /** Moves the emission on: flushes finished pieces in order, starts syntheses ahead. */
    const advance = () => {
      if (stopped) return;
      while (emitIndex < jobs.length) {
        const job = jobs[emitIndex]!;
        if (!job.live) {
          job.live = true;
          pauseBefore(job);
          job.offsetMs = (utteranceSamples * 1000) / rate;
          for (const ev of job.buffered.splice(0)) forward(job, ev);
        }
        if (!job.finished) break;
        if (job.error) {
          failed = job.error;
          ensureStarted();
          emit({ type: 'error', utt, error: job.error });
          // What is left of the answer stays in the chat only.
          for (const later of jobs.splice(emitIndex + 1)) later.ctl.abort(new Error('an earlier piece failed'));
          ended = true;
          emitIndex++;
          break;
        }
        emitIndex++;
      }
      for (let k = emitIndex; k < Math.min(jobs.length, emitIndex + lookahead); k++) {
        const job = jobs[k]!;
        if (!job.started && !failed) {
          job.started = true;
          void run(job);
        }
      }
      resolveMarks();
      if (ended && emitIndex >= jobs.length) finish(false);
    };

    const deliver = (job: PieceJob, ev: PieceEvent) => {
      if (stopped) return;
      if (job.live) forward(job, ev);
      else job.buffered.push(ev);
    };

    /** Synthesises one piece: resample → trim → audio events; marks shifted by the cut lead. */
    const run = async (job: PieceJob) => {
      const started = now();
      let firstChunk = true;
      const trimmer = new SilenceTrimmer(rate);
      let resampler: Resampler | null = null;
      let held: { visemes: VisemeItem[]; words: WordItem[] } = { visemes: [], words: [] };
      let gotVisemes = false;
      let gotWords = false;
      const leadMs = () => (trimmer.trimmedLead * 1000) / rate;
      const emitMarks = (visemes: VisemeItem[], words: WordItem[]) => {
        // Marks count from the provider's first sample: the cut lead moves them earlier.
        if (visemes.length) deliver(job, { kind: 'visemes', items: shiftVisemes(visemes, -leadMs()) });
        if (words.length) deliver(job, { kind: 'words', items: shiftWords(words, -leadMs()) });
      };
      const onChunk = (chunk: TtsChunk) => {
        if (chunk.marks?.visemes?.length) gotVisemes = true;
        if (chunk.marks?.words?.length) gotWords = true;
        let samples = chunk.pcm;
        if (samples.length) {
          if (firstChunk) {
            firstChunk = false;
            metrics.synthesisMs.push(now() - started);
          }
          if (chunk.sampleRate !== rate) {
            if (!resampler || resampler.from !== chunk.sampleRate) resampler = new Resampler(chunk.sampleRate, rate);
            samples = resampler.push(samples);
          }
          const out = trimmer.push(samples);
          const wasHeld = held;
          if (trimmer.emitted > 0 && (wasHeld.visemes.length || wasHeld.words.length)) {
            held = { visemes: [], words: [] };
            emitMarks(wasHeld.visemes, wasHeld.words);
          }
          if (out.length) deliver(job, { kind: 'audio', samples: out });
        }
        const v = chunk.marks?.visemes ?? [];
        const w = chunk.marks?.words ?? [];
        if (!v.length && !w.length) return;
        // Until speech starts the cut is not known: hold the marks.
        if (trimmer.emitted === 0) {
          held.visemes.push(...v);
          held.words.push(...w);
        } else emitMarks(v, w);
      };
      try {
        const synthesis = { signal: job.ctl.signal, previousText: job.previousText || undefined, ...(job.rate !== 1 ? { rate: job.rate } : {}) };
        for await (const chunk of tts.synthesize(job.piece.text, synthesis)) {
          if (stopped) return;
          onChunk(chunk);
          // A voice that answers at once (the offline voice's cache, a fast local engine) would
          // otherwise run every piece of a long answer in one chain of microtasks, holding the
          // event loop — the portal's too, for the embedded worker (570 ms of CPU in one go for
          // five long lines).
          await yieldToLoop();
        }
        if (stopped) return;
        if (resampler) {
          const tail = (resampler as Resampler).flush();
          const out = trimmer.push(tail);
          if (out.length) deliver(job, { kind: 'audio', samples: out });
        }
        const tail = trimmer.end(TRAIL_MS[job.piece.boundary]);
        if (tail.length) deliver(job, { kind: 'audio', samples: tail });
        job.spoken = true;
        if (trimmer.emitted > 0) {
          if (held.visemes.length || held.words.length) emitMarks(held.visemes, held.words);
          const startMs = (trimmer.leadKept * 1000) / rate;
          const speechMs = (trimmer.speechEnd * 1000) / rate - startMs;
          // No timings from the provider: the text's own visemes, scaled to the real audio.
          if (!gotVisemes) deliver(job, { kind: 'visemes', items: textToVisemes(job.piece.text, speechMs, startMs) });
          else deliver(job, { kind: 'visemes', items: [{ t: (trimmer.speechEnd * 1000) / rate, v: 'sil', d: 100 }] });
          if (!gotWords) deliver(job, { kind: 'words', items: textToWords(job.piece.text, speechMs, startMs) });
        }
      } catch (err) {
        if (stopped || job.ctl.signal.aborted) return;
        job.error = err instanceof ProviderError ? err : new ProviderError(tts.provider, err instanceof Error ? err.message : String(err));
      } finally {
        job.finished = true;
        advance();
      }
    };

    const addPieces = (pieces: SpeechPiece[]) => {
      for (const piece of pieces) {
        metrics.pieces++;
        jobs.push({ piece, ctl: new AbortController(), previousText: lastText, started: false, finished: false, error: null, buffered: [], live: false, offsetMs: 0, audioSamples: 0, words: [], rate: speechRate, spoken: false });
        lastText = piece.text;
      }
      advance();
    };

    const onAbort = () => turn.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    void done.then(() => signal?.removeEventListener('abort', onAbort));

    const turn: SpeechTurn = {
      utt,
      push(delta) {
        if (stopped || ended || !delta) return;
        if (metrics.firstTextAt === null) metrics.firstTextAt = now();
        pushed += delta;
        addPieces(chunker.push(delta));
      },
      mark(action, source, at) {
        if (stopped) return;
        const control = speechControl(action);
        if (control && !ended) {
          // The voice changes here: the text so far is cut (at most MAX_CUTS times an answer: a
          // tag between every two words would otherwise ask for one synthesis per word), the next
          // piece starts after the tag.
          const cut = () => {
            if (cutsLeft <= 0) return;
            cutsLeft--;
            addPieces(chunker.cutHere());
          };
          if (control.kind === 'rate') {
            if (control.rate !== speechRate) cut();
            speechRate = control.rate;
          } else {
            const ms = Math.min(control.ms, breakMsLeft);
            breakMsLeft -= ms;
            if (ms > 0) {
              cut();
              breaks.push({ action, source, at: pushed.length, ms });
              return;
            }
          }
        }
        marks.push({ action, source, at: Math.max(0, Math.min(pushed.length, at ?? pushed.length)) });
        resolveMarks();
      },
      end() {
        if (stopped || ended) return;
        const rest = chunker.flush();
        ended = true;
        addPieces(rest);
      },
      cancel() {
        finish(true);
      },
      done,
      heardText(playedMs) {
        const parts: string[] = [];
        for (const job of jobs) {
          if (!job.live) break;
          const startMs = job.offsetMs;
          const endMs = job.offsetMs + (job.audioSamples * 1000) / rate;
          // Heard to its end (a piece cut off — in a pause before it, or mid-way — only by its words).
          if (job.spoken && playedMs >= endMs - 1) {
            parts.push(job.piece.text);
            continue;
          }
          if (playedMs > startMs) {
            const heard = job.words.filter((w) => w.t + w.d / 2 <= playedMs).map((w) => w.w);
            if (heard.length) parts.push(heard.join(' '));
          }
          break;
        }
        return parts.join(' ');
      },
    };
    if (signal?.aborted) turn.cancel();
    return turn;
  };

  return {
    provider: tts.provider,
    sampleRate: rate,
    startTurn,
    configure(action) {
      const control = speechControl(action);
      if (control?.kind === 'rate') speechRate = control.rate;
    },
    speak(text, opts) {
      const turn = startTurn(opts);
      turn.push(text);
      turn.end();
      return turn;
    },
  };
}

/**
 * A pipeline event as the session sends it (LiveProtocol): audio as a binary avatar frame
 * (8-byte header: kind, flags, utterance, seq), the rest as JSON frames. `error` has no frame of
 * its own: the session logs it for the owner (provider, status, avatar) and the text stays in
 * the chat; the utterance still ends with its `utterance end`.
 */
export function speechFrame(ev: SpeechEvent): { binary: Uint8Array } | { json: TWorkerFrame } | null {
  switch (ev.type) {
    case 'audio':
      return { binary: writeAudioFrame({ kind: AudioFrameKind.avatar, flags: ev.last ? AudioFrameFlag.last : 0, utterance: ev.utt, seq: ev.seq }, ev.pcm) };
    case 'utterance':
      return { json: { type: 'utterance', utt: ev.utt, phase: ev.phase } };
    case 'visemes':
      return { json: { type: 'visemes', utt: ev.utt, items: ev.items } };
    case 'words':
      return { json: { type: 'words', utt: ev.utt, items: ev.items } };
    case 'action':
      return { json: { type: 'action', utt: ev.utt, t: ev.t, action: ev.action, source: ev.source } };
    case 'error':
      return null;
  }
}
