import workletUrl from './player-worklet.ts?worker&url';
import { LevelEnvelope } from './level-envelope';
import { openLoopback, type Loopback } from './loopback';
import { PlayClock, type ClockEvent } from './play-clock';
import { DEFAULT_MAX_HOLD_MS } from './jitter-buffer';
import type { PlayerInbound, PlayerOutbound } from './player-worklet';

export interface AvatarAudioEvents {
  /** The first sample of an utterance is being heard. */
  started(utt: number): void;
  /** Playback progress (every ~500 ms while an utterance is heard). */
  progress(utt: number, playedMs: number): void;
  /** Its last sample was heard (or it was cut off). */
  ended(utt: number, playedMs: number, interrupted: boolean): void;
  /** The browser blocked sound until the visitor interacts with the page. */
  blocked(isBlocked: boolean): void;
  /**
   * What the visitor hears changed stream (the player opened, the loopback took over, it closed):
   * the microphone's own echo canceller takes it as its far end (mic-echo.ts, ADR 108).
   */
  audible?(stream: MediaStream | null): void;
}

export type OutputRoute = 'loopback' | 'direct';

/** Web Audio with AudioWorklet is there (not in old browsers, nor in jsdom). */
export const canPlayAudio = () => typeof AudioContext !== 'undefined' && typeof AudioWorkletNode !== 'undefined';

const PROGRESS_EVERY_MS = 500;

/**
 * The avatar's voice in the page: binary PCM frames into an AudioWorklet with a small jitter
 * buffer, out through a local WebRTC loopback into an <audio> element (so the browser's echo
 * cancellation hears it; direct output when that is not possible), a mute that keeps the clock
 * running, and a clock of what is really being heard — which drives the mouth, the speaking
 * state, the host page's events and the `playback` frames to the worker.
 */
export class AvatarAudio {
  private ctx: AudioContext | null = null;
  private node: AudioWorkletNode | null = null;
  private gain: GainNode | null = null;
  private loopback: Loopback | null = null;
  private readonly audioEl: HTMLAudioElement;
  private clock: PlayClock | null = null;
  private ticker: ReturnType<typeof setInterval> | undefined;
  private muted = false;
  private lastProgress = new Map<number, number>();
  /** Utterances heard to have started and not yet ended. */
  private readonly playing = new Set<number>();
  private starting: Promise<void> | null = null;
  /**
   * What was sent to the player while it was opening (its module loading, or the page holding the
   * voice until the face is drawn): posted in order once it exists. A flush drops the audio it
   * removes from here too, so an interruption during the hold is never played afterwards.
   */
  private queued: { message: PlayerInbound; transfer: Transferable[] }[] = [];
  private sampleRate = 0;
  route: OutputRoute | null = null;
  /** What the visitor hears, as a stream (see `audible`). */
  private audibleStream: MediaStream | null = null;
  /** Frames sent to the worklet but not yet started, by utterance (for the fallback lip-sync). */
  readonly receivedSamples = new Map<number, number>();
  /** Each utterance's level as it arrived: the mouth of a voice without visemes reads it where it is heard. */
  private readonly envelope = new LevelEnvelope();

  constructor(
    private readonly events: AvatarAudioEvents,
    private readonly opts: { loopback?: boolean; prebufferMs?: number } = {},
  ) {
    this.audioEl = document.createElement('audio');
    this.audioEl.hidden = true;
    this.audioEl.setAttribute('aria-hidden', 'true');
  }

  /** The <audio> element the voice plays from (the page keeps it in its DOM). */
  get element(): HTMLAudioElement {
    return this.audioEl;
  }

  get context(): AudioContext | null {
    return this.ctx;
  }

  /** The worklet's output before the mute (audio-driven lip-sync listens here). */
  get source(): AudioNode | null {
    return this.node;
  }

  /**
   * Prepares playback at the session's rate (again when it changes after a resume). Nothing plays
   * before `until` settles (the page holds the voice until the face is drawn): what arrives
   * meanwhile waits, in order, and the clock reports no start.
   */
  start(sampleRate: number, until?: Promise<unknown>): Promise<void> {
    if (this.ctx && this.sampleRate === sampleRate) return this.starting ?? Promise.resolve();
    this.close();
    this.sampleRate = sampleRate;
    this.starting = this.open(sampleRate, until);
    return this.starting;
  }

  private async open(sampleRate: number, until?: Promise<unknown>) {
    let ctx: AudioContext;
    try {
      ctx = new AudioContext({ sampleRate, latencyHint: 'interactive' });
    } catch {
      ctx = new AudioContext({ latencyHint: 'interactive' });
    }
    this.ctx = ctx;
    this.clock = new PlayClock(ctx.sampleRate);
    // Sound the browser keeps off is said at once (the page offers to turn it on), not after the hold.
    const blocked = () => this.events.blocked(ctx.state === 'suspended');
    ctx.onstatechange = blocked;
    if (ctx.state === 'suspended') blocked();
    await Promise.all([ctx.audioWorklet.addModule(workletUrl), until?.catch(() => undefined)]);
    if (this.ctx !== ctx) return;
    const node = new AudioWorkletNode(ctx, 'persona-player', {
      numberOfInputs: 0,
      numberOfOutputs: 1,
      outputChannelCount: [1],
      processorOptions: { prebufferMs: this.opts.prebufferMs ?? 80 },
    });
    node.port.onmessage = (e: MessageEvent<PlayerOutbound>) => this.clock?.report(e.data);
    const gain = ctx.createGain();
    gain.gain.value = this.muted ? 0 : 1;
    node.connect(gain);
    this.node = node;
    for (const { message, transfer } of this.queued.splice(0)) node.port.postMessage(message, transfer);
    this.gain = gain;
    // Direct output first; the loopback takes over once it is connected.
    gain.connect(ctx.destination);
    this.route = 'direct';
    if (typeof ctx.createMediaStreamDestination === 'function') {
      const heard = ctx.createMediaStreamDestination();
      gain.connect(heard);
      this.setAudible(heard.stream);
      if (this.opts.loopback !== false) {
        const dest = ctx.createMediaStreamDestination();
        void openLoopback(dest.stream, this.audioEl).then((loop) => {
          if (!loop || this.ctx !== ctx) {
            loop?.close();
            return;
          }
          gain.connect(dest);
          gain.disconnect(ctx.destination);
          gain.disconnect(heard);
          this.loopback = loop;
          this.route = 'loopback';
          // What the <audio> element plays, after the loopback's jitter buffer: the sound itself.
          const remote = this.audioEl.srcObject;
          this.setAudible(remote instanceof MediaStream ? remote : null);
        });
      }
    }
    if (ctx.state === 'suspended') await ctx.resume().catch(() => undefined);
    clearInterval(this.ticker);
    this.ticker = setInterval(() => this.tick(), 20);
  }

  /**
   * A meter of what the listener hears (the loopback's received stream, else the player's
   * output): returns the current RMS level. For the test hook and the benchmark.
   */
  levelMeter(): (() => number) | null {
    const ctx = this.ctx;
    if (!ctx || !this.node) return null;
    const analyser = ctx.createAnalyser();
    analyser.fftSize = 512;
    const remote = this.audioEl.srcObject;
    if (this.route === 'loopback' && remote instanceof MediaStream) ctx.createMediaStreamSource(remote).connect(analyser);
    else this.node.connect(analyser);
    const buf = new Float32Array(analyser.fftSize);
    return () => {
      analyser.getFloatTimeDomainData(buf);
      let sum = 0;
      for (const x of buf) sum += x * x;
      return Math.sqrt(sum / buf.length);
    };
  }

  /** Call from a user gesture: browsers keep sound off until one. */
  resume() {
    if (this.ctx?.state === 'suspended') void this.ctx.resume().catch(() => undefined);
    void this.audioEl.play().catch(() => undefined);
  }

  /** To the player; held while it opens; dropped when no playback was started. */
  private post(message: PlayerInbound, transfer: Transferable[] = []) {
    if (this.node) this.node.port.postMessage(message, transfer);
    else if (this.ctx) this.queued.push({ message, transfer });
  }

  /** PCM16LE samples of an utterance, as they arrive. */
  push(utt: number, pcm: Uint8Array, last: boolean) {
    if (!this.ctx) return;
    let samples: Int16Array<ArrayBuffer> = new Int16Array(pcm.byteLength >> 1);
    new Uint8Array(samples.buffer).set(pcm.subarray(0, samples.length * 2));
    const rate = this.ctx?.sampleRate ?? this.sampleRate;
    if (rate !== this.sampleRate) samples = resample(samples, this.sampleRate, rate);
    this.receivedSamples.set(utt, (this.receivedSamples.get(utt) ?? 0) + samples.length);
    if (this.receivedSamples.size > 32) this.receivedSamples.delete(this.receivedSamples.keys().next().value!);
    this.envelope.add(utt, samples, rate);
    this.post({ type: 'pcm', utt, pcm: samples, last }, [samples.buffer]);
  }

  /** The server sent the utterance's end: it ends when its last sample has been heard. */
  end(utt: number) {
    this.post({ type: 'end', utt });
  }

  /**
   * The connection to the worker was lost: what it was sending will never end (a worker that died
   * mid-utterance leaves it waiting for audio, and everything after it with it), so it stops here.
   */
  connectionLost() {
    this.flush();
    // What was playing ends now, while no socket is open: reported later (when the flush is heard),
    // its end would reach the next worker and name one of that worker's own utterance numbers.
    this.endPlaying();
    this.envelope.clear();
  }

  /** A connection (again): the worker may be another one, counting its utterances from 1. */
  connectionResumed() {
    this.post({ type: 'forget' });
  }

  /** The visitor interrupted: drop the rest of it (or of everything). */
  flush(utt?: number) {
    for (const held of utt === undefined ? [...this.held.keys()] : [utt]) this.release(held);
    this.queued = this.queued.filter(({ message: m }) => !((m.type === 'pcm' || m.type === 'end') && (utt === undefined || m.utt === utt)));
    this.post(utt === undefined ? { type: 'flush' } : { type: 'flush', utt });
  }

  /**
   * The worker holds an utterance (the visitor started talking over it): it fades out and stays
   * where it is, its clock still, until `resumeUtterance` — or `flush` when it was an interruption.
   */
  pauseUtterance(utt: number) {
    this.release(utt);
    // The worklet lets a hold go after DEFAULT_MAX_HOLD_MS by itself; so does the mouth's clock.
    this.held.set(utt, setTimeout(() => this.held.delete(utt), DEFAULT_MAX_HOLD_MS));
    this.post({ type: 'pause', utt });
  }

  resumeUtterance(utt: number) {
    this.release(utt);
    this.post({ type: 'resume', utt });
  }

  /** Held utterances, each with the timer that ends its hold as the worklet's does. */
  private readonly held = new Map<number, ReturnType<typeof setTimeout>>();

  private release(utt: number) {
    clearTimeout(this.held.get(utt));
    this.held.delete(utt);
  }

  setMuted(muted: boolean) {
    this.muted = muted;
    if (this.gain && this.ctx) this.gain.gain.setTargetAtTime(muted ? 0 : 1, this.ctx.currentTime, 0.015);
    this.audioEl.muted = muted;
  }

  /** The context frame the listener hears now. */
  private heardFrame(): number {
    const ctx = this.ctx!;
    let seconds: number;
    const ts = typeof ctx.getOutputTimestamp === 'function' ? ctx.getOutputTimestamp() : undefined;
    if (ts?.contextTime !== undefined && ts.performanceTime !== undefined && ts.contextTime > 0) {
      seconds = ts.contextTime + Math.max(0, performance.now() - ts.performanceTime) / 1000;
    } else {
      seconds = ctx.currentTime - (ctx.outputLatency || 0) - (ctx.baseLatency || 0);
    }
    if (this.loopback) seconds -= this.loopback.latencyMs() / 1000;
    return seconds * ctx.sampleRate;
  }

  /** What is heard now: the utterance and ms into it (the mouth's clock); null when silent. */
  now(): { utt: number; ms: number } | null {
    if (!this.ctx || !this.clock) return null;
    const p = this.clock.positionAt(this.heardFrame());
    // A held utterance is silent: the mouth rests until it goes on.
    return p && !this.held.has(p.utt) ? { utt: p.utt, ms: (p.samples / this.ctx.sampleRate) * 1000 } : null;
  }

  /** How open the mouth is at `ms` into an utterance, from the level of its audio there (0–1; null: none arrived). */
  openAt(utt: number, ms: number): number | null {
    return this.envelope.openAt(utt, ms);
  }

  private heardPosition() {
    return this.ctx && this.clock ? this.clock.positionAt(this.heardFrame()) : null;
  }

  private tick() {
    if (!this.ctx || !this.clock) return;
    const frame = this.heardFrame();
    for (const e of this.clock.due(frame)) this.dispatch(e);
    const p = this.clock.positionAt(frame);
    // Only an utterance being heard reports its position: one whose end was just dispatched (its
    // end comes from the worklet, the clock's track may lag it) must not report after it (CI saw
    // a progress report after 'ended', with the position restarted from 0).
    if (p && this.playing.has(p.utt)) {
      const ms = (p.samples / this.ctx.sampleRate) * 1000;
      const last = this.lastProgress.get(p.utt) ?? 0;
      if (ms - last >= PROGRESS_EVERY_MS) {
        this.lastProgress.set(p.utt, ms);
        this.events.progress(p.utt, Math.round(ms));
      }
    }
  }

  private dispatch(e: ClockEvent) {
    const sr = this.ctx?.sampleRate ?? 16_000;
    if (e.type === 'start') {
      this.playing.add(e.utt);
      this.lastProgress.set(e.utt, 0);
      this.events.started(e.utt);
    } else {
      if (!this.playing.delete(e.utt)) return;
      this.lastProgress.delete(e.utt);
      this.events.ended(e.utt, Math.round((e.played / sr) * 1000), e.interrupted);
    }
  }

  /** Every utterance being heard ends now, interrupted where it is. */
  private endPlaying() {
    const heard = this.heardPosition();
    for (const utt of [...this.playing]) this.dispatch({ type: 'end', utt, played: heard?.utt === utt ? heard.samples : 0, interrupted: true });
  }

  private setAudible(stream: MediaStream | null) {
    if (this.audibleStream === stream) return;
    this.audibleStream = stream;
    this.events.audible?.(stream);
  }

  /** What the visitor hears now, as a stream (null: nothing plays). */
  get audible(): MediaStream | null {
    return this.audibleStream;
  }

  close() {
    clearInterval(this.ticker);
    for (const utt of [...this.held.keys()]) this.release(utt);
    this.endPlaying();
    this.loopback?.close();
    this.loopback = null;
    this.node?.disconnect();
    this.node = null;
    this.queued = [];
    this.gain = null;
    void this.ctx?.close().catch(() => undefined);
    this.ctx = null;
    this.clock = null;
    this.envelope.clear();
    this.route = null;
    this.starting = null;
    this.setAudible(null);
  }
}

/** Linear resampling, for a browser that would not open the context at the session's rate. */
function resample(input: Int16Array, from: number, to: number): Int16Array<ArrayBuffer> {
  const out = new Int16Array(Math.max(1, Math.round((input.length * to) / from)));
  const step = from / to;
  for (let i = 0; i < out.length; i++) {
    const x = i * step;
    const k = Math.floor(x);
    const a = input[Math.min(k, input.length - 1)]!;
    const b = input[Math.min(k + 1, input.length - 1)]!;
    out[i] = Math.round(a + (b - a) * (x - k));
  }
  return out;
}
