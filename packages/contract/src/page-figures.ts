import { z } from 'zod';

/**
 * The avatar page's own figures for its session (issue 30, ADR 099): first frame, A/V offset,
 * dropped frames; reported once, near the session's end, and shown with its transcript.
 */
export const PageFigurePath = '/api/live/sessions/figures';

export const PageFigureLimits = {
  /** Page load → the avatar's first frame drawn, at most (ms). */
  firstFrameMsMax: 600_000,
  /** Audio heard → the first frame drawn for it, either way (ms). */
  avOffsetMsMax: 10_000,
  /** Frames lost in one session, at most (a day at 120 Hz). */
  droppedFramesMax: 10_368_000,
  /** A report is still taken this long after its session ended (the page's goodbye may arrive after the worker's). */
  acceptAfterEndMs: 10 * 60_000,
} as const;

const int = (min: number, max: number) => z.number().int().min(min).max(max);

/** What the page measured for its session; null: not measured (a text-only session draws no frames). */
export const ZPageFigures = z
  .object({
    firstFrameMs: int(0, PageFigureLimits.firstFrameMsMax).nullable(),
    avOffsetMs: int(-PageFigureLimits.avOffsetMsMax, PageFigureLimits.avOffsetMsMax).nullable(),
    droppedFrames: int(0, PageFigureLimits.droppedFramesMax).nullable(),
  })
  .strict();
export type TPageFigures = z.infer<typeof ZPageFigures>;

/** The page's one report for its session: the resume token proves it holds the session. */
export const ZPageFiguresRequest = ZPageFigures.extend({
  sessionId: z.string().min(1).max(64),
  resumeToken: z.string().min(1).max(512),
}).strict();
export type TPageFiguresRequest = z.infer<typeof ZPageFiguresRequest>;

