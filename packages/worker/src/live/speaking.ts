import { LiveProtocol, type TPageFrame } from '@persona/contract';
import type { SpeechEvent } from '../speech/pipeline.js';

type Playback = Extract<TPageFrame, { type: 'playback' }>;

/**
 * Which avatar utterance the visitor hears now (first audio sent → the page's playback `ended`, or
 * its audio's length + 1 s without reports) and how much of it they heard: the page's last
 * `playback {utt, playedMs}` carried on to now, paused time excluded, capped by the audio sent.
 * Shared by the TTS voice and the realtime model (whose truncation needs the same figure).
 */
export class SpeakingTracker {
  private speaking: { utt: number; startedAt: number; pausedAt: number | null; pausedMs: number; audioMs: number; ended: boolean } | null = null;
  private timer: NodeJS.Timeout | undefined;
  /** The page's last report: what it had played, when, and how long the utterance had been paused by then. */
  private playback: { utt: number; playedMs: number; at: number; state: Playback['state']; pausedMs: number } | null = null;
  /** The page has reported playback: it plays the voice, and its first utterance has started. */
  private reported = false;

  constructor(
    private readonly now: () => number,
    /** The utterance heard changed (null: none). */
    private readonly onChange: (utt: number | null) => void,
  ) {}

  get utt(): number | null {
    return this.speaking?.utt ?? null;
  }

  /** An utterance event on its way to the page (audio at `rate`). */
  track(ev: SpeechEvent, rate: number) {
    if (ev.type === 'utterance' && ev.phase === 'start') {
      clearTimeout(this.timer);
      this.speaking = { utt: ev.utt, startedAt: this.now(), pausedAt: null, pausedMs: 0, audioMs: 0, ended: false };
      this.onChange(ev.utt);
    } else if (ev.type === 'audio' && this.speaking?.utt === ev.utt) {
      this.speaking.audioMs += (ev.pcm.byteLength / 2 / rate) * 1000;
    } else if (ev.type === 'utterance' && ev.phase === 'end' && this.speaking?.utt === ev.utt) {
      this.speaking.ended = true;
      this.armEnd();
    }
  }

  pause(utt: number) {
    if (this.speaking?.utt !== utt || this.speaking.pausedAt !== null) return;
    this.speaking.pausedAt = this.now();
    // Held, it is not over however long the visitor talks: counted again on resume.
    clearTimeout(this.timer);
  }

  resume(utt: number) {
    const sp = this.speaking;
    if (sp?.utt !== utt || sp.pausedAt === null) return;
    sp.pausedMs += this.now() - sp.pausedAt;
    sp.pausedAt = null;
    if (sp.ended) this.armEnd();
  }

  onPlayback(frame: Playback) {
    if (!Number.isFinite(frame.playedMs) || frame.playedMs < 0) return;
    this.reported = true;
    const pausedMs = this.speaking?.utt === frame.utt ? this.speaking.pausedMs : 0;
    this.playback = { utt: frame.utt, playedMs: Math.min(frame.playedMs, 3_600_000), at: this.now(), state: frame.state, pausedMs };
    if (this.speaking?.utt !== frame.utt) return;
    if (frame.state === 'ended') this.stop();
    // The page plays it later than it was sent (a cold page holds the voice until the face is
    // drawn): the end without reports is counted from what the page says it has played.
    else if (this.speaking.ended) this.armEnd();
  }

  /** Where the page plays now (its last report carried on to now), for the echo canceller; null: nothing plays. */
  playingNow(): { utt: number; playedMs: number; paused: boolean } | null {
    const sp = this.speaking;
    if (!sp) return null;
    return { utt: sp.utt, playedMs: this.heardMs(sp.utt), paused: sp.pausedAt !== null };
  }

  /** ms of utterance `utt` the visitor has heard: the page's report, carried on to now. */
  heardMs(utt: number): number {
    const sp = this.speaking?.utt === utt ? this.speaking : null;
    const pb = this.playback?.utt === utt ? this.playback : null;
    const until = sp?.pausedAt ?? this.now();
    let ms: number;
    if (pb) ms = pb.state === 'ended' ? pb.playedMs : pb.playedMs + Math.max(0, until - pb.at);
    else if (sp) ms = until - sp.startedAt - sp.pausedMs;
    else return 0;
    return Math.max(0, Math.round(sp ? Math.min(ms, sp.audioMs || ms) : ms));
  }

  stop() {
    clearTimeout(this.timer);
    this.speaking = null;
    this.onChange(null);
  }

  dispose() {
    clearTimeout(this.timer);
  }

  /**
   * Without an `ended` report, the utterance is taken as heard once its audio has had time to
   * play: from the page's last report of it, with the pauses since; before any report, from its
   * first audio sent — plus, until the page has reported anything, the time it may hold the voice
   * for its face (LiveProtocol.faceWaitMs; a page without a player never reports, and pays it once).
   */
  private armEnd() {
    const sp = this.speaking;
    clearTimeout(this.timer);
    if (!sp || sp.pausedAt !== null) return;
    const pb = this.playback?.utt === sp.utt && this.playback.state !== 'ended' ? this.playback : null;
    const heardBy = pb
      ? pb.at + (sp.pausedMs - pb.pausedMs) + Math.max(0, sp.audioMs - pb.playedMs)
      : sp.startedAt + sp.pausedMs + sp.audioMs + (this.reported ? 0 : LiveProtocol.faceWaitMs);
    const left = heardBy + 1000 - this.now();
    this.timer = setTimeout(() => {
      if (this.speaking === sp) this.stop();
    }, Math.max(0, left));
    this.timer.unref();
  }
}
