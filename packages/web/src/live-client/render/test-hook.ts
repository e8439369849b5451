import type { EchoStats } from '@persona/contract/echo-filter';
import type { TAvatarAction, TAvatarGesture, TAvatarMood } from '@persona/contract';
import { gestureMotion, liftBrows, type FaceState, type Pose } from './face-driver';
import { VISEMES, jawOpenOf } from './visemes';

/**
 * `window.__personaAvatar`: what the avatar is doing, readable by tests and benchmarks (and by
 * anyone curious; it holds nothing private). Updated each frame; `history` keeps the last few
 * seconds of mouth openness against the audio clock, and `probe()` starts measuring the level
 * of the audio actually heard so the two can be compared.
 */
export interface AvatarProbe {
  kind: string;
  renderer: 'portrait' | 'photo' | 'three' | 'dom' | 'loading';
  frames: number;
  firstFrameAt: number | null;
  fps: number;
  /**
   * The fraction of its pixel ratio the renderer draws at (render-scale.ts: lowered while frames
   * are slow; 1 for renderers without it, and while a face is held).
   */
  renderScale: number;
  speaking: boolean;
  viseme: string;
  mouthOpen: number;
  weights: Record<string, number>;
  targets: Record<string, number>;
  /** The largest value each model target reached since the page loaded (a short word is over between two polls). */
  targetPeaks: Record<string, number>;
  audio: { utt: number; ms: number } | null;
  route: string | null;
  lipSync: 'timeline' | 'audio' | 'none';
  history: { t: number; open: number; utt: number | null; ms: number | null }[];
  levels: { t: number; rms: number }[];
  /** The mood the face shows (avatar actions) and its weight now, the gesture playing. */
  mood: TAvatarMood;
  moodWeight: number;
  gesture: TAvatarGesture | null;
  /** The model's own clips playing now (`<trl-anim>` on an uploaded model). */
  clips: string[];
  /** The page's own echo canceller on the mic (ADR 108), while it runs: its last figures. */
  micEcho: EchoStats | null;
  /** The last avatar actions done, in order (`t`: the page's clock); those not drawn yet are here too. */
  actions: { t: number; action: TAvatarAction }[];
  /** The pose the face is drawn in, and the last few seconds of head, eye, brow and blink motion (radians; 0–1). */
  pose: Pose;
  motion: { t: number; pose: Pose; headYaw: number; headPitch: number; headRoll: number; eyeYaw: number; eyePitch: number; brow: number; blink: number }[];
  probe?: () => void;
  /** Holds the face (a viseme at full weight, a blink weight, a mood) until called with null: for screenshots and checks. */
  hold?: (hold: FaceHold | null) => void;
  error: string | null;
}

export interface FaceHold {
  viseme?: string;
  blink?: number;
  mood?: TAvatarMood;
  /** How strongly a held still shows its mood (0–1 of a full mood; 1 by default): a card's light smile. */
  moodStrength?: number;
  eyeYaw?: number;
  eyePitch?: number;
  /** Head, gaze, breathing, weight shift and expression at rest (stills to compare, the same bytes each time). */
  still?: boolean;
  /** A gesture held at `gestureProgress` (0–1; 0.5 by default) at full intensity: arms, head, eyes and brows. */
  gesture?: TAvatarGesture;
  gestureProgress?: number;
  /**
   * The render scale held meanwhile (render-scale.ts): 1 unless given, so that stills compare at
   * full resolution whatever the machine's frame rate; the floor (0.72) to see what a slow machine shows.
   */
  renderScale?: number;
}

/** Overrides the frame's face with a held one (the driver's own state: it relaxes back when released). */
export function holdFace(face: FaceState, hold: FaceHold) {
  const k = hold.viseme ? VISEMES.indexOf(hold.viseme as (typeof VISEMES)[number]) : -1;
  if (k >= 0) {
    face.visemes.fill(0);
    face.visemes[k] = 1;
    face.jaw = jawOpenOf[VISEMES[k]!];
  }
  if (hold.blink !== undefined) face.blinkLeft = face.blinkRight = Math.min(1, Math.max(0, hold.blink));
  if (hold.still) {
    face.headYaw = face.headPitch = face.headRoll = face.eyeYaw = face.eyePitch = face.breath = face.lean = 0;
    // The expression too (the driver eases it over ~0.4 s): a still is the same whatever the frame timing.
    face.mood = hold.mood ?? 'neutral';
    const strength = Math.min(1, Math.max(0, hold.moodStrength ?? 1));
    face.moodWeight = face.mood === 'neutral' ? 0 : 0.7 * strength;
    face.smile = 0.2 + ((face.mood === 'happy' ? 0.69 : face.mood === 'neutral' ? 0.2 : 0.05) - 0.2) * strength;
    face.browUp = (face.mood === 'surprised' ? 0.8 : face.mood === 'sad' || face.mood === 'concerned' ? 0.45 : 0) * strength;
  }
  if (hold.gesture) {
    const u = Math.min(1, Math.max(0, hold.gestureProgress ?? 0.5));
    Object.assign(face, { gesture: hold.gesture, gestureProgress: u, gestureIntensity: 1, gestureFrom: null, gestureBlend: 1 });
    const m = gestureMotion(hold.gesture, u, 1);
    face.headYaw += m.yaw;
    face.headPitch += m.pitch;
    face.headRoll += m.roll;
    face.eyeYaw += m.eyeYaw;
    face.browUp = liftBrows(face.browUp, m.brow);
  }
  if (hold.eyeYaw !== undefined) face.eyeYaw = hold.eyeYaw;
  if (hold.eyePitch !== undefined) face.eyePitch = hold.eyePitch;
}

const HISTORY = 1200;

export function createProbe(kind: string): AvatarProbe {
  const probe: AvatarProbe = {
    kind,
    renderer: 'loading',
    frames: 0,
    firstFrameAt: null,
    fps: 0,
    renderScale: 1,
    speaking: false,
    viseme: 'sil',
    mouthOpen: 0,
    weights: {},
    targets: {},
    targetPeaks: {},
    audio: null,
    route: null,
    lipSync: 'none',
    history: [],
    levels: [],
    mood: 'neutral',
    moodWeight: 0,
    gesture: null,
    actions: [],
    clips: [],
    pose: 'idle',
    motion: [],
    error: null,
    micEcho: null,
  };
  (window as unknown as { __personaAvatar: AvatarProbe }).__personaAvatar = probe;
  return probe;
}

let fpsWindow: number[] = [];

export function recordFrame(probe: AvatarProbe, now: number, face: FaceState, targets: ReadonlyMap<string, number>, audio: { utt: number; ms: number } | null, pose: Pose = 'idle') {
  probe.frames++;
  probe.firstFrameAt ??= now;
  fpsWindow.push(now);
  while (fpsWindow.length && now - fpsWindow[0]! > 1000) fpsWindow.shift();
  probe.fps = fpsWindow.length;
  let best = 0;
  const weights: Record<string, number> = {};
  for (let k = 0; k < VISEMES.length; k++) {
    const w = face.visemes[k]!;
    if (w > 0.001) weights[VISEMES[k]!] = Math.round(w * 1000) / 1000;
    if (k > 0 && w > face.visemes[best]!) best = k;
  }
  probe.weights = weights;
  probe.viseme = best === 0 || face.visemes[best]! < 0.05 ? 'sil' : VISEMES[best]!;
  probe.mouthOpen = Math.round(face.jaw * 1000) / 1000;
  probe.targets = Object.fromEntries([...targets].map(([k, v]) => [k, Math.round(v * 1000) / 1000]));
  for (const [k, v] of Object.entries(probe.targets)) if (v > (probe.targetPeaks[k] ?? 0)) probe.targetPeaks[k] = v;
  probe.speaking = face.speaking;
  probe.mood = face.mood;
  probe.moodWeight = Math.round(face.moodWeight * 1000) / 1000;
  probe.gesture = face.gesture;
  probe.audio = audio;
  probe.history.push({ t: now, open: probe.mouthOpen, utt: audio?.utt ?? null, ms: audio ? Math.round(audio.ms) : null });
  if (probe.history.length > HISTORY) probe.history.splice(0, probe.history.length - HISTORY);
  probe.pose = pose;
  const r = (x: number) => Math.round(x * 10_000) / 10_000;
  probe.motion.push({ t: now, pose, headYaw: r(face.headYaw), headPitch: r(face.headPitch), headRoll: r(face.headRoll), eyeYaw: r(face.eyeYaw), eyePitch: r(face.eyePitch), brow: r(face.browUp), blink: r(Math.max(face.blinkLeft, face.blinkRight)) });
  if (probe.motion.length > HISTORY) probe.motion.splice(0, probe.motion.length - HISTORY);
}

export function resetFps() {
  fpsWindow = [];
}

const ACTIONS = 20;

/** An avatar action done now (every kind, drawn or not). */
export function recordAction(probe: AvatarProbe, now: number, action: TAvatarAction) {
  probe.actions.push({ t: now, action });
  if (probe.actions.length > ACTIONS) probe.actions.splice(0, probe.actions.length - ACTIONS);
}
