import { PageFigureLimits, type TPageFigures } from '@persona/contract';

/** A gap longer than this between two drawn frames is the page hidden or throttled, not frames lost. */
const STALL_MS = 1_000;

const clamp = (n: number, min: number, max: number) => Math.min(max, Math.max(min, Math.round(n)));

/**
 * The page's own figures for its session (ADR 099), from the frames the stage draws:
 * - first frame: the page's clock (ms since it started loading) at the avatar's first frame;
 * - A/V offset: how much of each avatar utterance had been heard when the first frame that
 *   shows it was drawn (the median over utterances; positive: the picture is behind the sound);
 * - dropped frames: while the avatar speaks, display refreshes with no frame drawn (a gap of two
 *   frame intervals or more counts the frames it skipped; the interval is the shortest seen).
 * Pure: the stage feeds it its frame times and what was heard.
 */
export class FrameFigures {
  private firstFrameAt: number | null = null;
  private last: { at: number; speaking: boolean } | null = null;
  private interval = Infinity;
  private dropped = 0;
  private speakingFrames = 0;
  private lastUtt: number | null = null;
  private readonly offsets: number[] = [];

  frame(now: number, heard: { utt: number; ms: number } | null): void {
    this.firstFrameAt ??= now;
    const last = this.last;
    if (last) {
      const gap = now - last.at;
      if (gap > 0 && gap < STALL_MS) {
        this.interval = Math.min(this.interval, Math.max(gap, 1000 / 240));
        if (heard && last.speaking && gap >= this.interval * 1.5) this.dropped += Math.round(gap / this.interval) - 1;
      }
    }
    if (heard) this.speakingFrames++;
    if (heard && heard.utt !== this.lastUtt) {
      this.lastUtt = heard.utt;
      if (this.offsets.length < 1000) this.offsets.push(heard.ms);
    }
    this.last = { at: now, speaking: heard !== null };
  }

  figures(): TPageFigures {
    const sorted = [...this.offsets].sort((a, b) => a - b);
    const median = sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)]! : null;
    return {
      firstFrameMs: this.firstFrameAt === null ? null : clamp(this.firstFrameAt, 0, PageFigureLimits.firstFrameMsMax),
      avOffsetMs: median === null ? null : clamp(median, -PageFigureLimits.avOffsetMsMax, PageFigureLimits.avOffsetMsMax),
      droppedFrames: this.speakingFrames === 0 ? null : clamp(this.dropped, 0, PageFigureLimits.droppedFramesMax),
    };
  }
}
