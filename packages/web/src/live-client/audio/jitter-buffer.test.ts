import { describe, expect, it } from 'vitest';
import { JitterBuffer, type JitterEvent } from './jitter-buffer';

const SR = 16_000;
const ms = (n: number) => (n * SR) / 1000;
/** n samples of a constant value (PCM16). */
const pcm = (n: number, value = 1000) => new Int16Array(n).fill(value);

function readBlocks(buf: JitterBuffer, blocks: number, size = 128) {
  const events: (JitterEvent & { at: number })[] = [];
  const samples: number[] = [];
  for (let b = 0; b < blocks; b++) {
    const out = new Float32Array(size);
    for (const e of buf.read(out)) events.push({ ...e, at: b * size + e.offset });
    samples.push(...out);
  }
  return { events, samples };
}

describe('JitterBuffer', () => {
  it('waits for the prebuffer before an utterance starts, then plays it sample for sample', () => {
    const buf = new JitterBuffer({ sampleRate: SR, prebufferMs: 60 });
    buf.push(1, pcm(ms(40)));
    let r = readBlocks(buf, 4);
    expect(r.events).toEqual([]);
    expect(r.samples.every((s) => s === 0)).toBe(true);
    buf.push(1, pcm(ms(40)));
    r = readBlocks(buf, 1);
    expect(r.events).toEqual([{ type: 'start', utt: 1, offset: 0, at: 0 }]);
    expect(r.samples[0]).toBeCloseTo(1000 / 32768, 6);
    expect(buf.current?.played).toBe(128);
  });

  it('starts a short utterance that is complete without waiting for the prebuffer', () => {
    const buf = new JitterBuffer({ sampleRate: SR, prebufferMs: 200 });
    buf.push(3, pcm(100), true);
    const r = readBlocks(buf, 2);
    expect(r.events.map((e) => [e.type, e.at])).toEqual([
      ['start', 0],
      ['end', 100],
    ]);
    expect(r.events[1]).toMatchObject({ played: 100, interrupted: false });
  });

  it('an underrun stops the clock, writes silence and resumes after the rebuffer', () => {
    const buf = new JitterBuffer({ sampleRate: SR, prebufferMs: 20, rebufferMs: 10 });
    buf.push(1, pcm(ms(20)));
    let r = readBlocks(buf, 4); // 512 samples: 320 played, then dry
    expect(r.events.map((e) => e.type)).toEqual(['start', 'underrun']);
    expect(r.events[1]!.at).toBe(320);
    expect(buf.current?.played).toBe(320);
    expect(r.samples.slice(320).every((s) => s === 0)).toBe(true);
    expect(buf.underruns).toBe(1);
    buf.push(1, pcm(ms(5)));
    r = readBlocks(buf, 1);
    expect(r.samples.every((s) => s === 0)).toBe(true); // 5 ms < 10 ms rebuffer
    buf.push(1, pcm(ms(10)), true);
    r = readBlocks(buf, 3);
    expect(buf.current).toBeNull();
    expect(r.events).toEqual([{ type: 'end', utt: 1, offset: 112, played: 320 + 240, interrupted: false, at: 240 }]);
  });

  it('plays utterances in order, the next one starting in the same block the first ends', () => {
    const buf = new JitterBuffer({ sampleRate: SR, prebufferMs: 0 });
    buf.push(1, pcm(100, 100), true);
    buf.push(2, pcm(100, 200), true);
    const r = readBlocks(buf, 2);
    expect(r.events.map((e) => [e.type, e.utt, e.at])).toEqual([
      ['start', 1, 0],
      ['end', 1, 100],
      ['start', 2, 100],
      ['end', 2, 200],
    ]);
    expect(r.samples[99]).toBeCloseTo(100 / 32768, 6);
    expect(r.samples[100]).toBeCloseTo(200 / 32768, 6);
  });

  it('a worker that died mid-utterance: everything flushed, and the next worker’s utterance 1 plays once the buffer forgets', () => {
    const buf = new JitterBuffer({ sampleRate: SR, prebufferMs: 20 });
    buf.push(1, pcm(ms(40)), true);
    buf.push(2, pcm(ms(40)));
    readBlocks(buf, 8);
    // Utterance 2 never ends: its worker is gone. The page flushes on the lost connection.
    buf.flush();
    expect(buf.current).toBeNull();
    expect(readBlocks(buf, 1).events).toMatchObject([{ type: 'end', utt: 2, interrupted: true }]);
    // Still the old connection: audio of 1 or 2 is late audio, dropped.
    buf.push(1, pcm(ms(40)), true);
    expect(buf.current).toBeNull();
    // The new worker counts from 1 again.
    buf.forgetFinished();
    buf.push(1, pcm(ms(40)), true);
    const r = readBlocks(buf, 8);
    expect(r.events.map((e) => e.type)).toEqual(['start', 'end']);
  });

  it('flush (interruption) drops the rest and reports what was played; late audio of it is ignored', () => {
    const buf = new JitterBuffer({ sampleRate: SR, prebufferMs: 0 });
    buf.push(7, pcm(1000));
    readBlocks(buf, 2);
    expect(buf.flush(7)).toEqual([{ utt: 7, played: 256 }]);
    buf.push(7, pcm(500), true);
    const r = readBlocks(buf, 1);
    expect(r.events).toEqual([{ type: 'end', utt: 7, offset: 0, played: 256, interrupted: true, at: 0 }]);
    expect(r.samples.every((s) => s === 0)).toBe(true);
    expect(buf.current).toBeNull();
  });

  it('never holds more than maxBufferMs', () => {
    const buf = new JitterBuffer({ sampleRate: SR, maxBufferMs: 100 });
    buf.push(1, pcm(ms(80)));
    buf.push(1, pcm(ms(80)));
    expect(buf.totalBuffered()).toBe(ms(100));
    expect(buf.dropped).toBe(ms(60));
  });

  describe('a hold (the worker\'s pause / resume)', () => {
    const FADE = 16; // samples (1 ms at 16 kHz)

    it('fades out, then writes silence with the clock standing still; resume goes on from the same sample', () => {
      const buf = new JitterBuffer({ sampleRate: SR, prebufferMs: 0, fadeMs: 1 });
      const ramp = Int16Array.from({ length: 2000 }, (_, i) => i); // each sample says where it is
      buf.push(1, ramp);
      readBlocks(buf, 2); // 256 played
      buf.pause(1);
      expect(buf.isHeld(1)).toBe(true);
      let r = readBlocks(buf, 1);
      // The fade: the next FADE samples, scaled down to silence; then nothing.
      expect(r.samples[0]).toBeCloseTo((256 / 32768) * (1 - 1 / FADE), 6);
      expect(r.samples.slice(FADE - 1).every((x) => x === 0)).toBe(true);
      expect(buf.current?.played).toBe(256 + FADE);
      r = readBlocks(buf, 10);
      expect(r.samples.every((x) => x === 0)).toBe(true);
      expect(r.events).toEqual([]);
      expect(buf.current?.played).toBe(256 + FADE);
      buf.resume(1);
      expect(buf.isHeld(1)).toBe(false);
      r = readBlocks(buf, 1);
      // It fades back in from the sample after the last one written, then plays as before.
      expect(r.samples[0]).toBeCloseTo(((256 + FADE) / 32768) * (1 / FADE), 6);
      expect(r.samples[FADE]).toBeCloseTo((256 + 2 * FADE) / 32768, 6);
      expect(buf.current?.played).toBe(256 + FADE + 128);
    });

    it('holds an utterance that has not started yet, and lets it start on resume', () => {
      const buf = new JitterBuffer({ sampleRate: SR, prebufferMs: 0, fadeMs: 1 });
      buf.pause(2);
      buf.push(2, pcm(500), true);
      let r = readBlocks(buf, 3);
      expect(r.events).toEqual([]);
      expect(r.samples.every((x) => x === 0)).toBe(true);
      buf.resume(2);
      r = readBlocks(buf, 5);
      expect(r.events.map((e) => e.type)).toEqual(['start', 'end']);
      expect(r.events[1]).toMatchObject({ played: 500, interrupted: false });
    });

    it('an interruption while held ends the utterance with what was played', () => {
      const buf = new JitterBuffer({ sampleRate: SR, prebufferMs: 0, fadeMs: 1 });
      buf.push(3, pcm(2000));
      readBlocks(buf, 1);
      buf.pause(3);
      readBlocks(buf, 4);
      expect(buf.flush(3)).toEqual([{ utt: 3, played: 128 + FADE }]);
      const r = readBlocks(buf, 1);
      expect(r.events).toEqual([{ type: 'end', utt: 3, offset: 0, played: 128 + FADE, interrupted: true, at: 0 }]);
      expect(buf.isHeld(3)).toBe(false);
    });

    it('lets go by itself when the worker never says (maxHoldMs)', () => {
      const buf = new JitterBuffer({ sampleRate: SR, prebufferMs: 0, fadeMs: 1, maxHoldMs: 50 });
      buf.push(4, pcm(4000));
      readBlocks(buf, 1);
      buf.pause(4);
      readBlocks(buf, 6); // 112 + 5 × 128 = 752 samples held: less than 50 ms
      const held = buf.current!.played;
      expect(held).toBe(128 + FADE);
      const r = readBlocks(buf, 3);
      expect(buf.current!.played).toBeGreaterThan(held);
      expect(r.samples.some((x) => x !== 0)).toBe(true);
    });

    it('a pause then resume within the fade continues without a gap', () => {
      const buf = new JitterBuffer({ sampleRate: SR, prebufferMs: 0, fadeMs: 1 });
      buf.push(5, pcm(2000));
      readBlocks(buf, 1);
      buf.pause(5);
      buf.resume(5);
      const r = readBlocks(buf, 2);
      expect(buf.current!.played).toBe(128 + 256);
      expect(r.samples.every((x) => x > 0)).toBe(true);
    });
  });
});
