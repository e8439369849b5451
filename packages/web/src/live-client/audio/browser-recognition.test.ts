import { beforeEach, describe, expect, it, vi } from 'vitest';
import { BrowserRecognition, type SpeechRecognitionLike } from './browser-recognition';

/**
 * The Web Speech API as the browser behaves: start() fires onstart later (after the prompt);
 * abort() stops at once but reports 'aborted' and onend asynchronously, and a session aborted
 * before it started never fires onstart. `script` decides what each new session does.
 */
type Script = 'start' | 'end-at-once' | 'throw';
let sessions: FakeRec[];
let script: Script[];

class FakeRec implements SpeechRecognitionLike {
  lang = '';
  continuous = false;
  interimResults = false;
  running = false;
  aborted = false;
  onstart: (() => void) | null = null;
  onresult: SpeechRecognitionLike['onresult'] = null;
  onerror: ((e: { error: string }) => void) | null = null;
  onend: (() => void) | null = null;
  readonly createdAt = Date.now();
  constructor() {
    sessions.push(this);
  }
  start() {
    const what = script.length > 1 ? script.shift()! : (script[0] ?? 'start');
    if (what === 'throw') throw new Error('InvalidStateError');
    setTimeout(() => {
      if (this.aborted) return;
      this.running = true;
      this.onstart?.();
      if (what === 'end-at-once') {
        this.running = false;
        this.onend?.();
      }
    }, 1);
  }
  stop() {
    this.abort();
  }
  abort() {
    this.aborted = true;
    this.running = false;
    setTimeout(() => {
      this.onerror?.({ error: 'aborted' });
      this.onend?.();
    }, 1);
  }
}

const settledWithin = <T,>(p: Promise<T>, ms = 500) => Promise.race([p, new Promise<'pending'>((r) => setTimeout(() => r('pending'), ms))]);

beforeEach(() => {
  sessions = [];
  script = ['start'];
});

const make = (options = {}) => {
  const lost = vi.fn();
  const rec = new BrowserRecognition(FakeRec, { interim: vi.fn(), final: vi.fn(), lost }, 'en-US', options);
  return { rec, lost };
};

describe('BrowserRecognition', () => {
  it('start() resolves once the browser started', async () => {
    const { rec } = make();
    expect(await settledWithin(rec.start())).toEqual({ ok: true });
    expect(sessions[0]!.running).toBe(true);
  });

  it('stop() before the browser started: start() settles as cancelled', async () => {
    const { rec, lost } = make();
    const started = rec.start();
    rec.stop();
    expect(await settledWithin(started)).toEqual({ ok: false, cancelled: true });
    expect(rec.active).toBe(false);
    await new Promise((r) => setTimeout(r, 20));
    expect(sessions).toHaveLength(1);
    expect(lost).not.toHaveBeenCalled();
  });

  it('pause(true) before the browser started: start() settles as cancelled; pause(false) listens again', async () => {
    const { rec } = make();
    const started = rec.start();
    rec.pause(true);
    expect(await settledWithin(started)).toEqual({ ok: false, cancelled: true });
    expect(rec.active).toBe(true);
    await new Promise((r) => setTimeout(r, 20));
    expect(sessions).toHaveLength(1);
    rec.pause(false);
    await vi.waitFor(() => expect(sessions[1]?.running).toBe(true));
  });

  it('sessions that keep ending at once restart with a growing delay, not in a tight loop', async () => {
    script = ['end-at-once'];
    const { rec } = make({ backoffMs: 20, maxBackoffMs: 160 });
    await rec.start();
    await new Promise((r) => setTimeout(r, 400));
    // Without backoff: one session every ~1 ms (hundreds). With it: 20+40+80+160 ms… ≈ 5 in 400 ms.
    expect(sessions.length).toBeGreaterThanOrEqual(3);
    expect(sessions.length).toBeLessThanOrEqual(7);
    const gaps = sessions.slice(1).map((s, i) => s.createdAt - sessions[i]!.createdAt);
    expect(gaps[2]!).toBeGreaterThan(gaps[0]!);
    rec.stop();
  });

  it('a restart that throws is reported through lost(unavailable)', async () => {
    script = ['end-at-once', 'throw'];
    const { rec, lost } = make({ backoffMs: 5 });
    expect(await rec.start()).toEqual({ ok: true });
    await vi.waitFor(() => expect(lost).toHaveBeenCalledWith('unavailable'));
    expect(rec.active).toBe(false);
  });

  it('a start that throws at once answers unavailable', async () => {
    script = ['throw'];
    const { rec, lost } = make();
    expect(await settledWithin(rec.start())).toEqual({ ok: false, problem: 'unavailable' });
    expect(lost).not.toHaveBeenCalled();
  });
});
