import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProviderError } from '../core/errors.js';
import { loudSpans } from '../test/tts-helpers.js';
import { SilenceTrimmer } from '../core/audio.js';
import { OFFLINE_VOICES, createOfflineTts, createOfflineVoice, fliteText, offlineVoiceFor, parseFlitePhones, type OfflineVoice } from './offline-voice.js';
import { phonesToVisemes } from '../core/visemes.js';

let voice: OfflineVoice;
beforeAll(async () => {
  voice = createOfflineVoice({ threads: 2 });
  await voice.warm();
});
afterAll(() => voice.close());

const SENTENCE = 'The museum opens at nine and closes at five every day except Monday.';
const WORDS = 12;

/** Where speech starts and ends in a signal (ms), by the same measure the pipeline trims with. */
function speechBounds(pcm: Int16Array, rate: number) {
  const t = new SilenceTrimmer(rate, { leadPadMs: 0 });
  t.push(pcm);
  t.end(0);
  return { startMs: (t.trimmedLead * 1000) / rate, endMs: ((t.trimmedLead + t.speechEnd) * 1000) / rate };
}

describe('offline voice (flite compiled to WASI, in worker threads)', () => {
  it('lists the voices shipped in the package', () => {
    expect(voice.voices.map((v) => v.id)).toEqual(['slt', 'rms', 'awb', 'kal16', 'kal']);
    expect(OFFLINE_VOICES.find((v) => v.id === 'slt')!.sampleRate).toBe(16000);
  });

  it('speaks a sentence at 16 kHz, as long as people speak it (2–4.5 words a second)', async () => {
    const out = await voice.synthesize(SENTENCE);
    expect(out.sampleRate).toBe(16000);
    const { startMs, endMs } = speechBounds(out.pcm, 16000);
    const seconds = (endMs - startMs) / 1000;
    expect(WORDS / seconds).toBeGreaterThan(2);
    expect(WORDS / seconds).toBeLessThan(4.5);
    // Real speech, not a tone: many separate voiced stretches.
    expect(loudSpans(out.pcm, 16000, 800).length).toBeGreaterThan(6);
  });

  it('starts with the silence flite puts before speech (what the pipeline cuts)', async () => {
    const out = await voice.synthesize('Hello there.');
    const { startMs } = speechBounds(out.pcm, 16000);
    expect(startMs).toBeGreaterThan(100);
    expect(out.phones[0]).toMatchObject({ phone: 'pau', startMs: 0 });
  });

  it('its phones become a viseme timeline that spans the speech', async () => {
    const out = await voice.synthesize(SENTENCE);
    const { startMs, endMs } = speechBounds(out.pcm, 16000);
    const visemes = phonesToVisemes(out.phones, 'arpabet').filter((v) => v.v !== 'sil');
    const first = visemes[0]!;
    const last = visemes[visemes.length - 1]!;
    expect(Math.abs(first.t - startMs)).toBeLessThan(80);
    expect(Math.abs(last.t + last.d - endMs)).toBeLessThan(120);
    // "The" → TH first, "Monday" → PP near the end.
    expect(first.v).toBe('TH');
    expect(visemes.slice(-8).map((v) => v.v)).toContain('PP');
  });

  it('speaks faster or slower at the asked rate, and with other voices', async () => {
    const normal = await voice.synthesize(SENTENCE);
    const fast = await voice.synthesize(SENTENCE, { rate: 1.5 });
    expect(fast.pcm.length / normal.pcm.length).toBeGreaterThan(0.55);
    expect(fast.pcm.length / normal.pcm.length).toBeLessThan(0.8);
    const kal = await voice.synthesize('Hello.', { voice: 'kal' });
    expect(kal.sampleRate).toBe(8000);
    const rms = await voice.synthesize('Hello.', { voice: 'rms' });
    expect(rms.pcm.length).toBeGreaterThan(8000);
  });

  it('never blocks the event loop: timers keep firing while it speaks a paragraph', async () => {
    const paragraph = Array.from({ length: 6 }, () => SENTENCE).join(' ');
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const t0 = performance.now();
    await Promise.all([voice.synthesize(paragraph), voice.synthesize(paragraph)]);
    const took = performance.now() - t0;
    clearInterval(timer);
    expect(took).toBeGreaterThan(50);
    expect(ticks).toBeGreaterThan(Math.min(10, took / 50));
  });

  it('prints no warning (no node:wasi, no experimental API)', async () => {
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.message);
    process.on('warning', onWarning);
    const fresh = createOfflineVoice({ threads: 1 });
    try {
      await fresh.synthesize('Fresh thread.');
    } finally {
      await fresh.close();
      process.off('warning', onWarning);
    }
    expect(warnings).toEqual([]);
  });

  it('takes text literally and safely: options, other scripts and control characters are just text', async () => {
    const out = await voice.synthesize('-o /out/other.wav -voice kal --help');
    expect(out.sampleRate).toBe(16000);
    expect(out.pcm.length).toBeGreaterThan(16000);
    expect(fliteText('Café “quoted” — naïve\u0000\u0007 日本 ok…')).toBe('Cafe "quoted" , naive ok...');
    const none = await voice.synthesize('… 😀 —');
    expect(none.pcm.length).toBe(0);
    await expect(voice.synthesize('x'.repeat(1001))).rejects.toBeInstanceOf(ProviderError);
    await expect(voice.synthesize('Hi', { voice: '../../etc/passwd' })).rejects.toThrow(/no offline voice/);
  });

  it('one thread speaking many sentences in a row says each as a fresh flite would (its memory made as new between runs)', async () => {
    const one = createOfflineVoice({ threads: 1 });
    try {
      const first = await one.synthesize('Hello there, how are you today?');
      // Other voices, rates and lengths in between: flite's state (its heap grown, voices loaded)
      // must not reach the next sentence.
      await one.synthesize(SENTENCE, { voice: 'kal' });
      await one.synthesize(`${SENTENCE} ${SENTENCE} ${SENTENCE}`, { voice: 'rms', rate: 1.3 });
      await one.synthesize('Yes.', { voice: 'awb' });
      const again = await one.synthesize('Hello there, how are you today?');
      expect(again.sampleRate).toBe(first.sampleRate);
      expect(Buffer.from(again.pcm.buffer, again.pcm.byteOffset, again.pcm.byteLength).equals(Buffer.from(first.pcm.buffer, first.pcm.byteOffset, first.pcm.byteLength))).toBe(true);
      expect(again.phones).toEqual(first.phones);
      // Five sentences, one instance: the thread made it ready for each of the others. (A thread
      // that made a new one per sentence would be at five or six.) The paragraph above grew the
      // memory less than twice over, so it was kept too.
      expect(one.instancesMade!()).toBe(1);
    } finally {
      await one.close();
    }
  });

  it('an interruption drops a queued synthesis at once', async () => {
    const one = createOfflineVoice({ threads: 1 });
    try {
      const busy = one.synthesize(SENTENCE);
      const ac = new AbortController();
      const queued = one.synthesize(SENTENCE, { signal: ac.signal });
      ac.abort(new Error('interrupted'));
      await expect(queued).rejects.toThrow('interrupted');
      expect((await busy).pcm.length).toBeGreaterThan(0);
    } finally {
      await one.close();
    }
  });

  it('a synthesis that takes too long fails, and the next one gets a new thread', async () => {
    const slow = createOfflineVoice({ threads: 1, timeoutMs: 1 });
    try {
      await expect(slow.synthesize(SENTENCE)).rejects.toThrow(/longer than 1 ms/);
    } finally {
      await slow.close();
    }
    expect((await voice.synthesize('Still here.')).pcm.length).toBeGreaterThan(0);
  });

  it('as a TTS engine: one chunk with exact visemes from the phones', async () => {
    const tts = createOfflineTts(voice, { voice: 'slt' });
    const chunks = [];
    for await (const c of tts.synthesize('Good morning.', { signal: new AbortController().signal })) chunks.push(c);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]!.marks!.visemes!.some((v) => v.v === 'PP')).toBe(true);
    expect(tts.marks).toBe('visemes');
  });

  it('maps hosted voice names to an offline voice of the same kind', () => {
    expect(offlineVoiceFor('en-US-GuyNeural')).toBe('rms');
    expect(offlineVoiceFor('Matthew (neural)')).toBe('rms');
    expect(offlineVoiceFor('en-US-JennyNeural')).toBe('slt');
    expect(offlineVoiceFor('awb')).toBe('awb');
    expect(offlineVoiceFor(undefined)).toBe('slt');
  });

  it('parses flite’s -psdur output into timed phones', () => {
    expect(parseFlitePhones('pau:0.164 hh:0.255 ax:0.304 junk l:0.412 \n')).toEqual([
      { phone: 'pau', startMs: 0, endMs: 164 },
      { phone: 'hh', startMs: 164, endMs: 255 },
      { phone: 'ax', startMs: 255, endMs: 304 },
      { phone: 'l', startMs: 304, endMs: 412 },
    ]);
  });
});
