import { describe, expect, it } from 'vitest';
import { AudioFrameKind, LiveProtocol, readAudioFrame, writeAudioFrame } from '@persona/contract';
import { MicFramer, meterLevel } from './mic-framer';

/** 128-sample render quanta, as an AudioWorklet gets them. */
function feed(framer: MicFramer, input: Float32Array) {
  const frames: { pcm: Int16Array; rms: number }[] = [];
  for (let at = 0; at < input.length; at += 128) frames.push(...framer.push(input.subarray(at, at + 128)));
  return frames;
}
const concat = (frames: { pcm: Int16Array }[]) => {
  const out = new Int16Array(frames.reduce((n, f) => n + f.pcm.length, 0));
  let at = 0;
  for (const f of frames) {
    out.set(f.pcm, at);
    at += f.pcm.length;
  }
  return out;
};

describe('microphone frames: 16 kHz PCM16 in 20 ms from the context rate', () => {
  it('48 kHz: every frame is 320 samples (20 ms at 16 kHz); one second gives exactly 50 frames', () => {
    const framer = new MicFramer(48_000, LiveProtocol.micSampleRate, LiveProtocol.micFrameMs);
    expect(framer.frameSamples).toBe(320);
    const frames = feed(framer, new Float32Array(48_000).fill(0.25));
    expect(frames).toHaveLength(50);
    for (const f of frames) expect(f.pcm.length).toBe(320);
  });

  it('48 kHz → 16 kHz is the exact mean of each three input samples, in order, across render quanta', () => {
    const framer = new MicFramer(48_000);
    // A ramp of distinct values: output k must be mean(x[3k], x[3k+1], x[3k+2]).
    const input = Float32Array.from({ length: 960 * 2 }, (_, i) => ((i % 997) - 498) / 1000);
    const out = concat(feed(framer, input));
    expect(out.length).toBe(640);
    for (let k = 0; k < out.length; k++) {
      const mean = (input[3 * k]! + input[3 * k + 1]! + input[3 * k + 2]!) / 3;
      expect(out[k]).toBe(Math.round(mean < 0 ? mean * 0x8000 : mean * 0x7fff));
    }
  });

  it('keeps a 440 Hz tone at 440 Hz and its amplitude (48 kHz and 44.1 kHz)', () => {
    for (const rate of [48_000, 44_100]) {
      const input = Float32Array.from({ length: rate }, (_, i) => 0.5 * Math.sin((2 * Math.PI * 440 * i) / rate));
      const out = concat(feed(new MicFramer(rate), input));
      expect(out.length).toBe(16_000); // one second → 50 whole frames
      // Zero crossings upward per second ≈ 440; peak ≈ 0.5 × 32767 (the box filter loses < 1 % at 440 Hz).
      let ups = 0;
      let peak = 0;
      for (let i = 1; i < out.length; i++) {
        if (out[i - 1]! < 0 && out[i]! >= 0) ups++;
        peak = Math.max(peak, Math.abs(out[i]!));
      }
      expect(Math.abs(ups * (16_000 / out.length) - 440)).toBeLessThanOrEqual(2);
      expect(peak / 16384).toBeGreaterThan(0.97);
      expect(peak / 16384).toBeLessThan(1.01);
    }
  });

  it('clips beyond full scale, reports the RMS of each frame, and a reset drops a partial frame', () => {
    const framer = new MicFramer(16_000);
    const [f] = framer.push(new Float32Array(320).fill(2));
    expect(f!.pcm.every((s) => s === 32767)).toBe(true);
    expect(f!.rms).toBeCloseTo(1);
    expect(framer.push(new Float32Array(300).fill(-0.5))).toEqual([]);
    framer.reset();
    const [g] = framer.push(new Float32Array(320).fill(-0.5));
    expect(g!.pcm.every((s) => s === -16384)).toBe(true);
    expect(g!.rms).toBeCloseTo(0.5);
  });

  it('upsamples a context below 16 kHz (8 kHz → twice the samples)', () => {
    const out = concat(feed(new MicFramer(8000), new Float32Array(8000).fill(0.1)));
    expect(out.length).toBe(16_000);
  });

  it('a frame goes to the worker as a mic binary frame: 8-byte header + 640 bytes', () => {
    const [f] = new MicFramer(48_000).push(new Float32Array(960).fill(0.1));
    const wire = writeAudioFrame({ kind: AudioFrameKind.mic, flags: 0, utterance: 0, seq: 7 }, new Uint8Array(f!.pcm.buffer));
    expect(wire.byteLength).toBe(LiveProtocol.binaryHeaderBytes + 640);
    expect(readAudioFrame(wire)?.header).toEqual({ kind: AudioFrameKind.mic, flags: 0, utterance: 0, seq: 7 });
  });

  it('the meter reads RMS on a dB scale', () => {
    expect(meterLevel(0)).toBe(0);
    expect(meterLevel(0.001)).toBe(0);
    expect(meterLevel(Math.pow(10, -35 / 20))).toBeCloseTo(0.5);
    expect(meterLevel(1)).toBe(1);
  });
});
