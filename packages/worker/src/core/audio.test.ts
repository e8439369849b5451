import { describe, expect, it } from 'vitest';
import { wavHeader } from '../test/fake-tts.js';
import { Pcm16Reader, Resampler, SilenceTrimmer, bytesToSamples, concatSamples, parseWavHeader, resample, samplesToBytes } from './audio.js';

const tone = (freq: number, rate: number, ms: number, amp = 10000) => {
  const n = Math.round((rate * ms) / 1000);
  const out = new Int16Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.round(amp * Math.sin((2 * Math.PI * freq * i) / rate));
  return out;
};
const silence = (rate: number, ms: number, noise = 0) => {
  const out = new Int16Array(Math.round((rate * ms) / 1000));
  for (let i = 0; i < out.length; i++) out[i] = noise ? Math.round((Math.random() * 2 - 1) * noise) : 0;
  return out;
};
const rms = (x: Int16Array) => Math.sqrt(x.reduce((s, v) => s + v * v, 0) / Math.max(1, x.length));
/** Frequency by zero crossings (Hz). */
const frequency = (x: Int16Array, rate: number) => {
  let crossings = 0;
  for (let i = 1; i < x.length; i++) if ((x[i - 1]! < 0 && x[i]! >= 0) || (x[i - 1]! >= 0 && x[i]! < 0)) crossings++;
  return (crossings / 2) * (rate / x.length);
};

describe('PCM16LE', () => {
  it('round-trips samples through little-endian bytes', () => {
    const s = Int16Array.from([0, 1, -1, 32767, -32768, 1234, -4321]);
    const b = samplesToBytes(s);
    expect(Array.from(b.subarray(0, 6))).toEqual([0, 0, 1, 0, 0xff, 0xff]);
    expect(Array.from(bytesToSamples(b))).toEqual(Array.from(s));
  });

  it('rejoins samples split at odd byte offsets', () => {
    const s = tone(300, 16000, 20);
    const bytes = samplesToBytes(s);
    const reader = new Pcm16Reader();
    const parts: Int16Array[] = [];
    for (let at = 0; at < bytes.length; at += 7) parts.push(reader.push(bytes.subarray(at, at + 7)));
    expect(Array.from(concatSamples(parts))).toEqual(Array.from(s));
  });

  it('reads WAV headers (rate, channels, data offset), waits for a whole header, refuses other formats', () => {
    const wav = wavHeader(22050, 1, 100);
    expect(parseWavHeader(wav)).toEqual({ sampleRate: 22050, channels: 1, bitsPerSample: 16, dataOffset: 44, dataBytes: 100 });
    expect(parseWavHeader(wav.subarray(0, 30))).toBeNull();
    const float = Buffer.from(wav);
    float.writeUInt16LE(3, 20);
    expect(() => parseWavHeader(float)).toThrow(/not PCM/);
    expect(() => parseWavHeader(Buffer.from('ID3 not a wav file at all'))).toThrow(/not a WAV/);
  });
});

describe('Resampler', () => {
  it('16 → 24 kHz keeps the pitch, the level and the length', () => {
    const input = tone(440, 16000, 500);
    const out = resample(input, 16000, 24000);
    expect(out.length).toBe(12000);
    const mid = out.subarray(2000, 10000);
    expect(frequency(mid, 24000)).toBeCloseTo(440, -1);
    expect(rms(mid) / rms(input.subarray(1000, 7000))).toBeCloseTo(1, 1);
  });

  it('24 → 16 kHz filters what 16 kHz cannot carry instead of folding it down (no aliasing)', () => {
    const high = resample(tone(10000, 24000, 300), 24000, 16000);
    const low = resample(tone(3000, 24000, 300), 24000, 16000);
    expect(rms(high.subarray(200, -200))).toBeLessThan(0.05 * 7071);
    expect(rms(low.subarray(200, -200)) / 7071).toBeCloseTo(1, 1);
  });

  it('streamed in uneven pieces it gives exactly the samples of one pass (22.05 → 24 kHz)', () => {
    const input = tone(523, 22050, 300);
    const whole = resample(input, 22050, 24000);
    const r = new Resampler(22050, 24000);
    const parts: Int16Array[] = [];
    for (let at = 0, k = 1; at < input.length; at += 37 * k, k++) parts.push(r.push(input.subarray(at, at + 37 * k)));
    parts.push(r.flush());
    expect(Array.from(concatSamples(parts))).toEqual(Array.from(whole));
  });

  it('passes samples through when the rates are equal', () => {
    const s = tone(200, 16000, 10);
    expect(new Resampler(16000, 16000).push(s)).toBe(s);
  });
});

describe('SilenceTrimmer', () => {
  const rate = 16000;
  const speech = () => concatSamples([silence(rate, 200, 20), tone(220, rate, 300), silence(rate, 150, 20), tone(330, rate, 300), silence(rate, 600, 20)]);

  it('cuts the leading silence (keeping a short pad), keeps the pause inside, caps the tail', () => {
    const t = new SilenceTrimmer(rate);
    const out = concatSamples([t.push(speech()), t.end(100)]);
    expect((t.trimmedLead * 1000) / rate).toBeGreaterThan(150);
    expect((t.trimmedLead * 1000) / rate).toBeLessThan(200);
    expect((t.leadKept * 1000) / rate).toBeCloseTo(30, -1);
    // pad + 300 + 150 pause + 300 + tail 100
    expect((out.length * 1000) / rate).toBeCloseTo(30 + 300 + 150 + 300 + 100, -1);
    expect((t.speechEnd * 1000) / rate).toBeCloseTo(30 + 300 + 150 + 300, -1);
  });

  it('lets speech through at once (only quiet samples wait), and gives the same result chunked', () => {
    const all = speech();
    const whole = new SilenceTrimmer(rate);
    const expected = concatSamples([whole.push(all), whole.end(100)]);
    const t = new SilenceTrimmer(rate);
    const parts: Int16Array[] = [];
    let emittedDuringSpeech = false;
    for (let at = 0; at < all.length; at += 320) {
      const out = t.push(all.subarray(at, at + 320));
      if (at > (rate * 300) / 1000 && at < (rate * 450) / 1000 && out.length > 0) emittedDuringSpeech = true;
      parts.push(out);
    }
    parts.push(t.end(100));
    expect(emittedDuringSpeech).toBe(true);
    expect(Array.from(concatSamples(parts))).toEqual(Array.from(expected));
  });

  it('keeps nothing of a silent signal, and ignores a lone click', () => {
    const t = new SilenceTrimmer(rate);
    const click = silence(rate, 300);
    click[1000] = 30000;
    expect(t.push(click).length).toBe(0);
    expect(t.end(100).length).toBe(0);
  });
});
