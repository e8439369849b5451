// Audio-driven lip-sync (loaded only when an utterance arrives without visemes): HeadAudio
// (@met4citizen/headaudio, MIT) classifies the played audio into Oculus visemes in a worklet.
import { HeadAudio } from '@met4citizen/headaudio/dist/headaudio.min.mjs';
import workletUrl from '@met4citizen/headaudio/dist/headworklet.min.mjs?url';
import modelUrl from '@met4citizen/headaudio/dist/model-en-mixed.bin?url';
import { VISEME_COUNT, visemeIndex, normalizeViseme } from './visemes';

export interface AudioLipSync {
  /** Current weights (indexed as VISEMES). */
  weights(dtMs: number): Float32Array;
  dispose(): void;
}

export async function createAudioLipSync(ctx: AudioContext, source: AudioNode): Promise<AudioLipSync> {
  await ctx.audioWorklet.addModule(workletUrl);
  const node = new HeadAudio(ctx, { processorOptions: {}, parameterData: { vadGateActiveDb: -45, vadGateInactiveDb: -60, silMode: 0 } });
  await node.loadModel(modelUrl);
  source.connect(node);
  const out = new Float32Array(VISEME_COUNT);
  node.onvalue = (key: string, value: number) => {
    const v = normalizeViseme(key);
    if (v) out[visemeIndex[v]] = value;
  };
  return {
    weights(dtMs) {
      node.update(dtMs);
      let sum = 0;
      for (let k = 0; k < VISEME_COUNT; k++) if (k !== visemeIndex.sil) sum += out[k]!;
      const w = new Float32Array(out);
      if (sum > 1) for (let k = 0; k < VISEME_COUNT; k++) w[k] = w[k]! / sum;
      w[visemeIndex.sil] = Math.max(0, 1 - Math.min(1, sum));
      return w;
    },
    dispose() {
      try {
        source.disconnect(node);
      } catch {
        // already gone with its context
      }
    },
  };
}
