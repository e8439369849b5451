import type { PlayerOutbound } from './player-worklet';

interface Anchor {
  frame: number;
  played: number;
}

interface Track {
  utt: number;
  startFrame: number;
  anchors: Anchor[];
  endFrame?: number;
  played?: number;
  interrupted?: boolean;
}

export type ClockEvent = { type: 'start'; utt: number } | { type: 'end'; utt: number; played: number; interrupted: boolean };

/**
 * What is being heard, from the playback worklet's reports (frames at which samples were
 * written) and the frame the listener hears now (the context's output timestamp, less the
 * loopback's delay): which utterance, how far into it, and the starts and ends that are now
 * audible. Pure, so the arithmetic is unit-tested; the player feeds it.
 */
export class PlayClock {
  private readonly tracks: Track[] = [];
  private readonly pending: { frame: number; event: ClockEvent }[] = [];
  /** Longest extrapolation past the last report (frames): reports come every few blocks. */
  private readonly maxAhead: number;

  constructor(readonly sampleRate: number) {
    this.maxAhead = Math.round(sampleRate * 0.06);
  }

  report(m: PlayerOutbound): void {
    if (m.type === 'start') {
      this.tracks.push({ utt: m.utt, startFrame: m.frame, anchors: [{ frame: m.frame, played: 0 }] });
      this.pending.push({ frame: m.frame, event: { type: 'start', utt: m.utt } });
      if (this.tracks.length > 8) this.tracks.shift();
      return;
    }
    const track = this.track(m.utt);
    if (m.type === 'pos') {
      if (!track) return;
      track.anchors.push({ frame: m.frame, played: m.played });
      if (track.anchors.length > 128) track.anchors.splice(1, track.anchors.length - 96);
    } else if (m.type === 'end') {
      if (track) {
        track.endFrame = m.frame;
        track.played = m.played;
        track.interrupted = m.interrupted;
        track.anchors.push({ frame: m.frame, played: m.played });
      }
      // An utterance that never started (no audio) ends silently.
      if (track) this.pending.push({ frame: m.frame, event: { type: 'end', utt: m.utt, played: m.played, interrupted: m.interrupted } });
    }
  }

  private track(utt: number): Track | undefined {
    for (let i = this.tracks.length - 1; i >= 0; i--) if (this.tracks[i]!.utt === utt) return this.tracks[i];
    return undefined;
  }

  /** The utterance heard at frame `heard` and how many of its samples have been heard. */
  positionAt(heard: number): { utt: number; samples: number } | null {
    for (let i = this.tracks.length - 1; i >= 0; i--) {
      const t = this.tracks[i]!;
      if (t.startFrame > heard) continue;
      if (t.endFrame !== undefined && t.endFrame <= heard) return null;
      const a = t.anchors;
      let k = a.length - 1;
      while (k > 0 && a[k]!.frame > heard) k--;
      const from = a[k]!;
      const next = a[k + 1];
      const room = next ? next.played - from.played : this.maxAhead;
      return { utt: t.utt, samples: from.played + Math.max(0, Math.min(heard - from.frame, room)) };
    }
    return null;
  }

  /** Starts and ends heard by frame `heard`, in order (each returned once). */
  due(heard: number): ClockEvent[] {
    const out: ClockEvent[] = [];
    this.pending.sort((x, y) => x.frame - y.frame);
    while (this.pending.length && this.pending[0]!.frame <= heard) out.push(this.pending.shift()!.event);
    return out;
  }

  /** Forgets everything (the context was replaced). */
  reset(): ClockEvent[] {
    const ends = this.pending.filter((p) => p.event.type === 'end').map((p) => p.event);
    this.pending.length = 0;
    this.tracks.length = 0;
    return ends;
  }
}
