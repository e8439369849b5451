/**
 * The avatar's audio queue, as the playback worklet runs it (pure: no Web Audio here, so it is
 * unit-tested). Utterances play one after another in arrival order. Each starts only once
 * `prebufferMs` of it is buffered (or the whole of it arrived), so network jitter does not cut
 * the first syllables; a buffer that runs dry mid-utterance is an underrun: silence is written,
 * the utterance's clock stands still, and it resumes after a smaller prebuffer. The play position
 * of each utterance counts only samples really written, so the mouth (driven by it) and the
 * `playback` frames follow what was played, not what the server sent.
 *
 * The worker may hold an utterance (`pause`: the visitor started talking over it) and then let it
 * go on (`resume`) or drop it (`interrupted` → flush). A held utterance fades out over a few ms,
 * then writes silence with its clock standing still; on resume it fades back in from the sample
 * where it stopped. A hold the worker never ends (a lost frame) lets go after `maxHoldMs`.
 */
/** A hold the worker does not release ends by itself after this long (ms). */
export const DEFAULT_MAX_HOLD_MS = 5000;

export interface JitterBufferOptions {
  sampleRate: number;
  /** Buffered audio an utterance needs before it starts (ms). */
  prebufferMs?: number;
  /** After an underrun, audio needed before it resumes (ms). */
  rebufferMs?: number;
  /** Audio kept at most; older queued audio beyond it is dropped (ms). */
  maxBufferMs?: number;
  /** A hold that is not released by then ends by itself (ms). */
  maxHoldMs?: number;
  /** Fade out before a hold and in after it, so the cut does not click (ms). */
  fadeMs?: number;
}

export type JitterEvent =
  /** The first sample of an utterance was written at `offset` within this block. */
  | { type: 'start'; utt: number; offset: number }
  /** The last sample of an utterance was written at `offset`; `played` samples in all. */
  | { type: 'end'; utt: number; offset: number; played: number; interrupted: boolean }
  | { type: 'underrun'; utt: number; offset: number };

interface Utterance {
  utt: number;
  chunks: Float32Array[];
  /** Read position inside chunks[0]. */
  head: number;
  buffered: number;
  played: number;
  /** No more audio will arrive for it. */
  complete: boolean;
  state: 'waiting' | 'playing' | 'rebuffering';
}

/** A hold of one utterance: fading out, then silent for `heldSamples`; after resume, fading in. */
interface Hold {
  phase: 'fading-out' | 'held' | 'fading-in';
  /** Samples into the current fade. */
  fade: number;
  heldSamples: number;
}

export class JitterBuffer {
  readonly sampleRate: number;
  private readonly prebuffer: number;
  private readonly rebuffer: number;
  private readonly maxBuffer: number;
  private readonly queue: Utterance[] = [];
  private readonly finished = new Set<number>();
  private readonly holds = new Map<number, Hold>();
  private readonly maxHold: number;
  private readonly fade: number;
  underruns = 0;
  dropped = 0;

  constructor(opts: JitterBufferOptions) {
    this.sampleRate = opts.sampleRate;
    const samples = (ms: number) => Math.max(0, Math.round((ms * opts.sampleRate) / 1000));
    this.prebuffer = samples(opts.prebufferMs ?? 80);
    this.rebuffer = samples(opts.rebufferMs ?? 40);
    this.maxBuffer = samples(opts.maxBufferMs ?? 60_000);
    this.maxHold = samples(opts.maxHoldMs ?? DEFAULT_MAX_HOLD_MS);
    this.fade = Math.max(1, samples(opts.fadeMs ?? 8));
  }

  /** Holds an utterance where it is (or before it starts, if it has not). */
  pause(utt: number): void {
    if (this.finished.has(utt)) return;
    const h = this.holds.get(utt);
    if (!h) this.holds.set(utt, { phase: 'fading-out', fade: 0, heldSamples: 0 });
    else if (h.phase === 'fading-in') {
      h.phase = 'fading-out';
      h.fade = this.fade - h.fade;
    }
    this.holds.get(utt)!.heldSamples = 0;
    if (this.holds.size > 16) this.holds.delete(this.holds.keys().next().value!);
  }

  /** Lets a held utterance go on from where it stopped. */
  resume(utt: number): void {
    const h = this.holds.get(utt);
    if (!h) return;
    if (h.phase === 'held') {
      h.phase = 'fading-in';
      h.fade = 0;
    } else if (h.phase === 'fading-out') {
      h.phase = 'fading-in';
      h.fade = this.fade - h.fade;
    }
  }

  /** Whether an utterance is held (silent, its clock standing still). */
  isHeld(utt: number): boolean {
    const h = this.holds.get(utt);
    return h !== undefined && h.phase !== 'fading-in';
  }

  private find(utt: number): Utterance | undefined {
    return this.queue.find((u) => u.utt === utt);
  }

  private open(utt: number): Utterance | undefined {
    if (this.finished.has(utt)) return undefined; // late audio of an utterance already over
    let u = this.find(utt);
    if (!u) {
      u = { utt, chunks: [], head: 0, buffered: 0, played: 0, complete: false, state: 'waiting' };
      this.queue.push(u);
    }
    return u;
  }

  /** PCM16LE samples of an utterance (`last`: no more will follow). */
  push(utt: number, pcm: Int16Array, last = false): void {
    const u = this.open(utt);
    if (!u || u.complete) return;
    if (pcm.length) {
      const room = this.maxBuffer - this.totalBuffered();
      const n = Math.min(pcm.length, Math.max(0, room));
      if (n < pcm.length) this.dropped += pcm.length - n;
      if (n > 0) {
        const f = new Float32Array(n);
        for (let i = 0; i < n; i++) f[i] = pcm[i]! / 32768;
        u.chunks.push(f);
        u.buffered += n;
      }
    }
    if (last) u.complete = true;
  }

  /** No more audio for this utterance (the server's `utterance end`). */
  end(utt: number): void {
    const u = this.open(utt);
    if (u) u.complete = true;
  }

  /**
   * Drops an utterance (interrupted, or every queued one when utt is undefined). Returns the
   * samples each had played; one that was playing ends with an `end` event on the next read.
   */
  flush(utt?: number): { utt: number; played: number }[] {
    const out: { utt: number; played: number }[] = [];
    for (let i = this.queue.length - 1; i >= 0; i--) {
      const u = this.queue[i]!;
      if (utt !== undefined && u.utt !== utt) continue;
      out.push({ utt: u.utt, played: u.played });
      this.queue.splice(i, 1);
      this.holds.delete(u.utt);
      this.finished.add(u.utt);
      if (u.played > 0) this.pendingEnds.push({ utt: u.utt, played: u.played });
    }
    this.trimFinished();
    return out;
  }

  private readonly pendingEnds: { utt: number; played: number }[] = [];

  /**
   * Forgets which utterances are over. Their numbers mean nothing on a new connection: a worker
   * that takes the session over after another one died counts its utterances from 1 again, and
   * its audio must not be taken for the late audio of the dead worker's.
   */
  forgetFinished() {
    this.finished.clear();
  }

  private trimFinished() {
    if (this.finished.size > 256) {
      const keep = [...this.finished].slice(-128);
      this.finished.clear();
      for (const k of keep) this.finished.add(k);
    }
  }

  totalBuffered(): number {
    let n = 0;
    for (const u of this.queue) n += u.buffered;
    return n;
  }

  /** The utterance now playing (or about to), if any. */
  get current(): { utt: number; played: number; buffered: number; state: Utterance['state'] } | null {
    const u = this.queue[0];
    return u ? { utt: u.utt, played: u.played, buffered: u.buffered, state: u.state } : null;
  }

  /** Fills `out` (mono) with the next samples; returns what happened inside the block. */
  read(out: Float32Array): JitterEvent[] {
    const events: JitterEvent[] = [];
    for (const e of this.pendingEnds.splice(0)) events.push({ type: 'end', utt: e.utt, offset: 0, played: e.played, interrupted: true });
    let pos = 0;
    while (pos < out.length) {
      const u = this.queue[0];
      if (!u) break;
      const hold = this.holds.get(u.utt);
      if (hold && (hold.phase === 'held' || (hold.phase === 'fading-out' && u.state === 'waiting'))) {
        // Held: silence, and the utterance's clock stands still (until resume, or maxHold).
        hold.phase = 'held';
        hold.heldSamples += out.length - pos;
        if (hold.heldSamples >= this.maxHold) {
          hold.phase = 'fading-in';
          hold.fade = 0;
        }
        break;
      }
      if (u.state !== 'playing') {
        const need = u.state === 'waiting' ? this.prebuffer : this.rebuffer;
        if (u.buffered < need && !u.complete) break;
        if (u.buffered === 0 && u.complete) {
          // Nothing (more) to play: the utterance is over.
          this.queue.shift();
          this.finished.add(u.utt);
          this.holds.delete(u.utt);
          if (u.played > 0 || u.state === 'waiting') events.push({ type: 'end', utt: u.utt, offset: pos, played: u.played, interrupted: false });
          continue;
        }
        if (u.state === 'waiting') events.push({ type: 'start', utt: u.utt, offset: pos });
        u.state = 'playing';
      }
      if (u.buffered === 0) {
        if (u.complete) {
          this.queue.shift();
          this.finished.add(u.utt);
          this.holds.delete(u.utt);
          events.push({ type: 'end', utt: u.utt, offset: pos, played: u.played, interrupted: false });
          continue;
        }
        u.state = 'rebuffering';
        this.underruns++;
        events.push({ type: 'underrun', utt: u.utt, offset: pos });
        break;
      }
      const chunk = u.chunks[0]!;
      let n = Math.min(out.length - pos, chunk.length - u.head);
      if (hold) n = Math.min(n, this.fade - hold.fade);
      out.set(chunk.subarray(u.head, u.head + n), pos);
      if (hold) this.applyFade(hold, u.utt, out, pos, n);
      pos += n;
      u.head += n;
      u.buffered -= n;
      u.played += n;
      if (u.head >= chunk.length) {
        u.chunks.shift();
        u.head = 0;
      }
    }
    if (pos < out.length) out.fill(0, pos);
    this.trimFinished();
    return events;
  }

  /** Scales `n` samples written at `pos` by the hold's fade, and moves the fade on. */
  private applyFade(hold: Hold, utt: number, out: Float32Array, pos: number, n: number) {
    const out_ = hold.phase === 'fading-out';
    for (let i = 0; i < n; i++) {
      const x = (hold.fade + i + 1) / this.fade;
      out[pos + i]! *= out_ ? 1 - x : x;
    }
    hold.fade += n;
    if (hold.fade < this.fade) return;
    if (out_) {
      hold.phase = 'held';
      hold.heldSamples = 0;
    } else {
      this.holds.delete(utt);
    }
  }
}
