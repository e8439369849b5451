import { VISEMES, VISEME_COUNT, type Viseme } from './visemes';
import type { FaceState } from './face-driver';

/**
 * How the face state reaches a model, by what the model can do:
 *  - `oculus`: morph targets named `viseme_*` (our catalogue, Ready Player Me, TalkingHead);
 *  - `arkit`: the 52 ARKit blend shapes (jawOpen, mouthFunnel, mouthPucker…), each viseme a recipe;
 *  - `vrm`: VRM expressions aa/ih/ou/ee/oh (+ blink, happy);
 *  - `jaw`: one jawOpen/mouthOpen target, or nothing (a jaw bone, if any, opens).
 */
export type RigProfile = 'oculus' | 'arkit' | 'vrm' | 'jaw';

const ARKIT: Record<Viseme, Record<string, number>> = {
  sil: {},
  PP: { mouthClose: 0.6, mouthPressLeft: 0.5, mouthPressRight: 0.5, mouthRollLower: 0.3, mouthRollUpper: 0.2 },
  FF: { mouthRollLower: 0.7, mouthUpperUpLeft: 0.25, mouthUpperUpRight: 0.25, jawOpen: 0.06 },
  TH: { jawOpen: 0.15, tongueOut: 0.4, mouthStretchLeft: 0.15, mouthStretchRight: 0.15 },
  DD: { jawOpen: 0.22, mouthShrugUpper: 0.2, mouthStretchLeft: 0.2, mouthStretchRight: 0.2 },
  kk: { jawOpen: 0.28, mouthStretchLeft: 0.3, mouthStretchRight: 0.3 },
  CH: { jawOpen: 0.18, mouthFunnel: 0.45, mouthShrugUpper: 0.3 },
  SS: { jawOpen: 0.08, mouthStretchLeft: 0.45, mouthStretchRight: 0.45, mouthSmileLeft: 0.15, mouthSmileRight: 0.15 },
  nn: { jawOpen: 0.18, mouthClose: 0.1, mouthStretchLeft: 0.15, mouthStretchRight: 0.15 },
  RR: { jawOpen: 0.2, mouthPucker: 0.45, mouthFunnel: 0.2 },
  aa: { jawOpen: 0.7, mouthLowerDownLeft: 0.3, mouthLowerDownRight: 0.3 },
  E: { jawOpen: 0.4, mouthStretchLeft: 0.45, mouthStretchRight: 0.45, mouthUpperUpLeft: 0.2, mouthUpperUpRight: 0.2 },
  I: { jawOpen: 0.28, mouthSmileLeft: 0.45, mouthSmileRight: 0.45 },
  O: { jawOpen: 0.5, mouthFunnel: 0.75 },
  U: { jawOpen: 0.22, mouthPucker: 0.95 },
};

const VRM: Record<Viseme, Partial<Record<'aa' | 'ih' | 'ou' | 'ee' | 'oh', number>>> = {
  sil: {},
  PP: {},
  FF: { ih: 0.2 },
  TH: { aa: 0.2, ih: 0.1 },
  DD: { aa: 0.25, ih: 0.15 },
  kk: { aa: 0.3, ee: 0.1 },
  CH: { ou: 0.3, ih: 0.2 },
  SS: { ih: 0.35 },
  nn: { aa: 0.2, ih: 0.1 },
  RR: { ou: 0.4, oh: 0.15 },
  aa: { aa: 1 },
  E: { ee: 0.9 },
  I: { ih: 0.9 },
  O: { oh: 1 },
  U: { ou: 1 },
};

/** Detects the profile from the morph target (or expression) names a model has. */
export function detectProfile(names: Iterable<string>, isVrm = false): RigProfile {
  if (isVrm) return 'vrm';
  const set = new Set(names);
  if (VISEMES.filter((v) => v !== 'sil').some((v) => set.has(`viseme_${v}`))) return 'oculus';
  if (set.has('jawOpen') && (set.has('mouthFunnel') || set.has('mouthPucker') || set.has('mouthClose'))) return 'arkit';
  return 'jaw';
}

/** What a model can do, as the upload check reports it. */
export function describeCapabilities(names: Iterable<string>, isVrm = false) {
  const set = new Set(names);
  const visemes = VISEMES.filter((v) => set.has(`viseme_${v}`));
  return {
    profile: detectProfile(set, isVrm),
    visemes,
    blink: set.has('eyeBlinkLeft') || set.has('eyeBlink_L') || set.has('blink') || set.has('blinkLeft'),
  };
}

/**
 * The target weights for a face state: name → weight (0–1). `names` are the targets the model
 * has; only those are written.
 */
export function targetWeights(face: FaceState, profile: RigProfile, names: ReadonlySet<string>, out = new Map<string, number>()): Map<string, number> {
  out.clear();
  const add = (name: string, w: number) => {
    if (w <= 0.001 || !names.has(name)) return;
    out.set(name, Math.min(1, (out.get(name) ?? 0) + w));
  };
  const v = face.visemes;
  if (profile === 'oculus') {
    for (let k = 0; k < VISEME_COUNT; k++) add(`viseme_${VISEMES[k]}`, v[k]!);
  } else if (profile === 'arkit') {
    for (let k = 0; k < VISEME_COUNT; k++) {
      const w = v[k]!;
      if (w <= 0.001) continue;
      for (const [name, amount] of Object.entries(ARKIT[VISEMES[k]!])) add(name, w * amount);
    }
  } else if (profile === 'vrm') {
    for (let k = 0; k < VISEME_COUNT; k++) {
      const w = v[k]!;
      if (w <= 0.001) continue;
      for (const [name, amount] of Object.entries(VRM[VISEMES[k]!])) add(name, w * amount);
    }
  } else {
    add('jawOpen', face.jaw);
    add('mouthOpen', face.jaw);
  }
  // Eyes and expression, by whichever names the model uses.
  for (const [l, r] of [
    ['eyeBlinkLeft', 'eyeBlinkRight'],
    ['eyeBlink_L', 'eyeBlink_R'],
    ['blinkLeft', 'blinkRight'],
  ] as const) {
    add(l, face.blinkLeft);
    add(r, face.blinkRight);
  }
  if (profile === 'vrm' && !names.has('blinkLeft')) add('blink', face.blinkLeft);
  add('mouthSmile', face.smile);
  add('mouthSmileLeft', face.smile * 0.6);
  add('mouthSmileRight', face.smile * 0.6);
  add('browInnerUp', face.browUp);
  if (profile === 'vrm') add('happy', face.smile * 0.3);
  return out;
}
