import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAvatarRecognizers, createModelCache } from './avatar-models.js';
import { createOfflineVoice, type OfflineVoice } from '../../speech/offline-voice.js';
import { spawnSync } from 'node:child_process';
import { bytesToSamples, parseWavHeader, resample } from '../../core/audio.js';
import { createOfflineRecognizer, createOfflineStt, createRecognizerPool, DITHER_DBFS, findPocketsphinx, withDither, type OfflineRecognizer } from './offline.js';
import type { SttResult } from './types.js';

const install = findPocketsphinx();
if (!install) console.warn('SKIPPED: pocketsphinx is not installed here (apt-get install -y pocketsphinx pocketsphinx-en-us); .ci/run installs it.');

describe.skipIf(!install)('offline recogniser (pocketsphinx_batch, resident)', () => {
  let voice: OfflineVoice;
  let recognizer: OfflineRecognizer;
  beforeAll(async () => {
    voice = createOfflineVoice({ threads: 1 });
    recognizer = createOfflineRecognizer();
    await Promise.all([voice.warm(), recognizer.warm()]);
  }, 60_000);
  afterAll(async () => {
    await recognizer?.close();
    await voice?.close();
  });

  it('recognises what the offline voice says, utterance after utterance, in one process', async () => {
    const lines = ['hello how are you today', 'what is the weather like in paris'];
    const said = await Promise.all(lines.map((l) => voice.synthesize(l)));
    // Both queued at once: answers come back matched to their utterance.
    const heard = await Promise.all(said.map((s) => recognizer.transcribe(s.pcm)));
    expect(heard).toEqual(lines);
    expect(await recognizer.transcribe(new Int16Array(16_000))).toBe('');
  }, 60_000);

  it('is a batch STT engine: pushed frames, one final result per finalize', async () => {
    const said = await voice.synthesize('tell me about the museum');
    const results: SttResult[] = [];
    const ctl = new AbortController();
    const session = await createOfflineStt(recognizer).open(
      { languages: ['en-US'], interim: true, sampleRate: 16_000, signal: ctl.signal },
      { onResult: (r) => results.push(r), onError: (e) => results.push({ text: `error ${e.message}`, final: true }) },
    );
    for (let at = 0; at < said.pcm.length; at += 320) session.push(said.pcm.subarray(at, at + 320));
    await session.finalize();
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ final: true, endOfTurn: true });
    expect(results[0]!.text).toContain('museum');
    // Nothing buffered: nothing to say.
    await session.finalize();
    expect(results).toHaveLength(1);
    session.close();
  }, 60_000);
});

describe.skipIf(!install)('offline recogniser closed while it starts', () => {
  it('starts no process after close (a pool member starting in the background must not outlive its worker)', async () => {
    const r = createOfflineRecognizer();
    const starting = r.warm().then(
      () => 'started',
      () => 'refused',
    );
    await r.close();
    expect(await starting).toBe('refused');
    await expect(r.warm()).rejects.toThrow('closed');
    await expect(r.transcribe(new Int16Array(1600))).rejects.toThrow('closed');
  });
});

describe('offline recogniser without pocketsphinx', () => {
  it('refuses clearly', async () => {
    // Whether or not it is installed here, a made-up install path stands in for "missing".
    const missing = createOfflineRecognizer({ install: { bin: '/nonexistent/pocketsphinx_batch', hmm: '/x', lm: '/x', dict: '/x' }, timeoutMs: 2000 });
    await expect(missing.transcribe(new Int16Array(1600))).rejects.toThrow();
    await missing.close();
    expect(findPocketsphinx({ PATH: '/nonexistent', POCKETSPHINX_MODEL_DIR: '/nonexistent' })).toBeNull();
  });
});

describe('a pool of recognisers', () => {
  /** A recogniser whose start and answers the test releases; it says which member it is. */
  function fakeMember(index: number, log: string[], failStart = false) {
    const answers: (() => void)[] = [];
    let release: () => void = () => undefined;
    const started = new Promise<void>((resolve, reject) => (release = () => (failStart ? reject(new Error('no start')) : resolve())));
    const recognizer: OfflineRecognizer = {
      warm: () => {
        log.push(`start ${index}`);
        return started;
      },
      transcribe: async (pcm) => {
        // The pool's warm-up utterance (0.1 s) is answered at once; the test's own wait for it.
        if (pcm.length === 1600) return '';
        await new Promise<void>((r) => answers.push(r));
        return `member ${index}`;
      },
      close: async () => void log.push(`close ${index}`),
    };
    return { recognizer, release: () => release(), answerAll: () => answers.splice(0).forEach((a) => a()), waiting: () => answers.length };
  }
  const tick = () => new Promise((r) => setTimeout(r, 0));
  /** A pool of fake members (`failing`: the indexes whose start fails), and the log of their starts and closes. */
  function fakePool(size: number, failing: number[] = []) {
    const log: string[] = [];
    const members = Array.from({ length: size }, (_, i) => fakeMember(i, log, failing.includes(i)));
    let made = 0;
    return { log, members, pool: createRecognizerPool(() => members[made++]!.recognizer, size) };
  }

  it('starts a second process only when utterances overlap, and sends the next ones to the less busy', async () => {
    const { log, members, pool } = fakePool(3);
    members[0]!.release();
    await pool.warm();
    const a = pool.transcribe(new Int16Array(10));
    await tick();
    expect(log).toEqual(['start 0']);
    // Overlapping: queued on the running member, the next one starts in the background.
    const b = pool.transcribe(new Int16Array(10));
    await tick();
    expect(log).toEqual(['start 0', 'start 1']);
    expect(members[0]!.waiting()).toBe(2);
    members[1]!.release();
    await tick();
    const c = pool.transcribe(new Int16Array(10));
    await tick();
    expect(members[1]!.waiting()).toBe(1);
    members.forEach((m) => m.answerAll());
    expect(await Promise.all([a, b, c])).toEqual(['member 0', 'member 0', 'member 1']);
    // Alone again: the first member, and nothing more is started.
    const d = pool.transcribe(new Int16Array(10));
    await tick();
    members[0]!.answerAll();
    expect(await d).toBe('member 0');
    expect(log).toEqual(['start 0', 'start 1']);
    await pool.close();
    expect(log.filter((l) => l.startsWith('close'))).toEqual(['close 0', 'close 1', 'close 2']);
  });

  it('a member that cannot start is never used', async () => {
    const { log, members, pool } = fakePool(2, [1]);
    members[0]!.release();
    await pool.warm();
    const a = pool.transcribe(new Int16Array(10));
    await tick();
    const b = pool.transcribe(new Int16Array(10));
    members[1]!.release();
    await tick();
    const c = pool.transcribe(new Int16Array(10));
    await tick();
    expect(members[0]!.waiting()).toBe(3);
    members[0]!.answerAll();
    expect(await Promise.all([a, b, c])).toEqual(['member 0', 'member 0', 'member 0']);
    // Tried once, not again and again.
    expect(log).toEqual(['start 0', 'start 1']);
    await pool.close();
  });

  it('grows without warm() too (the first member starts on its first utterance), and refuses once closed', async () => {
    const { log, members, pool } = fakePool(2);
    const a = pool.transcribe(new Int16Array(10));
    await tick();
    members[0]!.answerAll();
    expect(await a).toBe('member 0');
    const b = pool.transcribe(new Int16Array(10));
    await tick();
    const c = pool.transcribe(new Int16Array(10));
    await tick();
    expect(log).toEqual(['start 1']);
    members[1]!.release();
    await tick();
    members[0]!.answerAll();
    expect(await Promise.all([b, c])).toEqual(['member 0', 'member 0']);
    await pool.close();
    await expect(pool.transcribe(new Int16Array(10))).rejects.toThrow('closed');
    await expect(pool.warm()).rejects.toThrow('closed');
  });
});

describe('dither before recognition', () => {
  it('is seeded, small and triangular: the same audio always gets the same dither, at DITHER_DBFS', () => {
    const silence = new Int16Array(160_000);
    const a = withDither(silence, DITHER_DBFS);
    expect(withDither(silence, DITHER_DBFS)).toEqual(a);
    let sum = 0;
    let peak = 0;
    for (const v of a) {
      sum += v * v;
      peak = Math.max(peak, Math.abs(v));
    }
    const db = 20 * Math.log10(Math.sqrt(sum / a.length) / 32768);
    expect(db).toBeGreaterThan(DITHER_DBFS - 1);
    expect(db).toBeLessThan(DITHER_DBFS + 1);
    expect(peak).toBeLessThanOrEqual(Math.ceil(32768 * 10 ** (DITHER_DBFS / 20) * Math.sqrt(6)));
    // Clipped at full scale, never wrapped.
    expect(withDither(new Int16Array(1000).fill(32767), DITHER_DBFS).every((v) => v > 32000)).toBe(true);
  });

  const espeak = spawnSync('espeak-ng', ['--version']).status === 0;
  it.skipIf(!install || !espeak)('makes the offline recogniser hear sentences surrounded by digital silence (espeak-ng, −20 dBFS, 300 ms of silence each side)', async () => {
    const lines = ['What time do you open tomorrow?', 'How much does it cost?', 'Where is my order?', 'Can I pay with cash?', 'Do you have this in a larger size?', 'Thank you very much for your help.'];
    const said = lines.map((line) => {
      const bytes = new Uint8Array(spawnSync('espeak-ng', ['-v', 'en-us', '-s', '160', '--stdout', line], { maxBuffer: 64 << 20 }).stdout);
      const info = parseWavHeader(bytes);
      if (!info) throw new Error(`espeak-ng wrote no WAV for "${line}"`);
      let pcm = bytesToSamples(bytes.subarray(info.dataOffset));
      if (info.sampleRate !== 16_000) pcm = resample(pcm, info.sampleRate, 16_000);
      let sum = 0;
      let n = 0;
      for (const v of pcm) {
        if (Math.abs(v) < 328) continue;
        sum += v * v;
        n++;
      }
      const gain = (32768 * 10 ** (-20 / 20)) / Math.sqrt(sum / n);
      const padded = new Int16Array(pcm.length + 9600);
      for (let i = 0; i < pcm.length; i++) padded[4800 + i] = Math.max(-32768, Math.min(32767, Math.round(pcm[i]! * gain)));
      return padded;
    });
    const words = (t: string): string[] => t.toLowerCase().match(/[a-z']+/g) ?? [];
    /** Words of each line not heard (a bag-of-words miss count, enough to compare the two). */
    const missed = (heard: string[]) => heard.reduce((n, h, i) => n + words(lines[i]!).filter((w) => !words(h).includes(w)).length, 0);
    const plain = createOfflineRecognizer({ ditherDbfs: null });
    const dithered = createOfflineRecognizer();
    try {
      const [a, b] = await Promise.all([Promise.all(said.map((p) => plain.transcribe(p))), Promise.all(said.map((p) => dithered.transcribe(p)))]);
      console.log(`[offline dither] missed words without ${missed(a)}, with ${missed(b)} of ${lines.flatMap(words).length}`, { without: a, with: b });
      expect(missed(b)).toBeLessThan(missed(a) - 5);
      // Dither alone is nothing to hear.
      expect(await dithered.transcribe(new Int16Array(16_000))).toBe('');
    } finally {
      await Promise.all([plain.close(), dithered.close()]);
    }
  }, 120_000);
});

describe.skipIf(!install)('the avatar\'s own language model (ADR 105)', () => {
  it('is built, loaded by a recogniser of its own and used for the avatar\'s utterances once loaded', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'stt-avatar-model-'));
    const voice = createOfflineVoice({ threads: 1 });
    const made: string[] = [];
    let loaded = false;
    const heardBy: string[] = [];
    const generic = createOfflineRecognizer();
    const set = createAvatarRecognizers({
      generic: { ...generic, transcribe: (pcm, signal) => (heardBy.push('generic'), generic.transcribe(pcm, signal)) },
      cache: createModelCache({ install: install!, dir }),
      make: (lm) => {
        made.push(lm);
        const r = createOfflineRecognizer({ install: { ...install!, lm } });
        return { ...r, warm: async () => (await r.warm(), await r.transcribe(new Int16Array(1600)), (loaded = true), undefined), transcribe: (pcm, signal) => (heardBy.push('avatar'), r.transcribe(pcm, signal)) };
      },
    });
    try {
      const nora = set.forAvatar({ name: 'Nora', wakeUpMessage: 'Hi, I am Nora from Brightside Outfitters.', functions: ['track_order'], knowledge: [{ title: 'Returns', text: 'You can return shoes within thirty days.' }] });
      await nora.warm();
      const file = await nora.model;
      expect(file).toMatch(/\.lm\.bin$/);
      await vi.waitFor(() => expect(loaded).toBe(true), { timeout: 60_000, interval: 50 });
      expect(made).toEqual([file]);
      const said = await voice.synthesize('can i return my shoes');
      expect(await nora.transcribe(said.pcm)).toMatch(/return/);
      expect(heardBy).toEqual(['avatar']);
    } finally {
      await set.close();
      await generic.close();
      await voice.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
