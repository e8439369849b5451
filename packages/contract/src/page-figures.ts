// zod/mini: the avatar page imports this module (its path and limits); classic zod's schemas
// would add ≈ 10 KB of gzipped JS to every kind of avatar page.
import { z } from 'zod/mini';

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

const int = (min: number, max: number) => z.number().check(z.int(), z.minimum(min), z.maximum(max));

/** What the page measured for its session; null: not measured (a text-only session draws no frames). */
export const ZPageFigures = z.strictObject({
  firstFrameMs: z.nullable(int(0, PageFigureLimits.firstFrameMsMax)),
  avOffsetMs: z.nullable(int(-PageFigureLimits.avOffsetMsMax, PageFigureLimits.avOffsetMsMax)),
  droppedFrames: z.nullable(int(0, PageFigureLimits.droppedFramesMax)),
});
export type TPageFigures = z.infer<typeof ZPageFigures>;

/** The page's one report for its session: the resume token proves it holds the session. */
export const ZPageFiguresRequest = z.strictObject({
  ...ZPageFigures.shape,
  sessionId: z.string().check(z.minLength(1), z.maxLength(64)),
  resumeToken: z.string().check(z.minLength(1), z.maxLength(512)),
});
export type TPageFiguresRequest = z.infer<typeof ZPageFiguresRequest>;

