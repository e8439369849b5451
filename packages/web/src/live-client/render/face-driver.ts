import { VISEMES, VISEME_COUNT, jawOpenOf, visemeIndex } from './visemes';

/** What every renderer draws: the mouth, the eyes and the head, for one frame. */
export interface FaceState {
  /** Weight of each viseme (indexed as VISEMES; sil = rest). */
  visemes: Float32Array;
  /** How open the mouth is (0–1), from the visemes. */
  jaw: number;
  blinkLeft: number;
  blinkRight: number;
  smile: number;
  browUp: number;
  /** Radians. */
  headYaw: number;
  headPitch: number;
  headRoll: number;
  eyeYaw: number;
  eyePitch: number;
  /** Breathing, -1…1. */
  breath: number;
  speaking: boolean;
}

export type Pose = 'idle' | 'listening' | 'thinking' | 'speaking';

/** A small deterministic random source (so a seed replays the same idle life). */
function rng(seed: number) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

const approach = (current: number, target: number, dtMs: number, tauMs: number) => current + (target - current) * (1 - Math.exp(-dtMs / tauMs));

/**
 * Idle life and poses on top of the speech visemes: blinks (now and then a double one), small
 * eye saccades, a slow head sway, breathing, a listening pose (head tilted, a slight smile,
 * steady gaze) and a speaking pose (livelier head that follows the jaw). Time comes from the
 * caller, so it is deterministic under test.
 */
export class FaceDriver {
  readonly state: FaceState = {
    visemes: new Float32Array(VISEME_COUNT),
    jaw: 0,
    blinkLeft: 0,
    blinkRight: 0,
    smile: 0,
    browUp: 0,
    headYaw: 0,
    headPitch: 0,
    headRoll: 0,
    eyeYaw: 0,
    eyePitch: 0,
    breath: 0,
    speaking: false,
  };
  private readonly random: () => number;
  private last = -1;
  private nextBlink = 0;
  private blinkStart = -1;
  private doubleBlink = false;
  private nextSaccade = 0;
  private gaze = { yaw: 0, pitch: 0 };
  private speechEnergy = 0;

  constructor(seed = 1) {
    this.random = rng(seed);
    this.state.visemes[visemeIndex.sil] = 1;
  }

  /** Advances to `nowMs` with these speech weights (null: not speaking). */
  update(nowMs: number, speech: Float32Array | null, pose: Pose): FaceState {
    const s = this.state;
    const dt = this.last < 0 ? 16 : Math.min(100, Math.max(0, nowMs - this.last));
    this.last = nowMs;
    const r = this.random;

    // Mouth: speech weights as given (the timeline already blends them).
    if (speech) s.visemes.set(speech);
    else {
      // Relax to rest.
      for (let k = 0; k < VISEME_COUNT; k++) s.visemes[k] = approach(s.visemes[k]!, k === visemeIndex.sil ? 1 : 0, dt, 60);
    }
    let jaw = 0;
    for (let k = 0; k < VISEME_COUNT; k++) jaw += s.visemes[k]! * jawOpenOf[VISEMES[k]!];
    s.jaw = Math.min(1, jaw);
    s.speaking = speech !== null;
    this.speechEnergy = approach(this.speechEnergy, s.jaw, dt, 250);

    // Blinks: every 2–6 s, 170 ms each, sometimes twice.
    if (this.nextBlink === 0) this.nextBlink = nowMs + 800 + r() * 2500;
    if (this.blinkStart < 0 && nowMs >= this.nextBlink) {
      this.blinkStart = nowMs;
      this.doubleBlink = r() < 0.15;
    }
    let blink = 0;
    if (this.blinkStart >= 0) {
      const t = nowMs - this.blinkStart;
      const one = (x: number) => (x < 0 || x > 170 ? 0 : x < 70 ? x / 70 : 1 - (x - 70) / 100);
      blink = Math.max(one(t), this.doubleBlink ? one(t - 230) : 0);
      if (t > (this.doubleBlink ? 400 : 170)) {
        this.blinkStart = -1;
        this.nextBlink = nowMs + 2000 + r() * 4000;
      }
    }
    s.blinkLeft = blink;
    s.blinkRight = blink;

    // Gaze: saccades, fewer while listening (attention on the visitor).
    if (nowMs >= this.nextSaccade) {
      const spread = pose === 'listening' ? 0.04 : pose === 'thinking' ? 0.16 : 0.09;
      this.gaze = { yaw: (r() - 0.5) * 2 * spread, pitch: (r() - 0.5) * spread + (pose === 'thinking' ? 0.08 : 0) };
      this.nextSaccade = nowMs + (pose === 'listening' ? 1500 : 500) + r() * 2500;
    }
    s.eyeYaw = approach(s.eyeYaw, this.gaze.yaw, dt, 25);
    s.eyePitch = approach(s.eyePitch, this.gaze.pitch, dt, 25);

    // Head: slow sway (sum of incommensurate sines), livelier while speaking.
    const t = nowMs / 1000;
    const sway = pose === 'speaking' ? 1.8 : 1;
    const speak = pose === 'speaking' ? this.speechEnergy : 0;
    const yaw = sway * 0.035 * Math.sin(t * 0.53) + 0.015 * Math.sin(t * 1.37 + 1) + this.gaze.yaw * 0.25;
    const pitch = sway * 0.02 * Math.sin(t * 0.71 + 2) + speak * 0.05 * Math.sin(t * 5.1) - (pose === 'listening' ? 0.03 : 0);
    const roll = sway * 0.015 * Math.sin(t * 0.43 + 4) + (pose === 'listening' ? 0.06 : 0);
    s.headYaw = approach(s.headYaw, yaw, dt, 200);
    s.headPitch = approach(s.headPitch, pitch, dt, 150);
    s.headRoll = approach(s.headRoll, roll, dt, 400);

    // Expression: a light smile when listening or idle, brows that lift with emphasis.
    s.smile = approach(s.smile, pose === 'listening' ? 0.35 : pose === 'speaking' ? 0.12 : 0.2, dt, 400);
    s.browUp = approach(s.browUp, pose === 'speaking' ? Math.min(0.5, speak * 0.8) : pose === 'listening' ? 0.15 : 0, dt, 200);
    s.breath = Math.sin(t * 2 * Math.PI * 0.22);
    return s;
  }
}
