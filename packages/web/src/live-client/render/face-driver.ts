import type { TAvatarGesture, TAvatarMood } from '@persona/contract';
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
  /** The body's weight shift (radians of sideways lean at the hips/chest; small). */
  lean: number;
  speaking: boolean;
  /** The mood shown (avatar actions) and how strongly, 0–1 as it eases in and out. */
  mood: TAvatarMood;
  moodWeight: number;
  /** The gesture playing, if any, and how far through it (0–1): its head, eye and brow motion is applied here (`gestureMotion`), wave, point and shrug move the arms of the kinds that have them (gesture-pose.ts). */
  gesture: TAvatarGesture | null;
  gestureProgress: number;
  /** How strongly the gesture is played (0–1, the action's intensity). */
  gestureIntensity: number;
  /**
   * A gesture cut short by the one playing, held where it was and faded out over `GESTURE_BLEND_MS`
   * (`gestureBlend` goes 0 → 1), so an arm moves from one to the next instead of snapping to rest.
   */
  gestureFrom: { gesture: TAvatarGesture; progress: number; intensity: number } | null;
  gestureBlend: number;
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

/** How strong each mood is when its action gives no intensity. */
const MOOD_INTENSITY: Record<TAvatarMood, number> = { neutral: 0, happy: 0.7, sad: 0.6, surprised: 0.7, concerned: 0.6, thinking: 0.6 };
/** How long each gesture plays (ms). */
export const GESTURE_MS: Record<TAvatarGesture, number> = { nod: 900, shake: 1000, wave: 1600, shrug: 1000, point: 1200 };
/** How long a gesture that interrupts another takes over from it (ms). */
export const GESTURE_BLEND_MS = 300;

export interface GestureMotion {
  /** Added to the head (radians). */
  yaw: number;
  pitch: number;
  roll: number;
  /** Added to the eyes' yaw (radians). */
  eyeYaw: number;
  /** How far the brows are lifted towards fully up (0–1). */
  brow: number;
}
const NO_MOTION: GestureMotion = { yaw: 0, pitch: 0, roll: 0, eyeYaw: 0, brow: 0 };

/**
 * What a gesture does to the head, eyes and brows at `u` (0–1 through it), every kind alike (the
 * arms: gesture-pose.ts). Nod: the head dips twice; shake: it turns side to side three times; shrug:
 * the head tilts and the brows lift; wave: a greeting's tilt and lifted brows; point: head and eyes
 * turn to the pointing side (the figure's right, −yaw). Each fades in and out. On the 2D kinds and
 * photos, which have no arms, this is the whole gesture.
 */
export function gestureMotion(gesture: TAvatarGesture, u: number, intensity: number): GestureMotion {
  const fade = Math.sin(Math.PI * Math.min(1, Math.max(0, u)));
  const k = intensity * fade;
  switch (gesture) {
    case 'nod':
      return { ...NO_MOTION, pitch: 0.12 * k * Math.sin(u * 4 * Math.PI) };
    case 'shake':
      return { ...NO_MOTION, yaw: 0.14 * k * Math.sin(u * 6 * Math.PI) };
    case 'shrug':
      return { ...NO_MOTION, roll: 0.09 * k, brow: k };
    case 'wave':
      return { ...NO_MOTION, pitch: -0.03 * k, roll: 0.07 * k, brow: 0.6 * k };
    case 'point': {
      const glance = intensity * Math.min(1, 2 * fade);
      return { ...NO_MOTION, yaw: -0.12 * glance, eyeYaw: -0.12 * glance };
    }
  }
}

/** The brows with a gesture's lift on top (not fed back into the eased value). */
export const liftBrows = (brow: number, lift: number) => Math.min(1, brow + 0.5 * lift * (1 - brow));

/**
 * Idle life and poses on top of the speech visemes. Time comes from the caller, so it is
 * deterministic under test.
 * - idle: blinks every 2–6 s (now and then a double one), saccades with micro-saccades between
 *   them, a slow head sway, breathing, a weight shift every 6–14 s;
 * - listening: eyes on the visitor (micro-saccades only), the head tilted, an attentive face (a
 *   slight smile, brows up a little) and a small nod every 2.5–6 s;
 * - thinking: the gaze goes up and aside and stays there, brows drawn, no smile — unlike listening;
 * - speaking: a livelier head that follows the voice, a brow raise and a head dip on each stressed
 *   syllable (a beat: the mouth opening well above its recent level), and a gaze that leaves the
 *   visitor now and then (as people look away while they put a sentence together) and comes back.
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
    lean: 0,
    speaking: false,
    mood: 'neutral',
    moodWeight: 0,
    gesture: null,
    gestureProgress: 0,
    gestureIntensity: 0,
    gestureFrom: null,
    gestureBlend: 1,
  };
  private readonly random: () => number;
  private last = -1;
  private nextBlink = 0;
  private blinkStart = -1;
  private doubleBlink = false;
  private nextSaccade = 0;
  private gaze = { yaw: 0, pitch: 0 };
  private micro = { yaw: 0, pitch: 0 };
  private microAngle = 0;
  private nextMicro = 0;
  private speechEnergy = 0;
  private lastPose: Pose = 'idle';
  /** Speaking: the gaze is away until then (-1: on the visitor), and when it next leaves. */
  private awayUntil = -1;
  private nextAway = 0;
  /** Speaking beats: when the last one started, and the jaw's slow level they are measured against. */
  private beatStart = -Infinity;
  private jawLevel = 0;
  private jawBefore = 0;
  /** Listening nods: when the next one starts, and the one playing. */
  private nextNod = 0;
  private nodStart = -Infinity;
  private leanTarget = 0;
  /** The eyes' yaw before a point's glance (added on top, not fed back). */
  private eyeYaw = 0;
  /** The brows before a gesture's lift. */
  private brow = 0;
  private nextShift = 0;
  /** The head before gestures (the gesture's motion is added on top, not fed back). */
  private readonly head = { yaw: 0, pitch: 0, roll: 0 };
  /** Asked for and not started yet: they start on the next update, in its time. */
  private moodAsk: { mood: TAvatarMood; intensity: number; durationMs: number | null } | null = null;
  private gestureAsk: { gesture: TAvatarGesture; intensity: number } | null = null;
  private moodTarget = 0;
  private moodUntil: number | null = null;
  private gesturePlay: { gesture: TAvatarGesture; intensity: number; start: number } | null = null;

  constructor(seed = 1) {
    this.random = rng(seed);
    this.state.visemes[visemeIndex.sil] = 1;
  }

  /** Shows a mood from the next frame on, eased in; held `durationMs` (absent: until the next one). */
  setMood(mood: TAvatarMood, intensity?: number, durationMs?: number) {
    this.moodAsk = { mood, intensity: Math.min(1, Math.max(0, intensity ?? MOOD_INTENSITY[mood])), durationMs: durationMs ?? null };
  }

  /** Plays a gesture once from the next frame on. */
  playGesture(gesture: TAvatarGesture, intensity = 1) {
    this.gestureAsk = { gesture, intensity: Math.min(1, Math.max(0, intensity)) };
  }

  /** Advances to `nowMs` with these speech weights (null: not speaking). */
  update(nowMs: number, speech: Float32Array | null, pose: Pose): FaceState {
    const s = this.state;
    const dt = this.last < 0 ? 16 : Math.min(100, Math.max(0, nowMs - this.last));
    this.last = nowMs;
    const r = this.random;

    // Mood and gesture (avatar actions): started here, in the frame's time.
    if (this.moodAsk) {
      const ask = this.moodAsk;
      this.moodAsk = null;
      if (ask.mood !== s.mood) s.moodWeight = 0;
      s.mood = ask.mood;
      this.moodTarget = ask.mood === 'neutral' ? 0 : ask.intensity;
      this.moodUntil = ask.durationMs === null ? null : nowMs + ask.durationMs;
    }
    if (this.moodUntil !== null && nowMs >= this.moodUntil) {
      this.moodUntil = null;
      this.moodTarget = 0;
    }
    s.moodWeight = approach(s.moodWeight, this.moodTarget, dt, 350);
    if (this.moodTarget === 0 && s.moodWeight < 0.01) {
      s.mood = 'neutral';
      s.moodWeight = 0;
    }
    if (this.gestureAsk) {
      const was = this.gesturePlay;
      if (was && nowMs - was.start < GESTURE_MS[was.gesture]) {
        // Cut short: held where it was while the new one takes over (a blend of the two already
        // under way is cut at the pose it had reached: its newer gesture is the one held).
        s.gestureFrom = { gesture: was.gesture, progress: (nowMs - was.start) / GESTURE_MS[was.gesture], intensity: was.intensity };
      } else s.gestureFrom = null;
      this.gesturePlay = { ...this.gestureAsk, start: nowMs };
      this.gestureAsk = null;
    }
    if (this.gesturePlay && nowMs - this.gesturePlay.start > GESTURE_MS[this.gesturePlay.gesture]) this.gesturePlay = null;
    s.gesture = this.gesturePlay?.gesture ?? null;
    s.gestureProgress = this.gesturePlay ? Math.min(1, (nowMs - this.gesturePlay.start) / GESTURE_MS[this.gesturePlay.gesture]) : 0;
    s.gestureIntensity = this.gesturePlay?.intensity ?? 0;
    s.gestureBlend = this.gesturePlay && s.gestureFrom ? Math.min(1, (nowMs - this.gesturePlay.start) / GESTURE_BLEND_MS) : 1;
    if (s.gestureBlend >= 1) s.gestureFrom = null;

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

    // A new pose starts its own rhythm.
    if (pose !== this.lastPose) {
      this.lastPose = pose;
      this.nextSaccade = nowMs;
      this.awayUntil = -1;
      // Speaking often starts with a glance away; listening nods only after a little while.
      this.nextAway = nowMs + (r() < 0.6 ? 150 : 1500 + r() * 2000);
      this.nextNod = nowMs + 1500 + r() * 2500;
    }

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

    // Gaze. Listening: on the visitor. Thinking: up and aside, held. Speaking: on the visitor,
    // leaving now and then for 0.4–1.2 s. Idle: wandering saccades.
    if (pose === 'speaking') {
      if (this.awayUntil < 0 && nowMs >= this.nextAway) {
        this.awayUntil = nowMs + 400 + r() * 800;
        const side = r() < 0.5 ? -1 : 1;
        this.gaze = { yaw: side * (0.1 + r() * 0.08), pitch: (r() < 0.5 ? -0.05 : 0.06) + (r() - 0.5) * 0.04 };
      } else if (this.awayUntil >= 0 && nowMs >= this.awayUntil) {
        this.awayUntil = -1;
        this.nextAway = nowMs + 2500 + r() * 2500;
        this.gaze = { yaw: 0, pitch: 0 };
      }
    } else if (nowMs >= this.nextSaccade) {
      if (pose === 'listening') this.gaze = { yaw: (r() - 0.5) * 0.03, pitch: (r() - 0.5) * 0.02 };
      else if (pose === 'thinking') this.gaze = { yaw: (r() < 0.5 ? -1 : 1) * (0.1 + r() * 0.06), pitch: 0.1 + r() * 0.05 };
      else this.gaze = { yaw: (r() - 0.5) * 0.18, pitch: (r() - 0.5) * 0.09 };
      this.nextSaccade = nowMs + (pose === 'listening' ? 2500 : pose === 'thinking' ? 1800 : 500) + r() * 2500;
    }
    // Micro-saccades: tiny jumps (≈ 0.3°) every 0.25–0.6 s whatever the gaze (eyes are never
    // frozen), each to the other side of the fixation point from the last.
    if (nowMs >= this.nextMicro) {
      this.microAngle += Math.PI / 2 + r() * Math.PI;
      this.micro = { yaw: 0.005 * Math.cos(this.microAngle), pitch: 0.004 * Math.sin(this.microAngle) };
      this.nextMicro = nowMs + 250 + r() * 350;
    }
    const mood = s.moodWeight;
    // A thinking mood looks up, as the thinking pose does.
    const moodGaze = s.mood === 'thinking' ? 0.1 * mood : 0;
    this.eyeYaw = approach(this.eyeYaw, this.gaze.yaw + this.micro.yaw, dt, 25);
    s.eyeYaw = this.eyeYaw;
    s.eyePitch = approach(s.eyePitch, this.gaze.pitch + this.micro.pitch + moodGaze, dt, 25);

    // Speaking beats: a stressed syllable opens the mouth well above its recent level.
    this.jawLevel = approach(this.jawLevel, s.jaw, dt, 600);
    const rising = s.jaw - this.jawBefore;
    this.jawBefore = s.jaw;
    if (pose === 'speaking' && s.jaw > 0.3 && rising > 0 && s.jaw > this.jawLevel * 1.3 + 0.08 && nowMs - this.beatStart > 380) this.beatStart = nowMs;
    const sinceBeat = nowMs - this.beatStart;
    // A quick rise and a slower fall (about 0.4 s in all).
    const beat = pose === 'speaking' && sinceBeat < 450 ? (sinceBeat < 90 ? sinceBeat / 90 : Math.exp(-(sinceBeat - 90) / 140)) : 0;

    // Listening nods: small, now and then.
    if (pose === 'listening' && nowMs >= this.nextNod) {
      this.nodStart = nowMs;
      this.nextNod = nowMs + 2500 + r() * 3500;
    }
    const sinceNod = nowMs - this.nodStart;
    const listenNod = pose === 'listening' && sinceNod < 700 ? 0.045 * Math.sin((Math.PI * sinceNod) / 700) : 0;

    // Head: slow sway (sum of incommensurate sines), livelier while speaking; it follows the gaze a little.
    const t = nowMs / 1000;
    const sway = pose === 'speaking' ? 1.8 : pose === 'listening' ? 0.7 : 1;
    const speak = pose === 'speaking' ? this.speechEnergy : 0;
    const yaw = sway * 0.035 * Math.sin(t * 0.53) + 0.015 * Math.sin(t * 1.37 + 1) + this.gaze.yaw * 0.3;
    const pitch = sway * 0.02 * Math.sin(t * 0.71 + 2) + speak * 0.03 * Math.sin(t * 5.1) - (pose === 'listening' ? 0.03 : pose === 'thinking' ? -0.04 : 0) + this.gaze.pitch * 0.2;
    const roll = sway * 0.015 * Math.sin(t * 0.43 + 4) + (pose === 'listening' ? 0.06 : pose === 'thinking' ? -0.05 : 0);
    this.head.yaw = approach(this.head.yaw, yaw, dt, 200);
    this.head.pitch = approach(this.head.pitch, pitch, dt, 150);
    this.head.roll = approach(this.head.roll, roll + (s.mood === 'thinking' ? 0.05 * mood : 0), dt, 400);
    const nod = listenNod + beat * 0.035;
    const g = this.gesturePlay ? gestureMotion(this.gesturePlay.gesture, (nowMs - this.gesturePlay.start) / GESTURE_MS[this.gesturePlay.gesture], this.gesturePlay.intensity) : NO_MOTION;
    s.headYaw = this.head.yaw + g.yaw;
    s.headPitch = this.head.pitch + nod + g.pitch;
    s.headRoll = this.head.roll + g.roll;
    s.eyeYaw += g.eyeYaw;

    // Expression: attentive when listening (a slight smile, brows up a little), brows drawn and no
    // smile when thinking, brows that lift on each beat when speaking; a mood (avatar actions)
    // moves the same smile and brows, as far as its weight.
    const poseSmile = pose === 'listening' ? 0.35 : pose === 'speaking' ? 0.12 : pose === 'thinking' ? 0.04 : 0.2;
    const poseBrow = pose === 'speaking' ? Math.min(0.6, speak * 0.4 + beat * 0.45) : pose === 'listening' ? 0.2 : 0;
    const [smile, brow] = moodFace(s.mood, mood, poseSmile, poseBrow);
    s.smile = approach(s.smile, smile, dt, 400);
    // The shrug's brow lift goes on top, not back into the eased value (as the gestures' head motion).
    this.brow = approach(this.brow, brow, dt, pose === 'speaking' ? 60 : 200);
    s.browUp = liftBrows(this.brow, g.brow);
    s.breath = Math.sin(t * 2 * Math.PI * 0.22);

    // Weight shift: every 6–14 s the body settles to a new lean, slowly.
    if (nowMs >= this.nextShift) {
      this.leanTarget = (r() - 0.5) * 0.05;
      this.nextShift = nowMs + 6000 + r() * 8000;
    }
    s.lean = approach(s.lean, this.leanTarget, dt, 1200);
    return s;
  }
}

/** A mood's smile and brows at `weight`, from the pose's own. */
function moodFace(mood: TAvatarMood, weight: number, smile: number, brow: number): [number, number] {
  const mix = (from: number, to: number) => from + (to - from) * weight;
  switch (mood) {
    case 'happy':
      return [mix(smile, 0.9), mix(brow, Math.max(brow, 0.2))];
    case 'sad':
      return [mix(smile, 0), mix(brow, 0.55)];
    case 'surprised':
      return [mix(smile, 0.1), mix(brow, 1)];
    case 'concerned':
      return [mix(smile, 0.02), mix(brow, 0.6)];
    case 'thinking':
      return [mix(smile, 0.08), mix(brow, 0.3)];
    case 'neutral':
      return [smile, brow];
  }
}
