import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineVoice, type OfflineVoice } from '../../speech/offline-voice.js';
import { createOfflineRecognizer, createOfflineStt, findPocketsphinx, type OfflineRecognizer } from './offline.js';
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

describe('offline recogniser without pocketsphinx', () => {
  it('refuses clearly', async () => {
    // Whether or not it is installed here, a made-up install path stands in for "missing".
    const missing = createOfflineRecognizer({ install: { bin: '/nonexistent/pocketsphinx_batch', hmm: '/x', lm: '/x', dict: '/x' }, timeoutMs: 2000 });
    await expect(missing.transcribe(new Int16Array(1600))).rejects.toThrow();
    await missing.close();
    expect(findPocketsphinx({ PATH: '/nonexistent', POCKETSPHINX_MODEL_DIR: '/nonexistent' })).toBeNull();
  });
});
