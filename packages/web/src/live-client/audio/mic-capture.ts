import { LiveProtocol } from '@persona/contract';
import workletUrl from './mic-worklet.ts?worker&url';
import type { EchoStats } from '@persona/contract/echo-filter';
import type { MicInbound, MicOptions, MicOutbound } from './mic-worklet';

/** Why the microphone could not be opened. */
export type MicProblem = 'denied' | 'missing' | 'unavailable' | 'unsupported';

export const MicProblemText: Record<MicProblem, string> = {
  denied: 'Microphone access is blocked. To talk to the avatar, allow the microphone for this site in your browser (the icon in the address bar), then turn the microphone on again. You can still type.',
  missing: 'No microphone was found. Connect one and turn the microphone on again, or type your message.',
  unavailable: 'The microphone is in use by another application or could not be started. Close the other app and try again, or type your message.',
  unsupported: 'This browser cannot use the microphone here (it needs a secure https page). You can still type.',
};

/** The error of getUserMedia → what to tell the visitor. */
export function micProblemOf(err: unknown): MicProblem {
  const name = (err as { name?: string } | null)?.name ?? '';
  if (name === 'NotAllowedError' || name === 'SecurityError' || name === 'PermissionDeniedError') return 'denied';
  if (name === 'NotFoundError' || name === 'DevicesNotFoundError' || name === 'OverconstrainedError') return 'missing';
  if (name === 'TypeError') return 'unsupported';
  return 'unavailable';
}

/**
 * What starting the capture came to: running, a problem to explain, or cancelled — stop() ran
 * while it was starting (the visitor turned the mic off, the page went away): nothing to explain.
 */
export type MicStartResult = { ok: true } | { ok: false; problem: MicProblem } | { ok: false; cancelled: true };

export const CANCELLED: MicStartResult = { ok: false, cancelled: true };

/** The capture the avatar page drives (a fake one in unit tests). */
export interface MicSource {
  /** Asks for the microphone (the browser's prompt) and starts the frames. */
  start(): Promise<MicStartResult>;
  /** Releases the microphone (the browser's recording indicator goes off). */
  stop(): void;
  readonly active: boolean;
  /**
   * What the visitor hears (null: nothing): where the browser does not cancel the avatar's voice
   * in the capture, the capture takes it out against this (ADR 108).
   */
  setEchoReference?(stream: MediaStream | null): void;
}

export interface MicEvents {
  /** One 20 ms frame of 16 kHz PCM16 mono, with its RMS (0…1) for the level meter. */
  frame(pcm: Int16Array, rms: number): void;
  /** The track ended by itself (device unplugged, permission revoked). */
  lost(problem: MicProblem): void;
  /** The page's own echo canceller's figures (every ~0.5 s while it runs; for the test hook). */
  echo?(stats: EchoStats): void;
}

/** Whether this browser can capture at all (mediaDevices and AudioWorklet). */
export const canCapture = () => typeof navigator !== 'undefined' && !!navigator.mediaDevices?.getUserMedia && typeof AudioWorkletNode !== 'undefined';

/**
 * The visitor's microphone: getUserMedia with the browser's echo cancellation (the avatar's voice
 * plays through a WebRTC loopback so it can be cancelled — audio/loopback.ts), noise suppression
 * and automatic gain, into an AudioWorklet that makes 16 kHz PCM16 frames of 20 ms (mic-framer.ts).
 */
export interface MicCaptureOptions {
  /**
   * How long start() waits for AudioContext.resume() (ms; default 1000). Outside a user gesture the
   * browser may leave it pending: the capture then starts anyway and resumes on the next pointerdown
   * or key press, as the avatar's audio does.
   */
  resumeTimeoutMs?: number;
}

export class MicCapture implements MicSource {
  private stream: MediaStream | null = null;
  private ctx: AudioContext | null = null;
  private node: AudioWorkletNode | null = null;
  private source: MediaStreamAudioSourceNode | null = null;
  private starting: Promise<MicStartResult> | null = null;
  private generation = 0;
  private unlock: (() => void) | null = null;
  /** What the visitor hears, and its source in the capture's context while the page cancels its echo. */
  private reference: MediaStream | null = null;
  private referenceSource: MediaStreamAudioSourceNode | null = null;
  /** The browser does not cancel echo on this capture: the worklet does (ADR 108). */
  private cancelsEcho = false;

  constructor(
    private readonly events: MicEvents,
    private readonly options: MicCaptureOptions = {},
  ) {}

  get active(): boolean {
    return this.stream !== null;
  }

  start(): Promise<MicStartResult> {
    if (this.stream) return Promise.resolve({ ok: true });
    this.starting ??= this.open().finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  private async open(): Promise<MicStartResult> {
    if (!canCapture()) return { ok: false, problem: 'unsupported' };
    const generation = ++this.generation;
    let stream: MediaStream;
    try {
      stream = await navigator.mediaDevices.getUserMedia({
        audio: { echoCancellation: true, noiseSuppression: true, autoGainControl: true, channelCount: 1 },
        video: false,
      });
    } catch (err) {
      if (generation !== this.generation) return CANCELLED;
      return { ok: false, problem: micProblemOf(err) };
    }
    if (generation !== this.generation) {
      for (const t of stream.getTracks()) t.stop();
      return CANCELLED;
    }
    let ctx: AudioContext | null = null;
    try {
      ctx = new AudioContext({ latencyHint: 'interactive' });
      await ctx.audioWorklet.addModule(workletUrl);
      const processorOptions: MicOptions = { outputRate: LiveProtocol.micSampleRate, frameMs: LiveProtocol.micFrameMs };
      // Input 0 the mic; input 1, while the page cancels its own echo, what the visitor hears.
      const node = new AudioWorkletNode(ctx, 'persona-mic', { numberOfInputs: 2, numberOfOutputs: 0, channelCount: 1, channelCountMode: 'explicit', processorOptions });
      node.port.onmessage = (e: MessageEvent<MicOutbound>) => {
        // Frames already queued when the mic was turned off are dropped.
        if (this.node !== node) return;
        if (e.data.type === 'frame') this.events.frame(e.data.pcm, e.data.rms);
        else if (e.data.type === 'echo') this.events.echo?.(e.data.stats);
      };
      const source = ctx.createMediaStreamSource(stream);
      source.connect(node);
      if (ctx.state === 'suspended') await this.resume(ctx);
      if (generation !== this.generation) {
        for (const t of stream.getTracks()) t.stop();
        void ctx.close().catch(() => undefined);
        return CANCELLED;
      }
      if (ctx.state === 'suspended') this.resumeOnGesture(ctx);
      this.stream = stream;
      this.ctx = ctx;
      this.node = node;
      this.source = source;
      this.cancelsEcho = !browserCancelsEcho(stream);
      this.connectReference();
      for (const track of stream.getAudioTracks()) {
        track.onended = () => {
          if (this.stream !== stream) return;
          this.stop();
          this.events.lost('unavailable');
        };
      }
      return { ok: true };
    } catch {
      for (const t of stream.getTracks()) t.stop();
      // addModule or the worklet node failed: the context must not stay open.
      void ctx?.close().catch(() => undefined);
      return generation !== this.generation ? CANCELLED : { ok: false, problem: 'unavailable' };
    }
  }

  /** ctx.resume(), given up after resumeTimeoutMs (it may stay pending outside a gesture). */
  private async resume(ctx: AudioContext): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([ctx.resume().catch(() => undefined), new Promise<void>((r) => (timer = setTimeout(r, this.options.resumeTimeoutMs ?? 1000)))]);
    clearTimeout(timer);
  }

  /** The context is still suspended: resume it on the visitor's next pointerdown or key press. */
  private resumeOnGesture(ctx: AudioContext) {
    const unlock = () => {
      if (this.ctx !== ctx || ctx.state !== 'suspended') return this.dropUnlock();
      void ctx.resume().then(
        () => {
          if (ctx.state === 'running') this.dropUnlock();
        },
        () => undefined,
      );
    };
    this.unlock = unlock;
    window.addEventListener('pointerdown', unlock, true);
    window.addEventListener('keydown', unlock, true);
  }

  private dropUnlock() {
    if (!this.unlock) return;
    window.removeEventListener('pointerdown', this.unlock, true);
    window.removeEventListener('keydown', this.unlock, true);
    this.unlock = null;
  }

  setEchoReference(stream: MediaStream | null) {
    if (stream === this.reference) return;
    this.reference = stream;
    this.connectReference();
  }

  /** The far end into the worklet's second input (or out of it), when the page cancels its echo. */
  private connectReference() {
    this.referenceSource?.disconnect();
    this.referenceSource = null;
    if (!this.ctx || !this.node || !this.cancelsEcho || !this.reference || this.reference.getAudioTracks().length === 0) return;
    try {
      this.referenceSource = this.ctx.createMediaStreamSource(this.reference);
      this.referenceSource.connect(this.node, 0, 1);
    } catch {
      // A stream this context cannot take: the worker's canceller still stands (ADR 103).
      this.referenceSource = null;
    }
  }

  stop() {
    this.generation++;
    this.dropUnlock();
    this.node?.port.postMessage({ type: 'enabled', enabled: false } satisfies MicInbound);
    if (this.node) this.node.port.onmessage = null;
    this.source?.disconnect();
    this.referenceSource?.disconnect();
    this.referenceSource = null;
    this.node?.disconnect();
    for (const t of this.stream?.getTracks() ?? []) t.stop();
    void this.ctx?.close().catch(() => undefined);
    this.stream = null;
    this.ctx = null;
    this.node = null;
    this.source = null;
  }
}

/**
 * Whether the browser cancels echo on this capture (the track's settings say so). Browsers that
 * do it hear the avatar's voice through the loopback (loopback.ts) and take it out themselves; a
 * second canceller after theirs would only chase their residue.
 */
export function browserCancelsEcho(stream: MediaStream): boolean {
  const track = stream.getAudioTracks()[0];
  try {
    // A boolean in most browsers; the newer spec's "all" / "remote-only" say it too.
    const setting = track?.getSettings?.().echoCancellation as unknown;
    return setting === true || setting === 'all' || setting === 'remote-only';
  } catch {
    return false;
  }
}
