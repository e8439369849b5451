import { describe, expect, it } from 'vitest';
import { sessionLog } from './session-log.js';

describe('sessionLog: one rate-limited logger per live session', () => {
  it('adds the session context; a message repeated faster than its allowance is counted, not written, and the next line written says how many were left out', () => {
    let now = 0;
    const written: { level: string; msg: string; data?: object }[] = [];
    const base = {
      info: (msg: string, data?: object) => void written.push({ level: 'info', msg, data }),
      warn: (msg: string, data?: object) => void written.push({ level: 'warn', msg, data }),
      error: (msg: string, data?: object) => void written.push({ level: 'error', msg, data }),
    };
    const log = sessionLog(base, { sessionId: 's1', avatarId: 7 }, { now: () => now, burst: 3, intervalMs: 1000 });
    for (let i = 0; i < 5000; i++) log.warn('a page broke the protocol', { i });
    // Another message has its own allowance.
    log.info('live session started');
    expect(written.map((w) => [w.level, w.msg])).toEqual([
      ['warn', 'a page broke the protocol'],
      ['warn', 'a page broke the protocol'],
      ['warn', 'a page broke the protocol'],
      ['info', 'live session started'],
    ]);
    expect(written[0]!.data).toEqual({ sessionId: 's1', avatarId: 7, i: 0 });
    now += 1000;
    log.warn('a page broke the protocol', { i: 5000 });
    expect(written.at(-1)!.data).toEqual({ sessionId: 's1', avatarId: 7, i: 5000, suppressed: 4997 });
    now += 1000;
    log.warn('a page broke the protocol', { i: 5001 });
    expect(written.at(-1)!.data).toEqual({ sessionId: 's1', avatarId: 7, i: 5001 });
  });

  it('many different messages cannot get around it: past a hundred, they share one allowance', () => {
    const written: string[] = [];
    const base = { info: (m: string) => void written.push(m), warn: (m: string) => void written.push(m), error: (m: string) => void written.push(m) };
    const log = sessionLog(base, {}, { now: () => 0, burst: 2, intervalMs: 1000 });
    for (let i = 0; i < 10_000; i++) log.error(`failure ${i}`);
    // A line each for the first hundred, then the shared allowance's burst.
    expect(written.length).toBe(100 + 2);
  });
});
