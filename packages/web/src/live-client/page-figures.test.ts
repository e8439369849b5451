import { describe, expect, it } from 'vitest';
import { PageFigureLimits, PageFigurePath } from '@persona/contract';
import { FrameFigures } from './page-figures';
import { LiveSession } from './live-session';
import { FakeSocket, admitted, liveFetch } from '../test/live-client-doubles';

const F = 1000 / 60;

describe('the page’s own figures (ADR 099)', () => {
  it('takes the first frame, the A/V offset per utterance and the frames lost while speaking', () => {
    const f = new FrameFigures();
    expect(f.figures()).toEqual({ firstFrameMs: null, avOffsetMs: null, droppedFrames: null });
    let now = 1234.4;
    f.frame(now, null);
    // Idle frames far apart (reduced motion, a hidden tab) lose nothing.
    now += 250;
    f.frame(now, null);
    // Utterance 1 first drawn 30 ms into its sound; then one gap of three intervals (two frames lost).
    now += F;
    f.frame(now, { utt: 1, ms: 30 });
    now += F;
    f.frame(now, { utt: 1, ms: 47 });
    now += 3 * F;
    f.frame(now, { utt: 1, ms: 97 });
    // Utterances 2 and 3: 10 and 50 ms; a stall of over a second while speaking is not counted.
    now += F;
    f.frame(now, { utt: 2, ms: 10 });
    now += 1500;
    f.frame(now, { utt: 3, ms: 50 });
    expect(f.figures()).toEqual({ firstFrameMs: 1234, avOffsetMs: 30, droppedFrames: 2 });
  });

  it('keeps the figures inside the bounds the portal takes', () => {
    const f = new FrameFigures();
    f.frame(PageFigureLimits.firstFrameMsMax + 5_000, { utt: 1, ms: 60_000 });
    expect(f.figures()).toEqual({ firstFrameMs: PageFigureLimits.firstFrameMsMax, avOffsetMs: PageFigureLimits.avOffsetMsMax, droppedFrames: 0 });
  });

  it('are sent once per session, with its resume token, as a keepalive POST; nothing when nothing was measured', async () => {
    const api = liveFetch({
      '/api/live/avatars/12': () => ({ status: 200, body: {} }),
      '/api/live/sessions': () => ({ status: 200, body: admitted(1) }),
      [PageFigurePath]: () => ({ status: 200, body: { status: 'OK' } }),
    });
    const inits: RequestInit[] = [];
    const fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
      if (init) inits.push(init);
      return api.fetch(input, init);
    }) as typeof globalThis.fetch;
    const session = new LiveSession({ avatarId: 12, fetch, WebSocket: FakeSocket as unknown as typeof WebSocket, portalOrigin: 'http://portal.test' });
    const figures = { firstFrameMs: 900, avOffsetMs: 25, droppedFrames: 3 };
    // Before admission there is no session to report for.
    expect(session.reportFigures(figures)).toBe(false);
    expect(await session.connect()).toBe(true);
    expect(session.reportFigures({ firstFrameMs: null, avOffsetMs: null, droppedFrames: null })).toBe(false);
    expect(session.reportFigures(figures)).toBe(true);
    expect(session.reportFigures(figures)).toBe(false);
    const sent = api.calls.filter((c) => c.path === PageFigurePath);
    expect(sent).toEqual([{ path: PageFigurePath, body: { sessionId: 'sess-1', resumeToken: 'resume-1', ...figures } }]);
    expect(inits.at(-1)).toMatchObject({ method: 'POST', keepalive: true });
    session.hangUp();
  });
});
