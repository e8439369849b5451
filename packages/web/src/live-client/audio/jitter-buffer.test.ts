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
});
